// Probe (seventeenth session, issue 11): DRAM read rate against the number of busy SMs AND the bytes each SM keeps
// in flight, for two ways of keeping them in flight:
//   ldg  1024-thread-style streaming as in the calibration (cpp/calibrate/memory_bench.cu): `threads` threads x 8
//        independent 16-byte ld.global.cg each, so threads x 128 B in flight per SM;
//   tma  the wgmma family's way: one producer thread issues 1-D bulk copies (cp.async.bulk, the TMA unit) of
//        `stage` bytes into a ring of `stages` shared-memory stages guarded by mbarriers; 4 consumer warps checksum
//        each stage and release it. Up to stages x stage bytes in flight per SM.
// One block per SM (dynamic shared memory above half an SM), k blocks = k SMs. Every block reads interleaved chunks
// of one buffer (chunk c of block b at (c x k + b) x chunk bytes: the blocks walk the buffer together, as the CTAs of
// a decode GEMM walk B's K rows), one pass, checksum of every 32-bit word verified. Median of 5 timed launches
// (CUDA events) after one warm-up. Output: one line per point, GB/s and bytes/SM-cycle at the measured clock.
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a probe_dram_inflight.cu -o probe && ./probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

__global__ void fill(unsigned* a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] = (unsigned)i;
}

__device__ __forceinline__ unsigned long long sum4(uint4 v) { return (unsigned long long)v.x + v.y + v.z + v.w; }

// ldg: chunk = blockDim.x x 8 x 16 bytes; each thread loads its 8 vectors of the chunk, all independent.
__global__ void ldg_stream(const uint4* __restrict__ a, size_t n_chunks, unsigned long long* sum) {
  const size_t per_chunk = (size_t)blockDim.x * 8;
  unsigned long long acc = 0;
  for (size_t c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const uint4* p = a + c * per_chunk + threadIdx.x;
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = __ldcg(p + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < 8; ++u) acc += sum4(v[u]);
  }
  for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// tma: block = 1 producer warp + 4 consumer warps. Dynamic shared memory: [2 x stages mbarriers][ring].
__global__ void tma_stream(const char* __restrict__ a, size_t n_chunks, int stage_bytes, int stages,
                           unsigned long long* sum) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem);  // full[s] = bars[s], empty[s] = bars[stages+s]
  unsigned char* ring = smem + 128 * ((2 * stages * 8 + 127) / 128);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bars + s)));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(smem_addr(bars + stages + s)));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  size_t my_chunks = n_chunks > blockIdx.x ? (n_chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  if (warp == 0) {
    if (lane == 0) {
      for (size_t i = 0; i < my_chunks; ++i) {
        const int s = (int)(i % stages);
        const unsigned round = (unsigned)(i / stages);
        if (round > 0) mbar_wait(smem_addr(bars + stages + s), (round - 1) & 1);  // consumers released it
        const unsigned full = smem_addr(bars + s);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full), "r"(stage_bytes) : "memory");
        const char* src = a + (i * gridDim.x + blockIdx.x) * (size_t)stage_bytes;
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                smem_addr(ring + (size_t)s * stage_bytes)),
            "l"(src), "r"(stage_bytes), "r"(full)
            : "memory");
      }
    }
    return;
  }
  unsigned long long acc = 0;
  const int ct = threadIdx.x - 32;  // 0..127
  for (size_t i = 0; i < my_chunks; ++i) {
    const int s = (int)(i % stages);
    mbar_wait(smem_addr(bars + s), (unsigned)((i / stages) & 1));
    const uint4* st = reinterpret_cast<const uint4*>(ring + (size_t)s * stage_bytes);
    for (int v = ct; v < stage_bytes / 16; v += 128) acc += sum4(st[v]);
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bars + stages + s)) : "memory");
  }
  for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (lane == 0) atomicAdd(sum, acc);
}

__global__ void clock_probe(long long* c, unsigned long long* ns) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  long long c0 = clock64();
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); } while (t1 - t0 < 2000000);
  *c = clock64() - c0;
  *ns = t1 - t0;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int n_sm = prop.multiProcessorCount;
  int optin = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  const size_t bytes = size_t(3) << 30;  // 3 GiB: one pass is >> L2 and several ms at the lowest SM counts
  unsigned* buf;
  CK(cudaMalloc(&buf, bytes));
  fill<<<4096, 256>>>(buf, bytes / 4);
  CK(cudaDeviceSynchronize());
  unsigned long long* sum;
  CK(cudaMalloc(&sum, 8));
  long long* cyc;
  unsigned long long* ns;
  CK(cudaMalloc(&cyc, 8));
  CK(cudaMalloc(&ns, 8));
  CK(cudaFuncSetAttribute(ldg_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  CK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("# %s, %d SMs, optin smem %d, per-SM smem %d\n", prop.name, n_sm, optin, per_sm);
  std::printf("# kind W_per_sm_KiB stage_KiB stages threads sms GBps B_per_sm_cycle clock_MHz ok\n");
  const int sms_list[] = {8, 16, 25, 33, 42, 50, 58, 66, 74, 83, 93, 100, 110, 120, 132};
  struct Cfg { int kind, threads, stage, stages; };
  std::vector<Cfg> cfgs;
  for (int t : {128, 256, 512, 768, 1024}) cfgs.push_back({0, t, 0, 0});
  for (int st : {8192, 16384, 32768})
    for (int s : {2, 4, 8})
      if ((size_t)st * s <= (size_t)optin - 1024) cfgs.push_back({1, 160, st, s});
  for (const Cfg& c : cfgs) {
    const size_t chunk = c.kind == 0 ? (size_t)c.threads * 128 : (size_t)c.stage;
    const size_t n_chunks = bytes / chunk;
    const unsigned long long n_words = n_chunks * chunk / 4;
    const unsigned long long want = (n_words % 2 == 0) ? (n_words / 2) * (n_words - 1) : n_words * ((n_words - 1) / 2);
    const int dyn = optin - 1024;  // > half an SM: one block per SM
    for (int k : sms_list) {
      if (k > n_sm) continue;
      std::vector<float> ms;
      bool ok = true;
      for (int r = 0; r < 6; ++r) {
        CK(cudaMemset(sum, 0, 8));
        CK(cudaEventRecord(e0));
        if (c.kind == 0)
          ldg_stream<<<k, c.threads, dyn>>>(reinterpret_cast<const uint4*>(buf), n_chunks, sum);
        else
          tma_stream<<<k, c.threads, dyn>>>(reinterpret_cast<const char*>(buf), n_chunks, c.stage, c.stages, sum);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        unsigned long long got;
        CK(cudaMemcpy(&got, sum, 8, cudaMemcpyDeviceToHost));
        if (got != want) ok = false;
        if (r > 0) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      clock_probe<<<1, 1>>>(cyc, ns);
      long long hc; unsigned long long hn;
      CK(cudaMemcpy(&hc, cyc, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&hn, ns, 8, cudaMemcpyDeviceToHost));
      const double mhz = 1e3 * double(hc) / double(hn);
      const double moved = double(n_chunks) * chunk;
      const double gbps = moved / (med * 1e-3) / 1e9;
      const double w = c.kind == 0 ? c.threads * 128.0 : double(c.stage) * c.stages;
      std::printf("%s %6.0f %4d %d %4d %3d %8.1f %6.2f %6.0f %s\n", c.kind == 0 ? "ldg" : "tma", w / 1024,
                  c.stage / 1024, c.stages, c.threads, k, gbps, moved / (med * 1e-3) / (mhz * 1e6) / k, mhz,
                  ok ? "ok" : "CHECKSUM_MISMATCH");
      std::fflush(stdout);
    }
  }
  return 0;
}
