// Thread-block cluster primitives (inline PTX, sm_90): the wgmma kernels' 2-CTA multicast pairs and their cluster
// split-K reduction (gemm_wgmma.cuh cluster_reduce), and the calibration's distributed-shared-memory benchmark
// (cpp/calibrate/dsmem_bench.cu), which measures that reduction's loads with these same instructions.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace origami {
namespace wgmma {

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ std::uint32_t cluster_nctarank() {
  std::uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

// Every thread of every CTA of the cluster (release/acquire: barrier inits before, remote traffic after).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// 16 bytes of CTA `peer`'s shared memory at the offset `addr` has in this CTA's (distributed shared memory).
__device__ __forceinline__ float4 ld_dsmem_f4(std::uint32_t addr, std::uint32_t peer) {
  float4 v;
  asm volatile(
      "{\n.reg .b32 ra;\n"
      "mapa.shared::cluster.u32 ra, %4, %5;\n"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [ra];\n}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(addr), "r"(peer)
      : "memory");
  return v;
}

}  // namespace wgmma
}  // namespace origami
