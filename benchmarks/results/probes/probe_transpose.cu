// One-off probe (thirty-third session, issue 15): the op's transposing operand copy (cpp/kernels/row_copy.cu,
// launch_transpose_copy) against tiled variants with more bytes in flight per block, and against a plain
// device-to-device copy of the same bytes (the HBM rate a copy can reach). Each case: cold inputs (buffers rotated
// over > 2x the L2), CUDA events, median of 21 launches; every variant's output compared to the current kernel's.
// "current" in probe_transpose_h200.txt is the 32 x 32 kernel of commit f022524 (4 loads per thread); the 64 x 64 /
// 256-thread variant replaced it in row_copy.cu (run against f022524's row_copy.cu to reproduce that column).
//   nvcc -O3 -std=c++17 -arch=sm_90a -Icpp/kernels benchmarks/results/probes/probe_transpose.cu -o /tmp/probe_transpose
//   /tmp/probe_transpose
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../../cpp/kernels/row_copy.cu"

namespace probe {
// dst[b][r][c] = src[b][c][r]: a TILE x TILE tile per block of 32 x ROWS threads, every load of the tile issued
// (into registers) before any shared-memory store, then every store.
template <typename T, int TILE, int ROWS>
__global__ void __launch_bounds__(32 * ROWS) transpose_tiled(const origami::TransposeParams p) {
  __shared__ T tile[TILE][TILE + 1];
  constexpr int kPer = TILE / ROWS, kCols = TILE / 32;
  const T* src = static_cast<const T*>(p.src);
  T* dst = static_cast<T*>(p.dst);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long r0 = static_cast<long long>(blockIdx.x) * TILE;
  for (long long b = blockIdx.z; b < p.batch; b += gridDim.z) {
    const T* s = src + b * p.src_batch;
    T* d = dst + b * p.rows * p.dst_ld;
    for (long long c0 = static_cast<long long>(blockIdx.y) * TILE; c0 < p.cols;
         c0 += static_cast<long long>(gridDim.y) * TILE) {
      T v[kPer][kCols];
#pragma unroll
      for (int k = 0; k < kPer; ++k)
#pragma unroll
        for (int h = 0; h < kCols; ++h) {
          const long long c = c0 + ty + k * ROWS, r = r0 + tx + 32 * h;
          v[k][h] = (c < p.cols && r < p.rows) ? s[c * p.src_ld + r] : T(0);
        }
#pragma unroll
      for (int k = 0; k < kPer; ++k)
#pragma unroll
        for (int h = 0; h < kCols; ++h) tile[ty + k * ROWS][tx + 32 * h] = v[k][h];
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kPer; ++k)
#pragma unroll
        for (int h = 0; h < kCols; ++h) {
          const long long r = r0 + ty + k * ROWS, c = c0 + tx + 32 * h;
          if (r < p.rows && c < p.cols) d[r * p.dst_ld + c] = tile[tx + 32 * h][ty + k * ROWS];
        }
      __syncthreads();
    }
  }
}

template <typename T, int TILE, int ROWS>
void launch(const origami::TransposeParams& p, cudaStream_t st) {
  const long long tr = (p.rows + TILE - 1) / TILE, tc = (p.cols + TILE - 1) / TILE;
  const dim3 grid(unsigned(tr), unsigned(std::min<long long>(tc, 65535)), unsigned(std::min<long long>(p.batch, 65535)));
  transpose_tiled<T, TILE, ROWS><<<grid, dim3(32, ROWS), 0, st>>>(p);
}
}  // namespace probe

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)

int main() {
  struct Case { long long batch, rows, cols; int eb; };
  // rows = the destination's rows (the source's contiguous extent), cols = the destination's contiguous extent
  const Case cases[] = {{1, 4096, 4096, 4}, {1, 8192, 8192, 4}, {1, 14336, 4096, 4}, {1, 4096, 14336, 4},
                        {1, 4096, 4096, 2}, {1, 3000, 1000, 4}, {8, 512, 512, 4}, {1, 2048, 2048, 4}, {1, 4097, 4099, 2}};
  cudaStream_t st; CK(cudaStreamCreate(&st));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("case | bytes moved | memcpy us (TB/s) | current us (TB/s) | 64x64/256t | 64x64/512t | 32x32/256t regs\n");
  for (const Case& cs : cases) {
    const long long ld_src = cs.rows, ld_dst = (cs.cols + 63) / 64 * 64;
    const size_t sbytes = size_t(cs.batch) * cs.cols * ld_src * cs.eb, dbytes = size_t(cs.batch) * cs.rows * ld_dst * cs.eb;
    const int copies = int(std::max<size_t>(2, (3ull * l2) / (sbytes + dbytes) + 1));
    std::vector<void*> s(copies), d(copies);
    for (int i = 0; i < copies; ++i) {
      CK(cudaMalloc(&s[i], sbytes)); CK(cudaMalloc(&d[i], dbytes));
      std::vector<unsigned short> h(sbytes / 2);
      for (size_t j = 0; j < h.size(); ++j) h[j] = static_cast<unsigned short>(j * 2654435761u >> 7);
      CK(cudaMemcpy(s[i], h.data(), sbytes, cudaMemcpyHostToDevice));
    }
    void* ref; CK(cudaMalloc(&ref, dbytes));
    auto params = [&](int i) {
      origami::TransposeParams p; p.src = s[i]; p.dst = d[i]; p.src_ld = ld_src; p.src_batch = cs.cols * ld_src;
      p.dst_ld = ld_dst; p.rows = cs.rows; p.cols = cs.cols; p.batch = cs.batch; return p; };
    auto run = [&](int v, int i) {
      const origami::TransposeParams p = params(i);
      if (v == 0) { CK(cudaMemcpyAsync(d[i], s[i], std::min(sbytes, dbytes), cudaMemcpyDeviceToDevice, st)); return; }
      if (v == 1) { CK(origami::launch_transpose_copy(p.src, p.src_ld, p.src_batch, p.dst, p.dst_ld, p.batch, p.rows, p.cols, cs.eb, st)); return; }
      if (cs.eb == 4) {
        if (v == 2) probe::launch<unsigned, 64, 8>(p, st); else if (v == 3) probe::launch<unsigned, 64, 16>(p, st);
        else probe::launch<unsigned, 32, 8>(p, st);
      } else {
        if (v == 2) probe::launch<unsigned short, 64, 8>(p, st); else if (v == 3) probe::launch<unsigned short, 64, 16>(p, st);
        else probe::launch<unsigned short, 32, 8>(p, st);
      }
      CK(cudaGetLastError());
    };
    // reference: the current kernel into ref
    CK(cudaMemset(d[0], 0, dbytes)); run(1, 0); CK(cudaMemcpyAsync(ref, d[0], dbytes, cudaMemcpyDeviceToDevice, st));
    std::printf("%lldx%lldx%lld eb%d | %.1f MB", cs.batch, cs.rows, cs.cols, cs.eb, 2.0 * cs.batch * cs.rows * cs.cols * cs.eb / 1e6);
    for (int v = 0; v < 5; ++v) {
      if (v >= 2) {  // check against the current kernel (the padding columns are zeroed on both sides)
        CK(cudaMemsetAsync(d[0], 0, dbytes, st)); CK(cudaMemsetAsync(ref, 0, dbytes, st)); run(1, 0);
        CK(cudaMemcpyAsync(ref, d[0], dbytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaMemsetAsync(d[0], 0, dbytes, st)); run(v, 0); CK(cudaStreamSynchronize(st));
        std::vector<char> a(dbytes), b(dbytes);
        CK(cudaMemcpy(a.data(), ref, dbytes, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(b.data(), d[0], dbytes, cudaMemcpyDeviceToHost));
        if (std::memcmp(a.data(), b.data(), dbytes) != 0) { std::printf(" | v%d MISMATCH", v); continue; }
      }
      std::vector<float> t;
      for (int rep = 0; rep < 21 + copies; ++rep) {
        const int i = rep % copies;
        CK(cudaEventRecord(e0, st)); run(v, i); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (rep >= copies) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      const double us = t[t.size() / 2] * 1e3;
      std::printf(" | %.1f (%.2f)", us, 2.0 * cs.batch * cs.rows * cs.cols * cs.eb / us / 1e6);
    }
    std::printf("\n");
    for (int i = 0; i < copies; ++i) { CK(cudaFree(s[i])); CK(cudaFree(d[i])); }
    CK(cudaFree(ref));
  }
  return 0;
}
