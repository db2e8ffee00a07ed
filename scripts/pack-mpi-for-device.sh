#!/usr/bin/env bash
# pack-mpi-for-device.sh — add this machine's OpenMPI (Debian 12's 4.1) to a device pack, to run
# MPI benchmarks on a GPU machine that has no MPI. Run after scripts/pack-for-device.sh with the
# same OUT_DIR (default pack), then on the device:
#
#   export LD_LIBRARY_PATH=$PWD/pack/lib PATH=$PWD/pack/mpi/bin:$PATH OPAL_PREFIX=$PWD/pack/mpi \
#     PMIX_MCA_mca_base_component_path=$PWD/pack/mpi/pmix OMPI_MCA_btl=self,vader \
#     OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
#   bench/scale/mpi.sh pack/bin/trawl pack/bin/trawl-mkgenome 300000000 1,2,4,8,16 2>/dev/null
#
# OpenMPI is relocated by OPAL_PREFIX (bin/, its MCA components under the Debian libdir layout,
# share/openmpi); the components that need UCX, libfabric, PSM or verbs are left out, and the
# libraries the rest need go to OUT_DIR/lib. Adds about 8 MiB.
set -euo pipefail
out=${1:-pack}
[ -d "$out/lib" ] || { echo "pack-mpi-for-device: run scripts/pack-for-device.sh first ($out/lib missing)" >&2; exit 2; }
x=$out/mpi
rm -rf "$x"
mkdir -p "$x/bin" "$x/lib/x86_64-linux-gnu/openmpi/lib" "$x/share"
cp /usr/bin/orterun /usr/bin/orted "$x/bin/"
ln -s orterun "$x/bin/mpirun"
cp -r /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3 "$x/lib/x86_64-linux-gnu/openmpi/lib/"
cp -r /usr/share/openmpi "$x/share/"
cp -r /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix "$x/pmix"
for f in "$x"/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so; do
  if ldd "$f" | grep -qE "libuc[tsmp]|libfabric|libpsm|libibverbs|librdmacm|libmca_common_(ucx|ofi|verbs)"; then rm "$f"; fi
done
for l in libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libpmix.so.2 libnuma.so.1 libmunge.so.2 libhwloc.so.15 \
  libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 libudev.so.1 libmca_common_ompio.so.41 \
  libmca_common_monitoring.so.50 libmca_common_sm.so.40 liboshmem.so.40; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l { print $NF; exit }')
  [ -n "$p" ] && cp -L "$p" "$out/lib/$l"
done
echo "pack-mpi-for-device: OpenMPI in $x, $(du -sm "$out" | cut -f1) MiB in $out"
