// Helpers shared by the calibration translation units: error checks, device selection,
// device buffers, timers. Host code throws std::runtime_error; pybind11 turns it into RuntimeError.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "microbench.hpp"

namespace origami::calib {

#define CALIB_CHECK(expr)                                                                    \
  do {                                                                                       \
    cudaError_t err_ = (expr);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      cudaGetLastError(); /* clear a non-sticky error so the next benchmark starts clean */  \
      throw std::runtime_error(std::string("CUDA error ") + cudaGetErrorName(err_) + " (" + \
                               cudaGetErrorString(err_) + ") in " #expr);                    \
    }                                                                                        \
  } while (0)

// Checks a launch and waits for it, so that a kernel fault is reported by the benchmark that caused it.
#define CALIB_CHECK_LAUNCH()                   \
  do {                                         \
    CALIB_CHECK(cudaGetLastError());           \
    CALIB_CHECK(cudaDeviceSynchronize());      \
  } while (0)

struct Device {
  int id = 0;
  cudaDeviceProp prop{};
  int clock_khz = 0;      // maximum SM clock (cudaDevAttrClockRate)
  int mem_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int bus_width_bits = 0;
  int smem_per_sm = 0;
  int smem_optin = 0;
};

// The current device, or std::runtime_error("no CUDA device: ...") when there is none.
inline Device require_device() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    throw std::runtime_error(std::string("no CUDA device: cudaGetDeviceCount failed (") + cudaGetErrorString(e) + ")");
  }
  if (count == 0) throw std::runtime_error("no CUDA device: cudaGetDeviceCount returned 0");
  Device d;
  CALIB_CHECK(cudaGetDevice(&d.id));
  CALIB_CHECK(cudaGetDeviceProperties(&d.prop, d.id));
  CALIB_CHECK(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, d.id));
  CALIB_CHECK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, d.id));
  CALIB_CHECK(cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, d.id));
  CALIB_CHECK(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, d.id));
  CALIB_CHECK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d.id));
  return d;
}

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count == 0) return;
    cudaError_t e = cudaMalloc(&ptr_, count * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error("cudaMalloc of " + std::to_string(count * sizeof(T)) + " bytes failed: " +
                               cudaGetErrorString(e));
    }
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  std::vector<T> to_host() const {
    std::vector<T> h(count_);
    if (count_) CALIB_CHECK(cudaMemcpy(h.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void zero() {
    if (count_) CALIB_CHECK(cudaMemset(ptr_, 0, count_ * sizeof(T)));
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// Elapsed milliseconds of one launch, bracketed by CUDA events on the default stream.
template <class Launch>
float time_ms(Launch&& launch) {
  cudaEvent_t a, b;
  CALIB_CHECK(cudaEventCreate(&a));
  CALIB_CHECK(cudaEventCreate(&b));
  CALIB_CHECK(cudaEventRecord(a));
  launch();
  CALIB_CHECK(cudaGetLastError());
  CALIB_CHECK(cudaEventRecord(b));
  CALIB_CHECK(cudaEventSynchronize(b));
  float ms = 0.f;
  CALIB_CHECK(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline void require_positive(const char* what, long long v) {
  if (v <= 0) throw std::invalid_argument(std::string(what) + " must be positive, got " + std::to_string(v));
}

// ---- device-side helpers ---------------------------------------------------------------
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Per-block timing record written by thread 0: SM clock and wall clock at start and end,
// so the clock each block actually ran at is (clk1 - clk0) / (ns1 - ns0).
struct BlockTiming {
  long long clk0, clk1;
  unsigned long long ns0, ns1;
  unsigned smid, pad;
};

// Median over blocks of the SM clock (MHz) each block ran at.
inline double clock_mhz_from(const std::vector<BlockTiming>& t) {
  std::vector<double> mhz;
  for (const auto& b : t) {
    double dns = double(b.ns1 - b.ns0);
    if (dns > 0 && b.clk1 > b.clk0) mhz.push_back(double(b.clk1 - b.clk0) / dns * 1e3);
  }
  return median(mhz);
}
// Median over blocks of the elapsed SM cycles.
inline double block_cycles_from(const std::vector<BlockTiming>& t) {
  std::vector<double> c;
  for (const auto& b : t) c.push_back(double(b.clk1 - b.clk0));
  return median(c);
}

}  // namespace origami::calib
