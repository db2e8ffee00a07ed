"""bench/benchlib.py — what the benchmark scripts share: the machine's name for their output."""
import os, platform, subprocess


def machine():
    """CPU model and logical CPU count, as the scripts' output names the machine."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name"))
    except Exception:
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} logical CPUs"
