// Standalone development harness for the wgmma family: correctness against cuBLAS and timing
// against cuBLAS in the same run, with cold (rotated) inputs.
//
// Build (on the GPU machine; the instantiation TUs come from the family module):
//   python3 cpp/kernels/families/wgmma.py --emit-dev /tmp/wg [--filter REGEX]
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I/tmp/wg -Icpp/kernels \
//        cpp/kernels/wgmma/dev/bench_wgmma.cu /tmp/wg/*.cu -lcublas -o /tmp/bench_wgmma
// Run:
//   /tmp/bench_wgmma check [REGEX] [small]               every entry x edge cases x batch, vs cuBLAS
//   /tmp/bench_wgmma bench M,N,K[;M,N,K...] [REGEX] [G]  time entries and cuBLAS (G: group_size_m list)
//   /tmp/bench_wgmma info                                registers/local memory of every entry (+ resident clusters)
//   /tmp/bench_wgmma soak M,N,K [REGEX] [SECONDS]        sustained back-to-back runs with wall stamps (clocks/power)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "wgmma_list.hpp"

using origami::DType;
using origami::GemmArgs;
using origami::KernelEntry;

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)
#define CB(x)                                                                 \
  do {                                                                        \
    cublasStatus_t s_ = (x);                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                        \
      std::fprintf(stderr, "%s:%d %s: cublas %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

static std::int64_t ru8(std::int64_t x) { return (x + 7) / 8 * 8; }

__global__ void fill_kernel(std::uint16_t* p, std::size_t n, std::uint32_t seed, int bf16) {
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x) {
    std::uint32_t h = (std::uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
    float v = (h & 0xFFFFFF) / float(0x800000) - 1.0f;  // [-1, 1)
    if (bf16) { __nv_bfloat16 b = __float2bfloat16(v); p[i] = *reinterpret_cast<std::uint16_t*>(&b); }
    else { __half b = __float2half(v); p[i] = *reinterpret_cast<std::uint16_t*>(&b); }
  }
}

__device__ float to_f(std::uint16_t v, int bf16) {
  return bf16 ? __bfloat162float(*reinterpret_cast<__nv_bfloat16*>(&v)) : __half2float(*reinterpret_cast<__half*>(&v));
}

// stats[0] = max |ours - ref| (as float bits), stats[1] = max |ref|, stats[2] = non-finite count in ours
__global__ void compare_kernel(const std::uint16_t* ours, const std::uint16_t* ref, std::size_t n, int bf16, unsigned* stats) {
  float md = 0.f, mr = 0.f; unsigned bad = 0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x) {
    float o = to_f(ours[i], bf16), r = to_f(ref[i], bf16);
    if (!isfinite(o)) { ++bad; continue; }
    md = fmaxf(md, fabsf(o - r)); mr = fmaxf(mr, fabsf(r));
  }
  atomicMax(&stats[0], __float_as_uint(md));
  atomicMax(&stats[1], __float_as_uint(mr));
  atomicAdd(&stats[2], bad);
}

struct Layout { bool a_k, b_k; };

struct Buffers {
  std::uint16_t *a = nullptr, *b = nullptr, *c = nullptr;
};

struct Case {
  std::int64_t M, N, K, batch;
  bool a_k, b_k;
  std::int64_t lda, ldb, ldc;
  std::size_t a_elems, b_elems, c_elems;
  Case(std::int64_t M_, std::int64_t N_, std::int64_t K_, std::int64_t batch_, bool ak, bool bk)
      : M(M_), N(N_), K(K_), batch(batch_), a_k(ak), b_k(bk) {
    lda = a_k ? ru8(K) : ru8(M);
    ldb = b_k ? ru8(K) : ru8(N);
    ldc = N;  // unpadded on purpose: odd N exercises the scalar store path
    a_elems = (size_t)(a_k ? M : K) * lda;
    b_elems = (size_t)(b_k ? N : K) * ldb;
    c_elems = (size_t)M * ldc;
  }
  GemmArgs args(const Buffers& bf, int group, cudaStream_t s) const {
    GemmArgs g;
    g.a = bf.a; g.b = bf.b; g.c = bf.c;
    g.M = M; g.N = N; g.K = K; g.batch = batch;
    if (a_k) { g.a_stride_m = lda; g.a_stride_k = 1; } else { g.a_stride_m = 1; g.a_stride_k = lda; }
    if (b_k) { g.b_stride_k = 1; g.b_stride_n = ldb; } else { g.b_stride_k = ldb; g.b_stride_n = 1; }
    g.a_stride_batch = a_elems; g.b_stride_batch = b_elems; g.c_stride_m = ldc; g.c_stride_batch = c_elems;
    g.group_size_m = group; g.sm_count = 0; g.stream = s;
    return g;
  }
  void cublas(cublasHandle_t h, const Buffers& bf, bool bf16) const {
    const float one = 1.f, zero = 0.f;
    cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    // C^T (N x M, column-major, ld ldc) = op(B) (N x K) * op(A) (K x M)
    CB(cublasGemmStridedBatchedEx(h, b_k ? CUBLAS_OP_T : CUBLAS_OP_N, a_k ? CUBLAS_OP_N : CUBLAS_OP_T,
                                  (int)N, (int)M, (int)K, &one, bf.b, t, (int)ldb, (long long)b_elems, bf.a, t,
                                  (int)lda, (long long)a_elems, &zero, bf.c, t, (int)ldc, (long long)c_elems,
                                  (int)batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
};

static void fill(std::uint16_t* p, std::size_t n, std::uint32_t seed, bool bf16) {
  fill_kernel<<<1024, 256>>>(p, n, seed, bf16);
  CK(cudaGetLastError());
}

static std::vector<const KernelEntry*> entries(const std::string& re) {
  std::vector<const KernelEntry*> out;
  std::regex r(re);
  for (auto fn : origami::wgmma_gen::kEntries) {
    const KernelEntry& e = fn();
    if (std::regex_search(e.name, r)) out.push_back(&e);
  }
  return out;
}

// ------------------------------------------------------------------------------------ check
static int run_check(const std::string& re, bool small) {
  cublasHandle_t h; CB(cublasCreate(&h));
  unsigned* stats; CK(cudaMalloc(&stats, 3 * sizeof(unsigned)));
  struct Shape { std::int64_t M, N, K, batch; };
  const Shape shapes[] = {{1024, 1024, 1024, 1}, {777, 555, 333, 1}, {1, 1, 8, 1}, {129, 257, 64, 1},
                          {300, 200, 1000, 3}, {64, 4000, 2000, 1}, {2048, 96, 517, 2}, {128, 128, 0, 1},
                          {2500, 2100, 300, 2}};  // (the last: several tiles per persistent CTA)
  // "small": the sizes that stay quick under compute-sanitizer (edges, batch, K = 0 included).
  // (the last: 306 tiles of 128x128, two or more per SM: the ping-pong schedule's launch, ping_pong_pays)
  const Shape small_shapes[] = {{129, 257, 64, 1}, {70, 130, 200, 2}, {1, 1, 8, 1}, {64, 64, 0, 1}, {2200, 2100, 72, 1}};
  int failures = 0, runs = 0;
  for (const KernelEntry* e : entries(re)) {
    const bool bf16 = e->dtype == DType::BFloat16;
    for (const Shape& sh : small ? std::vector<Shape>(std::begin(small_shapes), std::end(small_shapes))
                                 : std::vector<Shape>(std::begin(shapes), std::end(shapes))) {
      Case c(sh.M, sh.N, sh.K, sh.batch, e->a_k_contiguous, e->b_k_contiguous);
      Buffers bf, ref;
      CK(cudaMalloc(&bf.a, std::max<size_t>(1, c.a_elems * c.batch) * 2));
      CK(cudaMalloc(&bf.b, std::max<size_t>(1, c.b_elems * c.batch) * 2));
      CK(cudaMalloc(&bf.c, c.c_elems * c.batch * 2));
      CK(cudaMalloc(&ref.c, c.c_elems * c.batch * 2));
      ref.a = bf.a; ref.b = bf.b;
      fill(bf.a, c.a_elems * c.batch, 1234 + runs, bf16);
      fill(bf.b, c.b_elems * c.batch, 99991 + runs, bf16);
      CK(cudaMemset(bf.c, 0xFF, c.c_elems * c.batch * 2));   // NaN poison: every element must be written
      CK(cudaMemset(ref.c, 0x00, c.c_elems * c.batch * 2));
      const int group = 1 + runs % 8;
      CK(e->launch(c.args(bf, group, nullptr)));
      if (c.K > 0) c.cublas(h, ref, bf16);
      CK(cudaMemset(stats, 0, 3 * sizeof(unsigned)));
      compare_kernel<<<512, 256>>>(bf.c, ref.c, c.c_elems * c.batch, bf16, stats);
      CK(cudaDeviceSynchronize());
      unsigned s[3]; CK(cudaMemcpy(s, stats, sizeof s, cudaMemcpyDeviceToHost));
      float md, mr; std::memcpy(&md, &s[0], 4); std::memcpy(&mr, &s[1], 4);
      // One output ulp of the 16-bit type at the largest magnitude, twice (rounding order).
      const float tol = (bf16 ? 2.f / 256 : 2.f / 2048) * std::max(mr, 1.f);
      const bool ok = s[2] == 0 && md <= tol;
      failures += !ok; ++runs;
      std::printf("%-6s %-44s M=%5lld N=%5lld K=%5lld b=%lld g=%d  maxdiff=%.4g maxref=%.4g nonfinite=%u\n",
                  ok ? "PASS" : "FAIL", e->name, (long long)c.M, (long long)c.N, (long long)c.K,
                  (long long)c.batch, group, md, mr, s[2]);
      cudaFree(bf.a); cudaFree(bf.b); cudaFree(bf.c); cudaFree(ref.c);
    }
  }
  // Misuse is refused, not run: a layout that does not match, and an unaligned leading dimension.
  for (const KernelEntry* e : entries(re)) {
    Case c(256, 256, 256, 1, e->a_k_contiguous, e->b_k_contiguous);
    Buffers bf; CK(cudaMalloc(&bf.a, c.a_elems * 2)); CK(cudaMalloc(&bf.b, c.b_elems * 2)); CK(cudaMalloc(&bf.c, c.c_elems * 2));
    GemmArgs g = c.args(bf, 1, nullptr);
    std::swap(g.a_stride_m, g.a_stride_k);
    const bool r1 = e->launch(g) == cudaErrorInvalidValue;
    g = c.args(bf, 1, nullptr);
    (e->a_k_contiguous ? g.a_stride_m : g.a_stride_k) += 1;
    const bool r2 = e->launch(g) == cudaErrorInvalidValue;
    cudaGetLastError();
    failures += !(r1 && r2); ++runs;
    std::printf("%-6s %-44s refuses wrong layout=%d, unaligned ld=%d\n", (r1 && r2) ? "PASS" : "FAIL", e->name, r1, r2);
    cudaFree(bf.a); cudaFree(bf.b); cudaFree(bf.c);
  }
  std::printf("check: %d runs, %d failures\n", runs, failures);
  cublasDestroy(h);
  return failures ? 1 : 0;
}

// ------------------------------------------------------------------------------------ bench
static double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static int run_bench(const std::string& sizes, const std::string& re, const std::string& groups_s) {
  cublasHandle_t h; CB(cublasCreate(&h));
  int dev = 0, l2 = 0; CK(cudaGetDevice(&dev)); CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  std::vector<int> groups;
  for (size_t p = 0; p < groups_s.size();) {
    size_t q = groups_s.find(',', p); if (q == std::string::npos) q = groups_s.size();
    groups.push_back(std::atoi(groups_s.substr(p, q - p).c_str())); p = q + 1;
  }
  unsigned* stats; CK(cudaMalloc(&stats, 3 * sizeof(unsigned)));
  cudaStream_t st; CK(cudaStreamCreate(&st));
  CB(cublasSetStream(h, st));
  std::printf("%-44s %6s %6s %6s %3s %9s %9s %9s %7s %s\n", "kernel", "M", "N", "K", "G", "us", "TFLOP/s", "cuBLAS", "ratio", "check");
  for (size_t p = 0; p < sizes.size();) {
    size_t q = sizes.find(';', p); if (q == std::string::npos) q = sizes.size();
    long long M, N, K; std::sscanf(sizes.substr(p, q - p).c_str(), "%lld,%lld,%lld", &M, &N, &K); p = q + 1;
    for (bool bf16 : {false, true}) {
      for (Layout lay : {Layout{true, true}, Layout{true, false}, Layout{false, true}, Layout{false, false}}) {
        std::vector<const KernelEntry*> es;
        for (auto* e : entries(re))
          if ((e->dtype == DType::BFloat16) == bf16 && e->a_k_contiguous == lay.a_k && e->b_k_contiguous == lay.b_k) es.push_back(e);
        if (es.empty()) continue;
        Case c(M, N, K, 1, lay.a_k, lay.b_k);
        const size_t set_bytes = (c.a_elems + c.b_elems + c.c_elems) * 2;
        const int nbuf = (int)std::min<size_t>(8, 2 * (size_t)l2 / set_bytes + 2);  // > 2x L2 of distinct data
        std::vector<Buffers> bufs(nbuf);
        Buffers ref;
        for (int i = 0; i < nbuf; ++i) {
          CK(cudaMalloc(&bufs[i].a, c.a_elems * 2)); CK(cudaMalloc(&bufs[i].b, c.b_elems * 2)); CK(cudaMalloc(&bufs[i].c, c.c_elems * 2));
          fill(bufs[i].a, c.a_elems, 11 + i, bf16); fill(bufs[i].b, c.b_elems, 77 + i, bf16);
        }
        CK(cudaMalloc(&ref.c, c.c_elems * 2)); ref.a = bufs[0].a; ref.b = bufs[0].b;
        c.cublas(h, ref, bf16);
        const double flops = 2.0 * M * N * K;
        const int reps = std::max(10, std::min(100, (int)(2e13 / flops)));
        std::vector<cudaEvent_t> ev(2 * reps);
        for (auto& x : ev) CK(cudaEventCreate(&x));
        auto time = [&](auto&& body) {
          for (int w = 0; w < 3; ++w) body(w % nbuf);
          std::vector<float> ms(reps);
          for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(ev[2 * r], st)); body(r % nbuf); CK(cudaEventRecord(ev[2 * r + 1], st));
          }
          CK(cudaStreamSynchronize(st));
          for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
          return median(ms);
        };
        const double cub_ms = time([&](int i) { c.cublas(h, bufs[i], bf16); });
        const double cub_tf = flops / cub_ms / 1e9;
        std::printf("%-44s %6lld %6lld %6lld %3s %9.1f %9.1f %9.1f %7s\n",
                    (std::string("cublas_") + (bf16 ? "bf16_" : "fp16_") + (lay.a_k ? "k" : "m") + (lay.b_k ? "k" : "n")).c_str(),
                    M, N, K, "-", cub_ms * 1e3, cub_tf, cub_tf, "1.000");
        for (const KernelEntry* e : es) {
          for (int g : groups) {
            CK(cudaMemset(bufs[0].c, 0xFF, c.c_elems * 2));
            CK(e->launch(c.args(bufs[0], g, st)));
            CK(cudaMemset(stats, 0, 3 * sizeof(unsigned)));
            compare_kernel<<<512, 256, 0, st>>>(bufs[0].c, ref.c, c.c_elems, bf16, stats);
            unsigned s[3]; CK(cudaMemcpyAsync(s, stats, sizeof s, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st));
            float md, mr; std::memcpy(&md, &s[0], 4); std::memcpy(&mr, &s[1], 4);
            const bool ok = s[2] == 0 && md <= (bf16 ? 2.f / 256 : 2.f / 2048) * std::max(mr, 1.f);
            const double ms = time([&](int i) { CK(e->launch(c.args(bufs[i], g, st))); });
            const double tf = flops / ms / 1e9;
            std::printf("%-44s %6lld %6lld %6lld %3d %9.1f %9.1f %9.1f %7.3f %s\n", e->name, M, N, K, g, ms * 1e3, tf,
                        cub_tf, tf / cub_tf, ok ? "ok" : "WRONG");
          }
        }
        std::fflush(stdout);
        for (auto& x : ev) cudaEventDestroy(x);
        for (auto& b : bufs) { cudaFree(b.a); cudaFree(b.b); cudaFree(b.c); }
        cudaFree(ref.c);
      }
    }
  }
  cublasDestroy(h);
  return 0;
}

static int run_info() {
  for (auto fn : origami::wgmma_gen::kEntries) {
    const KernelEntry& e = fn();
    cudaFuncAttributes a{}; CK(cudaFuncGetAttributes(&a, e.kernel));
    int clusters = -1;
    if (std::strstr(e.name, "_c2")) {  // how many 2-CTA clusters can be resident (the launcher's grid)
      CK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem_bytes));
      cudaLaunchConfig_t cfg{};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = 2; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
      cfg.gridDim = dim3(132); cfg.blockDim = dim3(e.threads); cfg.dynamicSmemBytes = e.smem_bytes;
      cfg.attrs = attr; cfg.numAttrs = 1;
      CK(cudaOccupancyMaxActiveClusters(&clusters, e.kernel, &cfg));
    }
    std::printf("%-44s regs=%3d local=%zu smem_dyn=%d threads=%d resident_clusters=%d\n", e.name, a.numRegs,
                a.localSizeBytes, e.smem_bytes, e.threads, clusters);
  }
  return 0;
}

// Sustained run: each kernel (and cuBLAS) back to back for `seconds`, rotating cold buffers, with wall-clock
// stamps so that an nvidia-smi log (clocks, power) sampled alongside can be matched to each phase.
static int run_soak(const std::string& size, const std::string& re, double seconds) {
  cublasHandle_t h; CB(cublasCreate(&h));
  long long M, N, K; std::sscanf(size.c_str(), "%lld,%lld,%lld", &M, &N, &K);
  cudaStream_t st; CK(cudaStreamCreate(&st)); CB(cublasSetStream(h, st));
  for (bool bf16 : {false, true}) {
    Case c(M, N, K, 1, true, true);
    const int nbuf = 4;
    std::vector<Buffers> bufs(nbuf);
    for (int i = 0; i < nbuf; ++i) {
      CK(cudaMalloc(&bufs[i].a, c.a_elems * 2)); CK(cudaMalloc(&bufs[i].b, c.b_elems * 2)); CK(cudaMalloc(&bufs[i].c, c.c_elems * 2));
      fill(bufs[i].a, c.a_elems, 11 + i, bf16); fill(bufs[i].b, c.b_elems, 77 + i, bf16);
    }
    std::vector<std::pair<std::string, std::function<void(int)>>> runs;
    runs.push_back({std::string("cublas_") + (bf16 ? "bf16" : "fp16"), [&](int i) { c.cublas(h, bufs[i], bf16); }});
    for (const KernelEntry* e : entries(re))
      if ((e->dtype == DType::BFloat16) == bf16 && e->a_k_contiguous && e->b_k_contiguous)
        runs.push_back({e->name, [&, e](int i) { CK(e->launch(c.args(bufs[i], 8, st))); }});
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (auto& r : runs) {
      CK(cudaStreamSynchronize(st));
      const double t0 = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      int n = 0;
      CK(cudaEventRecord(e0, st));
      while (std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() - t0 < seconds) {
        for (int j = 0; j < 20; ++j) r.second(n++ % nbuf);
        CK(cudaStreamSynchronize(st));
      }
      CK(cudaEventRecord(e1, st)); CK(cudaStreamSynchronize(st));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      const double t1 = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      std::printf("soak %-44s %lld,%lld,%lld launches=%d mean_tflops=%.1f wall=%.3f..%.3f\n", r.first.c_str(), M, N, K, n,
                  2.0 * M * N * K * n / (ms * 1e-3) / 1e12, t0, t1);
      std::fflush(stdout);
    }
    for (auto& b : bufs) { cudaFree(b.a); cudaFree(b.b); cudaFree(b.c); }
  }
  cublasDestroy(h);
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  if (mode == "check") return run_check(argc > 2 ? argv[2] : "", argc > 3 && std::string(argv[3]) == "small");
  if (mode == "bench") return run_bench(argc > 2 ? argv[2] : "4096,4096,4096;8192,8192,8192", argc > 3 ? argv[3] : "_kk",
                                        argc > 4 ? argv[4] : "8");
  if (mode == "info") return run_info();
  if (mode == "soak") return run_soak(argc > 2 ? argv[2] : "8192,8192,8192", argc > 3 ? argv[3] : "128x256", argc > 4 ? std::atof(argv[4]) : 3.0);
  std::fprintf(stderr, "usage: %s check [REGEX] | bench 'M,N,K;...' [REGEX] [G,G] | info\n", argv[0]);
  return 2;
}
