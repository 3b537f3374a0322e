// origami_nv._calibrate: the calibration microbenchmarks for Python (python/origami_nv/calibrate.py).
// Importing needs no GPU; every function raises RuntimeError("no CUDA device: ...") without one.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "microbench.hpp"

namespace py = pybind11;
using origami::calib::BenchResult;

namespace {
py::dict to_dict(const BenchResult& r) {
  py::dict d;
  d["samples"] = r.samples;
  d["info"] = r.info;
  d["notes"] = r.notes;
  return d;
}
// Long benchmarks run without the GIL so other Python threads (progress output) keep going.
template <class F>
py::dict call(F&& f) {
  BenchResult r;
  {
    py::gil_scoped_release release;
    r = f();
  }
  return to_dict(r);
}
}  // namespace

PYBIND11_MODULE(_calibrate, m) {
  namespace c = origami::calib;
  m.doc() = "CUDA microbenchmarks measuring the hardware parameters of the origami_nv model (raw samples)";
  m.def("device_info", [] { return call([] { return c::device_info(); }); },
        "Device description: name, SM count, L2 size, clocks, memory bus, driver/runtime versions");
  m.def("read_bandwidth", [](long long bytes, int passes, int repeats) {
          return call([&] { return c::read_bandwidth(bytes, passes, repeats); });
        }, py::arg("bytes"), py::arg("passes"), py::arg("repeats"),
        "Aggregate read bandwidth of a working set of `bytes`, read `passes` times per sample (all SMs)");
  m.def("dram_bandwidth_vs_sms", [](long long bytes, std::vector<int> sm_counts, int repeats) {
          return call([&] { return c::dram_bandwidth_vs_sms(bytes, sm_counts, repeats); });
        }, py::arg("bytes"), py::arg("sm_counts"), py::arg("repeats"),
        "DRAM read bandwidth with exactly k active SMs (one block per SM), for each k in sm_counts");
  m.def("pointer_chase", [](long long stride_bytes, int nodes, int hops, bool flush_l2, int repeats) {
          return call([&] { return c::pointer_chase(stride_bytes, nodes, hops, flush_l2, repeats); });
        }, py::arg("stride_bytes"), py::arg("nodes"), py::arg("hops"), py::arg("flush_l2"), py::arg("repeats"),
        "Dependent-load latency (cycles per load) through a random cyclic chain of nodes");
  m.def("shared_memory", [](std::vector<int> strides, int repeats) {
          return call([&] { return c::shared_memory(strides, repeats); });
        }, py::arg("word_strides"), py::arg("repeats"),
        "Shared-memory load latency and per-SM throughput for lane strides (s-way bank conflicts)");
  m.def("mma_sync", [](std::string dtype, int warps, int chains, int repeats) {
          return call([&] { return c::mma_sync(dtype, warps, chains, repeats); });
        }, py::arg("dtype"), py::arg("warps") = 16, py::arg("chains") = 8, py::arg("repeats") = 3,
        "mma.sync m16n8k16 (float16, bfloat16) or m16n8k8 (tfloat32) latency (cycles) and per-SM throughput (FLOP/cycle)");
  m.def("wgmma", [](std::string dtype, int n, int repeats) {
          return call([&] { return c::wgmma(dtype, n, repeats); });
        }, py::arg("dtype"), py::arg("n"), py::arg("repeats") = 3,
        "wgmma m64nNk16 latency and per-SM throughput (sm_90a devices only)");
  m.def("wgmma_compiled", &c::wgmma_compiled, "True when the sm_90a wgmma benchmark was built");
  m.def("tma_stream_vs_sms", [](long long bytes, std::vector<int> sm_counts, int stage_bytes, int stages,
                                int box_rows, std::string walk, int repeats) {
          return call([&] { return c::tma_stream_vs_sms(bytes, sm_counts, stage_bytes, stages, box_rows, walk, repeats); });
        }, py::arg("bytes"), py::arg("sm_counts"), py::arg("stage_bytes"), py::arg("stages"), py::arg("box_rows") = 64,
        py::arg("walk") = "k_major", py::arg("repeats") = 3,
        "DRAM bandwidth of TMA box streaming with exactly k active SMs (one CTA each), for each k in sm_counts");
  m.def("tma_stream_compiled", &c::tma_stream_compiled, "True when the sm_90a TMA streaming benchmark was built");
  m.def("dsmem_read", [](int cluster, int rows, int cols, int threads, int passes, int repeats) {
          return call([&] { return c::dsmem_read(cluster, rows, cols, threads, passes, repeats); });
        }, py::arg("cluster"), py::arg("rows") = 128, py::arg("cols") = 128, py::arg("threads") = 256,
        py::arg("passes") = 64, py::arg("repeats") = 3,
        "Distributed-shared-memory read rate per SM (bytes/cycle) in clusters of `cluster` CTAs, the cluster split-K "
        "reduction's pattern (sm_90a devices only)");
  m.def("dsmem_compiled", &c::dsmem_compiled, "True when the sm_90a distributed shared memory benchmark was built");
  m.def("fp32_throughput", [](int active_lanes, int fma_per_8, int repeats) {
          return call([&] { return c::fp32_throughput(active_lanes, fma_per_8, repeats); });
        }, py::arg("active_lanes"), py::arg("fma_per_8"), py::arg("repeats"),
        "FP32 CUDA-core FLOP/cycle per SM with theta = active_lanes/32, m_FMA = fma_per_8/8");
  m.def("sustained_clock", [](double target_ms, int repeats, std::string load) {
          return call([&] { return c::sustained_clock(target_ms, repeats, load); });
        }, py::arg("target_ms"), py::arg("repeats"), py::arg("load") = "mma",
        "SM clock (MHz) under a long load ('mma': tensor cores, 'ffma': FP32): clock64 against %globaltimer");
}
