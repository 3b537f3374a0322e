// The split-K reduction (split_k.cu): sums the fp32 partial tiles of a split-K launch into C in slice order.
#pragma once
#include <cuda_runtime.h>

#include "gemm_args.hpp"

namespace origami {

// C (g.c, g.c_stride_m, g.c_stride_batch) = sum over s < slices of the workspace slices (gemm_args.hpp),
// rounded once to dtype. On g.stream, after the GEMM that wrote them (programmatic dependent launch when
// g.programmatic_dependent_launch). slices <= 1: nothing to do.
cudaError_t launch_split_k_reduce(const GemmArgs& g, DType dtype, int slices);

}  // namespace origami
