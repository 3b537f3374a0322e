// Hardware parameters in three tiers (seed 000, section 4.1): derived < table < override, with
// "default" for values no tier supplied. One definition of every key, its unit and validation.
#include "hardware.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "types.hpp"  // kMaxClusterSlices
#include "gpu_table_embedded.hpp"  // generated from python/origami_nv/data/gpus.json at build time
#include "json.hpp"
#include "text.hpp"

namespace origami {

const char* tier_name(Tier t) {
  switch (t) {
    case Tier::Default: return "default";
    case Tier::Derived: return "derived";
    case Tier::Table: return "table";
    case Tier::Override: return "override";
  }
  return "?";
}

const std::vector<HardwareKeyInfo>& hardware_key_info() {
  // name, unit, description, integer, allow_negative
  static const std::vector<HardwareKeyInfo> keys = {
      {"n_sm", "SMs", "streaming multiprocessors", true, false},
      {"l2_bytes", "bytes", "L2 cache capacity", true, false},
      {"smem_per_block_bytes", "bytes", "shared memory one block may use (opt-in maximum)", true, false},
      {"smem_per_sm_bytes", "bytes", "shared memory per SM", true, false},
      {"regs_per_sm", "registers", "32-bit registers per SM", true, false},
      {"max_threads_per_sm", "threads", "resident threads per SM", true, false},
      {"max_blocks_per_sm", "blocks", "resident blocks per SM", true, false},
      {"sm_clock_mhz", "MHz", "maximum SM clock", false, false},
      {"mem_clock_mhz", "MHz", "memory clock (as the CUDA runtime reports it)", false, false},
      {"mem_bus_width_bits", "bits", "memory bus width", true, false},
      {"l2_perf_ratio", "bytes/SM-cycle", "aggregate L2 bandwidth divided by the SM clock", false, false},
      {"dram_perf_ratio", "bytes/SM-cycle", "aggregate DRAM bandwidth divided by the SM clock", false, false},
      {"dram_bw_coeff", "1/SM", "DRAM bandwidth fraction per active SM: min(1, coeff * active_SMs)", false, false},
      {"dram_bw_c0", "1/SM^2", "source's quadratic DRAM bandwidth fraction: c0*n^2 + c1*n + c2 (signed)", false, true},
      {"dram_bw_c1", "1/SM", "source's quadratic DRAM bandwidth fraction: linear term (signed)", false, true},
      {"dram_bw_c2", "1", "source's quadratic DRAM bandwidth fraction: constant term (signed)", false, true},
      {"hbm_latency_penalty", "cycles", "fixed DRAM access latency", false, false},
      {"l2_latency_cycles", "cycles", "L2 hit latency", false, false},
      {"mma_latency", "cycles", "mma.sync m16n8k16 latency (ILP 1)", false, false},
      {"tensor_cores_per_sm", "units", "tensor cores per SM", true, false},
      {"mma_m", "elements", "MMA atom M", true, false},
      {"mma_n", "elements", "MMA atom N", true, false},
      {"mma_k", "elements", "MMA atom K", true, false},
      {"mma_sync_flops_per_cycle", "flop/SM-cycle", "dense fp16 mma.sync throughput per SM", false, false},
      {"wgmma_flops_per_cycle", "flop/SM-cycle", "dense fp16 wgmma throughput per SM", false, false},
      {"wgmma_tf32_flops_per_cycle", "flop/SM-cycle", "dense tf32 wgmma throughput per SM (fp32 storage)", false, false},
      {"mma_sync_tf32_flops_per_cycle", "flop/SM-cycle", "dense tf32 mma.sync throughput per SM (fp32 storage)", false, false},
      {"fp32_flops_per_cycle", "flop/SM-cycle", "FP32 FMA throughput per SM (2 flops per FMA)", false, false},
      {"smem_bytes_per_cycle", "bytes/SM-cycle", "shared-memory bandwidth per SM, conflict-free accesses", false, false},
      // Thread-block clusters of S CTAs resident at once at one CTA per SM (cudaOccupancyMaxActiveClusters on a
      // wgmma kernel: a cluster needs S free SMs of one GPC). Optional: absent, the model never prices the split-K
      // reduction in a cluster (make_split_plan, cpp/model/types.hpp).
      {"resident_clusters_2", "clusters", "clusters of 2 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_3", "clusters", "clusters of 3 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_4", "clusters", "clusters of 4 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_5", "clusters", "clusters of 5 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_6", "clusters", "clusters of 6 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_7", "clusters", "clusters of 7 CTAs resident at once (one CTA per SM)", true, false},
      {"resident_clusters_8", "clusters", "clusters of 8 CTAs resident at once (one CTA per SM)", true, false},
      // Distributed shared memory (sm_90 clusters), as the cluster split-K reduction reads it (ld.shared::cluster of
      // 16 bytes, one group's S loads in flight per thread; origami_nv._calibrate.dsmem_read). Optional, with the
      // resident_clusters_S: absent, the model prices no distributed-shared-memory reads.
      {"dsmem_bytes_per_cycle", "bytes/SM-cycle",
       "distributed shared memory: bytes an SM loads per cycle from its cluster's shared memory, enough loads in flight",
       false, false},
      {"dsmem_latency_cycles", "cycles",
       "distributed shared memory: a thread's 2 loads of 16 bytes from 2 CTAs, under load (bytes in flight / rate)",
       false, false},
      {"dsmem_latency_per_slice_cycles", "cycles",
       "distributed shared memory: what each further CTA's load adds to a thread's group of loads under load", false,
       false},
      {"sustained_clock_mhz", "MHz", "SM clock under a sustained GEMM load (cycles -> seconds)", false, false},
      {"dram_bytes_in_flight_per_sm", "bytes", "DRAM bytes one SM can keep in flight", false, false},
      {"l2_bytes_in_flight_per_sm", "bytes", "L2 bytes one SM can keep in flight", false, false},
      // MODEL helper additions: the architecture, and ISA / occupancy-calculator constants
      {"compute_capability", "major*10+minor", "CUDA compute capability (90 = sm_90); wgmma needs >= 90", true, false},
      {"max_registers_per_thread", "registers", "architectural register limit per thread", true, false},
      {"register_allocation_unit", "registers", "registers are allocated per warp in units of this", true, false},
      {"warp_allocation_granularity", "warps", "warps per register-allocation granule", true, false},
      {"smem_allocation_unit_bytes", "bytes", "shared memory allocation granularity per block", true, false},
      {"smem_reserved_per_block_bytes", "bytes", "shared memory the system reserves per block", true, false},
  };
  return keys;
}

std::vector<std::string> known_hardware_keys() {
  std::vector<std::string> out;
  for (const auto& k : hardware_key_info()) out.push_back(k.name);
  return out;
}

static const HardwareKeyInfo* key_info(const std::string& key) {
  for (const auto& k : hardware_key_info())
    if (k.name == key) return &k;
  return nullptr;
}

static std::string known_keys_list() {
  std::string s;
  for (const auto& k : hardware_key_info()) { if (!s.empty()) s += ", "; s += k.name; }
  return s;
}

double HardwareParams::get(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::out_of_range("hardware parameter '" + key + "' is not set");
  return it->second.value;
}
int HardwareParams::get_int(const std::string& key) const { return static_cast<int>(std::llround(get(key))); }
Tier HardwareParams::tier(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::out_of_range("hardware parameter '" + key + "' is not set");
  return it->second.tier;
}

// ---- validation -------------------------------------------------------------------------------
// Returns "" when fine, else why (without the where).
static std::string check_value(const HardwareKeyInfo& k, double v) {
  if (!std::isfinite(v)) return "must be a finite number";
  if (!k.allow_negative && !(v > 0)) {
    Text os; os << "must be a positive number, got " << v; return os.str();
  }
  if (k.integer && v != std::floor(v)) {
    Text os; os << "must be a whole number, got " << v; return os.str();
  }
  return "";
}

// ---- the embedded table ----------------------------------------------------------------------
const std::string& embedded_gpu_table_json() {
  static const std::string text(kEmbeddedGpuTableJson);
  return text;
}

namespace {

struct TableRow {
  std::string name;
  std::vector<std::string> match;
  std::map<std::string, std::pair<double, std::string>> params;  // value, source
};
struct Table {
  std::string default_row;
  std::map<std::string, TableRow> rows;
};

Table parse_table(const std::string& text, const std::string& where) {
  Table t;
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const json::JsonError& e) {
    throw std::invalid_argument(where + " is not valid JSON: " + e.what());
  }
  auto bad = [&](const std::string& what) { return std::invalid_argument(where + ": " + what); };
  if (!doc.is_object()) throw bad("the top level must be an object");
  const json::Value* def = doc.find("default");
  if (!def || !def->is_string()) throw bad("field 'default' must be a string naming a row");
  t.default_row = def->as_string();
  const json::Value* rows = doc.find("rows");
  if (!rows || !rows->is_object()) throw bad("field 'rows' must be an object");
  for (const auto& [name, row] : rows->as_object()) {
    if (!row.is_object()) throw bad("row '" + name + "' must be an object");
    TableRow r;
    r.name = name;
    if (const json::Value* m = row.find("match")) {
      if (!m->is_array()) throw bad("row '" + name + "' field 'match' must be an array of strings");
      for (const auto& s : m->as_array()) {
        if (!s.is_string()) throw bad("row '" + name + "' field 'match' must be an array of strings");
        r.match.push_back(s.as_string());
      }
    }
    const json::Value* params = row.find("params");
    if (!params || !params->is_object()) throw bad("row '" + name + "' field 'params' must be an object");
    const json::Value* sources = row.find("sources");
    for (const auto& [key, v] : params->as_object()) {
      const HardwareKeyInfo* info = key_info(key);
      if (!info) throw bad("row '" + name + "' has unknown field '" + key + "' (known: " + known_keys_list() + ")");
      if (!v.is_number()) throw bad("row '" + name + "' field '" + key + "' must be a number");
      std::string why = check_value(*info, v.as_number());
      if (!why.empty()) throw bad("row '" + name + "' field '" + key + "' " + why);
      std::string src = "gpus.json row " + name;
      if (sources) {
        if (const json::Value* s = sources->find(key); s && s->is_string()) src += ": " + s->as_string();
      }
      r.params[key] = {v.as_number(), src};
    }
    t.rows.emplace(name, std::move(r));
  }
  if (!t.rows.count(t.default_row)) throw bad("default row '" + t.default_row + "' is not among the rows");
  return t;
}

const Table& embedded_table() {
  static const Table t = parse_table(embedded_gpu_table_json(), "embedded gpus.json");
  return t;
}

std::string row_names(const Table& t) {
  std::string s;
  for (const auto& [n, r] : t.rows) { if (!s.empty()) s += ", "; s += n; }
  return s;
}

void set(HardwareParams& hw, const std::string& key, double v, Tier tier, std::string source) {
  HwValue& hv = hw.values[key];
  hv.value = v;
  hv.tier = tier;
  hv.source = std::move(source);
}

// Tier 0: ISA constants and the seed's empirical constants.
void apply_defaults(HardwareParams& hw) {
  const char* isa = "PTX ISA: mma.sync.aligned.m16n8k16 (sm_80+)";
  set(hw, "mma_m", 16, Tier::Default, isa);
  set(hw, "mma_n", 8, Tier::Default, isa);
  set(hw, "mma_k", 16, Tier::Default, isa);
  set(hw, "tensor_cores_per_sm", 4, Tier::Default, "Ampere/Hopper whitepapers: one tensor core per SM sub-partition, 4 per SM");
  set(hw, "mma_latency", 33, Tier::Default, "seed 000 section 3.1 (RTX 3090 measurement)");
  set(hw, "hbm_latency_penalty", 500, Tier::Default, "seed 000 Appendix A");
  set(hw, "l2_latency_cycles", 260, Tier::Default, "estimate: L2 hit latency of Ampere/Hopper, ~200-260 cycles (Luo et al., arXiv 2402.13499)");
  set(hw, "fp32_flops_per_cycle", 256, Tier::Default, "128 FP32 lanes per SM x 2 (sm_80 A100 has 64: calibrate)");
  set(hw, "smem_bytes_per_cycle", 128, Tier::Default, "CUDA C programming guide, cc >= 5.0: 32 banks x 4 bytes per SM cycle");
  set(hw, "compute_capability", 90, Tier::Default, "the Hopper GPUs origami_nv targets (sm_90)");
  set(hw, "max_registers_per_thread", 255, Tier::Default, "CUDA C programming guide: 255 registers per thread (cc >= 3.5)");
  set(hw, "register_allocation_unit", 256, Tier::Default, "CUDA occupancy calculator, cc 8.x/9.0: register allocation unit 256 per warp");
  set(hw, "warp_allocation_granularity", 4, Tier::Default, "CUDA occupancy calculator, cc 8.x/9.0: warp allocation granularity 4");
  set(hw, "smem_allocation_unit_bytes", 128, Tier::Default, "CUDA occupancy calculator, cc 8.x/9.0: shared memory allocation unit 128 B");
  set(hw, "smem_reserved_per_block_bytes", 1024, Tier::Default, "CUDA C programming guide, cc 8.x/9.0: 1 KB shared memory reserved per block");
}

// Tier 1: from the CUDA runtime properties. The bandwidth ratios are peak figures (DDR: two
// transfers per memory clock); the calibrated table replaces them.
void apply_derived(HardwareParams& hw, const DeviceProperties& d) {
  const std::string src = "cudaGetDeviceProperties (" + d.name + ")";
  auto pos = [](double v) { return v > 0; };
  if (pos(d.sm_count)) set(hw, "n_sm", d.sm_count, Tier::Derived, src);
  if (pos(double(d.l2_bytes))) set(hw, "l2_bytes", double(d.l2_bytes), Tier::Derived, src);
  if (pos(d.smem_per_block_optin_bytes)) set(hw, "smem_per_block_bytes", d.smem_per_block_optin_bytes, Tier::Derived, src);
  if (pos(d.smem_per_sm_bytes)) set(hw, "smem_per_sm_bytes", d.smem_per_sm_bytes, Tier::Derived, src);
  if (pos(d.regs_per_sm)) set(hw, "regs_per_sm", d.regs_per_sm, Tier::Derived, src);
  if (pos(d.max_threads_per_sm)) set(hw, "max_threads_per_sm", d.max_threads_per_sm, Tier::Derived, src);
  if (pos(d.max_blocks_per_sm)) set(hw, "max_blocks_per_sm", d.max_blocks_per_sm, Tier::Derived, src);
  if (pos(d.mem_bus_width_bits)) set(hw, "mem_bus_width_bits", d.mem_bus_width_bits, Tier::Derived, src);
  const double sm_mhz = d.sm_clock_khz / 1000.0, mem_mhz = d.mem_clock_khz / 1000.0;
  if (pos(sm_mhz)) {
    set(hw, "sm_clock_mhz", sm_mhz, Tier::Derived, src);
    set(hw, "sustained_clock_mhz", sm_mhz, Tier::Derived, src + ": maximum SM clock (sustained clock not measured)");
  }
  if (pos(mem_mhz)) set(hw, "mem_clock_mhz", mem_mhz, Tier::Derived, src);
  if (pos(sm_mhz) && pos(mem_mhz) && pos(d.mem_bus_width_bits)) {
    const double dram_bytes_per_s = 2.0 * mem_mhz * 1e6 * d.mem_bus_width_bits / 8.0;
    const double ratio = dram_bytes_per_s / (sm_mhz * 1e6);
    set(hw, "dram_perf_ratio", ratio, Tier::Derived,
        "derived: 2 x mem_clock x bus_width / 8 / sm_clock (peak DDR bandwidth per SM cycle)");
  }
  if (pos(d.sm_count)) {
    // 22.3 B/cycle per SM measured on H200 (5.38 TB/s / 1.83 GHz / 132, ANCHORS section 1).
    set(hw, "l2_perf_ratio", 24.0 * d.sm_count, Tier::Derived,
        "derived: n_sm x 24 B/cycle (per-SM L2 rate measured on H200, ANCHORS section 1)");
    // Calibrated tables saturate DRAM at about a third of the SMs (RTX 3090: 1/0.0317 = 32 of 82;
    // H200: 40 of 132).
    const double n_sat = std::max(1.0, 0.31 * d.sm_count);
    set(hw, "dram_bw_coeff", 1.0 / n_sat, Tier::Derived, "derived: DRAM saturates at 31% of the SMs (seed RTX 3090 and H200 calibrations)");
    set(hw, "dram_bw_c0", -1.0 / (n_sat * n_sat), Tier::Derived, "derived: quadratic saturating at the same SM count");
    set(hw, "dram_bw_c1", 2.0 / n_sat, Tier::Derived, "derived: quadratic saturating at the same SM count");
    set(hw, "dram_bw_c2", 0.0, Tier::Derived, "derived: quadratic intercept 0");
  }
  // Tensor throughput per SM by compute capability (NVIDIA whitepapers, dense fp16, fp32 accumulate).
  const int cc = d.cc_major * 10 + d.cc_minor;
  if (cc > 0) set(hw, "compute_capability", cc, Tier::Derived, src);
  double mma = 0, wgmma = 0, fp32 = 0;
  std::string why;
  if (cc == 80) { mma = 2048; wgmma = 2048; fp32 = 128; why = "A100 whitepaper: 312 TFLOP/s = 108 x 2048 x 1410 MHz"; }
  else if (cc == 86 || cc == 87 || cc == 89) { mma = 512; wgmma = 512; fp32 = 256; why = "GA10x/AD10x whitepapers: 512 flop/cycle/SM with fp32 accumulate"; }
  else if (cc >= 90) { mma = 2730; wgmma = 4096; fp32 = 256; why = "H100 datasheet: wgmma 4096 flop/cycle/SM; mma.sync about 2/3 of it (estimate)"; }
  if (mma > 0) {
    set(hw, "mma_sync_flops_per_cycle", mma, Tier::Derived, "derived from compute capability: " + why);
    set(hw, "wgmma_flops_per_cycle", wgmma, Tier::Derived,
        cc >= 90 ? "derived from compute capability: " + why : "no wgmma before sm_90: set to the mma.sync rate");
    set(hw, "fp32_flops_per_cycle", fp32, Tier::Derived, "derived from compute capability");
  }
}

// In-flight bytes: Little's law from the bandwidth and latency values now resolved (so they track
// whatever tier supplied those), unless a table row or override gives them.
void fill_little_law(HardwareParams& hw) {
  auto have = [&](const char* k) { return hw.values.count(k) > 0; };
  if (!have("dram_bytes_in_flight_per_sm") && have("dram_perf_ratio") && have("dram_bw_coeff")) {
    set(hw, "dram_bytes_in_flight_per_sm",
        hw.get("dram_perf_ratio") * std::min(1.0, hw.get("dram_bw_coeff")) * hw.get("hbm_latency_penalty"),
        Tier::Default, "Little's law: dram_perf_ratio x dram_bw_coeff x hbm_latency_penalty");
  }
  if (!have("l2_bytes_in_flight_per_sm") && have("l2_perf_ratio") && have("n_sm")) {
    set(hw, "l2_bytes_in_flight_per_sm", hw.get("l2_perf_ratio") / hw.get("n_sm") * hw.get("l2_latency_cycles"),
        Tier::Default, "Little's law: l2_perf_ratio / n_sm x l2_latency_cycles");
  }
  if (!have("dram_bw_c1") && have("dram_bw_coeff")) {
    set(hw, "dram_bw_c0", 0.0, Tier::Default, "linear equivalent of dram_bw_coeff");
    set(hw, "dram_bw_c1", hw.get("dram_bw_coeff"), Tier::Default, "linear equivalent of dram_bw_coeff");
    set(hw, "dram_bw_c2", 0.0, Tier::Default, "linear equivalent of dram_bw_coeff");
  }
  // wgmma m64nNk8.tf32 steps through the same 32 bytes of K per instruction as m64nNk16 does for a 16-bit type,
  // at the same issue rate: half the flops (H100 SXM datasheet: 495 dense TF32 vs 989 fp16 TFLOP/s). Following the
  // resolved 16-bit rate keeps a calibrated row's clock behaviour; calibration measures it where it runs.
  if (!have("wgmma_tf32_flops_per_cycle") && have("wgmma_flops_per_cycle"))
    set(hw, "wgmma_tf32_flops_per_cycle", 0.5 * hw.get("wgmma_flops_per_cycle"), Tier::Default,
        "half of wgmma_flops_per_cycle (k8 tf32 vs k16 16-bit per instruction: H100 datasheet 495 vs 989 TFLOP/s)");
  // mma.sync m16n8k8.tf32 likewise covers the 32 bytes of K of one m16n8k16 at its issue rate: half the flops (A100
  // whitepaper: 156 dense TF32 vs 312 fp16 TFLOP/s; the calibration measures it: H100 and H200 1246.9 against 2494.1).
  if (!have("mma_sync_tf32_flops_per_cycle") && have("mma_sync_flops_per_cycle"))
    set(hw, "mma_sync_tf32_flops_per_cycle", 0.5 * hw.get("mma_sync_flops_per_cycle"), Tier::Default,
        "half of mma_sync_flops_per_cycle (k8 tf32 vs k16 16-bit per instruction: A100 whitepaper 156 vs 312 TFLOP/s)");
  // A row without the cluster capacity: none (the model then prices every split with the reduction kernel).
  for (int size = 2; size <= kMaxClusterSlices; ++size) {
    const std::string key = "resident_clusters_" + std::to_string(size);
    if (!have(key.c_str())) set(hw, key.c_str(), 0.0, Tier::Default, "not measured: no split-K reduction in a cluster priced");
  }
  // ...nor the distributed-shared-memory figures: the cluster form's reads are then not priced (model.cpp split_terms).
  for (const char* key : {"dsmem_bytes_per_cycle", "dsmem_latency_cycles", "dsmem_latency_per_slice_cycles"})
    if (!have(key)) set(hw, key, 0.0, Tier::Default, "not measured: the cluster form's distributed-shared-memory reads not priced");
  if (!have("sustained_clock_mhz") && have("sm_clock_mhz"))
    set(hw, "sustained_clock_mhz", hw.get("sm_clock_mhz"), Tier::Default, "sm_clock_mhz (not measured)");
}

void apply_override(HardwareParams& hw, const std::string& path) {
  const std::string where = "ORIGAMI_NV_HW_PARAMS file '" + path + "'";
  // C stdio rather than iostreams: see text.hpp.
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw std::invalid_argument(where + " cannot be read (missing or not readable)");
  std::string content;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) content.append(buf, n);
  std::fclose(f);
  json::Value doc;
  try {
    doc = json::parse(content);
  } catch (const json::JsonError& e) {
    throw std::invalid_argument(where + " is not valid JSON: " + e.what());
  }
  if (!doc.is_object()) throw std::invalid_argument(where + " must hold a JSON object {key: number, ...}");
  for (const auto& [key, v] : doc.as_object()) {
    if (key == "meta") continue;  // free-form, ignored by the model
    const HardwareKeyInfo* info = key_info(key);
    if (!info)
      throw std::invalid_argument(where + ": unknown field '" + key + "' (known: " + known_keys_list() + ", meta)");
    if (!v.is_number())
      throw std::invalid_argument(where + ": field '" + key + "' must be a number, found a JSON " + json::kind_name(v.kind()));
    std::string why = check_value(*info, v.as_number());
    if (!why.empty()) throw std::invalid_argument(where + ": field '" + key + "' " + why);
    set(hw, key, v.as_number(), Tier::Override, path);
  }
}

// Letters and digits only, lower case: the form in which a user's GPU name is compared with the table's.
std::string alnum_lower(const std::string& s) {
  std::string out;
  for (unsigned char ch : s)
    if (std::isalnum(ch)) out += static_cast<char>(std::tolower(ch));
  return out;
}

const TableRow* match_row(const Table& t, const std::string& device_name) {
  const TableRow* best = nullptr;
  size_t best_len = 0;
  for (const auto& [n, r] : t.rows)
    for (const auto& m : r.match)
      if (!m.empty() && device_name.find(m) != std::string::npos && m.size() > best_len) {
        best = &r;
        best_len = m.size();
      }
  return best;
}

}  // namespace

std::vector<std::string> table_gpu_names() {
  std::vector<std::string> out;
  for (const auto& [n, r] : embedded_table().rows) out.push_back(n);
  return out;
}

std::string default_gpu_name() { return embedded_table().default_row; }

HardwareParams resolve_hardware_with_override(const DeviceProperties* live, const std::string& gpu,
                                              const std::string& override_path) {
  const Table& t = embedded_table();
  HardwareParams hw;
  apply_defaults(hw);
  const TableRow* row = nullptr;
  if (!gpu.empty()) {
    auto it = t.rows.find(gpu);
    if (it == t.rows.end()) {
      // Accept what a user types for a row: the name or one of its device-name patterns, ignoring case, spaces,
      // '-' and '_' ("h100_sxm", "h100", "H100 SXM", "h200"), as the start of exactly one row's.
      const std::string want = alnum_lower(gpu);
      std::vector<const TableRow*> hits;
      for (const auto& [n, r] : t.rows) {
        bool hit = !want.empty() && alnum_lower(n).rfind(want, 0) == 0;
        for (const auto& m : r.match) hit = hit || (!want.empty() && alnum_lower(m).rfind(want, 0) == 0);
        if (hit) hits.push_back(&r);
      }
      if (hits.size() == 1) row = hits.front();
      if (!row) throw std::invalid_argument("unknown gpu '" + gpu + "' (" + (hits.empty() ? "known" : "ambiguous among") +
                                            ": " + row_names(t) + ")");
    } else {
      row = &it->second;
    }
  }
  if (live) {
    apply_derived(hw, *live);
    if (!row) row = match_row(t, live->name);
    hw.name = row ? row->name : live->name;
  } else {
    if (!row) row = &t.rows.at(t.default_row);
    hw.name = row->name;
  }
  if (row)
    for (const auto& [k, vs] : row->params) set(hw, k, vs.first, Tier::Table, vs.second);
  if (!override_path.empty()) apply_override(hw, override_path);
  fill_little_law(hw);
  for (const auto& k : hardware_key_info()) {
    if (!hw.values.count(k.name))
      throw std::invalid_argument("hardware parameter '" + k.name + "' has no value for '" + hw.name +
                                  "' (not derivable from the device and no table row matched; "
                                  "set it in an ORIGAMI_NV_HW_PARAMS file)");
  }
  return hw;
}

HardwareParams resolve_hardware(const DeviceProperties* live, const std::string& gpu) {
  const char* env = std::getenv("ORIGAMI_NV_HW_PARAMS");
  return resolve_hardware_with_override(live, gpu, env ? std::string(env) : std::string());
}

}  // namespace origami
