// Standalone device probe of the simt family (issue 15): a few specialisations of cpp/kernels/simt/gemm_simt.cuh
// against cuBLAS SGEMM (cublasSgemm_v2, CUBLAS_DEFAULT_MATH: no TF32), fp32 in and out.
//
// Method (the device README's METHOD.md): cold inputs (each timed launch reads the next of several rotating
// input sets, > 2 x the 50 MB L2 in all), CUDA events around groups of launches, median over groups; every
// timed configuration is first run once on NaN-poisoned output and checked against an fp64 reference computed on
// the GPU (relative Frobenius error ||C - ref|| / ||ref||, must be <= 1e-5 with every element written). The
// split-K launches add a reduction kernel written here (slice-ordered sum + bias, the contract of
// cpp/kernels/split_k.cu) and are timed together with it. cuBLAS is dlopen'ed (CUBLAS_LIB; the device has it
// with torch) so this builds where no cuBLAS is installed.
//
// Build: run.sh (nvcc -arch=sm_90 -O3 -std=c++17 -I cpp -I cpp/kernels). Usage: simt_probe [perf|check|all].
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "simt/gemm_simt.cuh"

#define CK(x)                                                                                        \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));         \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

// ---- the specialisations under test (the generator's wrapper: extern "C" + __launch_bounds__ + launcher) ----
struct Entry {
  const char* name;
  cudaError_t (*launch)(const origami::GemmArgs&);
  const void* kernel;
  int bm, bn, bk, threads, smem;
  bool a_k, b_k;
};
static std::vector<Entry>& entries() {
  static std::vector<Entry> e;
  return e;
}
// SIMTU: SIMTB with the k-steps per unrolled group (0: the kernel's rule). SIMTB: SIMT with an explicit minimum of CTAs per SM in __launch_bounds__ (the register cap 65536 / (threads x
// MINB)); SIMT takes the generator's rule (as many 128-register CTAs as fit).
#define SIMTU(NAME, BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL, MINB, KUNROLL)                             \
  using K_##NAME = origami::simt::Kernel<BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL, KUNROLL>;             \
  extern "C" __global__ void __launch_bounds__(32 * WM * WN, MINB) NAME(origami::simt::Params p) {           \
    K_##NAME::run(p);                                                                                        \
  }                                                                                                          \
  static cudaError_t launch_##NAME(const origami::GemmArgs& g) {                                             \
    return origami::simt::launch<K_##NAME>(NAME, g, BM, BN);                                                 \
  }                                                                                                          \
  static int reg_##NAME = (entries().push_back({#NAME, launch_##NAME, (const void*)NAME, BM, BN, BK,         \
                                                K_##NAME::kThreads, K_##NAME::kSmemBytes, AK, BKC}), 0);
#define SIMTB(NAME, BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL, MINB) \
  SIMTU(NAME, BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL, MINB, 0)
#define SIMT(NAME, BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL) \
  SIMTB(NAME, BM, BN, BK, ST, WM, WN, TM, TN, AK, BKC, DBL, (65536 / (128 * 32 * WM * WN)) < 1 ? 1 : (65536 / (128 * 32 * WM * WN)))
// The kernel and size lists: the committed ones unless the build names others (-DSIMT_KERNELS_INC=..., -DSIMT_SIZES_INC=...).
#ifndef SIMT_KERNELS_INC
#define SIMT_KERNELS_INC "simt_probe_kernels.inc"
#endif
#ifndef SIMT_SIZES_INC
#define SIMT_SIZES_INC "simt_probe_sizes.inc"
#endif
#include SIMT_KERNELS_INC

// ---- data, reference, error ----
__global__ void fill_kernel(float* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed * 0x9E3779B9u;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    p[i] = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;  // uniform in [-1, 1)
  }
}
__global__ void poison_kernel(float* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = __int_as_float(0x7fc00000);
}
// fp64 reference, 16x16 tiles of 2x2 outputs per thread (simple, strided: any layout).
__global__ void ref_kernel(const float* A, const float* B, const float* bias, double* R, int M, int N, int K,
                           long long asm_, long long ask, long long abat, long long bsk, long long bsn, long long bbat,
                           long long rbat) {
  __shared__ double As[32][17], Bs[16][33];
  const int b = blockIdx.z;
  A += b * abat;
  B += b * bbat;
  R += b * rbat;
  const int tx = threadIdx.x, ty = threadIdx.y;  // 16 x 16
  const int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  double acc[2][2] = {{0, 0}, {0, 0}};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int r = 0; r < 2; ++r) {
      int m = m0 + ty + 16 * r, k = k0 + tx;
      As[ty + 16 * r][tx] = (m < M && k < K) ? (double)A[m * asm_ + k * ask] : 0.0;
      int n = n0 + tx + 16 * r, kk = k0 + ty;
      Bs[ty][tx + 16 * r] = (n < N && kk < K) ? (double)B[kk * bsk + n * bsn] : 0.0;
    }
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) acc[i][j] += As[ty + 16 * i][k] * Bs[k][tx + 16 * j];
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) R[(long long)m * N + n] = acc[i][j] + (bias ? (double)bias[n] : 0.0);
    }
}
__device__ double g_err[3];  // sum (c - r)^2, sum r^2, bad elements (NaN / unwritten)
__global__ void err_kernel(const float* C, const double* R, int M, int N, long long ldc, long long cbat, int batch) {
  double e = 0, r2 = 0, bad = 0;
  const long long total = (long long)batch * M * N;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long b = i / ((long long)M * N), rem = i % ((long long)M * N);
    const int m = (int)(rem / N), n = (int)(rem % N);
    const double c = C[b * cbat + m * ldc + n], r = R[i];
    if (!(c == c)) bad += 1;
    else { e += (c - r) * (c - r); }
    r2 += r * r;
  }
  atomicAdd(&g_err[0], e);
  atomicAdd(&g_err[1], r2);
  atomicAdd(&g_err[2], bad);
}

// The split-K reduction of split_k.cu's contract: tail tile j's output (BM x BN) = sum over s = 0..S-1 in order of
// ws[(s * tail + j) * BM * BN + row * BN + col], + bias[n]. Tail tile j is unit dp_tiles + j of the launch order.
__global__ void reduce_kernel(const float* ws, float* C, const float* bias, int M, int N, long long ldc, long long cbat,
                              int bm, int bn, int tiles_m, int tiles_n, int group, long long dp, long long tail, int S) {
  const long long per_tile = (long long)bm * bn;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < tail * per_tile; i += (long long)gridDim.x * blockDim.x) {
    const long long j = i / per_tile, e = i % per_tile;
    const long long t = dp + j;
    const int per_batch = tiles_m * tiles_n;
    const long long b = t / per_batch;
    int tm, tn;
    origami::triton_raster((int)(t % per_batch), tiles_m, tiles_n, group, tm, tn);
    const int m = tm * bm + (int)(e / bn), n = tn * bn + (int)(e % bn);
    if (m >= M || n >= N) continue;
    float s = 0.f;
    for (int k = 0; k < S; ++k) s += ws[((long long)k * tail + j) * per_tile + e];
    if (bias) s += bias[n];
    C[b * cbat + (long long)m * ldc + n] = s;
  }
}

// ---- cuBLAS through dlopen ----
typedef int (*cublasCreate_t)(void**);
typedef int (*cublasSetMathMode_t)(void*, int);
typedef int (*cublasSgemm_t)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
                             const float*, float*, int);
static cublasSgemm_t p_sgemm = nullptr;
static void* g_cublas = nullptr;
static bool load_cublas() {
  const char* path = std::getenv("CUBLAS_LIB");
  void* h = dlopen(path && *path ? path : "libcublas.so", RTLD_NOW | RTLD_GLOBAL);
  if (!h) { std::fprintf(stderr, "no cuBLAS: %s\n", dlerror()); return false; }
  auto create = (cublasCreate_t)dlsym(h, "cublasCreate_v2");
  auto setmath = (cublasSetMathMode_t)dlsym(h, "cublasSetMathMode");
  p_sgemm = (cublasSgemm_t)dlsym(h, "cublasSgemm_v2");
  if (!create || !setmath || !p_sgemm || create(&g_cublas) != 0) return false;
  return setmath(g_cublas, 0 /* CUBLAS_DEFAULT_MATH: fp32, no TF32 */) == 0;
}

// ---- problems ----
struct Problem {
  int M, N, K, batch = 1;
  bool a_k = true, b_k = false;
  int lda = 0, ldb = 0, ldc = 0;  // 0: packed (rounded up to 4 for A and B)
  bool bias = false;
};
static int up4(int x) { return (x + 3) / 4 * 4; }
struct Buffers {
  int nsets = 1;
  long long a_elems, b_elems, c_elems, a_bat, b_bat, c_bat;
  long long lda, ldb, ldc;
  std::vector<float*> a, b, c;
  float* bias = nullptr;
  double* ref = nullptr;
};
static Buffers make_buffers(const Problem& p, int nsets) {
  Buffers bf;
  bf.nsets = nsets;
  bf.lda = p.lda ? p.lda : up4(p.a_k ? p.K : p.M);
  bf.ldb = p.ldb ? p.ldb : up4(p.b_k ? p.K : p.N);
  bf.ldc = p.ldc ? p.ldc : p.N;
  bf.a_bat = (long long)bf.lda * (p.a_k ? p.M : p.K);
  bf.b_bat = (long long)bf.ldb * (p.b_k ? p.N : p.K);
  bf.c_bat = (long long)bf.ldc * p.M;
  bf.a_bat = (bf.a_bat + 3) / 4 * 4; bf.b_bat = (bf.b_bat + 3) / 4 * 4;
  bf.a_elems = bf.a_bat * p.batch; bf.b_elems = bf.b_bat * p.batch; bf.c_elems = bf.c_bat * p.batch;
  for (int s = 0; s < nsets; ++s) {
    float *a, *b, *c;
    CK(cudaMalloc(&a, bf.a_elems * 4)); CK(cudaMalloc(&b, bf.b_elems * 4)); CK(cudaMalloc(&c, bf.c_elems * 4));
    fill_kernel<<<1024, 256>>>(a, bf.a_elems, 1000 + 2 * s);
    fill_kernel<<<1024, 256>>>(b, bf.b_elems, 1001 + 2 * s);
    bf.a.push_back(a); bf.b.push_back(b); bf.c.push_back(c);
  }
  if (p.bias) { CK(cudaMalloc(&bf.bias, p.N * 4)); fill_kernel<<<64, 256>>>(bf.bias, p.N, 7); }
  CK(cudaMalloc(&bf.ref, (long long)p.M * p.N * p.batch * 8));
  dim3 grid((p.N + 31) / 32, (p.M + 31) / 32, p.batch);
  ref_kernel<<<grid, dim3(16, 16)>>>(bf.a[0], bf.b[0], bf.bias, bf.ref, p.M, p.N, p.K, p.a_k ? bf.lda : 1, p.a_k ? 1 : bf.lda,
                                    bf.a_bat, p.b_k ? 1 : bf.ldb, p.b_k ? bf.ldb : 1, bf.b_bat, (long long)p.M * p.N);
  CK(cudaGetLastError());
  return bf;
}
static void free_buffers(Buffers& bf) {
  for (int s = 0; s < bf.nsets; ++s) { cudaFree(bf.a[s]); cudaFree(bf.b[s]); cudaFree(bf.c[s]); }
  if (bf.bias) cudaFree(bf.bias);
  cudaFree(bf.ref);
}

static int g_sms = 0;
struct Launch {
  const Entry* e;  // nullptr: cuBLAS
  int split;
  origami::SplitPlan plan;
  float* ws = nullptr;
  long long slots = 0;
};
static void run_once(const Problem& p, Buffers& bf, Launch& L, int set) {
  if (!L.e) {
    const float one = 1.f, zero = 0.f;
    // Column-major C^T (N x M) = op(B storage) op(A storage): row-major B (N-contiguous) is B^T as stored.
    if (p_sgemm(g_cublas, p.b_k ? 1 : 0, p.a_k ? 0 : 1, p.N, p.M, p.K, &one, bf.b[set], (int)bf.ldb, bf.a[set], (int)bf.lda, &zero, bf.c[set],
                (int)bf.ldc) != 0) { std::fprintf(stderr, "cublasSgemm failed\n"); std::exit(1); }
    return;
  }
  origami::GemmArgs g;
  g.a = bf.a[set]; g.b = bf.b[set]; g.c = bf.c[set];
  g.M = p.M; g.N = p.N; g.K = p.K; g.batch = p.batch;
  g.a_stride_m = p.a_k ? bf.lda : 1; g.a_stride_k = p.a_k ? 1 : bf.lda; g.a_stride_batch = bf.a_bat;
  g.b_stride_k = p.b_k ? 1 : bf.ldb; g.b_stride_n = p.b_k ? bf.ldb : 1; g.b_stride_batch = bf.b_bat;
  g.c_stride_m = bf.ldc; g.c_stride_batch = bf.c_bat;
  g.group_size_m = 8;
  g.split_k = L.split; g.split_slots = L.slots; g.workspace = L.ws;
  g.bias = bf.bias;
  CK(L.e->launch(g));
  if (L.plan.slices > 1) {
    const origami::SplitPlan& sp = L.plan;
    const int tm = (p.M + L.e->bm - 1) / L.e->bm, tn = (p.N + L.e->bn - 1) / L.e->bn;
    long long n = sp.tail_tiles * L.e->bm * L.e->bn;
    int blocks = (int)std::min<long long>((n + 255) / 256, (long long)g_sms * 8);
    reduce_kernel<<<blocks, 256>>>(L.ws, bf.c[set], bf.bias, p.M, p.N, bf.ldc, bf.c_bat, L.e->bm, L.e->bn, tm, tn, 8,
                                   sp.dp_tiles, sp.tail_tiles, sp.slices);
  }
}
static bool prepare(const Problem& p, Launch& L) {
  if (!L.e) return true;
  int per_sm = 0;
  CK(cudaFuncSetAttribute(L.e->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L.e->smem));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, L.e->kernel, L.e->threads, L.e->smem));
  L.slots = (long long)per_sm * g_sms;
  L.plan = origami::make_split_plan(p.M, p.N, p.K, p.batch, L.e->bm, L.e->bn, L.e->bk, L.split, L.slots);
  if (L.split > 1 && L.plan.slices <= 1) return false;  // nothing to split: the same launch as split 1
  const long long ws = L.plan.workspace_elems(L.e->bm, L.e->bn);
  if (ws) CK(cudaMalloc(&L.ws, ws * 4));
  return true;
}
// One checked run: poison, run, compare with the fp64 reference.
static double check(const Problem& p, Buffers& bf, Launch& L, double* bad_out) {
  poison_kernel<<<1024, 256>>>(bf.c[0], bf.c_elems);
  run_once(p, bf, L, 0);
  CK(cudaGetLastError());
  double z[3] = {0, 0, 0};
  CK(cudaMemcpyToSymbol(g_err, z, sizeof z));
  err_kernel<<<1024, 256>>>(bf.c[0], bf.ref, p.M, p.N, bf.ldc, bf.c_bat, p.batch);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpyFromSymbol(z, g_err, sizeof z));
  *bad_out = z[2];
  return std::sqrt(z[0] / (z[1] > 0 ? z[1] : 1));
}
static double time_launch(const Problem& p, Buffers& bf, Launch& L) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  run_once(p, bf, L, 1 % bf.nsets);  // warm-up
  CK(cudaEventRecord(e0));
  run_once(p, bf, L, 0);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const int per_group = std::max(1, std::min(50, (int)(0.5 / std::max(ms, 1e-3f))));  // groups of >= ~0.5 ms
  const int groups = 9;
  std::vector<double> t;
  int set = 0;
  for (int gi = 0; gi < groups; ++gi) {
    CK(cudaEventRecord(e0));
    for (int i = 0; i < per_group; ++i) { run_once(p, bf, L, set); set = (set + 1) % bf.nsets; }
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1e-3 / per_group);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(e0); cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static bool g_fail = false;
static void perf(const char* label, Problem p, const std::vector<std::string>& names, const std::vector<int>& splits) {
  const double set_bytes = 4.0 * ((double)p.M * p.K + (double)p.K * p.N + (double)p.M * p.N) * p.batch;
  const int nsets = std::max(2, std::min(16, (int)std::ceil(2.2 * 50e6 / set_bytes)));
  Buffers bf = make_buffers(p, nsets);
  const double flop = 2.0 * p.M * p.N * (double)p.K * p.batch;
  Launch cb{nullptr, 1};
  double bad;
  const double cerr = check(p, bf, cb, &bad);
  const double tc = time_launch(p, bf, cb);
  std::printf("%-16s cublas        %9.2f us %7.2f TFLOP/s  err %.2e\n", label, tc * 1e6, flop / tc * 1e-12, cerr);
  double best = 1e30;
  std::string best_name;
  for (const auto& n : names) {
    const Entry* e = nullptr;
    for (auto& x : entries()) if (n == x.name) e = &x;
    if (!e) { std::printf("no kernel %s\n", n.c_str()); continue; }
    for (int s : splits) {
      Launch L{e, s};
      if (!prepare(p, L)) continue;
      const double err = check(p, bf, L, &bad);
      const bool ok = err <= 1e-5 && bad == 0;
      if (!ok) g_fail = true;
      const double t = time_launch(p, bf, L);
      std::printf("%-16s %-40s sk%-2d %9.2f us %7.2f TFLOP/s  err %.2e%s\n", label, e->name, L.plan.slices, t * 1e6,
                  flop / t * 1e-12, err, ok ? "" : "  FAIL");
      if (ok && t < best) { best = t; best_name = std::string(e->name) + " sk" + std::to_string(L.plan.slices); }
      if (L.ws) cudaFree(L.ws);
    }
  }
  std::printf("RESULT %-16s best %-46s %7.2f TFLOP/s  cublas %7.2f TFLOP/s  ratio %.3f\n", label, best_name.c_str(),
              flop / best * 1e-12, flop / tc * 1e-12, tc / best);
  std::fflush(stdout);
  free_buffers(bf);
}

// Odd shapes, every layout, batch, bias, split: correctness only.
static void checks() {
  struct Case { int M, N, K, batch; bool bias; int split; };
  const Case cases[] = {{1, 1, 1, 1, false, 1},     {1, 37, 5, 2, true, 1},    {17, 33, 45, 3, true, 1},
                        {130, 129, 67, 1, false, 1}, {77, 300, 1000, 2, true, 4}, {256, 256, 256, 1, true, 3},
                        {513, 255, 129, 1, false, 2}, {3, 4097, 300, 1, true, 8}};
  int n = 0, fails = 0;
  for (auto& e : entries()) {
    for (const Case& c : cases) {
      Problem p{c.M, c.N, c.K, c.batch, e.a_k, e.b_k};
      p.bias = c.bias;
      Buffers bf = make_buffers(p, 1);
      Launch L{&e, c.split};
      if (!prepare(p, L)) { L = Launch{&e, 1}; prepare(p, L); }
      double bad;
      const double err = check(p, bf, L, &bad);
      const bool ok = err <= 1e-5 && bad == 0;
      ++n;
      if (!ok) {
        ++fails;
        std::printf("CHECK FAIL %s %dx%dx%d b%d bias%d sk%d: err %.3e bad %.0f\n", e.name, c.M, c.N, c.K, c.batch, c.bias,
                    L.plan.slices, err, bad);
      }
      if (L.ws) cudaFree(L.ws);
      free_buffers(bf);
    }
  }
  std::printf("CHECKS %d run, %d failed\n", n, fails);
  if (fails) g_fail = true;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("device %s, %d SMs\n", prop.name, g_sms);
  for (auto& e : entries()) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, e.kernel));
    int per_sm = 0;
    CK(cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, e.kernel, e.threads, e.smem));
    std::printf("kernel %-40s regs %3d local %3zu smem %6d ctas/sm %d\n", e.name, a.numRegs, a.localSizeBytes, e.smem, per_sm);
  }
  if (mode == "one" && argc >= 6) {  // one NAME M N K: a few launches of one kernel (for ncu)
    const Entry* e = nullptr;
    for (auto& x : entries()) if (x.name == std::string(argv[2])) e = &x;
    if (!e) { std::printf("no kernel %s\n", argv[2]); return 1; }
    Problem p{std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]), 1, e->a_k, e->b_k};
    Buffers bf = make_buffers(p, 2);
    Launch L{e, 1};
    prepare(p, L);
    for (int i = 0; i < 4; ++i) run_once(p, bf, L, i % 2);
    CK(cudaDeviceSynchronize());
    std::printf("one %s done\n", e->name);
    return 0;
  }
  if (mode == "check" || mode == "all") checks();
  if (mode == "perf" || mode == "all") {
    if (!load_cublas()) return 1;
#include SIMT_SIZES_INC
  }
  std::printf(g_fail ? "SOME CHECKS FAILED\n" : "ALL CHECKS PASSED\n");
  return g_fail ? 2 : 0;
}
