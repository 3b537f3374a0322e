#!/bin/bash
# A/B timing harness of mma.sync kernel variants (dev only; not part of the package build).
#   bash cpp/kernels/dev/ab/ab_build.sh OUTDIR [NPARTS] [BASELINE_HEADER]
#   OUTDIR/ab_main M,N,K ...      (on the GPU machine)
# The variants are ab_gen.py's LIST: tile, stages, min CTAs/SM and fragment buffers of the current
# kernel (mma_sync/gemm_mma_sync.cuh), plus "old" entries timed from BASELINE_HEADER, an earlier
# version of that header (e.g. `git show REV:cpp/kernels/mma_sync/gemm_mma_sync.cuh > old.cuh`), put
# in namespace mma_sync_old here. ab_main times each with CUDA-graph replays over rotating copies of the
# operands (>= 2x L2, cold), checks every output against an fp32 reference, and prints per shape the
# best baseline and the best current kernel.
set -e
D=$(cd "$(dirname "$0")" && pwd); O=$1; P=${2:-8}; BASE=$3
mkdir -p "$O"
FL="-std=c++17 -O3 -arch=sm_90 -I$D -I$D/../.. -I$D/../../.. -I$O -Xptxas -v"
if [ -n "$BASE" ]; then
  sed -e 's/namespace mma_sync {/namespace mma_sync_old {/' -e 's#}  // namespace mma_sync$#}  // namespace mma_sync_old#' \
      -e "s#\"../gemm_args.hpp\"#\"$D/../../gemm_args.hpp\"#" "$BASE" > "$O/old_gemm_mma_sync.cuh"
  FL="$FL -DAB_BASELINE_HEADER=\"old_gemm_mma_sync.cuh\""
  python3 "$D/ab_gen.py" "$O" "$P" --baseline
else
  python3 "$D/ab_gen.py" "$O" "$P"
fi
for i in $(seq 0 $((P-1))); do
  nvcc $FL -c "$O/ab_part_$i.cu" -o "$O/ab_part_$i.o" > "$O/ptxas_$i.txt" 2>&1 &
done
nvcc $FL -c "$D/ab_main.cu" -o "$O/ab_main.o" 2> "$O/main_build.txt" &
wait
nvcc -arch=sm_90 "$O"/ab_part_*.o "$O/ab_main.o" -o "$O/ab_main"
grep -h -E "registers|spill|Compiling" "$O"/ptxas_*.txt | paste - - - | sed -E 's/ptxas info +: //g; s/Compiling entry function .//; s/. for .sm_90.//; s/bytes stack frame, //; s/ bytes spill stores, / /; s/ bytes spill loads//; s/Used //; s/ registers, used 1 barriers.*//' | grep "k_" | sort > "$O/regs.txt"
