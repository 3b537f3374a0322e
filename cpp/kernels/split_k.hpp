// The split-K reduction (split_k.cu): sums the fp32 partial tiles of a split-K launch into C in slice order.
#pragma once
#include <cuda_runtime.h>

#include "gemm_args.hpp"

namespace origami {

// For the split tiles of g's split-K schedule with a (block_m, block_n, block_k) kernel: C (g.c, c_stride_m,
// c_stride_batch) = the sum of their fp32 partial tiles in the workspace in slice order, + g.bias, rounded
// once to dtype. On g.stream, after the GEMM that wrote them (programmatic dependent launch when
// g.programmatic_dependent_launch). No split tiles: nothing to do. swapped_raster: the GEMM was a swapped-operand
// kernel (TileConfig::swap_ab) with the problem's tile (block_m, block_n): its tail tiles are numbered in C^T's raster.
cudaError_t launch_split_k_reduce(const GemmArgs& g, DType dtype, int block_m, int block_n, int block_k,
                                  bool swapped_raster = false);

// Whether `func` is one of the split-K reduction kernels (the __global__ functions, by address).
bool is_split_k_reduce_kernel(const void* func);

}  // namespace origami
