// A/B timing of mma.sync main-loop variants: fp16, A row-major, B row-major (the "KN" layout), cold
// inputs (R rotating copies of A, B, C totalling >= 2x L2), CUDA-graph replays of L launches, median of 5
// replays; every kernel's output checked against an fp32 naive reference (relative Frobenius error).
//   ab_main [M,N,K ...]  -> one line per (shape, kernel), then per shape: best baseline ("old") and best
//   current kernel. Built by ab_build.sh.
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>
#include "ab_common.hpp"
#include "ab_parts.inc"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void fill(__half* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = __float2half(((h & 0xffff) / 65535.0f) * 2.f - 1.f);
  }
}
__global__ void ref_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k) s += __half2float(A[(long long)m * K + k]) * __half2float(B[(long long)k * N + n]);
  C[(long long)m * N + n] = s;
}
__global__ void err_sum(const __half* C, const float* R, long long n, double* out) {
  double d = 0, r = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double c = __half2float(C[i]), x = R[i];
    d += (c - x) * (c - x); r += x * x;
  }
  atomicAdd(out, d); atomicAdd(out + 1, r);
}

int main(int argc, char** argv) {
  std::vector<AbEntry> ks;
  ab_register_all(ks);
  std::vector<std::vector<long long>> shapes;
  for (int i = 1; i < argc; ++i) {
    long long m, n, k;
    if (std::sscanf(argv[i], "%lld,%lld,%lld", &m, &n, &k) == 3) shapes.push_back({m, n, k});
  }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  const long long l2 = prop.l2CacheSize;
  std::printf("device %s, %d SMs, L2 %lld B, %zu kernels\n", prop.name, prop.multiProcessorCount, l2, ks.size());
  cudaStream_t st; CK(cudaStreamCreate(&st));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  double* dsum; CK(cudaMalloc(&dsum, 2 * sizeof(double)));
  for (auto& s : shapes) {
    const long long M = s[0], N = s[1], K = s[2];
    const long long set_bytes = (M * K + K * N + M * N) * 2;
    const int R = (int)std::max(2LL, std::min(64LL, (2 * l2 + set_bytes - 1) / set_bytes));
    std::vector<__half*> a(R), b(R), c(R);
    for (int r = 0; r < R; ++r) {
      CK(cudaMalloc(&a[r], M * K * 2)); CK(cudaMalloc(&b[r], K * N * 2)); CK(cudaMalloc(&c[r], M * N * 2));
      fill<<<1024, 256>>>(a[r], M * K, 1u); fill<<<1024, 256>>>(b[r], K * N, 2u);
    }
    float* ref; CK(cudaMalloc(&ref, M * N * 4));
    ref_gemm<<<dim3((unsigned)((N + 127) / 128), (unsigned)M), 128>>>(a[0], b[0], ref, (int)M, (int)N, (int)K);
    CK(cudaDeviceSynchronize());
    const double flops = 2.0 * M * N * K;
    const bool big = M * N >= 2048LL * 2048;
    std::map<std::string, std::pair<double, std::string>> best;  // variant -> (tflops, kernel)
    for (auto& k : ks) {
      if (big && (k.bm < 64 || k.bn < 64)) continue;
      if (!big && M * N <= 512LL * 512 && k.bm * k.bn > 64 * 128) continue;
      auto args = [&](int r) {
        origami::GemmArgs g;
        g.a = a[r]; g.b = b[r]; g.c = c[r]; g.M = M; g.N = N; g.K = K; g.batch = 1;
        g.a_stride_m = K; g.a_stride_k = 1; g.b_stride_k = N; g.b_stride_n = 1; g.c_stride_m = N;
        g.group_size_m = 8; g.stream = st;
        return g;
      };
      CK(cudaMemsetAsync(c[0], 0xff, M * N * 2, st));  // poison
      {
        cudaError_t le = k.launch(args(0));
        if (le != cudaSuccess) {
          std::printf("%lld,%lld,%lld %-28s LAUNCH ERROR %s\n", M, N, K, k.name.c_str(), cudaGetErrorString(le));
          cudaGetLastError();
          continue;
        }
      }
      CK(cudaMemsetAsync(dsum, 0, 16, st));
      err_sum<<<1024, 256, 0, st>>>(c[0], ref, M * N, dsum);
      double hs[2]; CK(cudaMemcpyAsync(hs, dsum, 16, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st));
      const double err = std::sqrt(hs[0] / hs[1]);
      // estimate
      CK(cudaEventRecord(e0, st)); for (int r = 0; r < R; ++r) CK(k.launch(args(r))); CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      const double t_est = ms * 1e-3 / R;
      int L = (int)std::min(2000.0, std::max((double)R, 2e-3 / t_est));
      L = ((L + R - 1) / R) * R;
      cudaGraph_t gr; cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < L; ++i) CK(k.launch(args(i % R)));
      CK(cudaStreamEndCapture(st, &gr));
      CK(cudaGraphInstantiate(&ge, gr, 0));
      CK(cudaGraphLaunch(ge, st)); CK(cudaStreamSynchronize(st));
      std::vector<double> ts;
      for (int rep = 0; rep < 5; ++rep) {
        CK(cudaEventRecord(e0, st)); CK(cudaGraphLaunch(ge, st)); CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1));
        ts.push_back(ms * 1e-3 / L);
      }
      CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(gr));
      std::sort(ts.begin(), ts.end());
      const double t = ts[2], tf = flops / t / 1e12;
      std::printf("%lld,%lld,%lld %-28s %9.2f us %7.1f TF err %.2e%s\n", M, N, K, k.name.c_str(), t * 1e6, tf, err,
                  err < 2e-3 ? "" : "  WRONG");
      std::fflush(stdout);
      if (err < 2e-3) {
        std::string v = k.name.substr(0, k.name.find('_'));
        v = v == "old" ? "old" : "new";
        if (tf > best[v].first) best[v] = {tf, k.name};
      }
    }
    if (best.count("old"))
      std::printf("BEST %lld,%lld,%lld old %.1f (%s) new %.1f (%s) ratio %.3f\n", M, N, K, best["old"].first,
                  best["old"].second.c_str(), best["new"].first, best["new"].second.c_str(),
                  best["new"].first / std::max(1e-9, best["old"].first));
    else
      std::printf("BEST %lld,%lld,%lld new %.1f (%s)\n", M, N, K, best["new"].first, best["new"].second.c_str());
    std::fflush(stdout);
    for (int r = 0; r < R; ++r) { cudaFree(a[r]); cudaFree(b[r]); cudaFree(c[r]); }
    cudaFree(ref);
  }
  return 0;
}
