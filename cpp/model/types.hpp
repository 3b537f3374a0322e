// Value types shared by the model, the selector, the kernel registry and the launchers.
// Pure C++17: no CUDA, no torch. A tile configuration is spelled once, here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace origami {

// Element type of A and B (C has the same type; accumulation is always fp32).
// Float32 runs on the CUDA cores (Family::Simt, exact fp32 FFMA); the tensor-core families take 16-bit inputs,
// and TFloat32: fp32 in memory with TF32 tensor-core math (wgmma m64nNk8.tf32, 10 mantissa bits per product
// operand), what torch asks of cuBLAS for float32 when torch.backends.cuda.matmul.allow_tf32 is set.
enum class DType : int { Float16 = 0, BFloat16 = 1, Float32 = 2, TFloat32 = 3 };
constexpr int kDTypeCount = 4;

constexpr int dtype_bytes(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? 2 : 4; }
const char* dtype_name(DType t);                       // "float16", "bfloat16", "float32", "tfloat32"
// accepts "float16"/"fp16"/"half", "bfloat16"/"bf16", "float32"/"fp32"/"float", "tfloat32"/"tf32"
std::optional<DType> parse_dtype(std::string_view s);
std::string supported_dtypes();                        // "float16, bfloat16, float32, tfloat32" (for error messages)

// Kernel family: which instruction path a compiled kernel uses.
enum class Family : int {
  MmaSync = 0,  // sm_80+: cp.async + ldmatrix + mma.sync m16n8k16
  Wgmma = 1,    // sm_90a: TMA + mbarrier + wgmma, warp-specialised, persistent
  Simt = 2,     // sm_80+: fp32 on the CUDA cores (FFMA), cp.async ring, register-blocked thread tiles
};
const char* family_name(Family f);  // "mma_sync", "wgmma", "simt"

// One GEMM tile configuration. group_size_m (the Triton-order raster) and split_k (the K
// decomposition) are launch-time parameters of every kernel; the rest are compile-time parameters
// of one specialisation.
struct TileConfig {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int group_size_m = 1;
  int stages = 2;
  int warps = 8;  // warps per thread block (threads = 32 * warps)
  Family family = Family::MmaSync;
  // K slices (split-K). 1: one CTA (or persistent work unit) owns a whole output tile. S > 1: S work
  // units per tile each reduce a contiguous range of k-tiles into fp32 partials in a workspace, and a
  // second kernel sums the S partials in slice order (fixed order: the same bits every run) and
  // rounds once to the output dtype. The slices a launch really uses: effective_split_k().
  int split_k = 1;
  // wgmma only: the swapped-operand kernel (cpp/kernels/wgmma/gemm_wgmma.cuh Kernel kSwapAB), which computes
  // C^T = B^T A^T: block_m / block_n stay the problem's tile (rows of C x columns of C), but wgmma's M side runs along
  // the problem's N and its N side (steps of 16) along M, so a tile can fit M = 112 / 160 rows where the 64-row slabs
  // of the other kernels waste rows (M ~ 300 projections; cpp/kernels/wgmma/NOTES.md v15-v16). Compiled, not a launch
  // parameter; its split-K slices reduce through the workspace, never in a cluster (cluster_slots_of in model.cpp;
  // cpp/kernels/wgmma/NOTES.md session 41). The model predicts it as the transposed problem
  // (swapped_problem / swapped_kernel_tile below, predict_into in model.cpp).
  bool swap_ab = false;

  // Same compiled kernel (group_size_m and split_k excluded: they do not select a specialisation).
  bool same_kernel(const TileConfig& o) const {
    return block_m == o.block_m && block_n == o.block_n && block_k == o.block_k &&
           stages == o.stages && warps == o.warps && family == o.family && swap_ab == o.swap_ab;
  }
  bool operator==(const TileConfig& o) const {
    return same_kernel(o) && group_size_m == o.group_size_m && split_k == o.split_k;
  }
  std::string to_string() const;  // e.g. "mma_sync 128x128x32 s4 w8 g8", "... g1 sk4" when split_k > 1, "... ab" swapped
};

// The K slices a launch of `split_k` really uses for a K of `K` in k-tiles of `block_k`: every slice
// gets ceil(k_tiles / split_k) k-tiles (the last may get fewer), and slices that would be empty are
// dropped (K = 640, block_k = 64, split_k = 4: 10 k-tiles as 3+3+3+1, four slices; split_k = 8:
// 2+2+2+2+2, five). One definition for the model, the op (workspace size) and the launchers.
constexpr std::int64_t ceil_div_i64(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
// The k-tiles of K (at least 1).
constexpr std::int64_t k_tiles_of(std::int64_t K, int block_k) {
  return ceil_div_i64(K < 1 ? 1 : K, block_k < 1 ? 1 : block_k);
}
// ...the same two from the k-tiles (the model has them already: fewer integer divisions per prediction).
constexpr int effective_split_k_of_tiles(std::int64_t k_tiles, int split_k) {
  if (split_k <= 1 || k_tiles <= 1) return 1;
  const std::int64_t per_slice = ceil_div_i64(k_tiles, split_k);
  return static_cast<int>(ceil_div_i64(k_tiles, per_slice));
}
constexpr std::int64_t k_tiles_per_split_of_tiles(std::int64_t k_tiles, int split_k) {
  const int slices = effective_split_k_of_tiles(k_tiles, split_k);
  return slices == 1 ? k_tiles : ceil_div_i64(k_tiles, slices);
}
constexpr int effective_split_k(std::int64_t K, int block_k, int split_k) {
  return effective_split_k_of_tiles(k_tiles_of(K, block_k), split_k);
}
// k-tiles of every slice but the last (the whole K when split_k is 1).
constexpr std::int64_t k_tiles_per_split(std::int64_t K, int block_k, int split_k) {
  return k_tiles_per_split_of_tiles(k_tiles_of(K, block_k), split_k);
}

// The split-K schedule of one launch: a data-parallel prefix plus a split tail (the "DP + SK" schedule of
// stream-K, with a deterministic reduction). Of the T output tiles (all batches, in launch order), the
// first D = floor(T / slots) * slots -- whole waves of the `slots` CTAs resident at once -- run unsplit and
// write C; only the T - D tiles of the last, partial wave are cut into S K-slices, S * (T - D) work units
// that fill that wave. T <= slots gives D = 0 (classic split-K); T a multiple of slots leaves no tail and no
// split. Why not split every tile: the split only pays where SMs would idle (decode-sized grids, the last wave
// of a large one), and every split tile costs its partials' traffic and their sum. Measured on the H100: 3072^3
// fp16, 288 tiles of 128x256 = 2.2 waves of 132 (benchmarks/results/split_k_probes_h100.md). One definition for
// the model, the op (workspace size) and every family's launcher.
//
// The slices are summed in slice order 0..S-1 (then the bias), one fixed order: the same bits every run, and the
// same bits whichever of the two reductions runs:
//  - in a cluster (`cluster` true): where every tile is split (D = 0), S <= kMaxClusterSlices, a slice is at most
//    kClusterMaxKTilesPerSlice k-tiles, and all T clusters of S CTAs are resident at once (ClusterSlots: one wave).
//    The wgmma family on sm_90 launches the S slices of a tile
//    as one thread-block cluster, which the hardware co-schedules in one GPC; each CTA leaves its fp32 partial tile
//    in its own shared memory and, after a cluster barrier, sums 1/S of the tile's elements from the S CTAs' shared
//    memory (DSMEM) and stores them to C. No workspace, no second kernel. Why only one wave: the clusters are not
//    persistent (one unit per CTA), so a second wave pays every CTA's start and pipeline fill again, and a cluster
//    needs S free SMs of one GPC: on the H200, 44 clusters of 3 (132 CTAs) took two waves and ran 1.6x the reduction
//    kernel's time, 32 clusters of 4 1.2x (benchmarks/results/cluster_split.md). Why short slices only: a cluster
//    puts its S CTAs in one GPC, so a launch of few clusters streams through fewer GPCs than the persistent grid
//    spreads the same CTAs over; where the slices are long (bandwidth-bound) that costs more than the second kernel;
//    ORIGAMI_NV_CLUSTER_SPLIT=0 turns the form off in the op (a diagnostic);
//  - otherwise in a second kernel (cpp/kernels/split_k.cu) over fp32 partial tiles in a global workspace.
struct SplitPlan {
  int slices = 1;                    // S: effective K slices of a tail tile (1: no split at all)
  std::int64_t k_tiles_per_slice = 0;
  std::int64_t tiles = 0;            // T
  std::int64_t dp_tiles = 0;         // D (= T without a split)
  std::int64_t tail_tiles = 0;       // T - D
  bool cluster = false;              // the slices of a tile reduce in a cluster (no workspace, no second kernel)
  std::int64_t units() const { return dp_tiles + tail_tiles * slices; }
  // The reduction kernel (cpp/kernels/split_k.cu): one thread per 4 outputs of a split tile, at most
  // kReduceBlocksPerSm blocks of kReduceThreads per SM (grid-stride beyond), each thread issuing the loads of
  // kReduceSliceBatch slices together before adding them in slice order. The model times its memory round trips
  // from these (model.cpp: the reduction term).
  static constexpr int kReduceThreads = 256;
  static constexpr int kReduceBlocksPerSm = 8;
  static constexpr int kReduceSliceBatch = 4;
  // fp32 partial tiles, tile-local (block_m x block_n each): slice s of tail tile j at (s * tail + j); none when
  // the slices reduce in a cluster.
  std::int64_t workspace_elems(int block_m, int block_n) const {
    return slices > 1 && !cluster ? std::int64_t(slices) * tail_tiles * block_m * block_n : 0;
  }
};
// The largest cluster the in-cluster reduction uses: 8, CUDA's portable cluster size (16 needs the non-portable
// opt-in, and fewer such clusters fit the GPCs at one CTA per SM).
constexpr int kMaxClusterSlices = 8;
// The longest slice (in k-tiles) reduced in a cluster. Fitted on one set: the H100 probe (22 shapes x splits 2-8,
// fp16 nt, CUDA graphs, cold inputs, both forms alternated twice; benchmarks/results/cluster_split.md): every one-wave
// cluster launch with slices of <= 24 k-tiles ran at least as fast as with the reduction kernel (28 launches, ratio
// geomean 1.070, min 1.002), longer ones lost up to 9 % (32 k-tiles: 128x1024x4096 split 2 0.914; 256x256x65536
// 0.95-0.98). On the H200 probe (the other GPU, not read for the choice): the 8 launches <= 24 k-tiles geomean
// 1.136, min 1.052.
constexpr std::int64_t kClusterMaxKTilesPerSlice = 24;
// clusters[S]: thread-block clusters of S CTAs resident at once, at one CTA per SM (the wgmma kernels' occupancy),
// for S = 2..kMaxClusterSlices; 0 = no cluster reduction (a family without it: mma_sync and simt also run on sm_80,
// which has no clusters; a GPU whose capacity is not known). The op asks the driver (cudaOccupancyMaxActiveClusters,
// registry.cu); the model reads the hardware table's measured row (HardwareParams::cluster_slots).
struct ClusterSlots {
  std::int64_t clusters[kMaxClusterSlices + 1] = {};
};
// The plan from the launch's tile count (all batches) and k-tiles (k_tiles_of), which the model has already.
constexpr SplitPlan make_split_plan_of_tiles(std::int64_t tiles, std::int64_t k_tiles, int split_k, std::int64_t slots,
                                             const ClusterSlots& cluster_slots) {
  SplitPlan s;
  s.tiles = tiles;
  s.slices = effective_split_k_of_tiles(k_tiles, split_k);
  s.k_tiles_per_slice = k_tiles_per_split_of_tiles(k_tiles, split_k);
  s.dp_tiles = s.slices > 1 && slots > 0 ? (s.tiles / slots) * slots : s.tiles;
  s.tail_tiles = s.tiles - s.dp_tiles;
  if (s.tail_tiles == 0) {  // whole waves: nothing to split
    s.slices = 1;
    s.k_tiles_per_slice = k_tiles;
    s.dp_tiles = s.tiles;
  }
  s.cluster = s.slices > 1 && s.dp_tiles == 0 && s.slices <= kMaxClusterSlices &&
              s.k_tiles_per_slice <= kClusterMaxKTilesPerSlice && s.tiles <= cluster_slots.clusters[s.slices];
  return s;
}
constexpr SplitPlan make_split_plan(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch, int block_m,
                                    int block_n, int block_k, int split_k, std::int64_t slots,
                                    const ClusterSlots& cluster_slots) {
  return make_split_plan_of_tiles(ceil_div_i64(M, block_m) * ceil_div_i64(N, block_n) * (batch < 1 ? 1 : batch),
                                  k_tiles_of(K, block_k), split_k, slots, cluster_slots);
}

// Operand layouts in BLAS letters, for C = A @ B with A (M x K) and B (K x N) as torch sees them:
// 'n' = row-major (A: K contiguous; B: N contiguous), 't' = a transposed view (A: M contiguous;
// B: K contiguous, e.g. w.t() of an nn.Linear weight). "nt" is nn.Linear's forward (x @ w.t()),
// "nn" a plain a @ b, "tn" the weight gradient x.t() @ dy, "tt" both transposed.
const char* layout_name(bool a_k_contiguous, bool b_k_contiguous);   // "nn", "nt", "tn", "tt"
// Accepts "nn"/"nt"/"tn"/"tt" (any case); false for anything else.
bool parse_layout(std::string_view s, bool& a_k_contiguous, bool& b_k_contiguous);
// Bit of a layout in KernelResources::layouts.
constexpr unsigned layout_bit(bool a_k_contiguous, bool b_k_contiguous) {
  return 1u << ((a_k_contiguous ? 0 : 2) | (b_k_contiguous ? 1 : 0));
}
constexpr unsigned kAllLayouts = 0xFu;
// Cost of copying an operand into a layout that transposes it (a strided gather), relative to a copy that keeps
// its contiguous dimension (rows streamed by the realigning row copy). The op chooses among a config's layout
// variants with it (cpp/ops/ops_cuda.cpp) and the model charges it (operand_copies in model.cpp). Measured at
// 100x12289x4096 with B row-major and N = 12289 misaligned: B copied into the K-contiguous layout 443 us on the H100
// (benchmarks/results/vs_cublas_h100.md), into its own layout 153 us on the H200 (vs_cublas_odd_h200.md): ~3x.
// That was torch's strided gather. The op's tiled transpose (cpp/kernels/row_copy.cu, 64 x 64 tiles since the
// thirty-third session) takes 1.07x (fp32) to 1.24x (16-bit) the time of a device-to-device copy of the same bytes at
// 4096 x 4096 on the H200 (benchmarks/results/probes/probe_transpose_h200.txt). Not lowered yet: the stored suites
// timed the launches that copy with the older copies, so a new factor needs them re-timed to be judged.
constexpr double kTransposingCopyFactor = 3.0;
// TF32 with a row-major B: the tiles that have a swapped kernel (gemm_wgmma.cuh run_swap: C^T = B^T A^T, B^T loaded
// from shared memory into registers) read B in place; every tf32 tile also reads it after a transposing copy into
// the K-major layout. The copy costs time in proportion to K N, the swapped kernel's slower math (its fragment loads
// cost shared-memory bandwidth and are not overlapped with its wgmmas; not profiled) in proportion to M N K, so the
// two cross at an M that does not depend on N or K. Chosen on the H100 (twentieth session; the op's diagnostic
// ORIGAMI_NV_SWAPPED_TF32_MAX_M lifted the bound for one run:
// benchmarks/results/vs_cublas_tf32_swapped_all_h100_session20.md against vs_cublas_tf32_h100_session20.md and the
// copy path's vs_cublas_tf32_h100.md): in place wins at M <= 2048 (M = 128 projections 0.75-1.39x cuBLAS against
// 0.30-0.36 through the copy, 2048^3 0.84-0.91 against 0.78), the copy at M >= 4096 (8192x53248x16384 41.9 against
// 54.1 ms, 4096x14336x4096 1.49 against 1.80 ms). Judged on the H200 (vs_cublas_tf32_swapped_all_h200_session20.md
// vs vs_cublas_tf32_h200_session20.md): the copy wins at every size of those sets with M >= 4096 (8192x128x4096 44.6
// against 50.5 us, 8192x53248x16384 43.2 against 49.8 ms) but one tie (16384x64x4096, 70.9 against 71.2 us). The
// op's variant choice and the model's copy plan (operand_copy_plan) both follow this rule.
constexpr std::int64_t kSwappedTf32MaxM = 2048;
inline constexpr bool swapped_tf32_variant_runs(std::int64_t M) { return M <= kSwappedTf32MaxM; }

// The share of an operand's rows, `pitch_bytes` apart, that do not start on a multiple of `unit` bytes: row r starts
// at r * pitch mod unit, which takes unit / gcd(pitch, unit) values, one of them 0 (pitch 0: one row, on the unit).
constexpr double rows_off_share(std::int64_t pitch_bytes, std::int64_t unit) {
  std::int64_t a = pitch_bytes < 0 ? -pitch_bytes : pitch_bytes, b = unit;
  if (a == 0) return 0.0;
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return 1.0 - double(a) / double(unit);
}
// ... off 128-byte lines: 0 for a pitch that is a multiple of 128 bytes, 7/8 for 6000 bytes (3000 fp16 elements), 1/2
// for 8000. A 128-byte TMA box row that starts off a line spans two.
constexpr double rows_off_lines_share(std::int64_t pitch_bytes) { return rows_off_share(pitch_bytes, 128); }
// ... inside a 32-byte sector (the L2's unit of transfer; such a row spans five where an aligned one spans four): 0 for
// pitches of whole sectors (8000 bytes puts half its rows off lines but every row on a sector), 1/2 for 6000.
constexpr double rows_off_sectors_share(std::int64_t pitch_bytes) { return rows_off_share(pitch_bytes, 32); }

// The columns of a wgmma tile one consumer warpgroup computes (the kernels' warpgroup split, gemm_wgmma.cuh
// Plan::kSplitN; cpp/kernels/families/wgmma.py Spec.split_n states the same rule): every column where the tile's rows
// divide into whole m64 slabs per consumer (warps = 4 x (consumers + 1): a producer warpgroup), else (192 rows over
// 2 consumers; 320 columns: wider than one wgmma) BLOCK_N / consumers. Its epilogue leaves in slices of these columns.
constexpr int wgmma_consumer_columns(const TileConfig& c) {
  const int consumers = c.warps / 4 - 1;
  if (consumers < 1) return c.block_n;
  return (c.block_m / consumers) % 64 != 0 || c.block_n > 256 ? c.block_n / consumers : c.block_n;
}

// Whether a wgmma tile's C slices can leave by TMA store (gemm_wgmma.cuh Plan::kTmaStore, for 16-bit C): a consumer's
// columns whole 64-column boxes, or a tile split along N (its 32-column slices go as boxes of 64-byte rows). The
// other tiles' 16/32-column slices (64x48 .. 64x160, 128x96 .. 128x144) leave through the threads' stores.
constexpr bool wgmma_tma_stored_epilogue(const TileConfig& c) {
  if (c.swap_ab) return false;  // C^T's slices are staged transposed and C's rows leave through the threads' stores
  const int columns = wgmma_consumer_columns(c);
  return columns % 64 == 0 || columns != c.block_n;
}

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
  // Operand layouts compiled for this config (layout_bit); a problem in another layout makes the op
  // copy an operand into a compiled one first. kAllLayouts when unknown (the abstract space).
  unsigned layouts = kAllLayouts;
  // Operand layouts (layout_bit) in which this config also has a realigning kernel (KernelEntry::realign, the mma_sync
  // `_ra` kernels): it reads an operand that breaks the 16-byte rule in place, so the op copies nothing for it
  // (operand_copies in model.cpp). The resource fields above are the aligned kernels' (what aligned problems run:
  // their predictions do not depend on the realigning kernels); a realigning kernel counts here only when it has no
  // spill and no local memory. 0 when none or unknown.
  unsigned realign_layouts = 0;
  // Operand layouts (layout_bit) in which this config also has a 2-CTA cluster twin (KernelEntry::multicast, the wgmma
  // `_c2` kernels) whose CTAs share the B tile by TMA multicast; the op launches it where the pick's plan says so
  // (LatencyBreakdown::multicast_b, predict_into in model.cpp). Its resources are not in the fields above. 0 when none.
  unsigned multicast_layouts = 0;
  // Operand layouts (layout_bit) in which this config's kernel has a ping-pong schedule beside it (KernelEntry::
  // ping_pong_kernel, the wgmma 16-bit 128x128 tiles): its launcher runs that schedule where every CTA has two or
  // more tiles and there is no split-K (LatencyBreakdown::ping_pong, tile_latency in model.cpp). Its resources are not
  // in the fields above. 0 when none, or with ORIGAMI_NV_PINGPONG=0.
  unsigned ping_pong_layouts = 0;
};

// The GEMM as the kernel will run it: C[b] (M x N) = A[b] (M x K) @ B[b] (K x N) for b < batch.
struct Problem {
  std::int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::Float16;
  std::int64_t batch = 1;        // independent GEMMs of one shape (torch.bmm, batched matmul)
  bool a_k_contiguous = true;    // layout (see layout_name): default "nn", both operands row-major
  bool b_k_contiguous = false;
  // Whether an operand can be read in place by the aligned kernels (16-byte aligned base, leading dimension and
  // batch stride multiples of 8 elements). false: the op copies it into an aligned buffer first, unless the config
  // has a realigning kernel in its layout (KernelResources::realign_layouts), which reads it in place
  // (a_k_contiguous / b_k_contiguous then say which dimension has unit stride: what a copy can keep).
  bool a_aligned = true;
  bool b_aligned = true;
  // Leading dimension of each operand as stored, in elements (the stride between its rows in the layout above: A's
  // rows of K when a_k_contiguous, else its K rows of M; B's rows of K when b_k_contiguous, else its K rows of N);
  // 0: a contiguous operand of this shape (K, M, K or N). The wgmma kernels read rows that do not start on 128-byte
  // lines more slowly (rows_off_lines_share; the model's TMA stage term), which a padded copy avoids.
  std::int64_t a_ld = 0;
  std::int64_t b_ld = 0;
  // A fused bias (nn.Linear's b, addmm's 1-D input): N elements of the dtype added to every row of C in the
  // epilogue (the split-K reduction for split tiles). It changes the epilogue's reads, not the tile.
  bool bias = false;
};

// The bytes between the rows of operand A (`a`) or B as stored: its leading dimension, or the contiguous operand's
// (Problem::a_ld / b_ld), in elements of the dtype. What rows_off_lines_share reads for an operand read in place.
constexpr std::int64_t operand_row_pitch_bytes(const Problem& p, bool a) {
  const std::int64_t ld = a ? p.a_ld : p.b_ld;
  const std::int64_t contiguous_ld = a ? (p.a_k_contiguous ? p.K : p.M) : (p.b_k_contiguous ? p.K : p.N);
  return (ld > 0 ? ld : contiguous_ld) * dtype_bytes(p.dtype);
}

// The swapped-operand kernels (TileConfig::swap_ab) as they run: the problem C^T (N x M) = B^T (N x K) A^T (K x M),
// whose A is the problem's B (K-contiguous where B is) and whose B is the problem's A, and the tile in the kernel's
// terms (BLOCK_M along the problem's N). swap_ab stays set on the kernel's tile: what differs beyond the transposition
// is the epilogue (wgmma_tma_stored_epilogue). The bias, per column of C, is per row of C^T: the model keeps its
// bytes, not its orientation.
inline Problem swapped_problem(const Problem& p) {
  Problem t = p;
  t.M = p.N;
  t.N = p.M;
  t.a_k_contiguous = p.b_k_contiguous;
  t.b_k_contiguous = p.a_k_contiguous;
  t.a_aligned = p.b_aligned;
  t.b_aligned = p.a_aligned;
  t.a_ld = p.b_ld;
  t.b_ld = p.a_ld;
  return t;
}
inline TileConfig swapped_kernel_tile(const TileConfig& c) {
  TileConfig t = c;
  t.block_m = c.block_n;
  t.block_n = c.block_m;
  return t;
}
// Whether the selector ranks the swapped kernels for a problem: only where C's rows (N elements, the op's contiguous
// C) start on 16-byte boundaries. Elsewhere their epilogue stores C element by element (gemm_wgmma.cuh
// store_transposed), a path the model does not price: on the H100 gen-test set the three shapes with such rows where
// the model picked a swapped kernel ran it at 0.55-0.72 of the best kernel (10170x1426x159 fp16 nn 106.8 us against
// 128x192's 59.1; 1718x1415x528 bf16 24.5 against 15.4; 5746x7100x1645 bf16 428.5 against 309.0; twenty-sixth
// session, benchmarks/results/vs_cublas_gentest_h100_session26_first.md: before this rule). An explicit config still runs them.
constexpr bool swapped_kernels_ranked(std::int64_t N, DType dtype) { return (N * dtype_bytes(dtype)) % 16 == 0; }
// Whether an unsplit launch of this tile splits the short side of C (M where N > M, N where M > N) into more than one
// tile, so that the CTAs of a tile-column (row) stream the same slab of the larger operand. The selector breaks exact
// ties of its phase-1 ranking (nv mode) in favour of the launch that does not (selector.cpp, phase1, says why); a
// square problem and split-K launches answer false (no preference).
constexpr bool splits_short_side(std::int64_t M, std::int64_t N, int block_m, int block_n, int split_k) {
  if (M == N || split_k > 1) return false;
  return N > M ? ceil_div_i64(M, block_m) > 1 : ceil_div_i64(N, block_n) > 1;
}
// GROUP_SIZE_M of a swapped-kernel launch (phase 2 of the selector, nv mode). The kernel walks Triton's raster in its
// own orientation (groups of tile rows of C^T, i.e. of the problem's N: gemm_wgmma.cuh tile_coord), while phase 2's
// footprint of the tiles in flight counted them in the problem's and chose 12-16 (Llama-3-70B's down projection
// 4096x8192x28672: 16). At long K those values thrash the H100's L2 for these kernels: 4096x8192x28672 bf16, 112x256
// swapped, read 7-10 GB from DRAM for 0.70 GB of operands at 12 and 3.1 GB at 4 (Nsight Compute; the unswapped 128x256
// at 12: 2.3 GB), which no footprint sees (benchmarks/results/long_k_group_size.md).
// Measured, not modelled: on the decision set (9 bf16 shapes M 2048-8192, K 4096-28672; every timed launch checked,
// 2 rounds alternated, cold inputs: benchmarks/results/probes/group_sweep_h100.jsonl, _h200.jsonl) the swapped tiles
// ran 1.081x faster at 4 than at 12 on the H100 (geomean of 9 launches; 1 1.042, 8 1.057) and 1.009x on the H200;
// the unswapped tiles were best at 8-12 on both (4: 0.986 / 0.989), so only the swapped kernels change. Judged on 12
// other shapes (M 320-6144, group_sweep_valid_h100.jsonl, _valid_h200.jsonl): 1.035x on the H100, 1.018x on the H200
// (geomean of 16 swapped launches each; min 0.92 / 0.98), and the H100 prefill set's 70B down 0.68-0.70 -> 0.89 of
// cuBLAS (vs_cublas_prefill_h100_session28.md).
constexpr int kSwappedGroupSizeM = 4;
// A layout mask (layout_bit) of the problem as the swapped kernel sees it: (A, B) K-contiguity exchanged.
constexpr unsigned swapped_layouts(unsigned layouts) {
  unsigned out = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      if (layouts & layout_bit(a != 0, b != 0)) out |= layout_bit(b != 0, a != 0);
  return out;
}

}  // namespace origami
