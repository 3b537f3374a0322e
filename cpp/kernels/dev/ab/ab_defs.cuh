// Kernel definition macros for the generated ab_part_<i>.cu files (ab_gen.py). OLDK: the baseline
// kernel (only when ab_build.sh was given one), NEWK: the current mma_sync/gemm_mma_sync.cuh.
#pragma once
#include "ab_common.hpp"
#include "mma_sync/gemm_mma_sync.cuh"
#ifdef AB_BASELINE_HEADER
#include AB_BASELINE_HEADER  // a copy of an earlier gemm_mma_sync.cuh in namespace mma_sync_old (ab_build.sh)
#endif

#define OLDK(ID, BM, BN, BK, ST, WM, WN, MINB)                                                              \
  using K_##ID = origami::mma_sync_old::Kernel<__half, BM, BN, BK, ST, WM, WN, true, false>;             \
  extern "C" __global__ void __launch_bounds__(32 * WM * WN, MINB) k_##ID(origami::mma_sync_old::Params p) { \
    K_##ID::run(p);                                                                                       \
  }                                                                                                       \
  static cudaError_t l_##ID(const origami::GemmArgs& g) {                                                 \
    static bool attr = false; /* launch<K> sets it once per K type; two IDs may share K */                \
    if (!attr) { attr = true; cudaFuncSetAttribute(k_##ID, cudaFuncAttributeMaxDynamicSharedMemorySize, K_##ID::kSmemBytes); } \
    return origami::mma_sync_old::launch<K_##ID>(k_##ID, g, BM, BN);                                      \
  }
#define NEWK(ID, BM, BN, BK, ST, WM, WN, MINB, DBL)                                                         \
  using K_##ID = origami::mma_sync::Kernel<__half, BM, BN, BK, ST, WM, WN, true, false, DBL>;            \
  extern "C" __global__ void __launch_bounds__(32 * WM * WN, MINB) k_##ID(origami::mma_sync::Params p) {  \
    K_##ID::run(p);                                                                                       \
  }                                                                                                       \
  static cudaError_t l_##ID(const origami::GemmArgs& g) {                                                 \
    static bool attr = false; /* launch<K> sets it once per K type; two IDs may share K */                \
    if (!attr) { attr = true; cudaFuncSetAttribute(k_##ID, cudaFuncAttributeMaxDynamicSharedMemorySize, K_##ID::kSmemBytes); } \
    return origami::mma_sync::launch<K_##ID>(k_##ID, g, BM, BN);                                          \
  }
#define REG(ID, BM, BN, BK) out.push_back(AbEntry{#ID, BM, BN, BK, l_##ID});

