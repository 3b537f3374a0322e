// Value types shared by the model, the selector, the kernel registry and the launchers.
// Pure C++17: no CUDA, no torch. A tile configuration is spelled once, here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace origami {

// Element type of A and B (C has the same type; accumulation is always fp32).
// fp32 inputs are a later addition: the type is a parameter everywhere, never a constant.
enum class DType : int { Float16 = 0, BFloat16 = 1 };

constexpr int dtype_bytes(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? 2 : 4; }
const char* dtype_name(DType t);                       // "float16", "bfloat16"
std::optional<DType> parse_dtype(std::string_view s);  // accepts "float16"/"fp16"/"half", "bfloat16"/"bf16"
std::string supported_dtypes();                        // "float16, bfloat16" (for error messages)

// Kernel family: which instruction path a compiled kernel uses.
enum class Family : int {
  MmaSync = 0,  // sm_80+: cp.async + ldmatrix + mma.sync m16n8k16
  Wgmma = 1,    // sm_90a: TMA + mbarrier + wgmma, warp-specialised, persistent
};
const char* family_name(Family f);  // "mma_sync", "wgmma"

// One GEMM tile configuration. group_size_m is a launch-time parameter of every kernel
// (the Triton-order raster); the rest are compile-time parameters of one specialisation.
struct TileConfig {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int group_size_m = 1;
  int stages = 2;
  int warps = 8;  // warps per thread block (threads = 32 * warps)
  Family family = Family::MmaSync;

  // Same compiled kernel (group_size_m excluded: it does not select a specialisation).
  bool same_kernel(const TileConfig& o) const {
    return block_m == o.block_m && block_n == o.block_n && block_k == o.block_k &&
           stages == o.stages && warps == o.warps && family == o.family;
  }
  bool operator==(const TileConfig& o) const { return same_kernel(o) && group_size_m == o.group_size_m; }
  std::string to_string() const;  // e.g. "mma_sync 128x128x32 s4 w8 g8"
};

// The real resources of one compiled kernel, as the build (ptxas report) or the driver
// (cudaFuncGetAttributes) reports them. Consumed by the register-pressure and shared-memory
// filters and by the occupancy term of the model.
struct KernelResources {
  TileConfig config;              // group_size_m unused
  DType dtype = DType::Float16;
  int threads = 0;                // threads per block
  int registers_per_thread = 0;
  int spill_store_bytes = 0;      // ptxas "bytes spill stores"
  int spill_load_bytes = 0;       // ptxas "bytes spill loads"
  int local_bytes = 0;            // stack frame / local memory per thread
  int smem_bytes = 0;             // all shared memory one block needs: every pipeline stage + epilogue staging
  std::string arch;               // e.g. "sm_90"
  std::string source;             // "ptxas" (build) or "cudaFuncGetAttributes" (driver)
};

struct Problem {
  std::int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::Float16;
};

}  // namespace origami
