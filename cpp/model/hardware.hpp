// Hardware description used by the model, resolved in three tiers (seed 000, section 4.1):
//   derived   - from the live device's CUDA runtime properties (lowest priority)
//   table     - the calibrated row for this GPU model, committed in python/origami_nv/data/gpus.json
//   override  - a JSON file named by the environment variable ORIGAMI_NV_HW_PARAMS (highest)
// plus "default" for values nothing above supplied (ISA constants, the seed's empirical constants).
// Every field remembers which tier supplied it. Pure C++17: the CUDA side fills DeviceProperties.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace origami {

// What the CUDA runtime reports for a device (cudaGetDeviceProperties / cudaDeviceGetAttribute).
// Filled by CUDA-side code (the op, calibration) or by Python from torch.cuda; never by the model.
struct DeviceProperties {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  int smem_per_block_optin_bytes = 0;
  int smem_per_sm_bytes = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int sm_clock_khz = 0;          // maximum SM clock
  int mem_clock_khz = 0;         // memory clock
  int mem_bus_width_bits = 0;
};

enum class Tier : int { Default = 0, Derived = 1, Table = 2, Override = 3 };
const char* tier_name(Tier t);  // "default", "derived", "table", "override"

// One named numeric parameter with its provenance.
struct HwValue {
  double value = 0.0;
  Tier tier = Tier::Default;
  std::string source;  // free text: "cudaGetDeviceProperties", "gpus.json row H100_SXM (calibrated 2026-..)", a file path
};

// The parameter set. Keys are the names used in gpus.json and in ORIGAMI_NV_HW_PARAMS files;
// the seed's five calibrated parameters keep the seed's names (l2_perf_ratio, dram_perf_ratio,
// dram_bw_coeff, hbm_latency_penalty, mma_latency). The full key list, units and validation live
// in hardware.cpp (one definition); known_hardware_keys() exposes it.
struct HardwareParams {
  std::string name;                   // table row name or device name
  std::map<std::string, HwValue> values;

  double get(const std::string& key) const;           // throws std::out_of_range naming the key
  int get_int(const std::string& key) const;
  Tier tier(const std::string& key) const;
};

std::vector<std::string> known_hardware_keys();
std::vector<std::string> table_gpu_names();           // rows of the embedded gpus.json
std::string default_gpu_name();                       // "H100_SXM"

// Resolve the parameters.
//   live : the visible device, or nullptr (no GPU)
//   gpu  : a table row name to use instead of matching the live device's name; "" = automatic
// Applies ORIGAMI_NV_HW_PARAMS when set. Throws std::invalid_argument with a message naming the
// unknown GPU (listing the known ones), or the override file and field that is wrong.
HardwareParams resolve_hardware(const DeviceProperties* live, const std::string& gpu = "");

// ---- Extensions (MODEL helper) ----------------------------------------------------------------
// Same as resolve_hardware, with the override file given explicitly ("" = none; the environment
// variable is not read).
HardwareParams resolve_hardware_with_override(const DeviceProperties* live, const std::string& gpu,
                                              const std::string& override_path);

// One key of the parameter set: unit, meaning, and what values it accepts.
struct HardwareKeyInfo {
  std::string name;
  std::string unit;
  std::string description;
  bool integer = false;       // must be a whole number
  bool allow_negative = false;  // the quadratic coefficients dram_bw_c0/c1/c2 (may be <= 0)
};
const std::vector<HardwareKeyInfo>& hardware_key_info();

// The embedded copy of python/origami_nv/data/gpus.json (read into the library at build time).
const std::string& embedded_gpu_table_json();

}  // namespace origami
