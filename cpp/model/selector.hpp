// The selector: ranks candidate tile configurations with the Origami model and picks one
// (seed 000, section 2.2: phase 1 tile ranking, phase 2 GROUP_SIZE_M), with a per-shape cache.
// Pure C++17.
#pragma once
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "hardware.hpp"
#include "model.hpp"
#include "types.hpp"

namespace origami {

// A candidate that the filters removed, and why (shown by explain).
struct Exclusion {
  TileConfig config;
  std::string reason;   // e.g. "spills registers: 96 B spill stores (ptxas)", "shared memory 245760 B > 232448 B"
};

struct Ranked {
  TileConfig config;
  LatencyBreakdown breakdown;   // every term of the model for this config (model.hpp)
  Ranked() = default;
  Ranked(const TileConfig& c, const LatencyBreakdown& b) : config(c), breakdown(b) {}  // built in place (~1 KB)
};

struct Selection {
  TileConfig config;            // the pick, with phase-2 group_size_m
  LatencyBreakdown breakdown;   // for the pick
  std::vector<Ranked> ranking;  // phase-1 order, best first: the first ModelOptions::cached_ranking_size
                                // admissible configs (all when 0); Selector::rank gives every one
  const std::vector<Exclusion>* excluded = nullptr;  // the Selector's list for the dtype (lives as long as it)
  std::vector<std::pair<int, double>> group_size_m_costs;  // phase 2: (GROUP_SIZE_M, footprint cost)
  // Extensions (MODEL helper):
  int phase1_group_size_m = 0;        // the GROUP_SIZE_M phase 1 ranked with (ceil(sqrt(N_SM)) by default)
  LatencyBreakdown final_breakdown;   // the pick re-evaluated with its phase-2 GROUP_SIZE_M
  bool abstract_space = true;         // candidates are the abstract config space (no compiled kernels)
  // nv: the ranking's first config when a tile's 2-CTA multicast twin replaced it (Selector::select: its final plan
  // ran replaced_pick_cycles; config is then the twin's tile and final_breakdown its launch); none otherwise.
  std::optional<TileConfig> replaced_pick;
  double replaced_pick_cycles = 0;
};

class Selector {
 public:
  // kernels: the compiled kernels with their real resources (filtered: spills, local memory,
  // shared memory, residency). options.mode == Seed: the seed's abstract config space
  // (config_space.def, stages=2, warps=8, the seed's one-stage shared-memory filter), kernels unused.
  // Nv (the default) with no kernels: the abstract space with options.abstract_stages counted in
  // shared memory and estimated registers.
  Selector(HardwareParams hw, std::vector<KernelResources> kernels, ModelOptions options = {});
  ~Selector();

  // Thread-safe; cached per Problem (shape, dtype, batch, layout, alignment). The reference stays valid until
  // clear_cache(). Throws std::invalid_argument for M, N, K, batch outside [1, 2^31-1].
  const Selection& select(const Problem& p) const;

  const HardwareParams& hardware() const;
  const ModelOptions& options() const;

  // Extensions (MODEL helper):
  // Phase 1 only, uncached: every admissible candidate for p.dtype, best first (nv: with the split-K
  // candidates of the kernels a split can help, cpp/model/selector.cpp). Throws
  // std::invalid_argument for non-positive M, N, K or when no candidate is admissible.
  std::vector<Ranked> rank(const Problem& p) const;
  // The candidates the filters removed for a dtype (computed once at construction).
  const std::vector<Exclusion>& excluded(DType dtype) const;
  std::size_t candidate_count(DType dtype) const;
  std::size_t candidate_count(const Problem& p) const;  // of the space p ranks (K below the wgmma k-tile: more)
  bool abstract_space() const;   // true when no compiled kernels were given
  std::size_t cache_size() const;
  void clear_cache() const;  // invalidates the references select() returned

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace origami
