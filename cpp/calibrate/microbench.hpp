// Calibration microbenchmarks: the C++ side of origami_nv.calibrate (issue 5).
//
// Each benchmark runs `repeats` timed samples on the current CUDA device and returns them raw:
// the Python side (python/origami_nv/calibrate.py) computes means, coefficients of variation,
// curve fits and the model's parameters from them. Every timed kernel's output is checked
// against a value known in closed form; a mismatch throws std::runtime_error.
//
// Without a usable CUDA device every function throws std::runtime_error("no CUDA device: ...").
#pragma once
#include <map>
#include <string>
#include <vector>

namespace origami::calib {

struct BenchResult {
  std::map<std::string, std::vector<double>> samples;  // one entry per timed repeat
  std::map<std::string, double> info;                  // sizes, counts, configuration
  std::map<std::string, std::string> notes;            // how it was measured, checks passed
};

// Device description (cudaGetDeviceProperties / cudaDeviceGetAttribute), driver and runtime versions.
BenchResult device_info();

// 1. Read bandwidth (ld.global.cg, 16-byte loads, checksum-verified) of a working set of
//    `bytes` bytes read `passes` times per sample, on every SM (full occupancy).
//    samples: bytes_per_s, clock_mhz (SM clock during the kernel, clock64 vs %globaltimer), time_s.
BenchResult read_bandwidth(long long bytes, int passes, int repeats);

// 2. DRAM read bandwidth against the number of active SMs: for each k in `sm_counts` a grid of
//    exactly k blocks, each requesting more than half of an SM's shared memory so no SM can hold
//    two; the %smid of every block is recorded and the distinct count checked to be k.
//    samples: "bytes_per_s@k" for each k.
BenchResult dram_bandwidth_vs_sms(long long bytes, const std::vector<int>& sm_counts, int repeats);

// 3. Load latency by pointer chasing: one thread, dependent ld.global.cg loads through a random
//    cyclic permutation of `nodes` nodes spaced `stride_bytes` apart. `flush_l2` evicts the L2
//    (reads a buffer of 2x L2 elsewhere) before each sample so every hop misses to DRAM;
//    otherwise one untimed traversal warms the L2 first.
//    samples: cycles_per_load.
BenchResult pointer_chase(long long stride_bytes, int nodes, int hops, bool flush_l2, int repeats);

// 4. Shared memory: latency (one warp, dependent ld.shared.u32) and throughput (32 warps,
//    4 independent chains each, one block per SM on every SM) for lane strides of
//    `word_strides` 32-bit words (stride s gives an s-way bank conflict; 0 = broadcast).
//    samples: "latency_cycles@s", "bytes_per_cycle_per_sm@s".
BenchResult shared_memory(const std::vector<int>& word_strides, int repeats);

// 5a. mma.sync.m16n8k16 (fp32 accumulate), dtype "float16" or "bfloat16".
//    samples: latency_cycles (one warp, one dependent chain), flops_per_cycle_per_sm
//    (`warps` warps per SM, `chains` independent accumulators each, every SM busy).
BenchResult mma_sync(const std::string& dtype, int warps, int chains, int repeats);

// 5b. wgmma.mma_async m64nNk16 (fp32 accumulate, both operands from shared memory), sm_90a only.
//    samples: latency_cycles (issue, commit, wait per instruction), flops_per_cycle_per_sm
//    (two warpgroups per SM issuing back to back).
BenchResult wgmma(const std::string& dtype, int n, int repeats);
bool wgmma_compiled();

// 5d. TMA streaming bandwidth against the number of active SMs (sm_90a only, tma_stream_bench.cu): for each k in
//    `sm_counts` exactly k CTAs (one per SM), each a producer thread loading 2-D tensor boxes of `box_rows` 128-byte
//    rows into a ring of `stages` stages of `stage_bytes` and consumer warps releasing them, as the wgmma kernels'
//    main loop streams an operand; `walk` "k_major" (a K-major operand's band, walked along its rows) or "n_major"
//    (an N-major operand's strip of 64-row boxes, walked down the rows). samples: "bytes_per_s@k", "clock_mhz@k".
BenchResult tma_stream_vs_sms(long long bytes, const std::vector<int>& sm_counts, int stage_bytes, int stages,
                              int box_rows, const std::string& walk, int repeats);
bool tma_stream_compiled();
// 5e. Distributed shared memory (sm_90a only, dsmem_bench.cu): clusters of `cluster` CTAs (2..8), one per SM, every
//    cluster the GPU holds at once; each CTA holds a `rows` x `cols` fp32 tile at the GEMM kernels' partial-tile pitch
//    and its `threads` threads sum 1/cluster of the tile's 16-byte groups over every cluster CTA's tile by
//    ld.shared::cluster (the wgmma kernels' cluster split-K reduction), `passes` times; sums checked.
//    samples: bytes_per_cycle_per_sm (every load), remote_bytes_per_cycle_per_sm (the peers' share), clock_mhz.
BenchResult dsmem_read(int cluster, int rows, int cols, int threads, int passes, int repeats);
bool dsmem_compiled();

// 5c. FP32 CUDA-core throughput (seed 002): `active_lanes` of 32 lanes do work (theta = lanes/32),
//    `fma_per_8` of every 8 FP32 instructions are FFMA, the rest FADD (m_FMA = fma_per_8/8).
//    samples: flops_per_cycle_per_sm.
BenchResult fp32_throughput(int active_lanes, int fma_per_8, int repeats);

// 6. Sustained SM clock under load: a kernel on every SM for about `target_ms`, clock64 against
//    %globaltimer in each block. load "mma": mma.sync (a tensor-core load, like a GEMM; power
//    limits may pull the clock below its maximum), "ffma": FP32 FMAs. samples: clock_mhz.
BenchResult sustained_clock(double target_ms, int repeats, const std::string& load);

}  // namespace origami::calib
