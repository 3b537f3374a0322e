// The op's operand copies (row_copy.cu): rows of a matrix whose leading dimension or base breaks the kernels'
// 16-byte rule, copied into a buffer whose rows start on 128-byte lines; and the transposing copy of an operand whose
// contiguous dimension is not the one a kernel reads (e.g. a row-major B for the K-major-only TF32 kernels).
//
// Chained copies (`chained`) take part in programmatic dependent launch (pdl.hpp) like the GEMM kernels: they wait for
// the previous grid before their first global access, so `overlap_previous_kernel` (the caller's rule, the GEMMs' one:
// registry.hpp follows_library_kernels) may let them launch while it still runs; the row copy lets the next grid
// launch early; and the GEMM after a chained copy may overlap it in a CUDA graph too (is_operand_copy_kernel: they
// count as this library's kernels). Unchained copies are the copies as they were (no PDL). Why: at small misaligned
// sizes the op is mostly launch latency; the op chains its copies only there (ops_cuda.cpp kCopyChainMaxFlop).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace origami {

// dst[b][r][0..cols) = src[b][r][0..cols) for b < batch, r < rows, elements of elem_bytes (2 or 4) bytes.
// src: any base with the element's alignment, row stride src_ld and batch stride src_batch (elements), rows
// contiguous; dst: 16-byte aligned, dst_ld a multiple of 16 bytes, batch stride rows * dst_ld. The padding
// columns [cols, dst_ld) are left as they are (no kernel reads them). On `stream`; no host synchronisation.
cudaError_t launch_row_copy(const void* src, std::int64_t src_ld, std::int64_t src_batch, void* dst, std::int64_t dst_ld,
                            std::int64_t batch, std::int64_t rows, std::int64_t cols, int elem_bytes, int sm_count,
                            cudaStream_t stream, bool chained, bool overlap_previous_kernel);

// dst[b][r][c] = src[b][c][r] for b < batch, r < rows, c < cols, elements of elem_bytes (2 or 4) bytes: src row c of
// batch b starts at src + b * src_batch + c * src_ld (elements) and is contiguous along r; dst has row stride dst_ld
// and batch stride rows * dst_ld. Any element-aligned src; the padding columns [cols, dst_ld) are left as they are.
// On `stream`; no host synchronisation.
cudaError_t launch_transpose_copy(const void* src, std::int64_t src_ld, std::int64_t src_batch, void* dst,
                                  std::int64_t dst_ld, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                                  int elem_bytes, cudaStream_t stream, bool chained, bool overlap_previous_kernel);

// Whether `func` is a chained copy kernel (registry.cu follows_library_kernels).
bool is_operand_copy_kernel(const void* func);

}  // namespace origami
