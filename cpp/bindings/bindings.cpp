// origami_nv._core: Python bindings of cpp/model. C++ exceptions map to Python ones:
// std::invalid_argument -> ValueError (bad M/N/K, dtype, gpu, override file), std::out_of_range
// -> KeyError (unknown hardware key), anything else -> RuntimeError.
#include "../model/text.hpp"
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <stdexcept>

#include "hardware.hpp"
#include "json.hpp"
#include "model.hpp"
#include "selector.hpp"
#include "types.hpp"

namespace py = pybind11;
using namespace origami;

namespace {

DType to_dtype(const std::string& s) {
  auto d = parse_dtype(s);
  if (!d) throw std::invalid_argument("unknown dtype '" + s + "' (supported: " + supported_dtypes() + ")");
  return *d;
}

Family to_family(const std::string& s) {
  if (s == "mma_sync") return Family::MmaSync;
  if (s == "wgmma") return Family::Wgmma;
  if (s == "simt") return Family::Simt;
  throw std::invalid_argument("unknown family '" + s + "' (supported: mma_sync, wgmma, simt)");
}

ModelMode to_mode(const std::string& s) {
  if (s == "seed") return ModelMode::Seed;
  if (s == "nv") return ModelMode::Nv;
  throw std::invalid_argument("unknown mode '" + s + "' (supported: seed, nv)");
}

Problem make_problem(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype, std::int64_t batch = 1,
                     const std::string& layout = "nn", bool a_aligned = true, bool b_aligned = true, bool bias = false,
                     std::int64_t a_ld = 0, std::int64_t b_ld = 0) {
  Problem p{M, N, K, to_dtype(dtype)};
  p.bias = bias;
  if (batch < 1) throw std::invalid_argument("batch must be a positive integer, got " + std::to_string(batch));
  p.batch = batch;
  if (!parse_layout(layout, p.a_k_contiguous, p.b_k_contiguous))
    throw std::invalid_argument("layout must be one of nn, nt, tn, tt, got '" + layout + "'");
  p.a_aligned = a_aligned;
  p.b_aligned = b_aligned;
  // Leading dimensions (Problem::a_ld / b_ld): 0 = contiguous, else at least the rows' contiguous extent.
  const std::int64_t a_min = p.a_k_contiguous ? K : M, b_min = p.b_k_contiguous ? K : N;
  if (a_ld != 0 && a_ld < a_min)
    throw std::invalid_argument("a_ld must be 0 (contiguous) or >= " + std::to_string(a_min) + " for layout '" + layout +
                                "', got " + std::to_string(a_ld));
  if (b_ld != 0 && b_ld < b_min)
    throw std::invalid_argument("b_ld must be 0 (contiguous) or >= " + std::to_string(b_min) + " for layout '" + layout +
                                "', got " + std::to_string(b_ld));
  p.a_ld = a_ld;
  p.b_ld = b_ld;
  return p;
}

py::dict breakdown_dict(const LatencyBreakdown& b) {
  py::dict d;
  d["mode"] = mode_name(b.mode);
  d["n_mma"] = b.n_mma;
  d["mma_issue_cycles"] = b.mma_issue_cycles;
  d["compute_cycles"] = b.compute_cycles;
  d["flops_per_k_iter"] = b.flops_per_k_iter;
  d["tensor_flops_per_cycle"] = b.tensor_flops_per_cycle;
  d["epilogue_bias"] = b.epilogue_bias;
  d["bias_bytes"] = b.bias_bytes;
  d["bias_cycles"] = b.bias_cycles;
  d["fp32_issue_share"] = b.fp32_issue_share;
  d["fp32_thread_tile_m"] = b.fp32_thread_tile_m;
  d["fp32_thread_tile_n"] = b.fp32_thread_tile_n;
  d["fp32_fma_fraction"] = b.fp32_fma_fraction;
  d["fp32_lane_fraction"] = b.fp32_lane_fraction;
  d["fp32_sm_flops_per_cycle"] = b.fp32_sm_flops_per_cycle;
  d["grid_m"] = b.grid_m;
  d["grid_n"] = b.grid_n;
  d["total_tiles"] = b.total_tiles;
  d["active_sms"] = b.active_sms;
  d["blocks_per_sm"] = b.blocks_per_sm;
  d["occupancy_limiter"] = b.occupancy_limiter;
  d["concurrent_tiles"] = b.concurrent_tiles;
  d["num_waves"] = b.num_waves;
  d["group_size_m"] = b.group_size_m;
  d["l2_tile_m"] = b.l2_tile_m;
  d["l2_tile_n"] = b.l2_tile_n;
  d["l2_hit_rate"] = b.l2_hit_rate;
  d["l2_local_hit_rate"] = b.l2_local_hit_rate;
  d["l2_global_reuse_rate"] = b.l2_global_reuse_rate;
  d["working_set_bytes"] = b.working_set_bytes;
  d["l2_global_cap_applied"] = b.l2_global_cap_applied;
  d["load_a_bytes"] = b.load_a_bytes;
  d["load_b_bytes"] = b.load_b_bytes;
  d["per_sm_load_bytes"] = b.per_sm_load_bytes;
  d["total_load_bytes"] = b.total_load_bytes;
  d["l2_bw_fraction"] = b.l2_bw_fraction;
  d["limited_l2_bw"] = b.limited_l2_bw;
  d["l2_cycles"] = b.l2_cycles;
  d["dram_bw_fraction"] = b.dram_bw_fraction;
  d["dram_load_bytes"] = b.dram_load_bytes;
  d["limited_dram_bw"] = b.limited_dram_bw;
  d["dram_cycles"] = b.dram_cycles;
  d["latency_bound_cycles"] = b.latency_bound_cycles;
  d["load_issue_cycles"] = b.load_issue_cycles;
  d["copy_throttle_cycles"] = b.copy_throttle_cycles;
  d["lone_warp_cycles"] = b.lone_warp_cycles;
  d["simt_copy_instructions"] = b.simt_copy_instructions;
  d["simt_copy_cycles"] = b.simt_copy_cycles;
  d["warps_m"] = b.warps_m;
  d["warps_n"] = b.warps_n;
  d["smem_bytes"] = b.smem_bytes;
  d["smem_cycles"] = b.smem_cycles;
  d["compute_limiter"] = std::string(b.compute_limiter);
  d["l2_feed_factor"] = b.l2_feed_factor;
  d["tma_oob_fill_cycles"] = b.tma_oob_fill_cycles;
  d["tma_box_cycles"] = b.tma_box_cycles;
  d["memory_cycles"] = b.memory_cycles;
  d["memory_bound"] = b.memory_bound;
  d["utilization"] = b.utilization;
  d["penalty"] = b.penalty;
  d["occupancy"] = b.occupancy;
  d["prologue_cycles"] = b.prologue_cycles;
  d["output_bytes"] = b.output_bytes;
  d["epilogue_bw"] = b.epilogue_bw;
  d["epilogue_cycles"] = b.epilogue_cycles;
  d["epilogue_write_cycles"] = b.epilogue_write_cycles;
  d["epilogue_hidden_cycles"] = b.epilogue_hidden_cycles;
  d["ping_pong"] = b.ping_pong;
  d["split_n_store"] = b.split_n_store;
  d["off_line_share_a"] = b.off_line_share_a;
  d["off_line_share_b"] = b.off_line_share_b;
  d["off_sector_share_a"] = b.off_sector_share_a;
  d["off_sector_share_b"] = b.off_sector_share_b;
  d["multicast_b"] = b.multicast_b;
  d["swap_ab"] = b.swap_ab;
  d["pitch_copy_a"] = b.pitch_copy_a;
  d["pitch_copy_b"] = b.pitch_copy_b;
  d["num_iter"] = b.num_iter;
  d["k_pad_penalty_cycles"] = b.k_pad_penalty_cycles;
  d["steady_cycles"] = b.steady_cycles;
  d["loop_overhead_cycles"] = b.loop_overhead_cycles;
  d["setup_cycles"] = b.setup_cycles;
  d["tile_cycles"] = b.tile_cycles;
  d["bound"] = b.bound;
  d["total_cycles"] = b.total_cycles;
  d["arithmetic_intensity"] = b.arithmetic_intensity;
  d["batch"] = b.batch;
  d["layout"] = b.layout;
  d["l2_reuse_units"] = b.l2_reuse_units;
  d["output_elem_bytes"] = b.output_elem_bytes;
  d["split_slices"] = b.split_slices;
  d["resident_slots"] = b.resident_slots;
  d["split_dp_tiles"] = b.split_dp_tiles;
  d["split_tail_tiles"] = b.split_tail_tiles;
  d["dp_cycles"] = b.dp_cycles;
  d["tail_cycles"] = b.tail_cycles;
  d["tail_units"] = b.tail_units;
  d["tail_waves"] = b.tail_waves;
  d["tail_k_iters"] = b.tail_k_iters;
  d["tail_unit_cycles"] = b.tail_unit_cycles;
  d["tail_epilogue_cycles"] = b.tail_epilogue_cycles;
  d["reduction_bytes"] = b.reduction_bytes;
  d["reduction_latency_cycles"] = b.reduction_latency_cycles;
  d["reduction_cycles"] = b.reduction_cycles;
  d["split_launch_cycles"] = b.split_launch_cycles;
  d["split_cluster"] = b.split_cluster;
  d["cluster_dsmem_cycles"] = b.cluster_dsmem_cycles;
  d["operand_copy_bytes"] = b.operand_copy_bytes;
  d["operand_copy_cycles"] = b.operand_copy_cycles;
  d["operand_copy_reason"] = b.operand_copy_reason;
  d["realign_read"] = b.realign_read;
  d["realign_groups"] = b.realign_groups;
  d["realign_a"] = b.realign_a;
  d["realign_b"] = b.realign_b;
  return d;
}

py::dict hardware_dict(const HardwareParams& hw) {
  py::dict values;
  for (const auto& [k, v] : hw.values) {
    py::dict e;
    e["value"] = v.value;
    e["tier"] = tier_name(v.tier);
    e["source"] = v.source;
    values[py::str(k)] = e;
  }
  py::dict d;
  d["name"] = hw.name;
  d["values"] = values;
  return d;
}

py::list exclusions_list(const std::vector<Exclusion>& ex) {
  py::list out;
  for (const auto& e : ex) out.append(py::make_tuple(e.config, e.reason));
  return out;
}

std::string config_repr(const TileConfig& c) {
  Text os;
  os << "Config(block_m=" << c.block_m << ", block_n=" << c.block_n << ", block_k=" << c.block_k
     << ", group_size_m=" << c.group_size_m << ", stages=" << c.stages << ", warps=" << c.warps << ", family='"
     << family_name(c.family) << "'";
  if (c.split_k > 1) os << ", split_k=" << c.split_k;
  if (c.swap_ab) os << ", swap_ab=True";
  os << ")";
  return os.str();
}

void check_positive(const char* name, int v) {
  if (v <= 0) throw std::invalid_argument(std::string(name) + " must be a positive integer, got " + std::to_string(v));
}

py::object json_to_py(const json::Value& v) {
  switch (v.kind()) {
    case json::Value::Kind::Null: return py::none();
    case json::Value::Kind::Bool: return py::bool_(v.as_bool());
    case json::Value::Kind::Number: return py::float_(v.as_number());
    case json::Value::Kind::String: return py::str(v.as_string());
    case json::Value::Kind::Array: {
      py::list l;
      for (const auto& e : v.as_array()) l.append(json_to_py(e));
      return std::move(l);
    }
    case json::Value::Kind::Object: {
      py::dict d;
      for (const auto& [k, e] : v.as_object()) d[py::str(k)] = json_to_py(e);
      return std::move(d);
    }
  }
  return py::none();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "origami_nv C++ core: the Origami model, hardware tiers and the selector";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_KeyError, e.what());
    }
  });

  // ---- value types --------------------------------------------------------------------------
  py::class_<TileConfig>(m, "TileConfig", "One GEMM tile configuration (hashable value type).")
      .def(py::init([](int block_m, int block_n, int block_k, int group_size_m, int stages, int warps,
                       const std::string& family, int split_k, bool swap_ab) {
             check_positive("block_m", block_m);
             check_positive("block_n", block_n);
             check_positive("block_k", block_k);
             check_positive("group_size_m", group_size_m);
             check_positive("stages", stages);
             check_positive("warps", warps);
             check_positive("split_k", split_k);
             TileConfig c{block_m, block_n, block_k, group_size_m, stages, warps, to_family(family)};
             c.split_k = split_k;
             if (swap_ab && c.family != Family::Wgmma)
               throw std::invalid_argument("swap_ab: only the wgmma family has swapped-operand kernels");
             c.swap_ab = swap_ab;
             return c;
           }),
           py::arg("block_m"), py::arg("block_n"), py::arg("block_k"), py::arg("group_size_m") = 1,
           py::arg("stages") = 2, py::arg("warps") = 8, py::arg("family") = "mma_sync", py::arg("split_k") = 1,
           py::arg("swap_ab") = false)
      .def_readonly("block_m", &TileConfig::block_m)
      .def_readonly("block_n", &TileConfig::block_n)
      .def_readonly("block_k", &TileConfig::block_k)
      .def_readonly("group_size_m", &TileConfig::group_size_m)
      .def_readonly("stages", &TileConfig::stages)
      .def_readonly("warps", &TileConfig::warps)
      .def_readonly("split_k", &TileConfig::split_k)
      .def_readonly("swap_ab", &TileConfig::swap_ab,
                    "wgmma: the swapped-operand kernel (C^T = B^T A^T; the problem's M on wgmma's N side)")
      .def_property_readonly("family", [](const TileConfig& c) { return std::string(family_name(c.family)); })
      .def_property_readonly("threads", [](const TileConfig& c) { return 32 * c.warps; })
      .def("same_kernel", &TileConfig::same_kernel, "Same compiled specialisation (GROUP_SIZE_M ignored).")
      .def("replace", [](const TileConfig& c, py::kwargs kw) {
             TileConfig r = c;
             for (auto item : kw) {
               std::string k = py::str(item.first);
               if (k == "family") { r.family = to_family(py::cast<std::string>(item.second)); continue; }
               if (k == "swap_ab") { r.swap_ab = py::cast<bool>(item.second); continue; }
               int v = py::cast<int>(item.second);
               check_positive(k.c_str(), v);
               if (k == "block_m") r.block_m = v;
               else if (k == "block_n") r.block_n = v;
               else if (k == "block_k") r.block_k = v;
               else if (k == "group_size_m") r.group_size_m = v;
               else if (k == "stages") r.stages = v;
               else if (k == "warps") r.warps = v;
               else if (k == "split_k") r.split_k = v;
               else throw std::invalid_argument("Config has no field '" + k + "'");
             }
             return r;
           }, "A copy with some fields replaced.")
      .def("to_dict", [](const TileConfig& c) {
        py::dict d;
        d["block_m"] = c.block_m; d["block_n"] = c.block_n; d["block_k"] = c.block_k;
        d["group_size_m"] = c.group_size_m; d["stages"] = c.stages; d["warps"] = c.warps;
        d["family"] = family_name(c.family);
        d["split_k"] = c.split_k;
        if (c.swap_ab) d["swap_ab"] = true;  // (absent: the unswapped kernels, as every record before the flag)
        return d;
      })
      .def("__str__", &TileConfig::to_string)
      .def("__repr__", &config_repr)
      .def(py::self == py::self)
      .def("__ne__", [](const TileConfig& a, const TileConfig& b) { return !(a == b); })
      .def("__hash__", [](const TileConfig& c) {
        return py::hash(py::make_tuple(c.block_m, c.block_n, c.block_k, c.group_size_m, c.stages, c.warps,
                                       static_cast<int>(c.family), c.split_k, c.swap_ab));
      })
      .def(py::pickle(
          [](const TileConfig& c) {
            return py::make_tuple(c.block_m, c.block_n, c.block_k, c.group_size_m, c.stages, c.warps,
                                  static_cast<int>(c.family), c.split_k, c.swap_ab);
          },
          [](py::tuple t) {  // 7- and 8-tuples: pickled before split_k, swap_ab existed
            if (t.size() < 7 || t.size() > 9) throw std::runtime_error("Config pickle: expected 7 to 9 fields");
            TileConfig c{t[0].cast<int>(), t[1].cast<int>(), t[2].cast<int>(), t[3].cast<int>(),
                         t[4].cast<int>(), t[5].cast<int>(), static_cast<Family>(t[6].cast<int>())};
            if (t.size() >= 8) c.split_k = t[7].cast<int>();
            if (t.size() == 9) c.swap_ab = t[8].cast<bool>();
            return c;
          }));

  py::class_<KernelResources>(m, "KernelResources", "Resources of one compiled kernel (ptxas or the driver).")
      .def(py::init([](const TileConfig& config, const std::string& dtype, int threads, int registers_per_thread,
                       int spill_store_bytes, int spill_load_bytes, int local_bytes, int smem_bytes,
                       const std::string& arch, const std::string& source, unsigned layouts,
                       unsigned realign_layouts, unsigned multicast_layouts, unsigned ping_pong_layouts) {
             KernelResources k;
             k.layouts = layouts;
             k.realign_layouts = realign_layouts;
             k.multicast_layouts = multicast_layouts;
             k.ping_pong_layouts = ping_pong_layouts;
             k.config = config; k.dtype = to_dtype(dtype); k.threads = threads;
             k.registers_per_thread = registers_per_thread; k.spill_store_bytes = spill_store_bytes;
             k.spill_load_bytes = spill_load_bytes; k.local_bytes = local_bytes; k.smem_bytes = smem_bytes;
             k.arch = arch; k.source = source;
             return k;
           }),
           py::arg("config"), py::arg("dtype") = "float16", py::arg("threads") = 0,
           py::arg("registers_per_thread") = 0, py::arg("spill_store_bytes") = 0, py::arg("spill_load_bytes") = 0,
           py::arg("local_bytes") = 0, py::arg("smem_bytes") = 0, py::arg("arch") = "sm_90",
           py::arg("source") = "ptxas", py::arg("layouts") = kAllLayouts, py::arg("realign_layouts") = 0u,
           py::arg("multicast_layouts") = 0u, py::arg("ping_pong_layouts") = 0u)
      .def_readwrite("config", &KernelResources::config)
      .def_property_readonly("dtype", [](const KernelResources& k) { return std::string(dtype_name(k.dtype)); })
      .def_readwrite("threads", &KernelResources::threads)
      .def_readwrite("registers_per_thread", &KernelResources::registers_per_thread)
      .def_readwrite("spill_store_bytes", &KernelResources::spill_store_bytes)
      .def_readwrite("spill_load_bytes", &KernelResources::spill_load_bytes)
      .def_readwrite("local_bytes", &KernelResources::local_bytes)
      .def_readwrite("smem_bytes", &KernelResources::smem_bytes)
      .def_readwrite("arch", &KernelResources::arch)
      .def_readwrite("source", &KernelResources::source)
      .def_readwrite("layouts", &KernelResources::layouts, "bit layout_bit(a_k, b_k) per compiled operand layout")
      .def_readwrite("realign_layouts", &KernelResources::realign_layouts,
                     "bit layout_bit(a_k, b_k) per operand layout with a realigning kernel (reads misaligned operands "
                     "in place)")
      .def_readwrite("multicast_layouts", &KernelResources::multicast_layouts,
                     "bit layout_bit(a_k, b_k) per operand layout with a 2-CTA multicast twin (the B tile shared by "
                     "TMA multicast)")
      .def_readwrite("ping_pong_layouts", &KernelResources::ping_pong_layouts,
                     "bit layout_bit(a_k, b_k) per operand layout whose kernel has a ping-pong schedule (run where "
                     "every CTA has two or more tiles)")
      .def("__repr__", [](const KernelResources& k) {
        Text os;
        os << "KernelResources(" << k.config.to_string() << ", " << dtype_name(k.dtype) << ", threads=" << k.threads
           << ", regs=" << k.registers_per_thread << ", spill=" << k.spill_store_bytes << "/" << k.spill_load_bytes
           << ", local=" << k.local_bytes << ", smem=" << k.smem_bytes << ")";
        return os.str();
      });

  py::class_<DeviceProperties>(m, "DeviceProperties", "What the CUDA runtime reports for a device.")
      .def(py::init<>())
      .def_readwrite("name", &DeviceProperties::name)
      .def_readwrite("cc_major", &DeviceProperties::cc_major)
      .def_readwrite("cc_minor", &DeviceProperties::cc_minor)
      .def_readwrite("sm_count", &DeviceProperties::sm_count)
      .def_readwrite("l2_bytes", &DeviceProperties::l2_bytes)
      .def_readwrite("smem_per_block_optin_bytes", &DeviceProperties::smem_per_block_optin_bytes)
      .def_readwrite("smem_per_sm_bytes", &DeviceProperties::smem_per_sm_bytes)
      .def_readwrite("regs_per_sm", &DeviceProperties::regs_per_sm)
      .def_readwrite("regs_per_block", &DeviceProperties::regs_per_block)
      .def_readwrite("max_threads_per_sm", &DeviceProperties::max_threads_per_sm)
      .def_readwrite("max_blocks_per_sm", &DeviceProperties::max_blocks_per_sm)
      .def_readwrite("sm_clock_khz", &DeviceProperties::sm_clock_khz)
      .def_readwrite("mem_clock_khz", &DeviceProperties::mem_clock_khz)
      .def_readwrite("mem_bus_width_bits", &DeviceProperties::mem_bus_width_bits);

  // ---- options ------------------------------------------------------------------------------
#define RW(cls, f) .def_readwrite(#f, &cls::f)
  py::class_<SourceFlags>(m, "SourceFlags", "Switch seed formulas to the Origami C++ source's (ANCHORS section 3).")
      .def(py::init<>())
      RW(SourceFlags, l2_hit_min_global_reuse) RW(SourceFlags, round_contiguous_dim_128b)
      RW(SourceFlags, dram_floor_supergroup_unique_bytes) RW(SourceFlags, quadratic_dram_bandwidth)
      RW(SourceFlags, k_pad_in_epilogue) RW(SourceFlags, integer_mma_latency)
      RW(SourceFlags, l2_supergroup_triton_rows) RW(SourceFlags, phase2_all_waves);
  py::class_<SeedConstants>(m, "SeedConstants", "The seed's empirical constants (Appendix C.4).")
      .def(py::init<>())
      RW(SeedConstants, prologue_memory_factor) RW(SeedConstants, epilogue_count) RW(SeedConstants, occupancy_discount)
      RW(SeedConstants, occupancy) RW(SeedConstants, loop_overhead_cycles) RW(SeedConstants, k_pad_penalty_cycles)
      RW(SeedConstants, workgroup_setup_cycles) RW(SeedConstants, cache_line_bytes)
      RW(SeedConstants, min_per_sm_load_bytes) RW(SeedConstants, l2_global_cap);
  py::class_<NvModelConstants>(m, "NvModelConstants", "Constants of the nv model (to be fitted).")
      .def(py::init<>())
      RW(NvModelConstants, smsp_per_sm) RW(NvModelConstants, mma_sync_issue_efficiency)
      RW(NvModelConstants, wgmma_issue_efficiency) RW(NvModelConstants, mma_sync_k_iter_overhead_cycles)
      RW(NvModelConstants, wgmma_k_iter_overhead_cycles) RW(NvModelConstants, tile_setup_cycles)
      RW(NvModelConstants, epilogue_latency_factor) RW(NvModelConstants, prologue_latency_factor)
      RW(NvModelConstants, overlap_efficiency) RW(NvModelConstants, estimated_register_overhead)
      RW(NvModelConstants, wgmma_l2_bandwidth_factor) RW(NvModelConstants, mma_sync_l2_bandwidth_factor) RW(NvModelConstants, mma_sync_warp_load_bytes_per_cycle)
      RW(NvModelConstants, wgmma_tma_oob_fill_bytes_per_cycle) RW(NvModelConstants, wgmma_l2_hit_in_flight_share) RW(NvModelConstants, wgmma_pipeline_latency_factor) RW(NvModelConstants, wgmma_active_sm_dram_cap) RW(NvModelConstants, wgmma_split_n_store_factor) RW(NvModelConstants, wgmma_tma_box_bytes_per_cycle) RW(NvModelConstants, wgmma_tma_off_line_row_cost) RW(NvModelConstants, wgmma_tma_off_sector_row_cost) RW(NvModelConstants, pitch_copy_min_gain) RW(NvModelConstants, wgmma_tma_stage_cycles) RW(NvModelConstants, multicast_min_gain)
      RW(NvModelConstants, wgmma_epilogue_overlap) RW(NvModelConstants, wgmma_ping_pong_epilogue_overlap)
      RW(NvModelConstants, mma_sync_load_issue_warps_per_sm)
      RW(NvModelConstants, mma_sync_warp_copy_queue_bytes)
      RW(NvModelConstants, mma_sync_warp_copy_throttled_bytes_per_cycle)
      RW(NvModelConstants, mma_sync_smem_efficiency) RW(NvModelConstants, mma_sync_lone_warp_k_step_cycles)
      RW(NvModelConstants, mma_sync_lone_warp_cycles_per_warp_load) RW(NvModelConstants, mma_sync_lone_warp_short_k_factor)
      RW(NvModelConstants, simt_k_iter_overhead_cycles) RW(NvModelConstants, simt_k_step_extra_issue)
      RW(NvModelConstants, simt_l2_bandwidth_factor) RW(NvModelConstants, simt_copy_cycles_per_warp_instruction)
      RW(NvModelConstants, simt_split_k_slice_cycles)
      RW(NvModelConstants, split_k_reduce_fixed_cycles) RW(NvModelConstants, split_k_slice_cycles)
      RW(NvModelConstants, cluster_split_saving_cycles) RW(NvModelConstants, split_k_tail_overhead_fraction) RW(NvModelConstants, operand_copy_fixed_cycles)
      RW(NvModelConstants, realign_load_factor)
      RW(NvModelConstants, split_k_min_k_tiles_per_slice) RW(NvModelConstants, split_k_candidate_kernels)
      RW(NvModelConstants, swapped_split_max_fill);
  py::class_<ModelOptions>(m, "ModelOptions", "Model mode, source flags and constants.")
      .def(py::init([](const std::string& mode) { ModelOptions o; o.mode = to_mode(mode); return o; }),
           py::arg("mode") = "nv")
      .def_property("mode", [](const ModelOptions& o) { return std::string(mode_name(o.mode)); },
                    [](ModelOptions& o, const std::string& s) { o.mode = to_mode(s); })
      RW(ModelOptions, source) RW(ModelOptions, seed) RW(ModelOptions, nv)
      RW(ModelOptions, phase1_group_size_m) RW(ModelOptions, abstract_stages) RW(ModelOptions, abstract_warps)
      RW(ModelOptions, cached_ranking_size) RW(ModelOptions, split_k) RW(ModelOptions, pitch_copy_plan)
      RW(ModelOptions, mma_sync_dominated_by_wgmma);
#undef RW

  // ---- hardware -----------------------------------------------------------------------------
  py::class_<HardwareParams>(m, "HardwareParams", "Resolved hardware parameters, each with its tier and source.")
      .def_readonly("name", &HardwareParams::name)
      .def("get", &HardwareParams::get, py::arg("key"))
      .def("tier", [](const HardwareParams& h, const std::string& k) { return std::string(tier_name(h.tier(k))); })
      .def("to_dict", &hardware_dict)
      .def("__repr__", [](const HardwareParams& h) { return "HardwareParams('" + h.name + "')"; });

  m.def("resolve_hardware",
        [](const DeviceProperties* live, const std::string& gpu, std::optional<std::string> override_path) {
          if (override_path) return resolve_hardware_with_override(live, gpu, *override_path);
          return resolve_hardware(live, gpu);
        },
        py::arg("device") = nullptr, py::arg("gpu") = "", py::arg("override_path") = py::none(),
        "Resolve the parameters (derived < table < override). override_path=None reads ORIGAMI_NV_HW_PARAMS.");
  m.def("known_hardware_keys", &known_hardware_keys);
  m.def("hardware_key_info", []() {
    py::list out;
    for (const auto& k : hardware_key_info()) {
      py::dict d;
      d["name"] = k.name; d["unit"] = k.unit; d["description"] = k.description;
      d["integer"] = k.integer; d["allow_negative"] = k.allow_negative;
      out.append(d);
    }
    return out;
  });
  m.def("parse_json",
        [](const std::string& text) {
          try {
            return json_to_py(json::parse(text));
          } catch (const json::JsonError& e) {
            throw std::invalid_argument(e.what());
          }
        },
        "The C++ JSON reader the hardware tiers use (numbers come back as float); ValueError with line/column.");
  m.def("table_gpu_names", &table_gpu_names);
  m.def("default_gpu_name", &default_gpu_name);
  m.def("embedded_gpu_table_json", &embedded_gpu_table_json);

  // ---- model --------------------------------------------------------------------------------
  m.def("predict",
        [](std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype, const TileConfig& c,
           const HardwareParams& hw, const ModelOptions& o, const KernelResources* kr, std::int64_t batch, const std::string& layout, bool a_aligned, bool b_aligned, bool bias, std::int64_t a_ld, std::int64_t b_ld) {
          return breakdown_dict(predict(make_problem(M, N, K, dtype, batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld),
                                        c, hw, o, kr));
        },
        py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype"), py::arg("config"), py::arg("hardware"),
        py::arg("options"), py::arg("resources") = nullptr, py::arg("batch") = 1, py::arg("layout") = "nn", py::arg("a_aligned") = true, py::arg("b_aligned") = true, py::arg("bias") = false,
        py::arg("a_ld") = 0, py::arg("b_ld") = 0,
        "Every term of the model for one config.");
  m.def("mma_sync_warp_layout", [](int block_m, int block_n, int warps) {
        const auto [wm, wn] = mma_sync_warp_layout(block_m, block_n, warps);
        return py::make_tuple(wm, wn);
      }, py::arg("block_m"), py::arg("block_n"), py::arg("warps"),
      "(WARPS_M, WARPS_N) of an mma.sync tile as the model assumes it ((0, 0): no layout).");
  m.def("blocks_per_sm", [](const KernelResources& kr, const HardwareParams& hw) {
    BlocksPerSm b = blocks_per_sm(kr, hw);
    py::dict d;
    d["by_registers"] = b.by_registers; d["by_shared_memory"] = b.by_shared_memory;
    d["by_threads"] = b.by_threads; d["by_block_limit"] = b.by_block_limit; d["blocks"] = b.blocks;
    d["limiter"] = b.limiter; d["registers_per_block"] = b.registers_per_block;
    d["shared_memory_per_block"] = b.shared_memory_per_block;
    return d;
  });
  m.def("kernel_exclusion_reason",
        [](const KernelResources& kr, const HardwareParams& hw) { return kernel_exclusion_reason(kr, hw); },
        "Why a kernel can never be chosen ('' when admissible).");
  m.def("triton_raster_footprint", [](std::int64_t grid_m, std::int64_t grid_n, int g, std::int64_t first, std::int64_t last) {
    Footprint f = triton_raster_footprint(grid_m, grid_n, g, first, last);
    return py::make_tuple(f.unique_m, f.unique_n);
  });
  m.def("space", []() {
    py::dict d;
    d["block_m"] = space_block_m(); d["block_n"] = space_block_n(); d["block_k"] = space_block_k();
    d["group_size_m"] = space_group_size_m();
    d["split_k"] = space_split_k();
    return d;
  }, "The abstract config space (config_space.def).");
  m.def("swapped_kernels_ranked",
        [](std::int64_t N, const std::string& dtype) { return swapped_kernels_ranked(N, to_dtype(dtype)); },
        py::arg("N"), py::arg("dtype"),
        "Whether the selector ranks the swapped-operand wgmma kernels for a problem with N columns (cpp/model/types.hpp).");
  m.def("splits_short_side", &splits_short_side, py::arg("M"), py::arg("N"), py::arg("block_m"), py::arg("block_n"),
        py::arg("split_k"),
        "Whether an unsplit launch splits the short side of C: the selector's exact-tie rule (cpp/model/types.hpp).");
  m.def("effective_split_k", &effective_split_k, py::arg("K"), py::arg("block_k"), py::arg("split_k"),
        "The K slices a launch of split_k really uses (cpp/model/types.hpp).");
  m.def("split_plan",
        [](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch, int block_m, int block_n, int block_k,
           int split_k, std::int64_t slots, const std::string& family,
           const std::vector<std::int64_t>& resident_clusters) {
          ClusterSlots cs;
          if (to_family(family) == Family::Wgmma)
            for (std::size_t i = 0; i < resident_clusters.size() && i + 2 <= std::size_t(kMaxClusterSlices); ++i)
              cs.clusters[i + 2] = resident_clusters[i];
          const SplitPlan sp = make_split_plan(M, N, K, batch, block_m, block_n, block_k, split_k, slots, cs);
          py::dict d;
          d["slices"] = sp.slices; d["k_tiles_per_slice"] = sp.k_tiles_per_slice; d["tiles"] = sp.tiles;
          d["dp_tiles"] = sp.dp_tiles; d["tail_tiles"] = sp.tail_tiles; d["units"] = sp.units();
          d["cluster"] = sp.cluster;
          d["workspace_elems"] = sp.workspace_elems(block_m, block_n);
          return d;
        },
        py::arg("M"), py::arg("N"), py::arg("K"), py::arg("batch"), py::arg("block_m"), py::arg("block_n"),
        py::arg("block_k"), py::arg("split_k"), py::arg("slots"), py::arg("family"),
        py::arg("resident_clusters") = std::vector<std::int64_t>{},
        "The split-K schedule of a launch of a `family` kernel (make_split_plan, cpp/model/types.hpp);"
        " resident_clusters: clusters of 2, 3, ... CTAs resident at once (the wgmma family; empty: none). cluster ="
        " the slices reduce in a thread-block cluster (no workspace).");
  m.def("parse_dtype", [](const std::string& s) { return std::string(dtype_name(to_dtype(s))); });
  m.def("supported_dtypes", &supported_dtypes);

  // ---- selector -----------------------------------------------------------------------------
  py::class_<Selector>(m, "Selector", "Two-phase selection with a per-shape cache (thread-safe).")
      .def(py::init<HardwareParams, std::vector<KernelResources>, ModelOptions>(), py::arg("hardware"),
           py::arg("kernels"), py::arg("options"))
      .def_property_readonly("hardware", &Selector::hardware, py::return_value_policy::reference_internal)
      .def_property_readonly("options", &Selector::options)
      .def_property_readonly("abstract_space", &Selector::abstract_space)
      .def("candidate_count", [](const Selector& s, const std::string& dtype, std::int64_t K) {
             return K > 0 ? s.candidate_count(make_problem(1, 1, K, dtype)) : s.candidate_count(to_dtype(dtype)); },
           py::arg("dtype"), py::arg("K") = 0,
           "Admissible candidates of a dtype; with K > 0, of the space a problem of that K ranks (below the wgmma "
           "kernels' BLOCK_K the mma.sync tiles ModelOptions.mma_sync_dominated_by_wgmma leaves out come back).")
      .def("excluded", [](const Selector& s, const std::string& dtype) { return exclusions_list(s.excluded(to_dtype(dtype))); })
      .def("cache_size", &Selector::cache_size)
      .def("clear_cache", &Selector::clear_cache)
      .def("select_config",
           [](const Selector& s, std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype, std::int64_t batch, const std::string& layout, bool a_aligned, bool b_aligned, bool bias, std::int64_t a_ld, std::int64_t b_ld) {
             const Problem p = make_problem(M, N, K, dtype, batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld);
             const Selection* sel;
             {
               py::gil_scoped_release release;  // ranking may take a while the first time
               sel = &s.select(p);
             }
             return sel->config;
           },
           py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype") = "float16", py::arg("batch") = 1, py::arg("layout") = "nn", py::arg("a_aligned") = true, py::arg("b_aligned") = true, py::arg("bias") = false, py::arg("a_ld") = 0, py::arg("b_ld") = 0,
           "The pick (cached per problem).")
      .def("selection",
           [](const Selector& s, std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype,
              std::optional<int> top, std::int64_t batch, const std::string& layout, bool a_aligned, bool b_aligned, bool bias, std::int64_t a_ld, std::int64_t b_ld) {
             const Problem p = make_problem(M, N, K, dtype, batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld);
             const Selection& sel = s.select(p);
             py::dict d;
             d["config"] = sel.config;
             d["breakdown"] = breakdown_dict(sel.breakdown);
             d["final_breakdown"] = breakdown_dict(sel.final_breakdown);
             d["phase1_group_size_m"] = sel.phase1_group_size_m;
             d["abstract_space"] = sel.abstract_space;
             d["replaced_pick"] = sel.replaced_pick ? py::cast(*sel.replaced_pick) : py::none();
             d["replaced_pick_cycles"] = sel.replaced_pick_cycles;
             py::list costs;
             for (auto& [g, c] : sel.group_size_m_costs) costs.append(py::make_tuple(g, c));
             d["group_size_m_costs"] = costs;
             // The cached Selection keeps the head of the ranking; rank() recomputes all of it (with the
             // split-K candidates the full length is only known then).
             std::vector<Ranked> full = s.rank(p);
             const std::vector<Ranked>* ranked = &full;
             const size_t total = full.size();
             const size_t want = top ? std::min<size_t>(std::max(*top, 0), total) : total;
             py::list ranking;
             for (size_t i = 0; i < want; ++i)
               ranking.append(py::make_tuple((*ranked)[i].config, breakdown_dict((*ranked)[i].breakdown)));
             d["ranking"] = ranking;
             d["ranking_size"] = total;
             // best of each family (explain names why the pick's family won)
             py::dict best_by_family;
             for (const auto& r : *ranked) {
               const char* f = family_name(r.config.family);
               if (!best_by_family.contains(f))
                 best_by_family[f] = py::make_tuple(r.config, r.breakdown.total_cycles);
             }
             d["best_by_family"] = best_by_family;
             d["excluded"] = sel.excluded ? exclusions_list(*sel.excluded) : py::list();
             return d;
           },
           py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype") = "float16", py::arg("top") = py::none(), py::arg("batch") = 1, py::arg("layout") = "nn", py::arg("a_aligned") = true, py::arg("b_aligned") = true, py::arg("bias") = false, py::arg("a_ld") = 0, py::arg("b_ld") = 0,
           "The full selection: pick, breakdowns, ranking (top entries), phase-2 costs, exclusions.")
      .def("rank",
           [](const Selector& s, std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype, std::int64_t batch, const std::string& layout, bool a_aligned, bool b_aligned, bool bias, std::int64_t a_ld, std::int64_t b_ld) {
             py::list out;
             for (const auto& r : s.rank(make_problem(M, N, K, dtype, batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld)))
               out.append(py::make_tuple(r.config, r.breakdown.total_cycles));
             return out;
           },
           py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype") = "float16", py::arg("batch") = 1, py::arg("layout") = "nn", py::arg("a_aligned") = true, py::arg("b_aligned") = true, py::arg("bias") = false, py::arg("a_ld") = 0, py::arg("b_ld") = 0,
           "Phase 1 ranking (uncached): [(config, predicted cycles)], best first.")
      .def("time_rank_us",
           [](const Selector& s, std::int64_t M, std::int64_t N, std::int64_t K, const std::string& dtype,
              int repeats, std::int64_t batch, const std::string& layout, bool a_aligned, bool b_aligned, bool bias, std::int64_t a_ld, std::int64_t b_ld) {
             // Timed in C++ with steady_clock: one sample = ranking every admissible config of one
             // shape (uncached), so Python call overhead is not measured.
             const Problem p = make_problem(M, N, K, dtype, batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld);
             std::vector<double> us;
             us.reserve(std::max(repeats, 1));
             py::gil_scoped_release release;
             volatile double sink = 0;
             for (int i = 0; i < std::max(repeats, 1); ++i) {
               auto t0 = std::chrono::steady_clock::now();
               auto r = s.rank(p);
               auto t1 = std::chrono::steady_clock::now();
               sink = sink + r.front().breakdown.total_cycles;
               us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
             }
             return us;
           },
           py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype") = "float16", py::arg("repeats") = 1000, py::arg("batch") = 1, py::arg("layout") = "nn", py::arg("a_aligned") = true, py::arg("b_aligned") = true, py::arg("bias") = false, py::arg("a_ld") = 0, py::arg("b_ld") = 0)
      .def("time_select_us",
           [](const Selector& s, const std::vector<std::array<std::int64_t, 3>>& shapes, const std::string& dtype) {
             // Cold selections (two phases, cache insert) of many shapes, timed in C++: total us.
             const DType dt = to_dtype(dtype);
             py::gil_scoped_release release;
             auto t0 = std::chrono::steady_clock::now();
             for (const auto& sh : shapes) s.select(Problem{sh[0], sh[1], sh[2], dt});
             auto t1 = std::chrono::steady_clock::now();
             return std::chrono::duration<double, std::micro>(t1 - t0).count();
           },
           py::arg("shapes"), py::arg("dtype") = "float16");
}
