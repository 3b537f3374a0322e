// The work unit of a CTA of the non-persistent kernels (the mma.sync and CUDA-core fp32 families), and the special
// registers their kernels re-read; one definition for both (their Params carry the same fields for it).
//
// Without split-K: grid (tiles, 1, batch chunk), tile bx of batch batch_base + bz. With split-K (make_split_plan,
// cpp/model/types.hpp): a 1-D grid of units, first the dp_tiles whole tiles (in launch order over all batches), then
// slice s of tail tile j at dp_tiles + s * tail + j; a slice is a sub-problem whose K is its k-tiles (only the last
// slice can end in a partial k-tile), and it writes the fp32 partial tile bx - dp_tiles (= s * tail + j) of the
// workspace instead of C. 32-bit index math: the launchers check that the units fit in an int.
#pragma once
#include <cuda_runtime.h>

#include "gemm_args.hpp"

namespace origami {

struct CtaUnit {
  long long batch;
  int m0, n0, slice;
  bool split;
};

template <int BM, int BN, class Params>
__device__ __forceinline__ CtaUnit cta_unit(const Params& p, int bx, int bz) {
  CtaUnit u;
  u.slice = 0;
  u.split = p.split_k > 1 && bx >= p.dp_tiles;
  int pid;
  if (p.split_k > 1) {
    int t = bx;
    if (u.split) {
      const int v = t - p.dp_tiles;
      u.slice = v / p.tail_tiles;
      t = p.dp_tiles + (v - u.slice * p.tail_tiles);
    }
    const int per_batch = p.tiles_m * p.tiles_n;
    const int b = t / per_batch;
    pid = t - b * per_batch;
    u.batch = b;
  } else {
    pid = bx;
    u.batch = (long long)p.batch_base + bz;
  }
  int tile_m, tile_n;
  triton_raster(pid, p.tiles_m, p.tiles_n, p.group_size_m, tile_m, tile_n);
  u.m0 = tile_m * BM;
  u.n0 = tile_n * BN;
  return u;
}

// Special registers read with volatile asm, so that the epilogues recompute their coordinates from them rather than
// keep values derived from blockIdx / threadIdx live across the main loop (registers the simt 8x8 tiles do not have
// at 2 CTAs per SM).
__device__ __forceinline__ int ctaid_x() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
  return v;
}
__device__ __forceinline__ int ctaid_z() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(v));
  return v;
}
__device__ __forceinline__ int tid_x() {
  int v;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
  return v;
}

}  // namespace origami
