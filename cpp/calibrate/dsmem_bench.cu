// Distributed shared memory (sm_90 thread-block clusters): the rate at which a CTA reads its cluster peers' shared
// memory, with the access pattern of the wgmma kernels' cluster split-K reduction (gemm_wgmma.cuh cluster_reduce).
// The model prices those reads with the rate and latencies this measures (the GPU table's dsmem_bytes_per_cycle,
// dsmem_latency_cycles and dsmem_latency_per_slice_cycles; python/origami_nv/calibrate.py says which runs give them).
//
// Each CTA of a cluster of S (one CTA per SM: more than half an SM's shared memory) holds a `rows` x `cols` fp32
// partial tile at the kernels' row pitch (cols + 8 floats). After a cluster barrier, rank r's `threads` threads sum the
// r-th of S contiguous shares of the tile's 16-byte groups over the S tiles (its own included, read through
// ld.shared::cluster like its peers'), one group's S loads in flight per thread, `passes` times over; a second barrier
// keeps every CTA's memory alive until its peers are done. Element (i, j) of rank q's tile is q + 1 + (i * cols + j) % 7,
// so every sum is exact in fp32 and checked.
#include <cuda_runtime.h>

#include <set>
#include <string>

#include "../kernels/wgmma/cluster.cuh"
#include "common.cuh"

namespace origami::calib {
namespace {

constexpr int kMaxCluster = 8;  // the portable cluster size limit

__global__ void dsmem_read_kernel(int rows, int cols, int passes, int* errors, float* sink, BlockTiming* timing,
                                  long long* bytes_read) {
  extern __shared__ float4 smem_f4[];
  float* tile = reinterpret_cast<float*>(smem_f4);
  const int ld = cols + 8;
  const unsigned rank = wgmma::cluster_ctarank(), slices = wgmma::cluster_nctarank();
  for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) {
    const int r = i / cols, c = i - r * cols;
    tile[r * ld + c] = float(rank + 1) + float(i % 7);
  }
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  wgmma::cluster_sync();  // every CTA's tile is written
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const int groups_per_row = cols / 4;
  const int items = rows * groups_per_row;
  const int share = (items + int(slices) - 1) / int(slices);
  const int first = int(rank) * share, last = min(items, first + share);
  const float ranks_sum = float(slices * (slices + 1) / 2);
  float acc = 0.f;
  int bad = 0;
  for (int pass = 0; pass < passes; ++pass) {
#pragma unroll 1  // one group (its S loads in flight) per iteration, as the GEMM kernels' reduction
    for (int i = first + int(threadIdx.x); i < last; i += int(blockDim.x)) {
      const int r = i / groups_per_row, c = (i - r * groups_per_row) * 4;
      const unsigned at = base + static_cast<unsigned>((r * ld + c) * 4);
      float4 v[kMaxCluster];
#pragma unroll
      for (int s = 0; s < kMaxCluster; ++s)
        if (s < int(slices)) v[s] = wgmma::ld_dsmem_f4(at, static_cast<unsigned>(s));  // the kernels' load
      float out[4] = {v[0].x, v[0].y, v[0].z, v[0].w};
#pragma unroll
      for (int s = 1; s < kMaxCluster; ++s)
        if (s < int(slices)) {
          out[0] += v[s].x;
          out[1] += v[s].y;
          out[2] += v[s].z;
          out[3] += v[s].w;
        }
      if (pass == 0) {
        const int e0 = r * cols + c;
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (out[e] != ranks_sum + float(slices) * float((e0 + e) % 7)) ++bad;
      }
      acc += out[0];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
    bytes_read[blockIdx.x] = static_cast<long long>(passes) * (last > first ? last - first : 0) * 16LL * slices;
  }
  wgmma::cluster_sync();  // the peers have read this CTA's tile
  if (bad) atomicAdd(errors, bad);
  if (acc == -1.f) *sink = acc;  // keeps the sums live
}

}  // namespace

bool dsmem_compiled() { return true; }

BenchResult dsmem_read(int cluster, int rows, int cols, int threads, int passes, int repeats) {
  Device dev = require_device();
  require_positive("repeats", repeats);
  require_positive("passes", passes);
  if (dev.prop.major != 9)
    throw std::runtime_error("dsmem_read: needs an sm_90 GPU (thread-block clusters and the sm_90a build), found "
                             "compute " + std::to_string(dev.prop.major) + "." + std::to_string(dev.prop.minor));
  if (cluster < 2 || cluster > kMaxCluster)
    throw std::invalid_argument("cluster must be in 2.." + std::to_string(kMaxCluster) + ", got " +
                                std::to_string(cluster));
  if (rows < 1 || rows > 256) throw std::invalid_argument("rows must be in 1..256, got " + std::to_string(rows));
  if (cols < 4 || cols > 256 || cols % 4 != 0)
    throw std::invalid_argument("cols must be a multiple of 4 in 4..256, got " + std::to_string(cols));
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    throw std::invalid_argument("threads must be a multiple of 32 in 32..1024, got " + std::to_string(threads));
  const int tile_bytes = rows * (cols + 8) * 4;
  // More than half an SM's shared memory per CTA: one CTA per SM, so the reads are a cluster's SMs reading each other.
  const int dyn_smem = std::max(tile_bytes, dev.smem_per_sm / 2 + 1024);
  if (dyn_smem > dev.smem_optin - 1024)
    throw std::invalid_argument("a tile of " + std::to_string(tile_bytes) + " bytes does not fit one CTA's shared memory");
  CALIB_CHECK(cudaFuncSetAttribute(dsmem_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  CALIB_CHECK(cudaFuncSetAttribute(dsmem_read_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));

  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<size_t>(dyn_smem);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  // Every cluster resident at once: as many as the GPU holds (the GPCs' SM counts leave some SMs out at S > 2).
  int clusters = 0;
  cfg.gridDim = dim3(static_cast<unsigned>(cluster));
  CALIB_CHECK(cudaOccupancyMaxActiveClusters(&clusters, dsmem_read_kernel, &cfg));
  if (clusters < 1) throw std::runtime_error("dsmem_read: no cluster of " + std::to_string(cluster) + " CTAs fits");
  const int blocks = clusters * cluster;
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));

  DeviceBuffer<int> errors(1);
  DeviceBuffer<float> sink(1);
  DeviceBuffer<BlockTiming> timing(blocks);
  DeviceBuffer<long long> bytes_read(blocks);
  BenchResult res;
  auto run = [&](bool record) {
    errors.zero();
    CALIB_CHECK(cudaLaunchKernelEx(&cfg, dsmem_read_kernel, rows, cols, passes, errors.get(), sink.get(), timing.get(),
                                   bytes_read.get()));
    CALIB_CHECK_LAUNCH();
    const int bad = errors.to_host()[0];
    if (bad != 0)
      throw std::runtime_error("dsmem_read: " + std::to_string(bad) + " wrong sums over clusters of " +
                               std::to_string(cluster));
    const auto t = timing.to_host();
    const auto b = bytes_read.to_host();
    std::set<unsigned> smids;
    std::vector<double> rate;
    for (int i = 0; i < blocks; ++i) {
      smids.insert(t[i].smid);
      if (t[i].clk1 > t[i].clk0) rate.push_back(double(b[i]) / double(t[i].clk1 - t[i].clk0));
    }
    if (static_cast<int>(smids.size()) != blocks)
      throw std::runtime_error("dsmem_read: " + std::to_string(blocks) + " CTAs did not occupy as many distinct SMs");
    if (record) {
      const double all = median(rate);
      res.samples["bytes_per_cycle_per_sm"].push_back(all);
      res.samples["remote_bytes_per_cycle_per_sm"].push_back(all * double(cluster - 1) / double(cluster));
      res.samples["clock_mhz"].push_back(clock_mhz_from(t));
    }
  };
  run(false);  // warm-up
  for (int r = 0; r < repeats; ++r) run(true);
  res.info["cluster"] = cluster;
  res.info["clusters"] = clusters;
  res.info["ctas"] = blocks;
  res.info["rows"] = rows;
  res.info["cols"] = cols;
  res.info["threads"] = threads;
  res.info["passes"] = passes;
  res.info["tile_bytes"] = tile_bytes;
  res.notes["method"] =
      "clusters of S CTAs, one per SM (more than half an SM's shared memory; %smid checked distinct), as many as "
      "cudaOccupancyMaxActiveClusters allows, all resident at once; each CTA holds an fp32 tile at the GEMM kernels' "
      "partial-tile pitch (cols + 8) and its threads sum 1/S of the tile's 16-byte groups over the S tiles by "
      "ld.shared::cluster.v4.f32 (own tile included), one group's S loads in flight per thread, `passes` times; every "
      "sum checked. Rate per CTA: bytes loaded / its SM cycles between the two cluster barriers (clock64); median "
      "over CTAs. remote_bytes_per_cycle_per_sm: (S-1)/S of it, the loads from peers.";
  return res;
}

}  // namespace origami::calib
