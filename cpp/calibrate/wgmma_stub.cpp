// Built instead of wgmma_bench.cu when the CUDA compiler cannot target sm_90a (CUDA < 12.0).
#include <stdexcept>

#include "microbench.hpp"

namespace origami::calib {
bool wgmma_compiled() { return false; }
BenchResult wgmma(const std::string&, int, int) {
  throw std::runtime_error("wgmma benchmark not built: the CUDA compiler cannot target sm_90a");
}
}  // namespace origami::calib
