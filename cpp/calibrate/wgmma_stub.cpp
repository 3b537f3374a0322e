// Built instead of wgmma_bench.cu, tma_stream_bench.cu and dsmem_bench.cu when the CUDA compiler cannot target sm_90a (CUDA < 12.0).
#include <stdexcept>

#include "microbench.hpp"

namespace origami::calib {
bool wgmma_compiled() { return false; }
BenchResult wgmma(const std::string&, int, int) {
  throw std::runtime_error("wgmma benchmark not built: the CUDA compiler cannot target sm_90a");
}
bool tma_stream_compiled() { return false; }
BenchResult tma_stream_vs_sms(long long, const std::vector<int>&, int, int, int, const std::string&, int) {
  throw std::runtime_error("TMA streaming benchmark not built: the CUDA compiler cannot target sm_90a");
}
bool dsmem_compiled() { return false; }
BenchResult dsmem_read(int, int, int, int, int, int) {
  throw std::runtime_error("distributed shared memory benchmark not built: the CUDA compiler cannot target sm_90a");
}
}  // namespace origami::calib
