// The launch interface shared by every kernel family and the op. No torch here: the op turns
// tensors into GemmArgs; a family's generated launcher turns GemmArgs into a kernel launch.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#include "../model/types.hpp"

namespace origami {

// C[b] (M x N, row-major, ldc = c_stride_m) = A[b] (M x K) * B[b] (K x N), fp32 accumulation,
// C in the input dtype. Strides are in elements. Exactly one of each operand's two strides is 1:
//   A "K-contiguous" (row-major A):    a_stride_k == 1
//   A "M-contiguous" (column-major A): a_stride_m == 1
//   B "K-contiguous" (column-major B, e.g. w.t() of an nn.Linear weight): b_stride_k == 1
//   B "N-contiguous" (row-major B):    b_stride_n == 1
// The op guarantees what KernelEntry::alignment_elems asks for (base pointers aligned to that many elements
// times 16-bit/fp32 bytes, i.e. 16 bytes for the aligned kernels and one element for the realigning ones, and
// leading dimensions / batch strides that are multiples of it) or makes a documented padded copy first.
struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  std::int64_t M = 0, N = 0, K = 0;
  std::int64_t batch = 1;
  std::int64_t a_stride_m = 0, a_stride_k = 0, a_stride_batch = 0;
  std::int64_t b_stride_k = 0, b_stride_n = 0, b_stride_batch = 0;
  std::int64_t c_stride_m = 0, c_stride_batch = 0;
  int group_size_m = 1;
  // Split-K (TileConfig::split_k) with the schedule of make_split_plan (cpp/model/types.hpp): the tiles of
  // the last partial wave of `split_slots` resident CTAs are cut into K-slices whose fp32 partial tiles go
  // to `workspace` (split_k_workspace_elems floats, tile-local: slice s of tail tile j at (s * tail + j) *
  // block_m * block_n); a second kernel (launch_split_k_reduce) sums them into C. split_slots: the CTAs
  // resident at once (the op computes it once per plan with resident_slots(), registry.hpp, and passes it so
  // that the workspace it allocates and the launch agree).
  // cluster_slots: the clusters of each size resident at once for this kernel (make_split_plan; the op fills it with
  // cluster_slots(e), launch_gemm clears it for a family without the in-cluster reduction; all zero = always the
  // second kernel): a split launch whose tiles fit as one wave of clusters needs no workspace.
  int split_k = 1;
  std::int64_t split_slots = 0;
  ClusterSlots cluster_slots;
  float* workspace = nullptr;
  // Fused bias (nullptr: none): N elements of the input dtype, bias[n] added to every row of C in fp32
  // before the one rounding to the output dtype (nn.Linear / addmm with a 1-D bias). With split-K the
  // reduction adds it.
  const void* bias = nullptr;
  int sm_count = 0;             // for persistent families (0 = ask the device)
  cudaStream_t stream = nullptr;
  // Allow the launch to overlap the previous kernel of the stream (programmatic dependent launch,
  // pdl.hpp); the launcher still checks that the loaded kernel waits for it.
  bool programmatic_dependent_launch = false;
  // With programmatic_dependent_launch: whether the GEMM kernel itself overlaps the kernel before it (false: only
  // the kernel the launch chains after its own, the split-K reduction, does). The op clears it where the previous
  // kernel is not one of ours (follows_library_kernels, registry.hpp).
  bool overlap_previous_kernel = true;
};

// The split-K schedule of a launch of a (block_m, block_n, block_k) kernel, and its workspace (0: no split).
inline SplitPlan split_plan(const GemmArgs& g, int block_m, int block_n, int block_k) {
  return make_split_plan(g.M, g.N, g.K, g.batch, block_m, block_n, block_k, g.split_k, g.split_slots,
                         g.cluster_slots);
}
inline std::int64_t split_k_workspace_elems(const GemmArgs& g, int block_m, int block_n, int block_k) {
  return split_plan(g, block_m, block_n, block_k).workspace_elems(block_m, block_n);
}

#if defined(__CUDACC__)
#define ORIGAMI_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define ORIGAMI_HOST_DEVICE inline
#endif
// Triton's GROUP_SIZE_M raster, the tile order of every kernel (and the Origami model's L2 term): groups of
// group_size_m tile-rows, column-major inside a group. pid -> (tile_m, tile_n).
ORIGAMI_HOST_DEVICE void triton_raster(int pid, int tiles_m, int tiles_n, int group_size_m, int& tile_m, int& tile_n) {
  const int per_group = group_size_m * tiles_n;
  const int group = pid / per_group;
  const int first_m = group * group_size_m;
  const int rows = (tiles_m - first_m) < group_size_m ? (tiles_m - first_m) : group_size_m;
  const int in_group = pid - group * per_group;
  tile_m = first_m + in_group % rows;
  tile_n = in_group / rows;
}

using LaunchFn = cudaError_t (*)(const GemmArgs&);

// ORIGAMI_NV_PINGPONG=0 in the environment (read once per translation unit) keeps the cooperative schedule everywhere
// (KernelEntry::ping_pong_kernel): the launchers and the op's kernel records for the model read it here, so the model
// predicts what runs. A diagnostic for timing the two schedules against each other through the op
// (benchmarks/results/probes/probe_pingpong_op.py).
inline bool ping_pong_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("ORIGAMI_NV_PINGPONG");
    return !(v != nullptr && v[0] == '0' && v[1] == '\0');
  }();
  return on;
}

// One compiled specialisation.
struct KernelEntry {
  TileConfig config;            // group_size_m unused (a launch argument)
  DType dtype;
  bool a_k_contiguous;          // operand layouts this specialisation reads without a copy
  bool b_k_contiguous;
  const void* kernel;           // the __global__ function, for cudaFuncGetAttributes
  int threads;                  // threads per block
  int smem_bytes;               // dynamic shared memory per block (all stages + epilogue)
  int alignment_elems;          // required alignment of leading dimensions, batch strides and (times the element
                                // size, in bytes) base pointers, in elements: 8 (16-bit) / 4 (fp32); 1 if realign
  int min_cc;                   // lowest compute capability it runs on: 80, or 90 for sm_90a
  // Reads its operands through registers, realigning each 16-byte chunk (mma_sync REALIGN, the `_ra` kernels):
  // operands with only element-aligned rows run in place instead of being copied. The same config's aligned
  // variant is the one for aligned operands (find_kernel returns it; the op prefers it on a tie).
  bool realign = false;
  // Launches as 2-CTA clusters whose CTAs share the B tile by TMA multicast (the wgmma `_c2` kernels,
  // cpp/kernels/families/wgmma.py MULTICAST_TILES): the twin of the same config's 1-CTA kernel, launched only where
  // the model's plan for the pick says so (LatencyBreakdown::multicast_b); find_kernel and the model's kernel records
  // are the 1-CTA kernel's.
  bool multicast = false;
  // The same config's ping-pong schedule, compiled in the same translation unit (the wgmma `_pp` kernels,
  // cpp/kernels/families/wgmma.py PINGPONG_TILES): `launch` runs it instead where every CTA has two or more tiles
  // (gemm_wgmma.cuh ping_pong_pays). Its __global__ function, for cudaFuncGetAttributes; nullptr where there is none.
  // The model weighs it through KernelResources::ping_pong_layouts.
  const void* ping_pong_kernel = nullptr;
  LaunchFn launch;
  const char* name;             // the kernel's name as ptxas reports it (mangled)
};

}  // namespace origami
