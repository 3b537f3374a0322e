// Two-phase selection (seed 000, section 2.2) over the admissible candidates, with a per-shape
// cache. Candidates: the compiled kernels (nv mode) or the abstract config space.
#include "text.hpp"
#include "selector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace origami {

namespace {

struct Candidate {
  TileConfig config;
  std::optional<KernelResources> resources;  // real (compiled) or estimated (abstract nv space)
  // kernel_terms(config, dtype, hw, options, resources): once per kernel (Selector()), not per prediction.
  KernelTerms terms;
};

struct PerDtype {
  std::vector<Candidate> candidates;
  std::vector<Exclusion> excluded;
};

// The whole Problem: shape, dtype, batch, layout, alignment and bias (bits) all change the pick.
// (and the operands' leading dimensions: rows off 128-byte lines, Problem::a_ld / b_ld)
using CacheKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::int64_t, int, std::int64_t, std::int64_t>;
CacheKey cache_key(const Problem& p) {
  const int bits = (p.a_k_contiguous ? 1 : 0) | (p.b_k_contiguous ? 2 : 0) | (p.a_aligned ? 4 : 0) | (p.b_aligned ? 8 : 0) |
                   (p.bias ? 16 : 0);
  return CacheKey{p.M, p.N, p.K, static_cast<int>(p.dtype), p.batch, bits, p.a_ld, p.b_ld};
}
// A hashed cache: one hash and a compare or two per lookup, where an ordered map walks ~12 levels of tuple
// compares at a few thousand entries (a cold selection looks up twice: find, then insert).
struct CacheKeyHash {
  std::size_t operator()(const CacheKey& k) const {
    std::uint64_t h = 0;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x9E3779B97F4A7C15ull; h ^= h >> 29; };
    mix(std::uint64_t(std::get<0>(k)));
    mix(std::uint64_t(std::get<1>(k)));
    mix(std::uint64_t(std::get<2>(k)));
    mix(std::uint64_t(std::get<4>(k)));
    mix(std::uint64_t(std::get<3>(k)) << 8 | std::uint64_t(std::get<5>(k)));
    mix(std::uint64_t(std::get<6>(k)) * 31 + std::uint64_t(std::get<7>(k)));
    return static_cast<std::size_t>(h);
  }
};

// Seed's shared-memory filter: one stage, (BM*BK + BK*BN) * bytes <= smem per block.
PerDtype seed_space(DType dt, const ModelHardware& hw, const ModelOptions& o) {
  PerDtype out;
  const double bytes = dtype_bytes(dt);
  const double smem = hw.smem_per_block_bytes;
  for (int bm : space_block_m())
    for (int bn : space_block_n())
      for (int bk : space_block_k()) {
        TileConfig c{bm, bn, bk, 1, o.abstract_stages, o.abstract_warps, Family::MmaSync};
        const double need = (double(bm) * bk + double(bk) * bn) * bytes;
        if (need > smem) {
          Text os;
          os << "shared memory (BM*BK + BK*BN) * " << bytes << " = " << need << " B > " << smem
             << " B per block (seed filter, one stage)";
          out.excluded.push_back({c, os.str()});
        } else {
          out.candidates.push_back({c, std::nullopt});
        }
      }
  return out;
}

// nv mode without compiled kernels: the abstract space with estimated resources, filtered like
// real kernels (stages counted in shared memory; registers estimated from the accumulators).
PerDtype abstract_nv_space(DType dt, const ModelHardware& hw, const ModelOptions& o) {
  PerDtype out;
  const int bytes = dtype_bytes(dt);
  for (int bm : space_block_m())
    for (int bn : space_block_n())
      for (int bk : space_block_k()) {
        // fp32 runs on the CUDA cores (the simt family); 16-bit types on the tensor cores (mma.sync stands for both
        // tensor-core families here); TF32 as the wgmma tf32 tiles (the sm_90 kernels; the mma.sync tf32 kernels of
        // sm_8x are compiled ones only), whose stage row is 128 bytes (BLOCK_K 32 of fp32) and whose warpgroup owns
        // 64 rows.
        const Family fam = dt == DType::Float32 ? Family::Simt : dt == DType::TFloat32 ? Family::Wgmma : Family::MmaSync;
        TileConfig c{bm, bn, bk, 1, o.abstract_stages, o.abstract_warps, fam};
        if (dt == DType::TFloat32 && (bk != 32 || bm < 64)) {
          out.excluded.push_back({c, "tfloat32 (abstract space: the wgmma tf32 tiles): BLOCK_K is one 128-byte swizzle row (32), "
                                     "BLOCK_M >= 64"});
          continue;
        }
        KernelResources kr;
        kr.config = c;
        kr.dtype = dt;
        kr.threads = 32 * o.abstract_warps;
        const double est = double(bm) * bn / kr.threads + o.nv.estimated_register_overhead;  // fp32 accumulators
        const int max_regs = static_cast<int>(hw.max_registers_per_thread);
        kr.registers_per_thread = static_cast<int>(std::min<double>(std::ceil(est), max_regs));
        if (est > max_regs) kr.spill_store_bytes = kr.spill_load_bytes = static_cast<int>(std::ceil(est - max_regs)) * 4;
        kr.smem_bytes = o.abstract_stages * (bm * bk + bk * bn) * bytes;
        kr.arch = "abstract";
        kr.source = "estimate: no compiled kernel resources";
        std::string why = kernel_exclusion_reason(kr, hw);
        if (!why.empty()) {
          if (est > max_regs) {
            Text os;
            os << "estimated " << std::ceil(est) << " registers per thread > " << max_regs
               << " (accumulators " << bm << "x" << bn << " fp32 over " << kr.threads
               << " threads + overhead; no compiled kernel resources)";
            why = os.str();
          }
          out.excluded.push_back({c, why});
        } else {
          out.candidates.push_back({c, kr});
        }
      }
  return out;
}

PerDtype kernel_space(DType dt, const ModelHardware& hw, const std::vector<KernelResources>& kernels,
                      const ModelOptions& o, bool dominated = true) {
  PerDtype out;
  for (const KernelResources& kr : kernels) {
    if (kr.dtype != dt) continue;
    TileConfig c = kr.config;
    c.group_size_m = 1;
    std::string why = kernel_exclusion_reason(kr, hw);
    if (!why.empty()) out.excluded.push_back({c, why});
    else out.candidates.push_back({c, kr});
  }
  // ModelOptions::mma_sync_dominated_by_wgmma: with an admissible wgmma kernel, mma.sync tiles of 64 rows or more
  // are left to the wgmma family (Selector::Impl::short_k says where not).
  constexpr int kWgmmaRows = 64;  // wgmma.mma_async m64nNk16: one warpgroup instruction covers 64 rows
  const bool wgmma = std::any_of(out.candidates.begin(), out.candidates.end(),
                                 [](const Candidate& c) { return c.config.family == Family::Wgmma; });
  if (dominated && o.mma_sync_dominated_by_wgmma && wgmma) {
    std::vector<Candidate> kept;
    kept.reserve(out.candidates.size());
    for (Candidate& cand : out.candidates) {
      if (cand.config.family == Family::MmaSync && cand.config.block_m % kWgmmaRows == 0)
        out.excluded.push_back({cand.config, "mma.sync tile of a multiple of 64 rows: the wgmma family covers it on "
                                             "this GPU (ModelOptions::mma_sync_dominated_by_wgmma)"});
      else
        kept.push_back(std::move(cand));
    }
    out.candidates = std::move(kept);
  }
  return out;
}

// A scored launch, compact: what the ranking order and the split-K candidates need (a full LatencyBreakdown
// is ~1 KB: zeroing and moving one per candidate was a sixth of a cold selection, perf 2026-11-24).
struct Scored {
  TileConfig config;
  const Candidate* candidate = nullptr;  // its kernel and resources (nullptr: none)
  double cycles = 0, intensity = 0;
  std::int64_t total_tiles = 0, resident_slots = 0, num_waves = 0;
  std::uint32_t breakdown = 0;  // its breakdown in Scratch::breakdowns (phase1 predicts out of order)
  bool pruned = false;          // phase1: not predicted (its floor puts it out of a selection's reach)
};

void predict_candidate(const Problem& p, const TileConfig& c, const Candidate* cand, const ModelHardware& mhw,
                       const ModelOptions& o, LatencyBreakdown& b) {
  const bool res = cand != nullptr && cand->resources;
  predict_into(p, c, mhw, o, res ? &*cand->resources : nullptr, cand != nullptr ? &cand->terms : nullptr, b);
}

struct SplitBound { double cycles; std::size_t index; };
struct RankKey { double cycles, intensity; std::uint32_t index; };
// The buffers of one selection, per thread and reused: once grown, a cold selection allocates nothing per
// candidate (bench_selection.py, 2026-11-25: the per-kernel vectors of the split search and the per-call ranking
// buffers were ~6 % of a cold selection). One thread_local object: one TLS lookup per selection.
struct Scratch {
  std::vector<SplitBound> bounds;
  std::vector<std::size_t> chosen;
  std::vector<int> splits;
  std::vector<std::pair<int, std::int64_t>> seen;  // (slices, dp_tiles) of the schedules already scored
  std::vector<Scored> scored, split;
  std::vector<LatencyBreakdown> breakdowns;
  std::vector<RankKey> keys;
  std::vector<double> unsplit_cycles;  // phase1: where a selection stops splitting
  std::vector<std::pair<double, std::uint32_t>> floors;  // phase1: (unsplit_launch_floor, index in scored)
  std::vector<LaunchFloor> launch_floors;                // ...and the schedule each floor reports
};
// Not inlined: GCC then takes the thread-local's address once per call instead of calling __tls_get_addr at every
// use of the buffers inside the candidate loop (~1 % of a cold selection, perf 2026-11-26).
[[gnu::noinline]] Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// (r's config and candidate set: the launch b is the breakdown of)
void take_scores(const LatencyBreakdown& b, Scored& r) {
  r.cycles = b.total_cycles;
  r.intensity = b.arithmetic_intensity;
  r.total_tiles = b.total_tiles;
  r.resident_slots = b.resident_slots;
  r.num_waves = b.num_waves;
}

// Split-K candidates (nv): a split can only pay where the last wave of a kernel's grid leaves resident
// slots idle; its best case is the ideal balance, every wave as full as the others: unsplit time x tiles /
// (slots x waves). Kernels where that bound gains less than 5 % are not split: below the model's own error,
// and each split tile pays a partial write and a share of the reduction that the bound leaves out (H100:
// 4096^3 with 128x256 tiles, 3.9 waves, measured 746 TFLOP/s unsplit, 667 split 2; benchmarks/results/split_k_probes_h100.md). Of the others, the
// split_k_candidate_kernels with the lowest bound (half per kernel family) are tried with the splits of
// config_space.def and those that fill whole waves of their resident slots with the split tail (floor(w * slots / tail), w = 1..3),
// slices of at least split_k_min_k_tiles_per_slice k-tiles, one per distinct schedule (make_split_plan).
// The candidates go to s.split (s.scored is `unsplit`).
// prune_at: a selection (which keeps the head of the ranking only) passes the best unsplit launch's cycles (the
// full-th best where it keeps `full` entries) and no kernel whose bound exceeds them is split: the model never
// predicts a split launch below its kernel's bound (the splits add partial writes and a reduction to an ideal
// balance), so none of them could be the pick. Same picks
// on 6270 problems (every suite, 2500 random ones over the four dtypes, layouts and batches, both GPU rows); a cold
// selection over the reference sm_90 kernel list 12.6 -> 8.2 us median (benchmarks/bench_selection.py, 3000 random
// shapes, the development machine, 2026-11-26); tests/test_api_select.py checks the pick against the unpruned
// ranking. A full ranking (rank()) passes infinity.
// Of the chosen kernels' split launches, those whose split_launch_floor (model.hpp: their tail phase compute-bound, no
// memory term) exceeds prune_at are not scored either: the model predicts each above its floor, so it ranks below
// the launch that set prune_at. The margin (1e-6 of prune_at) is far above the floor's rounding (it sums the model's
// terms in another order) and the ranking's ties (within 1e-9). On the gen-valid shapes (H100, fp16, the reference
// sm_90 kernel list; the floor replayed offline from rank()'s breakdowns) about half of a selection's ~90 split
// launches are above it.
// The best case of a split of an unsplit launch of c (split_candidates says why): its cycles x the fill of its waves
// of resident slots, or x the share of its k-loop over the most slices K allows, whichever is larger. false where no
// split is tried (waves full enough, too few k-tiles for two slices).
bool split_bound(const Problem& p, const TileConfig& c, const NvModelConstants& nv, double cycles, std::int64_t total_tiles,
                 std::int64_t resident_slots, std::int64_t num_waves, double& bound) {
  if (resident_slots <= 0 || num_waves <= 0) return false;
  const double fill = double(total_tiles) / double(resident_slots * num_waves);
  if (fill > (c.swap_ab ? nv.swapped_split_max_fill : 0.95)) return false;
  const std::int64_t k_tiles = (p.K + c.block_k - 1) / c.block_k;
  const std::int64_t max_split = k_tiles / std::max(nv.split_k_min_k_tiles_per_slice, 1);
  if (max_split < 2) return false;
  // Nor can a split take a tile below its k-loop over the most slices K allows: a one-tile grid of a big tile
  // (fill 1/132) is bound by that, not by the ideal balance (which put 192x192 kernels ahead of the 64-row tiles
  // at 16 x 1024 x 1024, taking their places among the kernels tried split).
  bound = cycles * std::max(fill, 1.0 / (double(num_waves) * double(max_split)));
  return true;
}

void split_candidates(const Problem& p, const PerDtype& pd, const std::vector<Scored>& unsplit,
                      const ModelHardware& mhw, const ModelOptions& o, Scratch& s, double prune_at) {
  const NvModelConstants& nv = o.nv;
  std::vector<Scored>& out = s.split;
  out.clear();
  std::vector<SplitBound>& bounds = s.bounds;
  bounds.clear();
  for (std::size_t i = 0; i < unsplit.size(); ++i) {
    const Scored& b = unsplit[i];
    double bound = 0;
    if (!split_bound(p, b.config, nv, b.cycles, b.total_tiles, b.resident_slots, b.num_waves, bound)) continue;
    if (bound > prune_at) continue;  // no split of this kernel can reach the best unsplit launch
    bounds.push_back({bound, i});
  }
  // The bound alone would hand every slot to one family: small mma_sync tiles keep many CTAs per SM, so
  // their "fill" and bound are tiny, while a split wgmma tile can be the real best (H100, 1x4096x4096:
  // wgmma 64x256 split 4 beat every mma_sync split; benchmarks/results/split_k_probes_h100.md). So each family gets its share.
  std::sort(bounds.begin(), bounds.end(), [](const SplitBound& a, const SplitBound& b) { return a.cycles < b.cycles; });
  // 16-bit types have two tensor-core families (mma_sync, wgmma); float32 has one (simt), tfloat32 one (wgmma).
  // The swapped-operand wgmma kernels (TileConfig::swap_ab, a handful per dtype) have a share of their own on top:
  // taking wgmma places, they pushed split candidates out that the model ranks first at decode (H200 gen-train
  // 128x1024x3584 bf16: 64x80 split 4 out, 64x160 split 8 picked at 0.85 of it; forty-first session).
  constexpr int kFamilies = 3;  // Family's values
  const int families = p.dtype == DType::Float32 || p.dtype == DType::TFloat32 ? 1 : 2;
  const int per_family = std::max(nv.split_k_candidate_kernels, 0) / families;
  int taken[kFamilies + 1] = {0, 0, 0, 0};  // (the last: the swapped kernels)
  std::vector<std::size_t>& chosen = s.chosen;
  chosen.clear();
  for (const SplitBound& bd : bounds) {
    const TileConfig& bc = unsplit[bd.index].config;
    int& t = taken[bc.swap_ab ? kFamilies : static_cast<int>(bc.family) % kFamilies];
    if (t < per_family) {
      ++t;
      chosen.push_back(bd.index);
    }
  }
  static const std::vector<int> small = space_split_k();
  for (std::size_t index : chosen) {
    const Scored& u = unsplit[index];
    const TileConfig& c = u.config;
    const std::int64_t tiles = u.total_tiles, slots = u.resident_slots;
    const std::int64_t tail = tiles >= slots ? tiles % slots : tiles;
    if (tail == 0) continue;
    const std::int64_t k_tiles = (p.K + c.block_k - 1) / c.block_k;
    const std::int64_t max_split = k_tiles / std::max(nv.split_k_min_k_tiles_per_slice, 1);
    std::vector<int>& splits = s.splits;
    splits.assign(small.begin(), small.end());
    for (int w = 1; w <= 3; ++w) splits.push_back(static_cast<int>(std::min<std::int64_t>(w * slots / tail, 4096)));
    std::vector<std::pair<int, std::int64_t>>& seen = s.seen;
    seen.clear();
    const Candidate* kernel = u.candidate;           // this kernel, or the first candidate of it with resources
    if (kernel == nullptr || !kernel->resources) {
      kernel = nullptr;
      for (const Candidate& cand : pd.candidates)
        if (cand.config.same_kernel(c) && cand.resources) { kernel = &cand; break; }
    }
    for (int sk : splits) {
      if (sk < 2 || sk > max_split) continue;
      // make_split_plan from the unsplit launch's tiles (all batches) and the k-tiles above; the plan of split_k = sk is
      // that of split_k = its slices (the launch below: the same slices of the same k-tiles), which the floor reads.
      const SplitPlan sp = make_split_plan_of_tiles(tiles, k_tiles, sk, slots, cluster_slots_of(c, mhw));
      if (sp.slices < 2) continue;
      // (the slices and whole tiles only: where the slices reduce does not tell two candidates apart)
      const std::pair<int, std::int64_t> key{sp.slices, sp.dp_tiles};
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.emplace_back(sp.slices, sp.dp_tiles);  // (built in place: phase1's score says why)
      TileConfig split = c;
      split.split_k = sp.slices;
      if (kernel != nullptr && split_launch_floor(p, split, mhw, o, kernel->terms, sp) > prune_at * (1 + 1e-6))
        continue;
      Scored& r = out.emplace_back();  // scored by the caller
      r.config = c;
      r.config.split_k = sp.slices;
      r.candidate = kernel;
    }
  }
}

}  // namespace

struct Selector::Impl {
  HardwareParams hw;
  ModelHardware mhw;  // flattened once
  ModelOptions options;
  bool abstract = true;
  PerDtype per_dtype[kDTypeCount];  // by DType
  // ModelOptions::mma_sync_dominated_by_wgmma holds where the wgmma tile's k-step is real work: its premise (wgmma
  // tiles 64-row heights at 1.6x the mma.sync rate) was checked on sets whose K is at least the wgmma kernels'
  // BLOCK_K (64). Below it every wgmma k-tile is mostly zero fill (K = 16: 4x the tensor work of the problem) and
  // an mma.sync tile of BLOCK_K 16 can win (unseen suite, H200, 512x4096x16: mma.sync 128x128x16 1.2x faster than
  // the wgmma pick). So a problem with K below short_k_below[dtype] ranks short_k[dtype]: every compiled kernel.
  PerDtype short_k[kDTypeCount];
  std::int64_t short_k_below[kDTypeCount] = {};  // the smallest wgmma BLOCK_K among the candidates (0: rule off)
  int phase1_g = 1;
  mutable std::shared_mutex mu;
  mutable std::unordered_map<CacheKey, std::unique_ptr<Selection>, CacheKeyHash> cache;
  const PerDtype& space(const Problem& p) const;  // the candidates a problem ranks (short_k)
};

Selector::Selector(HardwareParams hw, std::vector<KernelResources> kernels, ModelOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->hw = std::move(hw);
  impl_->mhw = ModelHardware(impl_->hw);
  impl_->options = options;
  impl_->abstract = kernels.empty();
  const int n_sm = static_cast<int>(impl_->mhw.n_sm);
  impl_->phase1_g = options.phase1_group_size_m > 0 ? options.phase1_group_size_m
                                                    : static_cast<int>(std::ceil(std::sqrt(double(n_sm))));
  auto with_terms = [&](PerDtype& space, DType dt) {
    for (Candidate& cand : space.candidates)
      cand.terms = kernel_terms(cand.config, dt, impl_->mhw, options, cand.resources ? &*cand.resources : nullptr);
  };
  for (DType dt : {DType::Float16, DType::BFloat16, DType::Float32, DType::TFloat32}) {
    PerDtype& pd = impl_->per_dtype[static_cast<int>(dt)];
    // Seed 000 models 16-bit tensor-core kernels: no 32-bit space in seed mode (admissible() says so).
    if (options.mode == ModelMode::Seed && (dt == DType::Float32 || dt == DType::TFloat32)) continue;
    if (options.mode == ModelMode::Seed) pd = seed_space(dt, impl_->mhw, options);
    else if (kernels.empty()) pd = abstract_nv_space(dt, impl_->mhw, options);
    else pd = kernel_space(dt, impl_->mhw, kernels, options);
    with_terms(pd, dt);
    if (options.mode != ModelMode::Nv || kernels.empty() || !options.mma_sync_dominated_by_wgmma) continue;
    std::int64_t& below = impl_->short_k_below[static_cast<int>(dt)];
    for (const Candidate& cand : pd.candidates)
      if (cand.config.family == Family::Wgmma && (below == 0 || cand.config.block_k < below)) below = cand.config.block_k;
    if (below == 0) continue;
    PerDtype& all = impl_->short_k[static_cast<int>(dt)];
    all = kernel_space(dt, impl_->mhw, kernels, options, /*dominated=*/false);
    with_terms(all, dt);
  }
}

const PerDtype& Selector::Impl::space(const Problem& p) const {
  const int d = static_cast<int>(p.dtype);
  return p.K < short_k_below[d] ? short_k[d] : per_dtype[d];
}

Selector::~Selector() = default;

const HardwareParams& Selector::hardware() const { return impl_->hw; }
const ModelOptions& Selector::options() const { return impl_->options; }
bool Selector::abstract_space() const { return impl_->abstract || impl_->options.mode == ModelMode::Seed; }
const std::vector<Exclusion>& Selector::excluded(DType dt) const { return impl_->per_dtype[static_cast<int>(dt)].excluded; }
std::size_t Selector::candidate_count(DType dt) const { return impl_->per_dtype[static_cast<int>(dt)].candidates.size(); }
std::size_t Selector::candidate_count(const Problem& p) const { return impl_->space(p).candidates.size(); }

static void check_problem(const Problem& p) {
  auto bad = [](const char* name, std::int64_t v) {
    Text os;
    os << name << " must be a positive integer, got " << v;
    throw std::invalid_argument(os.str());
  };
  if (p.M <= 0) bad("M", p.M);
  if (p.N <= 0) bad("N", p.N);
  if (p.K <= 0) bad("K", p.K);
  // Products of tile counts stay far inside int64 below 2^31 per dimension.
  constexpr std::int64_t kMax = 2147483647;
  auto big = [](const char* name, std::int64_t v) {
    Text os;
    os << name << " must be <= 2147483647, got " << v;
    throw std::invalid_argument(os.str());
  };
  if (p.M > kMax) big("M", p.M);
  if (p.N > kMax) big("N", p.N);
  if (p.K > kMax) big("K", p.K);
  if (p.batch < 1) {
    Text os;
    os << "batch must be a positive integer, got " << p.batch;
    throw std::invalid_argument(os.str());
  }
  if (p.batch > kMax) big("batch", p.batch);
}

namespace {

// Phase 1: every candidate (nv: and the split-K launches of the kernels a split can help) in ranking order,
// with its full breakdown for the first `full` entries (0: all). Lowest predicted cycles; ties (within 1e-9
// relative) go to the higher arithmetic intensity (seed 000, 2.2), then to the candidate order (stable sort):
// the config space's enumeration order BLOCK_M, BLOCK_N, BLOCK_K ascending (what the seed's first-minimum does;
// 9 of the 23 sizes of its table 7.2 are exact ties decided this way, see SEED_NOTES.md), or the order of the
// compiled kernel list, the split launches after the unsplit ones.
std::vector<Ranked> phase1(const Problem& p, const PerDtype& pd, const ModelHardware& mhw, const ModelOptions& o,
                           int phase1_g, std::size_t full) {
  const bool splits = o.mode == ModelMode::Nv && o.split_k;
  Scratch& sc = scratch();
  std::vector<Scored>& scored = sc.scored;
  scored.clear();  // keeps its capacity
  scored.reserve(pd.candidates.size() + 64);
  // Every breakdown is computed once, into a buffer this thread reuses across calls (no allocation per
  // selection once it has grown; a cold selection predicts ~120-170 launches), and the ranking copies the ones
  // it returns.
  std::vector<LatencyBreakdown>& breakdowns = sc.breakdowns;
  breakdowns.clear();  // keeps its capacity
  breakdowns.reserve(pd.candidates.size() + 64);
  // Each launch is written field by field in its place in `scored` and predicted from there: a Scored or TileConfig
  // built on the stack and copied in is read back in 16-byte pieces across its narrower stores just made, which stalls
  // store forwarding (perf, 2026-12-07: ~4 % of a cold selection's samples next to those copies).
  auto predict_scored = [&](Scored& r) {
    r.breakdown = static_cast<std::uint32_t>(breakdowns.size());
    LatencyBreakdown& b = breakdowns.emplace_back();  // value-initialised in place
    predict_candidate(p, r.config, r.candidate, mhw, o, b);
    take_scores(b, r);
  };
  auto score = [&](const TileConfig& c, int group_size_m, const Candidate* cand) {
    Scored& r = scored.emplace_back();
    r.config = c;
    r.config.group_size_m = group_size_m;
    r.candidate = cand;
    predict_scored(r);
  };
  const bool swapped = swapped_kernels_ranked(p.N, p.dtype);
  // A selection that keeps only its pick (full 1: ModelOptions::cached_ranking_size's default) predicts the unsplit
  // launches in the order of their floors (unsplit_launch_floor: compute-bound waves, no memory term), lowest first, and
  // skips those whose floor is above the best launch predicted so far (by the margin split_candidates takes for the
  // split floors): the model predicts each above its floor, so none of them could be the pick; nor could a split of
  // one, where its split bound (split_bound) from the floor is above it too: prune_at, the best unsplit launch's
  // cycles, is at most that best, and the bound grows with the cycles. The others keep their order in `scored` (the
  // ranking's ties), as if all were predicted. On the gen-valid shapes (H100, fp16, the reference sm_90 kernel list)
  // the floors of about two thirds of a selection's ~80 unsplit launches are above the best one's cycles.
  const bool prune_unsplit = full == 1 && o.mode == ModelMode::Nv;
  if (!prune_unsplit) {
    for (const Candidate& cand : pd.candidates) {
      if (cand.config.swap_ab && !swapped) continue;  // (types.hpp says why)
      score(cand.config, phase1_g, &cand);
    }
  } else {
    std::vector<std::pair<double, std::uint32_t>>& floors = sc.floors;
    std::vector<LaunchFloor>& launch_floors = sc.launch_floors;
    floors.clear();
    launch_floors.clear();
    for (const Candidate& cand : pd.candidates) {
      if (cand.config.swap_ab && !swapped) continue;  // (types.hpp says why)
      Scored& r = scored.emplace_back();
      r.config = cand.config;
      r.config.group_size_m = phase1_g;
      r.candidate = &cand;
      const LaunchFloor& f = launch_floors.emplace_back(unsplit_launch_floor(p, r.config, mhw, o, cand.terms));
      floors.emplace_back(f.cycles, static_cast<std::uint32_t>(scored.size() - 1));
    }
    std::sort(floors.begin(), floors.end());
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [floor, index] : floors) {
      Scored& r = scored[index];
      const double reach = best * (1 + 1e-6);
      if (floor > reach) {
        const LaunchFloor& f = launch_floors[index];
        double bound = 0;
        if (!splits || !split_bound(p, r.config, o.nv, f.cycles, f.total_tiles, f.resident_slots, f.num_waves, bound) ||
            bound > reach) {
          r.pruned = true;
          continue;
        }
      }
      predict_scored(r);
      best = std::min(best, r.cycles);
    }
    scored.erase(std::remove_if(scored.begin(), scored.end(), [](const Scored& r) { return r.pruned; }), scored.end());
  }
  if (splits) {
    // (split_candidates says why) A split launch can enter the first `full` places only below the full-th best
    // unsplit launch: that is where a selection's splits stop (1: the best; a full ranking prunes nothing).
    double prune_at = std::numeric_limits<double>::infinity();
    if (full > 0 && full <= scored.size()) {
      std::vector<double>& c = sc.unsplit_cycles;
      c.clear();
      for (const Scored& u : scored) c.push_back(u.cycles);
      std::nth_element(c.begin(), c.begin() + (full - 1), c.end());
      prune_at = c[full - 1];
    }
    split_candidates(p, pd, scored, mhw, o, sc, prune_at);
    for (const Scored& one : sc.split) score(one.config, one.config.group_size_m, one.candidate);
  }
  std::vector<RankKey>& keys = sc.keys;
  keys.resize(scored.size());
  for (std::uint32_t i = 0; i < scored.size(); ++i) keys[i] = {scored[i].cycles, scored[i].intensity, i};
  // Exact ties left after the intensity go to the smaller (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps, family, split, swapped)
  // (the config space's enumeration order), not to the position in the kernel list: the op's registry and a
  // kernel table list the same kernels in different orders, and 64x128 / 128x64 wgmma tiles tie exactly
  // (H100 gen-valid 1024x1024x1024: the op picked one, the report's re-prediction the other).
  auto order = [&scored](std::uint32_t i) {
    const TileConfig& c = scored[i].config;
    return std::make_tuple(c.block_m, c.block_n, c.block_k, c.stages, c.warps, static_cast<int>(c.family), c.split_k,
                           c.swap_ab);
  };
  // nv: before that order, a tie goes to the launch whose larger operand (the one streamed from DRAM) is read by one
  // CTA per slab: a tile as tall as M when N > M (grid_m = 1: B's column slabs unshared), as wide as N when M > N.
  // The model sees 64x128 and 128x64 (and 128x256 / 256x128) as the same traffic and ties them exactly, but where
  // one of them splits the short side in two, the two CTAs of a pair request the same DRAM lines in the same
  // K-iteration and both wait the DRAM latency (the second's L2 hit is on a line in flight), with half as many
  // distinct streams: at M = 128 and N, K in the thousands the 128x64 tile runs 1.05-1.2x faster than 64x128 on
  // both GPUs (H200 seed 128x8192x4096 / 8192: 64x128 at 0.88 of 128x64; H100 and H200 gen-valid 128x8192x3072:
  // 0.95 / 0.87), and at N = 128 the 64x128 tile wins by the same margin the other way (H200 seed 8192x128x4096:
  // 128x64 at 0.79; gen-train 1536x128x10176 sk5: 0.79). Where both tiles split the short side (grid 4 vs 8 at
  // 1024x4096) the measured order is mixed (within 5 %, either way): no rule, the enumeration order decides. Split-K
  // launches keep that order too: the one split tie the rule would have moved went the other way (H200 llm
  // 128x2048x8192 sk4: 128x64 at 0.91 of the best, 64x128 at 0.975).
  // (benchmarks/results/tie_break_streamed_operand.md; the seed mode keeps its first-minimum order.)
  const bool nv = o.mode == ModelMode::Nv;
  auto streamed_shared = [&scored, &p](std::uint32_t i) {
    const TileConfig& c = scored[i].config;
    return splits_short_side(p.M, p.N, c.block_m, c.block_n, c.split_k) ? 1 : 0;
  };
  auto before = [&order, &streamed_shared, nv](const RankKey& a, const RankKey& b) {
    if (std::abs(a.cycles - b.cycles) > 1e-9 * std::max(a.cycles, b.cycles)) return a.cycles < b.cycles;
    if (a.intensity != b.intensity) return a.intensity > b.intensity;
    if (nv) {
      const int sa = streamed_shared(a.index), sb = streamed_shared(b.index);
      if (sa != sb) return sa < sb;
    }
    const auto oa = order(a.index), ob = order(b.index);
    return oa != ob ? oa < ob : a.index < b.index;
  };
  const std::size_t n = full == 0 ? keys.size() : std::min(full, keys.size());
  // Only the first n are needed in order (select keeps the head of the ranking). The head alone (n = 1, select's
  // default) in one pass: the comparisons partial_sort makes for it, without its heap (~2 % of a cold selection).
  if (n == 1) std::iter_swap(keys.begin(), std::min_element(keys.begin(), keys.end(), before));
  else if (n < keys.size()) std::partial_sort(keys.begin(), keys.begin() + n, keys.end(), before);
  else std::stable_sort(keys.begin(), keys.end(), before);
  std::vector<Ranked> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Scored& r = scored[keys[i].index];
    out.emplace_back(r.config, breakdowns[r.breakdown]);
  }
  return out;
}

}  // namespace

namespace {
const PerDtype& admissible(const PerDtype& pd, const Problem& p, const HardwareParams& hw) {
  if (pd.candidates.empty() && pd.excluded.empty() && p.dtype == DType::Float32)
    throw std::invalid_argument("float32: the seed model (seed 000) models tensor-core kernels only; float32 GEMMs run on "
                                "the CUDA cores and are modelled in nv mode (seed 002's roof)");
  if (pd.candidates.empty() && pd.excluded.empty() && p.dtype == DType::TFloat32)
    throw std::invalid_argument("tfloat32: the seed model (seed 000) models 16-bit tensor-core kernels only; TF32 GEMMs "
                                "are modelled in nv mode");
  if (pd.candidates.empty())
    throw std::invalid_argument(std::string("no admissible tile configuration for ") + dtype_name(p.dtype) + " on " +
                                hw.name + " (" + std::to_string(pd.excluded.size()) + " excluded)");
  return pd;
}
}  // namespace

std::vector<Ranked> Selector::rank(const Problem& p) const {
  check_problem(p);
  const PerDtype& pd = admissible(impl_->space(p), p, impl_->hw);
  return phase1(p, pd, impl_->mhw, impl_->options, impl_->phase1_g, 0);
}

const Selection& Selector::select(const Problem& p) const {
  check_problem(p);
  const CacheKey key = cache_key(p);
  {
    std::shared_lock<std::shared_mutex> lock(impl_->mu);
    auto it = impl_->cache.find(key);
    if (it != impl_->cache.end()) return *it->second;
  }
  auto sel = std::make_unique<Selection>();
  {
    const PerDtype& pd = admissible(impl_->space(p), p, impl_->hw);
    // Only the cached top of the ranking gets full breakdowns (ModelOptions::cached_ranking_size; 0: all).
    const int keep = impl_->options.cached_ranking_size;
    sel->ranking = phase1(p, pd, impl_->mhw, impl_->options, impl_->phase1_g, keep > 0 ? std::size_t(keep) : 0);
  }
  sel->excluded = &impl_->space(p).excluded;  // the selector's own list (no copy per selection)
  sel->phase1_group_size_m = impl_->phase1_g;
  sel->abstract_space = abstract_space();
  const Ranked& best = sel->ranking.front();  // (no copy: the resize below only ever shrinks the ranking)
  sel->breakdown = best.breakdown;

  // Phase 2: GROUP_SIZE_M minimising the L2 footprint of the tiles in flight at once.
  const ModelOptions& o = impl_->options;
  const std::int64_t grid_m = best.breakdown.grid_m, grid_n = best.breakdown.grid_n;
  static const std::vector<int> group_sizes = space_group_size_m();  // (a copy per call otherwise)
  sel->group_size_m_costs.reserve(group_sizes.size() + 1);
  int best_g = group_sizes.front();
  if (o.mode == ModelMode::Nv && best.config.swap_ab) {
    // A swapped kernel: a measured GROUP_SIZE_M (types.hpp kSwappedGroupSizeM); its footprint is reported in the
    // orientation the kernel walks the raster in (the problem's N as its rows).
    best_g = kSwappedGroupSizeM;
    sel->group_size_m_costs.push_back({best_g, group_size_m_cost(swapped_problem(p), swapped_kernel_tile(best.config),
                                                                 best.breakdown.concurrent_tiles, best_g, o)});
  } else if (o.source.phase2_all_waves && (grid_m == 1 || grid_n == 1)) {
    best_g = 1;  // source shortcut: a grid dimension of 1 makes every GROUP_SIZE_M equivalent
    sel->group_size_m_costs.push_back({1, group_size_m_cost(p, best.config, best.breakdown.concurrent_tiles, 1, o)});
  } else {
    double best_cost = std::numeric_limits<double>::infinity();
    if (o.mode == ModelMode::Nv) {
      // nv: the phase-1 value stands unless another GROUP_SIZE_M strictly shrinks the footprint. When every tile
      // is in flight at once (one wave) every value has the same footprint, and the seed's tie-break (the smallest,
      // 1: row-major order) measured 1.14-1.33x slower than the phase-1 value 12 for the same kernel on an H100
      // (benchmarks/results/probes/probe_op_path.py, alternated, cold inputs: 128x14336x4096 64x256 tiles 57.2 vs
      // 47.6 us; 1024x2048x5120 128x128 38.2 vs 31.8 us; 704x1280x48128 split 2 201.6 vs 151.9 us). Tiles that
      // share an operand panel then start together; the footprint term has no word for that.
      best_g = impl_->phase1_g;
      best_cost = group_size_m_cost(p, best.config, best.breakdown.concurrent_tiles, best_g, o);
      sel->group_size_m_costs.push_back({best_g, best_cost});
    }
    for (int g : group_sizes) {
      if (o.mode == ModelMode::Nv && g == impl_->phase1_g) continue;
      const double cost = group_size_m_cost(p, best.config, best.breakdown.concurrent_tiles, g, o);
      sel->group_size_m_costs.push_back({g, cost});
      if (cost < best_cost) {  // seed: ties keep the smaller GROUP_SIZE_M (candidates ascend)
        best_cost = cost;
        best_g = g;
      }
    }
  }
  sel->config = best.config;
  sel->config.group_size_m = best_g;
  if (o.cached_ranking_size > 0 && sel->ranking.size() > static_cast<size_t>(o.cached_ranking_size))
    sel->ranking.resize(static_cast<size_t>(o.cached_ranking_size));
  const PerDtype& pd = impl_->space(p);
  const Candidate* kernel = nullptr;  // the pick's kernel: its first candidate with resources
  for (const Candidate& c : pd.candidates)
    if (c.config.same_kernel(best.config) && c.resources) { kernel = &c; break; }
  // Into the Selection's own breakdown (no temporary), with the kernel's terms computed at construction (the same
  // bits as computing them here).
  // (with the term for rows off 128-byte lines and the copy that avoids them: ModelOptions::pitch_copy_plan)
  ModelOptions final_options = o;
  final_options.pitch_copy_plan = true;
  predict_candidate(p, sel->config, kernel, impl_->mhw, final_options, sel->final_breakdown);
  // The 2-CTA multicast twins (KernelResources::multicast_layouts): the ranking reads every operand in place without
  // the term for rows off lines, so where rows are off lines a tile with a twin ranks as its 1-CTA kernel, whose
  // straddling rows the twin halves for B. Each such tile is predicted here as the pick is (its plan: copies, twin),
  // and replaces the pick where its twin's launch beats the pick's final plan by NvModelConstants::multicast_min_gain.
  // (Few tiles have twins: a handful of predictions per cold selection, none where no kernel has one.) A twin is
  // launched only where B's rows are read off 128-byte lines (predict_into), so none where B's rows, as stored, are on
  // them (most problems: 103 of the 118 gen-valid shapes; a swapped kernel has no twin).
  if (o.mode == ModelMode::Nv && rows_off_lines_share(operand_row_pitch_bytes(p, false)) > 0) {
    const TileConfig ranked = sel->config;
    for (const Candidate& c : pd.candidates) {
      if (!c.resources || c.resources->multicast_layouts == 0 || c.config.split_k > 1 ||
          c.config.same_kernel(ranked))
        continue;
      TileConfig cfg = c.config;
      cfg.group_size_m = impl_->phase1_g;
      // Only the tile's twin can replace the pick (t.multicast_b below), and only where the twin's launch beats the
      // pick's final plan: the tile is predicted as the pick is (both forms, every copy plan) only past that test.
      // (Most tiles fail it: 4 launches each instead of 8; bench_selection.py's random shapes, whose B rows are
      // mostly off lines.)
      LatencyBreakdown twin;
      if (!predict_multicast_twin(p, cfg, impl_->mhw, final_options, *c.resources, &c.terms, twin) ||
          !(twin.total_cycles * o.nv.multicast_min_gain < sel->final_breakdown.total_cycles))
        continue;
      LatencyBreakdown t;
      predict_candidate(p, cfg, &c, impl_->mhw, final_options, t);
      if (t.multicast_b && t.total_cycles * o.nv.multicast_min_gain < sel->final_breakdown.total_cycles) {
        if (!sel->replaced_pick) sel->replaced_pick_cycles = sel->final_breakdown.total_cycles;
        sel->replaced_pick = ranked;
        sel->config = cfg;
        sel->breakdown = t;
        sel->final_breakdown = t;
      }
    }
  }

  std::unique_lock<std::shared_mutex> lock(impl_->mu);
  auto [it, inserted] = impl_->cache.emplace(key, std::move(sel));
  return *it->second;  // another thread may have inserted first: return the stored one
}

std::size_t Selector::cache_size() const {
  std::shared_lock<std::shared_mutex> lock(impl_->mu);
  return impl_->cache.size();
}

void Selector::clear_cache() const {
  std::unique_lock<std::shared_mutex> lock(impl_->mu);
  impl_->cache.clear();
}

}  // namespace origami
