#!/usr/bin/env python3
"""gen-docs.py TRAWL OUTDIR — the man page and shell completions of the trawl CLI, from its --help.

Runs `TRAWL --help`, then `TRAWL CMD... --help` for every subcommand that a help's "Subcommands:"
section lists (recursively), parses CLI11's help layout, and writes
  OUTDIR/trawl.1     roff man page (man(7) macros)
  OUTDIR/trawl.bash  bash completion (complete -F _trawl trawl)
  OUTDIR/_trawl      zsh completion (#compdef trawl, _arguments)
  OUTDIR/trawl.fish  fish completion (complete -c trawl ...)
Nothing but the help text goes in, so the documents follow the CLI. Exceptions, which
tests/cli/docs_test.sh checks against the binary and the sources: EXIT STATUS and ENVIRONMENT.
An option's fixed set of values (completed by the shells) comes from CLI11's `TYPE:{a,b,c}`, else
from its description: `a|b|c` runs (lower-case words only: `gpu:N[,N...]` is a placeholder), or a
description ending in `label: a (note), b, c`.
Python 3 standard library only. SOURCE_DATE_EPOCH, when set, dates the man page.
"""

import datetime
import os
import re
import subprocess
import sys
import tempfile

PROG = "trawl"
SECTION_RE = re.compile(r"^([A-Z][A-Za-z ]*):$")
FLAGS_RE = re.compile(r"^(-{1,2}[^\s,]+(?:,\s*-{1,2}[^\s,]+)*)(.*)$")  # "-n,--line-number,--lines TYPE"
NUMERIC_TYPES = {"INT", "UINT", "FLOAT", "NUMBER", "POSITIVE", "NONNEGATIVE"}


def die(msg):
    print(f"gen-docs: {msg}", file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------------------------
# help parsing


class Entry:
    """One line (and its continuation lines) of a help section: an option, positional or subcommand."""

    def __init__(self, head):
        self.head = head  # the left column, e.g. "-k,--max-errors INT:INT"
        self.desc = []  # description lines, extra indentation kept (relative to the column)
        self.flags = []  # options: "-k", "--max-errors"; positionals, subcommands: the name
        self.type = ""  # the rest of the left column: "INT:INT", "TEXT:{a,b}=a", "TEXT ... REQUIRED"
        self.choices = []  # a fixed set of values, when the help lists one

    @property
    def text(self):
        return " ".join(" ".join(self.desc).split())

    @property
    def takes_value(self):
        return bool(self.base_type)

    @property
    def base_type(self):
        t = self.type.split()
        return t[0].split(":")[0] if t and t[0] not in ("REQUIRED", "...") else ""

    @property
    def numeric(self):
        return self.base_type in NUMERIC_TYPES

    @property
    def multi(self):
        return "..." in self.type.split()

    @property
    def required(self):
        return "REQUIRED" in self.type.split()

    @property
    def default(self):
        m = re.search(r"(?:^|[}\s:A-Z])=(\S+)", self.type)
        return m.group(1) if m else ""

    @property
    def range(self):
        m = re.search(r"\bin (\[[^\]]*\])", self.type)
        return m.group(1) if m else ""


class Command:
    def __init__(self, path, text):
        self.path = path  # [] for trawl itself, ["index", "build"], ...
        self.description = []  # lines before "Usage:"
        self.usage = ""
        self.positionals = []
        self.options = []
        self.subcommands = []  # Entry per subcommand line
        self.children = []  # Command per subcommand
        self.footer = []  # lines after the sections
        self._parse(text)

    @property
    def key(self):
        return " ".join(self.path)

    @property
    def name(self):
        return " ".join([PROG] + self.path)

    def _parse(self, text):
        lines = [l.rstrip() for l in text.expandtabs().split("\n")]
        u = next((i for i, l in enumerate(lines) if l.startswith("Usage: ")), None)
        if u is None:
            die(f"`{self.name} --help`: no 'Usage:' line")
        self.description = trim_blank(lines[:u])
        self.usage = lines[u][len("Usage: "):].strip()
        col = description_column(lines)
        i = u + 1
        while i < len(lines):
            if not lines[i]:
                i += 1
                continue
            m = SECTION_RE.match(lines[i])
            if not (m and i + 1 < len(lines) and lines[i + 1].startswith("  ")):
                self.footer = trim_blank(lines[i:])
                break
            i += 1
            block = []
            while i < len(lines) and lines[i].startswith("  "):
                block.append(lines[i])
                i += 1
            entries = parse_entries(block, col)
            section = m.group(1).lower()
            if section == "subcommands":
                for e in entries:
                    e.flags = [e.head.split()[0]]
                self.subcommands += entries
            elif section == "positionals":
                for e in entries:
                    e.flags = [e.head.split()[0]]
                    e.type = " ".join(e.head.split()[1:])
                self.positionals += entries
            else:  # "Options" or a CLI11 option group
                for e in entries:
                    m = FLAGS_RE.match(e.head)
                    if not m:
                        die(f"`{self.name} --help`: cannot read the option {e.head!r}")
                    e.flags = [f.strip() for f in m.group(1).split(",")]
                    e.type = m.group(2).strip()
                    e.choices = value_set(e)
                self.options += entries


def trim_blank(lines):
    lines = list(lines)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def description_column(lines):
    """The column where CLI11 starts descriptions (its column width: 30 unless changed)."""
    counts = {}
    for l in lines:
        m = re.match(r"^  (\S.*?\S)( {2,})(\S)", l)
        if m:
            counts[m.start(3)] = counts.get(m.start(3), 0) + 1
    return max(counts, key=lambda c: (counts[c], -c)) if counts else 30


def balanced(s):
    return s.count("[") == s.count("]") and s.count("{") == s.count("}") and s.count("(") == s.count(")")


def parse_entries(block, col):
    """CLI11's format_help: "  NAME" padded to col, then the description; a NAME of col or more
    characters stands alone and the description starts on the next line, indented by col."""
    entries = []
    for l in block:
        indent = len(l) - len(l.lstrip(" "))
        if indent >= col and entries:
            entries[-1].desc.append(l[col:])
            continue
        if indent != 2 and entries:  # not CLI11's layout: keep it as description
            entries[-1].desc.append(l.strip())
            continue
        left = l[:col].rstrip()
        # a name of exactly col - 1 characters has a one-space gap; a longer one with a space at
        # col - 1 stands alone: its brackets ("in [1 - 4096]") are cut open there
        if len(l) > col and l[col] != " " and l[col - 1] == " " and balanced(left):
            e = Entry(left.strip())
            e.desc.append(l[col:])
        else:
            e = Entry(l.strip())
        entries.append(e)
    return entries


LIST_ITEM = r"[a-z0-9][a-z0-9_.:+-]*(?:\s+\([^()]*\))?"
LIST_RE = re.compile(rf":\s+({LIST_ITEM}(?:,\s+{LIST_ITEM})+)\s*(?:\)|$)")
VALUE_RE = re.compile(r"^[a-z0-9][a-z0-9_.:+-]*$")


def value_set(e):
    """The values an option takes, when its help lists them; [] otherwise."""
    if not e.takes_value:
        return []
    m = re.search(r"\{([^{}]*)\}", e.type)
    if m:
        return [v.strip() for v in m.group(1).split(",") if v.strip()]
    values = []
    for word in e.text.split():  # a|b|c
        if "|" in word:
            parts = word.strip(".,;()").split("|")
            ok = [p for p in parts if VALUE_RE.match(p)]
            if len(ok) >= 2:
                values += ok
    for m in LIST_RE.finditer(e.text):  # label: a (note), b, c
        values += [re.sub(r"\s*\(.*", "", item).strip() for item in m.group(1).split(",")]
    seen = set()
    return [v for v in values if not (v in seen or seen.add(v))]


def run_help(binary, path):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    try:
        r = subprocess.run([binary, *path, "--help"], capture_output=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as ex:
        die(f"cannot run {binary}: {ex}")
    if r.returncode != 0:
        die(f"`{' '.join([PROG, *path, '--help'])}` exited {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
    return r.stdout.decode("utf-8", errors="replace")


def load(binary, path=()):
    cmd = Command(list(path), run_help(binary, list(path)))
    for sub in cmd.subcommands:
        if len(path) > 8:
            die("subcommands nested too deep")
        cmd.children.append(load(binary, [*path, sub.flags[0]]))
    return cmd


def walk(cmd):
    yield cmd
    for c in cmd.children:
        yield from walk(c)


def summary(cmd_or_lines):
    """The first sentence of a description."""
    lines = cmd_or_lines.description if isinstance(cmd_or_lines, Command) else cmd_or_lines
    para = []
    for l in lines:
        if not l.strip() or l.startswith(" "):
            break
        para.append(l.strip())
    text = " ".join(para)
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)\.(\s|$)", text)
    return text[: m.start() + 1] if m else text


def short(text, n=90):
    """A completion description: one line, at most about n characters."""
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    cut = text.rfind(" ", 0, n - 3)
    return text[: cut if cut > 20 else n - 3].rstrip(" ,;:(") + "..."


# ---------------------------------------------------------------------------------------------
# roff


OPTION_WORD_RE = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")


def esc(s):
    """Roff-escape a piece of text (not a macro argument): backslashes, quotes, non-ASCII, and
    hyphens: \\- (a minus, copy-pastable) in option names and everywhere except inside words."""
    minus = set()
    for m in OPTION_WORD_RE.finditer(s):
        minus.update(i for i in range(m.start(), m.end()) if s[i] == "-")
    breaks = set()  # \: (a break point) in long words, after a | , / or >
    for m in re.finditer(r"\S{31,}", s):
        breaks.update(i for i in range(m.start(), m.end() - 1) if s[i] in "|,/>")
    out = []
    for i, ch in enumerate(s):
        if i - 1 in breaks:
            out.append("\\:")
        if ch == "\\":
            out.append("\\(rs")
        elif ch == "-":
            inner = 0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()
            out.append("-" if inner and i not in minus else "\\-")
        elif ch == "'":
            out.append("\\(aq")
        elif ch == "`":
            out.append("\\(ga")
        elif ch == "\u2014":
            out.append("\\(em")
        elif ch == "\u2013":
            out.append("\\(en")
        elif ord(ch) > 126 or (ord(ch) < 32 and ch != "\t"):
            out.append(f"\\[u{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def line(s):
    """A roff text line: never starting with a control character or a space."""
    s = s.lstrip()
    return "\\&" + s if s.startswith((".", "'")) else s


def bold(s):
    return f"\\fB{esc(s)}\\fR"


def italic(s):
    return f"\\fI{esc(s)}\\fR"


def block(lines, first_para=".PP", next_para=".PP"):
    """Help text as roff: lines at the left margin are filled into paragraphs (blank lines part
    them); indented lines are kept as they are, indented."""
    out = []
    para_started = False
    i = 0
    lines = trim_blank(lines)
    while i < len(lines):
        l = lines[i]
        if not l.strip():
            para_started = False
            i += 1
            continue
        if not para_started:
            out.append(first_para if not out else next_para)
            para_started = True
        if l.startswith(" "):
            pre = []
            while i < len(lines) and lines[i].startswith(" "):
                pre.append(lines[i])
                i += 1
            base = min(len(p) - len(p.lstrip(" ")) for p in pre)
            out += [".RS 2", ".nf"]
            out += [line("\\&" + esc(p[base:]) if p[base:].startswith(" ") else esc(p[base:])) for p in pre]
            out += [".fi", ".RE"]
            continue
        out.append(line(esc(l)))
        i += 1
    return [o for o in out if o is not None and o != ""]


def usage_roff(cmd):
    words = cmd.usage.split()
    n = len(cmd.path) + 1
    if [w.rsplit("/", 1)[-1] for w in words[:1]] + words[1:n] != [PROG] + cmd.path:
        print(f"gen-docs: warning: unexpected usage line {cmd.usage!r}", file=sys.stderr)
    rest = " ".join(words[n:])
    parts = re.split(r"([A-Za-z_][\w-]*)", rest)
    body = "".join(italic(p) if k % 2 else esc(p) for k, p in enumerate(parts))
    return line(f"{bold(cmd.name)} {body}".rstrip())


def option_head(e):
    head = ", ".join(bold(f) for f in e.flags)
    if e.takes_value:
        head += " " + (esc("{" + "|".join(e.choices) + "}") if "{" in e.type else italic(e.base_type))
        head += " ..." if e.multi else ""
    return line(head)


def option_notes(e):
    notes = []
    if e.range:
        notes.append(f"Range: {e.range}.")
    if e.default and "default" not in e.text.lower():
        notes.append(f"Default: {e.default}.")
    if e.required:
        notes.append("Required.")
    return notes


def command_section(cmd):
    out = [f'.SS "{cmd.name}"']
    out += block(cmd.description)
    out += [".PP", usage_roff(cmd)]
    if cmd.positionals:
        out += [".PP", "Arguments:"]
        for p in cmd.positionals:
            head = italic(p.flags[0]) + (" ..." if p.multi else "")
            out += [".TP", line(head)]
            out += [line(esc(" ".join([p.text] + (["(required)"] if p.required else [])))) or "\\&"]
    opts = [o for o in cmd.options if "--help" not in o.flags]
    if opts:
        out += [".PP", "Options:"]
        for o in opts:
            out += [".TP", option_head(o)]
            out += block(o.desc, first_para=None, next_para=".IP") or [line("\\&")]
            notes = option_notes(o)
            if notes:
                out += [".br", line(esc(" ".join(notes)))]
    if cmd.subcommands:
        out += [".PP", "Commands:"]
        for s in cmd.subcommands:
            out += [".TP", line(bold(s.flags[0])), line(esc(summary(s.desc)))]
    if cmd.footer:
        out += block(cmd.footer)
    return [o for o in out if o is not None]


def man_page(root, version):
    date = ""
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        t = datetime.datetime.fromtimestamp(int(os.environ["SOURCE_DATE_EPOCH"]), datetime.timezone.utc)
        date = t.strftime("%Y-%m-%d")
    title = " ".join(root.description).strip()
    m = re.match(rf"^{PROG}\s*(?:\u2014|--|-|:)\s*(.*)$", title)
    oneliner = m.group(1) if m else title
    out = [
        f".\\\" Generated by scripts/gen-docs.py from `{PROG} --help`: do not edit.",
        f'.TH {PROG.upper()} 1 "{date}" "{esc(version)}" "User Commands"',
        ".SH NAME",
        line(f"{esc(PROG)} \\- {esc(oneliner)}"),
        ".SH SYNOPSIS",
    ]
    leaves = [c for c in walk(root) if not c.children]
    for k, c in enumerate(leaves):
        out += [".PP" if k == 0 else ".br", usage_roff(c)]
    out += [".br", usage_roff(root), ".SH DESCRIPTION", ".PP"]
    out.append(line(esc(oneliner[:1].upper() + oneliner[1:]) + ("" if oneliner.endswith(".") else ".")))
    out.append(line(f"The commands of {bold(PROG)}, each described under"))
    out += [".B COMMANDS", "below:"]
    for c in walk(root):
        if c.path:
            out += [".TP", line(bold(c.name)), line(esc(summary(c)))]
    out += [".SH OPTIONS"]
    out += [".PP", line(f"Options of {bold(PROG)} itself; every command also takes {bold('-h')}, {bold('--help')}.")]
    for o in root.options:
        out += [".TP", option_head(o)] + (block(o.desc, first_para=None, next_para=".IP") or [line("\\&")])
    out += [".SH COMMANDS"]
    for c in walk(root):
        if c.path:
            out += command_section(c)
    out += EXIT_STATUS + ENVIRONMENT
    out += [".SH SEE ALSO", line(f"{bold('grep')}(1), {bold('rg')}(1)")]
    return "\n".join(out) + "\n"


# Not in the help text: tests/cli/docs_test.sh checks these against the binary and the sources.
EXIT_STATUS = [
    ".SH EXIT STATUS",
    ".TP",
    ".B 0",
    line(esc("A hit: search (also with --index), offtarget, index count and index locate found "
             "at least one occurrence. Success: best, index build, info, extract, verify, --help, --version.")),
    ".TP",
    ".B 1",
    line(esc("No hit: search, offtarget, index count or index locate found nothing.")),
    ".TP",
    ".B 2",
    line(esc("An error: a bad command line, an input that cannot be read, a bad index file "
             "(index verify: an inconsistent index).")),
]
ENVIRONMENT = [
    ".SH ENVIRONMENT",
    ".TP",
    ".B NO_COLOR",
    line(esc("When set (to anything), search --color=auto, the default, does not colour the output.")),
    ".TP",
    line(f"{bold('OMPI_COMM_WORLD_SIZE')}, {bold('PMIX_RANK')}, {bold('PMI_RANK')}"),
    line(esc("Set by mpirun or srun: trawl, when built with MPI, runs as one rank of a job that "
             "spreads the work over processes and hosts; rank 0 prints the output.")),
    ".TP",
    ".B OMPI_COMM_WORLD_LOCAL_SIZE",
    line(esc("The ranks on this host: without -j and without a CPU binding, a rank takes this "
             "share of the host's cores.")),
    ".TP",
    ".B TMPDIR",
    line(esc("Where index locate and search --index sort an answer of more than 4 Mi occurrences "
             "in runs through an unlinked temporary file (default /tmp).")),
]


# ---------------------------------------------------------------------------------------------
# bash


def sq(s):
    """A shell single-quoted word (bash, zsh)."""
    return "'" + s.replace("'", "'\\''") + "'"


def bash_completion(root):
    spec, values = [], []
    for c in walk(root):
        opts = [f for o in c.options for f in o.flags]
        argopts = [f for o in c.options if o.takes_value for f in o.flags]
        subs = [s.flags[0] for s in c.subcommands]
        spec.append(f"    {sq(c.key)}) subs={sq(' '.join(subs))} opts={sq(' '.join(opts))} argopts={sq(' '.join(argopts))} ;;")
        for o in c.options:
            if o.choices:
                pats = "|".join(sq(f"{c.key} {f}") for f in o.flags)
                values.append(f"    {pats}) echo {sq(' '.join(o.choices))} ;;")
    return BASH_TEMPLATE.replace("@SPEC@", "\n".join(spec)).replace("@VALUES@", "\n".join(values))


BASH_TEMPLATE = r"""# bash completion for trawl(1)
# Generated by scripts/gen-docs.py from `trawl --help`: do not edit.
# shellcheck shell=bash disable=SC2207

# _trawl_spec KEY: the subcommands (subs), options (opts) and options that take a value (argopts)
# of the command KEY ('' for trawl itself, 'index build', ...)
_trawl_spec() {
    case $1 in
@SPEC@
    *) subs='' opts='' argopts='' ;;
    esac
}

# _trawl_values KEY OPTION: the values OPTION takes, when the help lists them
_trawl_values() {
    case "$1 $2" in
@VALUES@
    esac
}

_trawl() {
    local cur=${COMP_WORDS[COMP_CWORD]} key='' subs opts argopts w i j skip=0
    COMPREPLY=()
    _trawl_spec ''
    # the command: the words before the cursor, descending into subcommands; an option's value
    # is skipped ("-o FILE", "--color = auto" and "gpu : all" as COMP_WORDBREAKS splits them)
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((skip)); then skip=0; continue; fi
        case $w in
        = | :) skip=1; continue ;;
        -*)
            [[ " $argopts " == *" $w "* && ${COMP_WORDS[i + 1]} != = ]] && skip=1
            continue ;;
        esac
        if [[ " $subs " == *" $w "* ]]; then
            key=${key:+$key }$w
            _trawl_spec "$key"
        fi
    done

    # the word being completed, whole again where COMP_WORDBREAKS cut it at ':' (gpu:all)
    local full=$cur opt='' val prefix=''
    j=$COMP_CWORD
    while ((j > 2)) && [[ ${COMP_WORDS[j]} == : || ${COMP_WORDS[j - 1]} == : ]]; do
        full=${COMP_WORDS[j - 1]}$full
        ((j--))
    done
    val=$full
    if [[ $full == = ]]; then                       # --color=<TAB>
        opt=${COMP_WORDS[j - 1]} val=''
    elif [[ ${COMP_WORDS[j - 1]} == = ]]; then      # --color=al<TAB>
        opt=${COMP_WORDS[j - 2]}
    elif [[ $full == --*=* ]]; then                 # '=' not in COMP_WORDBREAKS
        opt=${full%%=*} val=${full#*=} prefix=$opt=
    elif [[ ${COMP_WORDS[j - 1]} == -* ]]; then     # --color <TAB>
        opt=${COMP_WORDS[j - 1]}
    fi
    if [[ -n $opt && " $argopts " == *" $opt "* ]]; then
        local values
        values=$(_trawl_values "$key" "$opt")
        if [[ -n $values ]]; then
            COMPREPLY=($(compgen -W "$values" -- "$val"))
            local colon=${val%"${val##*:}"}
            COMPREPLY=("${COMPREPLY[@]/#$colon/}")
            [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
            compopt +o default 2>/dev/null
        fi
        return 0  # no list: files (complete -o default)
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ -n $subs ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
        compopt +o default 2>/dev/null
    fi
    return 0  # else files (complete -o default)
}

complete -o bashdefault -o default -F _trawl trawl
"""


# ---------------------------------------------------------------------------------------------
# zsh


def zsh_desc(s):
    """Text for an _arguments [explanation] or :message: (inside single quotes)."""
    s = short(s)
    for ch in "\\[]:":
        s = s.replace(ch, "\\" + ch)
    return s.replace("'", "'\\''")


def zsh_action(e):
    if e.choices:
        return "(" + " ".join(v.replace("\\", "\\\\").replace(":", "\\:").replace("'", "'\\''") for v in e.choices) + ")"
    if e.numeric:
        return " "
    return "_files"


def zsh_func(c):
    return "_" + "_".join([PROG] + [re.sub(r"\W", "_", p) for p in c.path])


def zsh_option_spec(o):
    desc = "[" + zsh_desc(o.text) + "]"
    names = []
    for f in o.flags:
        if o.takes_value:
            names.append(f + ("=" if f.startswith("--") else "+"))
        else:
            names.append(f)
    if "--help" in o.flags or "--version" in o.flags:
        excl = "'(- *)'"
    elif o.multi:
        excl = "'*'"
    elif len(o.flags) > 1:
        excl = "'(" + " ".join(o.flags) + ")'"
    else:
        excl = ""
    names_s = names[0] if len(names) == 1 else "{" + ",".join(names) + "}"
    arg = ""
    if o.takes_value:
        meta = (o.base_type or "value").lower()
        arg = f":{zsh_desc(meta)}:{zsh_action(o)}"
    if excl:
        return f"{excl}{names_s}'{desc}{arg}'"
    return f"'{names_s}{desc}{arg}'"


def zsh_completion(root):
    out = [
        "#compdef trawl",
        "# zsh completion for trawl(1)",
        "# Generated by scripts/gen-docs.py from `trawl --help`: do not edit.",
        "",
    ]
    for c in reversed(list(walk(root))):
        specs = [zsh_option_spec(o) for o in c.options]
        out.append(f"{zsh_func(c)}() {{")
        if c.children:
            out += ["  local curcontext=$curcontext state state_descr line ret=1", "  typeset -A opt_args"]
            specs += ["'1:command:->command'", "'*::argument:->argument'"]
            out.append("  _arguments -C -s -S \\")
        else:
            n = 0
            for p in c.positionals:
                action = " " if p.numeric else "_files"
                msg = zsh_desc(p.flags[0] + (": " + p.text if p.text else ""))
                if p.multi:
                    specs.append(f"'*:{msg}:{action}'")
                    break
                n += 1
                specs.append(f"'{n}:{msg}:{action}'" if p.required else f"'{n}::{msg}:{action}'")
            out.append("  _arguments -s -S \\")
        out += [f"    {s} \\" for s in specs[:-1]] + [f"    {specs[-1]}" + (" && ret=0" if c.children else "")]
        if c.children:
            out += [
                "  case $state in",
                "  command)",
                "    local -a commands",
                "    commands=(",
            ]
            for s in c.subcommands:
                out.append("      " + sq(s.flags[0].replace(":", "\\:") + ":" + short(summary(s.desc))))
            out += [
                "    )",
                f"    _describe -t commands {sq(c.name + ' command')} commands && ret=0",
                "    ;;",
                "  argument)",
                f"    curcontext=${{curcontext%:*:*}}:{'-'.join([PROG] + c.path)}-$words[1]:",
                "    case $words[1] in",
            ]
            for ch in c.children:
                out.append(f"    {sq(ch.path[-1])}) {zsh_func(ch)} && ret=0 ;;")
            out += ["    esac", "    ;;", "  esac", "  return ret"]
        out += ["}", ""]
    out += [f'{zsh_func(root)} "$@"', ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# fish


def fq(s):
    """A fish single-quoted word."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_completion(root):
    skips, descends = [], []
    for c in walk(root):
        skips += [fq(f"{c.key}/{f}") for o in c.options if o.takes_value for f in o.flags]
        descends += [fq(f"{c.key}/{s.flags[0]}") for s in c.subcommands]
    out = [
        "# fish completion for trawl(1)",
        "# Generated by scripts/gen-docs.py from `trawl --help`: do not edit.",
        "",
        "# the command before the cursor: '' (trawl itself), 'search', 'index build', ...",
        "function __trawl_command",
        "    set -l tokens (commandline -opc)",
        "    set -e tokens[1]",
        "    set -l key ''",
        "    set -l skip 0",
        "    for w in $tokens",
        "        if test $skip = 1",
        "            set skip 0",
        "            continue",
        "        end",
        '        switch "$key/$w"',
    ]
    if skips:
        out += ["            case " + " ".join(skips), "                set skip 1  # the option's value"]
    if descends:
        out += ["            case " + " ".join(descends), '                set key (string trim -- "$key $w")']
    out += [
        "        end",
        "    end",
        '    echo "$key"',
        "end",
        "",
        "function __trawl_is --argument-names key",
        "    set -l command (__trawl_command)",
        '    test "$command" = "$key"',
        "end",
        "",
        "complete -c trawl -e",
    ]
    for c in walk(root):
        cond = "-n " + fq('__trawl_is "%s"' % c.key)
        out.append("")
        if c.children:
            out.append(f"complete -c trawl {cond} -f")
            for s in c.subcommands:
                out.append(f"complete -c trawl {cond} -f -a {fq(s.flags[0])} -d {fq(short(summary(s.desc), 70))}")
        for o in c.options:
            names = []
            for f in o.flags:
                if f.startswith("--"):
                    names.append(f"-l {fq(f[2:])}")
                elif len(f) == 2:
                    names.append(f"-s {fq(f[1:])}")
                else:
                    names.append(f"-o {fq(f[1:])}")
            arg = ""
            if o.choices:
                arg = f" -x -a {fq(' '.join(o.choices))}"
            elif o.takes_value:
                arg = " -x" if o.numeric else " -r"
            out.append(f"complete -c trawl {cond} {' '.join(names)}{arg} -d {fq(short(o.text, 70))}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------


def version_of(binary):
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, timeout=60)
        v = r.stdout.decode("utf-8", errors="replace").strip().splitlines()
        return v[0] if r.returncode == 0 and v else PROG
    except (OSError, subprocess.TimeoutExpired):
        return PROG


def main(argv):
    if len(argv) != 3:
        print("usage: gen-docs.py TRAWL_BINARY OUTDIR", file=sys.stderr)
        return 2
    binary, outdir = os.path.abspath(argv[1]), argv[2]
    root = load(binary)
    if not root.children:
        die(f"`{PROG} --help` lists no subcommands")
    files = {
        "trawl.1": man_page(root, version_of(binary)),
        "trawl.bash": bash_completion(root),
        "_trawl": zsh_completion(root),
        "trawl.fish": fish_completion(root),
    }
    os.makedirs(outdir, exist_ok=True)
    for name, text in files.items():  # all or nothing: write aside, then rename
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=outdir)
        with os.fdopen(fd, "w", encoding="ascii" if name == "trawl.1" else "utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        files[name] = tmp
    for name, tmp in files.items():
        os.replace(tmp, os.path.join(outdir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
