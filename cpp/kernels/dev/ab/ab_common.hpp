// A/B timing harness for mma.sync main-loop variants (dev only, not part of the package build).
#pragma once
#include <cuda_runtime.h>
#include <string>
#include <vector>
#include "gemm_args.hpp"
struct AbEntry {
  std::string name;  // variant/tile
  int bm, bn, bk;
  cudaError_t (*launch)(const origami::GemmArgs&);
};

