// Forty-third session probe (issue 11, decode selection): does a CTA's DRAM streaming rate depend on where the other
// busy CTAs sit (two SMs of one TPC sharing a port), or only on how many there are?
//
// The stored H200 decode launches of the 64-row wgmma tiles (one wave, one tile per CTA) stream 3.4-3.9 TB/s at 56-64
// CTAs and 112-132, but 2.8-3.4 at 74-100 (64x256 at 1x18944x3584: 74 CTAs 48.9 us, 56 CTAs at 1x14336x3584 29.3 us).
// This kernel streams like the GEMM's producer: one thread issues bulk copies (cp.async.bulk, TMA) of a stage of
// `rows` pieces at a row pitch into a ring of `stages` stages; 4 consumer warps wait on the stage's full barrier, read
// it and release it. One CTA per SM (the shared memory asks for it); %smid recorded per CTA.
//   modes: "grid n": launch exactly n CTAs (the hardware places them);
//          "mask LIST": launch one CTA per SM, only the SMs in LIST stream (the others exit at once).
// Result (H200, probe_tpc_pairs_h200.txt, bash probe_tpc_pairs.sh): where the busy SMs sit does not matter (even,
// odd or packed %smid, one or two per TPC: within 3 %); the rate falls smoothly with the CTAs (32 KiB boxes down a
// 32 KiB pitch: 98 GB/s per CTA at 33 CTAs, 55 at 74, 40 at 100, 32 at 132; 3.2-4.2 TB/s in all), no step at 65-100.
// The hardware places a full grid's CTAs two to a TPC ((2i, 2i+1) pairs, GPCs in turn). The step the GEMMs showed
// there is programmatic dependent launch's (probe_decode_partial_wave.py).
// nvcc -O3 -arch=sm_90a -o /tmp/probe_tpc_pairs probe_tpc_pairs.cu
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint32_t b, uint32_t c) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(c) : "memory"); }
__device__ __forceinline__ void bar_expect(uint32_t b, uint32_t bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory"); }
__device__ __forceinline__ void bar_arrive(uint32_t b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory"); }
__device__ __forceinline__ void bar_wait(uint32_t b, uint32_t par) {
  uint32_t done = 0;
  do { asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(done) : "r"(b), "r"(par) : "memory"); } while (!done);
}
__device__ __forceinline__ void box_load(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
}

constexpr int kMaxStages = 16;

// Each streaming CTA walks `n_stages_total` stages of its own band of `rows` rows: stage i is the 2-D TMA box of those
// rows at bytes [i * piece, (i + 1) * piece) of each row (the GEMM's B box of x @ w.t(): rows of W, 128 bytes of K).
__global__ void __launch_bounds__(160) stream(const __grid_constant__ CUtensorMap map, int rows, int piece,
                                              int stages, int n_stages_total, const int* __restrict__ active,
                                              int* __restrict__ smid_out, unsigned long long* __restrict__ sink) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t full[kMaxStages], empty[kMaxStages];
  uint32_t smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) smid_out[blockIdx.x] = smid;
  if (active && !active[smid]) return;
  const int stage_bytes = rows * piece;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) { bar_init(sa(&full[s]), 1); bar_init(sa(&empty[s]), 4); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // band of this CTA: by smid in mask mode (a fixed place per SM), by blockIdx in grid mode
  const int row0 = (active ? smid : blockIdx.x) * rows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 4) {
    if (lane == 0) {
      for (int i = 0; i < n_stages_total; ++i) {
        int s = i % stages; uint32_t par = ((i / stages) & 1) ^ 1;
        bar_wait(sa(&empty[s]), par);
        bar_expect(sa(&full[s]), stage_bytes);
        box_load(sa(smem + (size_t)s * stage_bytes), &map, i * (piece / 2), row0, sa(&full[s]));
      }
    }
  } else {
    unsigned long long acc = 0;
    for (int i = 0; i < n_stages_total; ++i) {
      int s = i % stages;
      bar_wait(sa(&full[s]), (i / stages) & 1);
      const int* p = reinterpret_cast<const int*>(smem + (size_t)s * stage_bytes);
      acc += p[(warp * 32 + lane) * 4 % (stage_bytes / 4)];
      __syncwarp();
      if (lane == 0) bar_arrive(sa(&empty[s]));
    }
    if (acc == 0x123456789ull) sink[0] = acc;
  }
}

int main(int argc, char** argv) {
  // args: rows piece stages pitch (bytes; a CTA walks its rows' whole pitch, as a tile walks K)  then specs: g<N> (grid n) | e<N> (n SMs, even smids first) | p<N> (n SMs, smids 0..n-1)
  if (argc < 6) { printf("usage: rows piece stages pitch spec...\n"); return 1; }
  int rows = atoi(argv[1]), piece = atoi(argv[2]), stages = atoi(argv[3]);
  const size_t pitch = (size_t)atol(argv[4]);
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int clk; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  const int stage_bytes = rows * piece;
  const int n_total = (int)(pitch / piece);
  const size_t total_rows = (size_t)rows * sms;                               // one band of rows per SM
  const size_t bytes = pitch * total_rows;
  char* buf; CK(cudaMalloc(&buf, bytes)); CK(cudaMemset(buf, 1, bytes));
  CUtensorMap map;
  cuuint64_t dims[2] = {pitch / 2, total_rows}, strides[1] = {pitch};
  cuuint32_t box[2] = {(cuuint32_t)(piece / 2), (cuuint32_t)rows}, estr[2] = {1, 1};
  // the driver's encoder through the runtime (no libcuda link needed at build time)
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                              const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr; cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q));
  CUresult cr = reinterpret_cast<Encode>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf, dims, strides, box, estr,
                                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (cr != CUDA_SUCCESS) { printf("cuTensorMapEncodeTiled failed %d\n", (int)cr); return 1; }
  int *d_active, *d_smid; unsigned long long* sink;
  CK(cudaMalloc(&d_active, 4096 * sizeof(int))); CK(cudaMalloc(&d_smid, 4096 * sizeof(int))); CK(cudaMalloc(&sink, 8));
  int smem = 200 * 1024;                                                      // one CTA per SM
  if (stages * stage_bytes > smem) { printf("ring too large\n"); return 1; }
  CK(cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // learn the placement of a full grid: smid of each blockIdx
  stream<<<sms, 160, smem>>>(map, rows, piece, 1, 1, nullptr, d_smid, sink);
  CK(cudaDeviceSynchronize());
  std::vector<int> order(sms); CK(cudaMemcpy(order.data(), d_smid, sms * 4, cudaMemcpyDeviceToHost));
  printf("sms %d clock %d MHz stage %d B (%d x %d, pitch %zu) x %d stages, %d stages per CTA (%.1f MiB)\nplacement of blockIdx 0..: ",
         sms, clk / 1000, stage_bytes, rows, piece, pitch, stages, n_total, n_total * (double)stage_bytes / 1048576);
  for (int i = 0; i < sms; ++i) printf("%d ", order[i]);
  printf("\n");
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int si = 5; si < argc; ++si) {
    std::string spec = argv[si]; char kind = spec[0]; int n = atoi(spec.c_str() + 1);
    std::vector<int> act(4096, 0); bool masked = kind != 'g';
    if (kind == 'e') { int c = 0; for (int s = 0; s < sms && c < n; s += 2) { act[s] = 1; ++c; } for (int s = 1; s < sms && c < n; s += 2) { act[s] = 1; ++c; } }
    if (kind == 'p') for (int s = 0; s < n; ++s) act[s] = 1;
    if (kind == 'o') { int c = 0; for (int s = 1; s < sms && c < n; s += 2) { act[s] = 1; ++c; } }  // odd smids only
    CK(cudaMemcpy(d_active, act.data(), 4096 * 4, cudaMemcpyHostToDevice));
    int grid = masked ? sms : n;
    std::vector<float> ts;
    for (int rep = 0; rep < 7; ++rep) {
      CK(cudaEventRecord(a));
      stream<<<grid, 160, smem>>>(map, rows, piece, stages, n_total, masked ? d_active : nullptr, d_smid, sink);
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(ts.begin(), ts.end()); float ms = ts[ts.size() / 2];
    double per = (double)n_total * stage_bytes;
    printf("%-6s n %3d  %8.1f us  per CTA %6.1f GB/s  total %5.2f TB/s\n", spec.c_str(), n, ms * 1e3, per / (ms * 1e-3) / 1e9, per * n / (ms * 1e-3) / 1e12);
    if (kind == 'g' && (n == 74 || n == 93)) {
      std::vector<int> sm(n); CK(cudaMemcpy(sm.data(), d_smid, n * 4, cudaMemcpyDeviceToHost));
      std::sort(sm.begin(), sm.end()); int pairs = 0;
      for (int i = 0; i + 1 < n; ++i) if (sm[i] / 2 == sm[i + 1] / 2) ++pairs;
      printf("       grid %d on smids with %d (2i, 2i+1) pairs both busy\n", n, pairs);
    }
  }
  return 0;
}
