// The cp.async wrappers of the non-persistent kernels (the mma.sync and CUDA-core fp32 families): one definition.
#pragma once
#include <cuda_runtime.h>

namespace origami {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// 16-byte cp.async, L2 only (.cg: operand tiles are reused through L2 by other CTAs, not by this one through L1);
// src_bytes < 16 zero-fills the rest.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
// 4-byte cp.async (only .ca exists for 4 bytes: through L1, which also serves the other 7 k of the sector's row
// that the same instruction does not read); src_bytes 0 writes a zero.
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

}  // namespace origami
