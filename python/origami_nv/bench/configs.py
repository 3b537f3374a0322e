"""One spelling of a tile configuration inside the harness.

The package has its own value type (origami_nv.Config, the C++ TileConfig); the harness reads
configs from several places (rank() results, kernels() dicts, the op's select_config list, the
seed Triton space) and writes them to JSON, so it normalises every one of them to a plain dict
with the field names of cpp/model/types.hpp.
"""
from __future__ import annotations

import functools
import math

# Version of the split-K reduction kernel (cpp/kernels/split_k.cu) a split launch's time was measured with; raw
# config records of split launches carry it as "split_k_reduction" (absent = 1). 1: one pass per slice (the
# partials of every slice read in turn, before aec0a24); 2: one pass reads up to 4 slices (aec0a24, 2026-11-23).
# Bump it when the reduction changes: `bench run --retime-split` re-times the launches of older versions.
SPLIT_K_REDUCTION_VERSION = 2


def split_k_of(cfg) -> int:
    return int((cfg or {}).get("split_k", 1) or 1) if isinstance(cfg, dict) else 1


def _elem_bytes(dtype) -> int:
    return 4 if str(dtype or "float16").replace("torch.", "") in ("float32", "fp32", "tfloat32", "tf32") else 2


def _c_rows_unaligned(info: dict, cfg: dict) -> bool:
    """C rows that do not start on a 16-byte boundary (N x element size not a multiple of 16)."""
    return int(info.get("N", 0)) * _elem_bytes(info.get("dtype")) % 16 != 0


def _wgmma_tma_stored(info: dict, cfg: dict) -> bool:
    """A wgmma launch whose CTAs store a tile by TMA: C rows 16-byte aligned and more output tiles than the 132
    SMs of the H100 and H200 these data sets were measured on, so that some CTA has a next tile (a CTA's last tile
    is stored by its threads, as before; with fewer tiles a split launch has no whole tiles, only fp32 partials,
    which the threads store)."""
    if cfg["family"] != "wgmma" or _c_rows_unaligned(info, cfg):
        return False
    tiles = (-(-int(info["M"]) // cfg["block_m"])) * (-(-int(info["N"]) // cfg["block_n"])) * int(info.get("batch", 1) or 1)
    return tiles > 132


def _mma_sync_tile_at_edge(info: dict, cfg: dict) -> bool:
    """An mma.sync launch with CTAs whose tile hangs over the M or N edge."""
    return cfg["family"] == "mma_sync" and (int(info.get("M", 0)) % cfg["block_m"] != 0
                                            or int(info.get("N", 0)) % cfg["block_n"] != 0)


def _operands(info: dict) -> list:
    """(rows, leading dimension, batch stride) of A and B in elements, as the harness lays them out: layout "nn" =
    A row-major (M x K), B row-major (K x N); a "t" = that operand stored transposed (torch's transposed view).
    A run-wide B layout (the llm suite's W.t(), `run_b_layout`) is not in a record's size_info: it reads as "nn"
    here, which matters only where N and K differ in alignment (not at the llm suite's Llama-3 shapes)."""
    M, N, K = int(info.get("M", 0)), int(info.get("N", 0)), int(info.get("K", 0))
    lay = info.get("layout", "nn") or "nn"
    a = (M, K) if lay[0] == "n" else (K, M)
    b = (K, N) if lay[1] == "n" else (N, K)
    return [(rows, ld, rows * ld) for rows, ld in (a, b)]


def _operand_copied(info: dict, cfg: dict) -> bool:
    """A launch whose problem has an operand the op copies before the kernel (its leading dimension, or batch
    stride, breaks the 16-byte rule; a one-row operand has no leading dimension to break)."""
    eb, batch = _elem_bytes(info.get("dtype")), int(info.get("batch", 1) or 1)
    return any((rows > 1 and ld * eb % 16 != 0) or (batch > 1 and bs * eb % 16 != 0)
               for rows, ld, bs in _operands(info))


def _wgmma_rows_off_lines(info: dict, cfg: dict) -> bool:
    """A wgmma launch that reads an operand in place whose rows (or batches) start 16- but not 128-byte aligned."""
    if cfg["family"] != "wgmma":
        return False
    eb, batch = _elem_bytes(info.get("dtype")), int(info.get("batch", 1) or 1)
    return any(rows > 1 and ld * eb % 16 == 0 and (ld * eb % 128 != 0 or (batch > 1 and bs * eb % 128 != 0))
               for rows, ld, bs in _operands(info))


@functools.lru_cache(maxsize=1)
def _measured_gpus_cluster_capacity() -> tuple:
    """(SMs, [resident clusters of 2..8]) of the H100 row (the H200 row has the same), read once."""
    from .. import _core
    hw = _core.resolve_hardware(None, "H100_SXM", "")
    return int(hw.get("n_sm")), [int(hw.get(f"resident_clusters_{s}")) for s in range(2, 9)]


def _wgmma_cluster_split(info: dict, cfg: dict) -> bool:
    """A wgmma split launch whose slices now reduce in a thread-block cluster (make_split_plan's rule, with the
    132 SMs and the cluster capacity of the GPUs the data sets were measured on: the H100 row's resident_clusters_S,
    which the H200 row shares)."""
    if cfg["family"] != "wgmma" or int(cfg.get("split_k", 1) or 1) < 2:
        return False
    from .. import _core
    sms, clusters = _measured_gpus_cluster_capacity()
    sp = _core.split_plan(int(info["M"]), int(info["N"]), int(info["K"]), int(info.get("batch", 1) or 1),
                          cfg["block_m"], cfg["block_n"], cfg["block_k"], int(cfg["split_k"]), sms, "wgmma", clusters)
    return bool(sp["cluster"])


def _wgmma_operand_shorter_than_tile(info: dict, cfg: dict) -> bool:
    """A wgmma launch whose M is below BLOCK_M or N below BLOCK_N: that operand's stage loads its own rows only."""
    return cfg["family"] == "wgmma" and (int(info.get("M", 0)) < cfg["block_m"] or int(info.get("N", 0)) < cfg["block_n"])


def _simt_one_cta_tile(info: dict, cfg: dict) -> bool:
    """A simt 128x128x16 launch: that tile now runs one CTA per SM (families/simt.py one_cta_per_sm)."""
    return cfg["family"] == "simt" and (cfg["block_m"], cfg["block_n"], cfg["block_k"]) == (128, 128, 16)


# The mma_sync tiles with a realigning variant (the rule of cpp/kernels/families/mma_sync.py, realign_tile; the op
# launches that variant when an operand breaks the 16-byte rule). tests/test_realign.py checks the two agree.
_REALIGN_TILES = frozenset({(16, 16, 64), (16, 32, 64), (16, 64, 32), (16, 128, 32), (32, 16, 64), (32, 32, 64),
                            (32, 64, 64), (32, 128, 64), (64, 16, 32), (64, 32, 64), (64, 64, 64)})


def _mma_sync_realigned(info: dict, cfg: dict) -> bool:
    """An mma_sync launch of a tile with a realigning variant at a size with an operand breaking the 16-byte rule: the
    op now reads that operand in place with the `_ra` kernel instead of copying it first."""
    return (cfg["family"] == "mma_sync" and (cfg["block_m"], cfg["block_n"], cfg["block_k"]) in _REALIGN_TILES
            and _operand_copied(info, cfg))


def _mma_sync_a_rows_at_m_edge(info: dict, cfg: dict) -> bool:
    """An mma_sync launch of the aligned kernels whose every CTA is at the M edge (M < BLOCK_M) with A K-contiguous
    (layout "n."): its steady loop now copies A's M rows only (copy_rows), not the tile's BLOCK_M."""
    return (cfg["family"] == "mma_sync" and int(info.get("M", 0)) < cfg["block_m"]
            and (info.get("layout", "nn") or "nn")[0] == "n" and not _mma_sync_realigned(info, cfg))


# The tiles of the swapped TF32 kernels (gemm_wgmma.cuh run_swap; families/wgmma.py: tf32 tiles with at most
# SWAP_MAX_SLABS m64 slabs of BLOCK_N per consumer) and the M up to which the op runs them (cpp/model/types.hpp
# kSwappedTf32MaxM). tests/test_wgmma_family.py checks the tiles against the generator.
SWAPPED_TF32_TILES = frozenset({(128, 256), (256, 128), (128, 128), (64, 128), (64, 64)})
SWAPPED_TF32_MAX_M = 2048


def _wgmma_tf32_row_major_b_in_place(info: dict, cfg: dict) -> bool:
    """A TF32 launch with B row-major and A K-major on a tile with a swapped kernel, M <= SWAPPED_TF32_MAX_M: the op now
    reads B in place (C^T = B^T A^T) instead of copying it transposed first."""
    dt = info.get("dtype")
    return (cfg["family"] == "wgmma" and dt in ("tfloat32", "tf32") and (info.get("layout", "nn") or "nn") == "nn"
            and (cfg["block_m"], cfg["block_n"]) in SWAPPED_TF32_TILES and int(info.get("M", 0)) <= SWAPPED_TF32_MAX_M)


def _wgmma_edge_box_shifted(info: dict, cfg: dict) -> bool:
    """A wgmma launch with an edge tile of a K-major operand longer than its tile (M > BLOCK_M with M % BLOCK_M != 0 and
    A K-major, or the same of N with B K-major; a BLOCK_N that is not a multiple of 64 reads B K-major): that tile now
    loads the box ending at the matrix edge instead of having TMA zero-fill the overhang (gemm_wgmma.cuh,
    KernelParams::shift_edges). 16-bit kernels only, and not the cluster split (they keep their boxes)."""
    if cfg["family"] != "wgmma" or info.get("dtype") in ("tfloat32", "tf32", "float32") or _wgmma_cluster_split(info, cfg):
        return False
    M, N = int(info.get("M", 0)), int(info.get("N", 0))
    lay = info.get("layout", "nn") or "nn"
    a_k, b_k = lay[0] == "n", lay[1] == "t" or cfg["block_n"] % 64 != 0
    bm, bn = cfg["block_m"], cfg["block_n"]
    return (a_k and M > bm and M % bm != 0) or (b_k and N > bn and N % bn != 0)


# The tiles whose 16-bit kernels have a ping-pong schedule (cpp/kernels/families/wgmma.py PINGPONG_TILES; the launcher
# takes it where every CTA has two or more tiles, gemm_wgmma.cuh ping_pong_pays). tests/test_wgmma_family.py checks
# the two agree.
PINGPONG_TILES = frozenset({(128, 128)})


def _output_tiles(info: dict, cfg: dict) -> int:
    """The tiles of C a launch of this config computes at this size, every batch's."""
    return int(info.get("batch", 1) or 1) * -(-int(info["M"]) // cfg["block_m"]) * -(-int(info["N"]) // cfg["block_n"])


def _wgmma_ping_pong(info: dict, cfg: dict) -> bool:
    """An unsplit 16-bit wgmma launch of a ping-pong tile with at least two tiles per SM (the 132 SMs of the GPUs the
    data sets were measured on): it now runs the ping-pong schedule. (A 2-CTA twin launch of the tile, rows off
    128-byte lines, keeps its kernel; its config does not say it was one, so it is marked too.)"""
    if (cfg["family"] != "wgmma" or (cfg["block_m"], cfg["block_n"]) not in PINGPONG_TILES
            or int(cfg.get("split_k", 1) or 1) > 1 or info.get("dtype") not in ("float16", "bfloat16")):
        return False
    sms, _ = _measured_gpus_cluster_capacity()
    tiles = _output_tiles(info, cfg)
    return tiles >= 2 * sms


# The launcher's rule for programmatic dependent launch (cpp/kernels/pdl.hpp, pdl_suits_sm_filling_grid): no PDL for a
# persistent wgmma grid of more than half and at most 17/20 of the SMs whose CTAs run at least this many K-iterations.
# tests/test_wgmma_family.py checks the two agree.
PDL_FILL_RULE_MIN_K_ITERS = 96


def _wgmma_pdl_fill_rule(info: dict, cfg: dict) -> bool:
    """A wgmma launch whose grid (tiles x slices, on the 132 SMs of the GPUs the data sets were measured on) takes more
    than half and at most 85 % of the SMs, each CTA running >= PDL_FILL_RULE_MIN_K_ITERS K-iterations: it now launches
    without programmatic dependent launch, which slowed such grids 1.05-1.36x back to back (cpp/kernels/README.md).
    (A 2-CTA twin launch's config does not say it was one: counted as the one-CTA launch.)"""
    if cfg["family"] != "wgmma":
        return False
    sms, _ = _measured_gpus_cluster_capacity()
    tiles = _output_tiles(info, cfg)
    ctas = tiles * int(cfg.get("split_k", 1) or 1)
    k_iters = tiles * -(-int(info["K"]) // cfg["block_k"])
    return 2 * ctas > sms and 20 * ctas <= 17 * sms and -(-k_iters // ctas) >= PDL_FILL_RULE_MIN_K_ITERS


def _wgmma_descriptors_stepped(info: dict, cfg: dict) -> bool:
    """A wgmma launch of the shared-memory-operand main loop (every one but the swapped TF32 kernels', run_swap): its
    consumers build their wgmma descriptors once and step them by an add (gemm_wgmma.cuh wgmma_desc_step) instead of
    building one per wgmma."""
    return cfg["family"] == "wgmma" and not _wgmma_tf32_row_major_b_in_place(info, cfg)


# The op chains its operand copies up to this many flops (cpp/ops/ops_cuda.cpp kCopyChainMaxFlop; the same value).
COPY_CHAIN_MAX_FLOP = 16e9


def _op_copies_an_operand(info: dict, cfg: dict) -> bool:
    """A launch of a problem of at most COPY_CHAIN_MAX_FLOP whose op call copies an operand before the kernel: rows off
    the 16-byte rule that no realigning kernel reads in place; rows off 128-byte lines for a wgmma tile (the model may
    copy them onto lines, Plan::pitch_copy); a layout the kernel is not compiled for (16-bit wgmma: an N-major B at a
    BLOCK_N not a multiple of 64; TF32: an M-major A, or a row-major B no swapped kernel reads in place; mma_sync and
    simt: A M-contiguous with B K-contiguous, "tt"). A superset where the model's copy decision is not in the record."""
    flop = 2.0 * int(info.get("batch", 1) or 1) * int(info.get("M", 0)) * int(info.get("N", 0)) * int(info.get("K", 0))
    if flop > COPY_CHAIN_MAX_FLOP:
        return False
    lay = info.get("layout", "nn") or "nn"
    if (_operand_copied(info, cfg) and not _mma_sync_realigned(info, cfg)) or _wgmma_rows_off_lines(info, cfg):
        return True
    if cfg["family"] == "wgmma":
        if info.get("dtype") in ("tfloat32", "tf32"):
            return lay[0] == "t" or (lay[1] == "n" and not _wgmma_tf32_row_major_b_in_place(info, cfg))
        return lay[1] == "n" and cfg["block_n"] % 64 != 0
    return lay == "tt"


# Kernel changes that alter the time of some launches, oldest first: (version, commit, what changed, which launches
# it alters). Raw records of origami_nv's launches (config and pick) carry the version they were measured with as
# "kernel_version" (absent = 1: the kernels before the first change listed). A record is stale when a change newer
# than its version alters its launch; `bench run --retime-stale` re-times those. Add an entry (and so bump
# KERNEL_VERSION) with every kernel change that moves times; the predicate says which launches need re-timing.
KERNEL_CHANGES = (
    (2, "68fe9fb", "C rows that are not 16-byte aligned are stored lane-contiguous by the warp (both families)",
     _c_rows_unaligned),
    (3, "848a8cb", "mma.sync CTAs at one edge (M < BLOCK_M, or N < BLOCK_N) run the steady-state loop",
     _mma_sync_tile_at_edge),
    (4, "5db8523", "wgmma: a CTA with a next tile stores C by TMA and starts the next tile while the store drains",
     _wgmma_tma_stored),
    (5, "367c081", "wgmma: 128-byte L2 promotion for operands whose rows are not on 128-byte lines",
     _wgmma_rows_off_lines),
    (6, "99a9665", "op: an operand breaking the 16-byte rule is copied by the realigning row copy, not torch's copy_",
     _operand_copied),
    (7, "ddbf7ce", "wgmma: an operand shorter than its tile side is loaded without the rows past its end (no zero fill)",
     _wgmma_operand_shorter_than_tile),
    (8, "63de9b6", "simt: 128x128x16 runs one CTA per SM, two fragment sets, its whole k-tile unrolled, 3 stages",
     _simt_one_cta_tile),
    (9, "twelfth session", "wgmma: a split launch of one wave of clusters with short slices reduces in the cluster",
     _wgmma_cluster_split),
    (10, "fifteenth session", "mma_sync: the small tiles read an operand breaking the 16-byte rule in place (`_ra` "
     "kernels) instead of the op copying it", _mma_sync_realigned),
    (11, "sixteenth session", "mma_sync: at the M edge (M < BLOCK_M) a K-contiguous A is copied by its M rows only, "
     "not BLOCK_M rows through the predicated edge copy", _mma_sync_a_rows_at_m_edge),
    (12, "twentieth session", "wgmma tf32: a row-major B is read in place by the swapped kernels (C^T = B^T A^T, B^T "
     "from registers) up to M = 2048, not copied transposed first", _wgmma_tf32_row_major_b_in_place),
    (13, "twenty-fourth session", "wgmma: the edge tile of a K-major operand longer than its tile loads the box that "
     "ends at the matrix edge (no zero fill; its own rows stored by its threads)", _wgmma_edge_box_shifted),
    (14, "thirty-fourth session", "wgmma: 16-bit 128x128 launches with two or more tiles per SM run the ping-pong "
     "schedule (each consumer warpgroup whole tiles, alternating)", _wgmma_ping_pong),
    (15, "forty-third and forty-fourth sessions", "launcher: wgmma grids of 67-112 CTAs running >= 96 K-iterations per "
     "CTA launch without programmatic dependent launch", _wgmma_pdl_fill_rule),
    (16, "forty-eighth session", "wgmma: the consumers' descriptors are built once and stepped by one add per k-step "
     "and stage, not built per wgmma", _wgmma_descriptors_stepped),
    (17, "fifty-seventh session", "op: up to 16 GFLOP an operand copy (row or transposing) launches with programmatic "
     "dependent launch, and the GEMM after it overlaps it while a CUDA graph is captured", _op_copies_an_operand),
)
KERNEL_VERSION = KERNEL_CHANGES[-1][0]


def _result_kind(rec: dict) -> str | None:
    kind = rec.get("kind")
    return rec.get("result_kind", "config") if kind == "attempt" else kind


def stale_split_record(rec: dict) -> bool:
    """A timed split launch (its result, or the attempt record before it) measured with an older reduction
    kernel than the installed one."""
    return (_result_kind(rec) == "config" and split_k_of(rec.get("config")) > 1
            and int(rec.get("split_k_reduction", 1)) < SPLIT_K_REDUCTION_VERSION)


def stale_kernel_record(rec: dict, upto: int = KERNEL_VERSION, since: int = 0) -> bool:
    """A timed launch of origami_nv's kernels (a config or the pick; its result or its attempt record) that a
    kernel change newer than the one it was measured with, and no newer than `upto` (nor older than `since`),
    alters (KERNEL_CHANGES)."""
    if _result_kind(rec) not in ("config", "pick", "reference") or rec.get("system") != "origami" or not rec.get("config"):
        return False
    version = int(rec.get("kernel_version", 1))
    if version >= upto:
        return False
    info = rec.get("size_info") or {}
    cfg = normalize(rec["config"])
    return any(max(version + 1, since) <= v <= upto and applies(info, cfg) for v, _, _, applies in KERNEL_CHANGES)


# The model's evaluation on stored measurements (benchmarks/fit_model.py) leaves out the launches a change from this
# version on made stale: changes 2-6 moved the launches they alter by a few per cent, and a set not re-timed since
# keeps those measurements (its figures say so); change 7 moved decode wgmma launches by up to 1.8x, so their old
# times would judge the model against kernels that no longer exist.
EVALUATION_DROPS_STALE_FROM = 7
# ...except these changes, whose stale launches the evaluation keeps until they are re-timed: change 13 alters a wgmma
# launch at most sizes (any edge tile of a K-major operand), so dropping them would leave next to nothing to judge; the
# sets' figures for those launches are the zero-filled kernels' until `bench run --retime-stale` (the note of the
# session that made the change says so). Re-timed on 2026-11-27 (twenty-fifth session): both GPUs' gen-valid, the
# H100 gen-train, 112 of 130 sizes of the H200 gen-train (drop_superseded works size by size).
# Change 14 moves the launches it alters by 1-11 % (H200, dev harness; cpp/kernels/wgmma/NOTES.md, session 34), like
# changes 2-6: their stale times are kept (the cooperative kernel's, a little slow) until re-timed.
# Change 15 (the launcher's PDL rule) made the launches it alters 1.05-1.36x faster (H200; decode 64-row tiles most,
# cpp/kernels/README.md): their stale times, PDL's, are kept until re-timed like 13 and 14's, so the sets keep judging
# the model at those sizes; the figures there are the slower launches' until `bench run --retime-stale`.
# Change 16 (descriptors stepped by an add) alters every wgmma launch but the swapped TF32 kernels': dropping them would
# leave only mma.sync launches to judge, so their times, the slower kernels', are kept until re-timed. It made the
# kernels it alters 1.034x faster (H100, dev harness, 9 fp16 kernels x 7 sizes, geomean; 0.96-1.17, the 64-row tiles
# 1.03-1.10x; cpp/kernels/wgmma/NOTES.md, session 48): the sets' wgmma times are a few per cent slow until re-timed.
# Change 17 (the op's operand copies overlap the kernel before them, and the GEMM overlaps its copy, in CUDA graphs too)
# alters the launches with a copied operand, which hold the data behind the model's copy terms (operand_copy_*): their
# times, with the copies' launch latency unhidden, are kept until re-timed.
EVALUATION_KEEPS_STALE = frozenset({13, 14, 15, 16, 17})


def stale_for_evaluation(rec: dict) -> bool:
    return any(stale_kernel_record(rec, upto=v, since=v) for v, _, _, _ in KERNEL_CHANGES
               if v >= EVALUATION_DROPS_STALE_FROM and v not in EVALUATION_KEEPS_STALE)


def stale_record(rec: dict) -> bool:
    return stale_split_record(rec) or stale_kernel_record(rec)


def noisy_record(rec: dict) -> bool:
    """A timed launch of ours whose samples spread wider than stats.MAX_SPREAD (interquartile range over median) and
    that was not measured again for it (the harness does that since 2026-11-25: note "re-measured: wide spread")."""
    from .stats import MAX_SPREAD
    if _result_kind(rec) not in ("config", "pick") or rec.get("system") != "origami" or rec.get("kind") == "attempt":
        return False
    t, q1, q3 = rec.get("time_s"), rec.get("q1_s"), rec.get("q3_s")
    if not t or q1 is None or q3 is None or int(rec.get("samples") or 0) < 4:
        return False
    return (q3 - q1) / t > MAX_SPREAD and "re-measured: wide spread" not in (rec.get("note") or "")


# The pick and its config twin run one kernel with one config, timed back to back: through the op's automatic path
# (matmul(a, b)), then with the config given (matmul(a, b, config=...)). Where their medians differ by more than
# this, the GPU changed state between them, or the two paths launched differently (the automatic one may add a
# multicast twin or a pitch copy where the model's plan says so): the run loop times both again in the other order
# (runner.Runner._recheck_pick_twin), and `bench run --retime-noisy` re-times the pairs of runs before it
# (disagreeing_twins). Where it came from: the H100 gen-valid re-timing of 2026-12-06 (kernel change 16), 12 of 109
# twins differed by more than 5 %, the large sizes the most (4096x4608x36864 wgmma 192x192: 2077 then 2551 us, 0.14 s
# apart, each with an interquartile spread under 2 %); on the H200 gen-valid none did. Those 12 pairs timed again
# (fifty-first session, --retime-noisy, H100): 8 agreed; 4 differed (1.070, 1.089, 0.946, 1.151), 3 of which agreed on
# the re-timing in the other order; 4096x4608x36864 differed again (1.090: the pick faster both times; no multicast
# twin or pitch copy exists for that tile, so both paths launch the same kernel: read as the 700 W limit's variance,
# as the thirty-first session's probe of the same comparison at 8192^3 saw it, the pick 11 % faster in one round and
# 9 % slower in the next, benchmarks/results/probes/probe_pick_vs_explicit_h100.txt).
TWIN_DISAGREEMENT = 0.05


def disagreeing_twins(records: list[dict]) -> set[tuple]:
    """(size, system, item) of the picks and config twins whose latest results disagree by more than
    TWIN_DISAGREEMENT and were not timed again for it (field "twin_recheck"): both items of each pair."""
    latest: dict[tuple, dict] = {}
    for r in records:
        if r.get("kind") in ("config", "pick"):
            latest[(r.get("size"), r.get("system"), r.get("item"))] = r
    out = set()
    for (size, system, item), p in latest.items():
        if item != "pick" or p.get("status") != "ok" or not p.get("time_s") or not p.get("config_id"):
            continue
        c = latest.get((size, system, p["config_id"]))
        if (c is None or c.get("status") != "ok" or c.get("cut_off") or not c.get("time_s")
                or "twin_recheck" in p or "twin_recheck" in c):
            continue
        # back to back: one run's shard file, the twin after the pick (a re-timing of either in another run is not
        # a twin of the other)
        if c.get("_file") != p.get("_file") or float(c.get("t") or 0) < float(p.get("t") or 0):
            continue
        if abs(math.log(c["time_s"] / p["time_s"])) > math.log1p(TWIN_DISAGREEMENT):
            out |= {(size, system, "pick"), (size, system, p["config_id"])}
    return out


def drop_superseded(records: list[dict]) -> list[dict]:
    """Records of a data set without those a re-timing superseded: the split launches of older reductions once
    some split launch carries the installed reduction's version (`bench run --retime-split`), and, size by size, the
    launches a kernel change altered once the size was re-timed with the newer kernels (`bench run --retime-stale`),
    including those the re-timing did not repeat (a pick or candidate the model of the time ranked and today's does
    not): a brute-force best or a pick must not be a launch of kernels that no longer exist. Size by size, so that a
    re-timing spread over several runs (`--time-budget`) leaves the sizes it has not reached as they were measured;
    a size whose re-timing was cut short (its launches of the newest version all come after its last size_done mark)
    keeps its state before that re-timing, the launches re-timed so far winning as later results do. A data set
    never re-timed is returned as measured."""
    splits_retimed = any(split_k_of(r.get("config")) > 1 and r.get("kind") == "config" and not stale_split_record(r)
                         for r in records)
    upto = _retimed_version_by_size(records)
    if not splits_retimed and not any(v > 1 for v in upto.values()):
        return records
    return [r for r in records if not ((splits_retimed and stale_split_record(r))
                                       or stale_kernel_record(r, upto=upto.get(r.get("size"), 1)))]


def _retimed_version_by_size(records: list[dict]) -> dict:
    """size -> the newest kernel version its origami launches were completely (re-)timed with: launches altered by
    a change up to it are superseded; those only a newer change alters stay until they are re-timed too. Complete:
    the version of the size's first measurement, or that of a re-timing run (`bench run --retime-stale`: its meta
    record says so) whose size_done mark for the size (its own or a later re-timing run's) comes after its first
    launch of the size. A run that only adds launches (kernels compiled since, a changed pick) times them with the
    newest kernels and re-times nothing: the older launches stay as measured. (Until the fifty-fourth session any
    launch of a newer version followed by a size_done mark counted as a re-timing: the H100 seed-tf32 run that timed
    the TF32 kernels added since its last run was taken for one, and the report dropped the 19 picks and ~1,300
    launches measured before it.)"""
    retiming = {r.get("_file") for r in records if r.get("kind") == "meta"
                and (r.get("retime_stale") or "--retime-stale" in (r.get("argv") or []))}
    first: dict = {}   # size -> (t, version) of its earliest launch
    began: dict = {}   # (size, version) -> when a re-timing run first timed a launch of the size with that version
    done: dict = {}    # size -> the latest size_done mark of a re-timing run
    for r in records:
        if r.get("system") != "origami":
            continue
        size, t = r.get("size"), float(r.get("t") or 0.0)
        if r.get("kind") in ("config", "pick"):
            v = int(r.get("kernel_version", 1))
            first[size] = min(first.get(size, (t, v)), (t, v))
            if r.get("_file") in retiming:
                began[(size, v)] = min(began.get((size, v), t), t)
        elif r.get("kind") == "size_done" and r.get("_file") in retiming:
            done[size] = max(done.get(size, -1.0), t)
    out = {size: v for size, (_, v) in first.items()}
    for (size, v), t in began.items():
        if done.get(size, -1.0) >= t:
            out[size] = max(out[size], v)
    return out


FIELDS = ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family", "split_k")
# cpp/model/types.hpp: enum class Family { MmaSync = 0, Wgmma = 1, Simt = 2 }.
_FAMILY_BY_INT = {0: "mma_sync", 1: "wgmma", 2: "simt"}


def family_name(f) -> str:
    if f is None:
        return "mma_sync"
    if isinstance(f, bool):
        raise TypeError(f"family must be a name or an int, got {f!r}")
    if isinstance(f, int):
        try:
            return _FAMILY_BY_INT[f]
        except KeyError:
            raise ValueError(f"unknown family number {f}") from None
    s = str(f)
    # enum reprs such as "Family.MmaSync" or "<Family.Wgmma: 1>"
    low = s.lower().replace("family.", "").strip("<>").split(":")[0].strip()
    return {"mmasync": "mma_sync", "mma_sync": "mma_sync", "wgmma": "wgmma", "simt": "simt"}.get(low, low)


def normalize(cfg) -> dict:
    """Any config spelling -> {block_m, block_n, block_k, group_size_m, stages, warps, family, split_k} (+ swap_ab
    where true)."""
    if cfg is None:
        raise ValueError("config is None")
    if not isinstance(cfg, (dict, list, tuple)) and callable(getattr(cfg, "to_dict", None)):
        cfg = cfg.to_dict()          # origami_nv.Config (pybind TileConfig)
    if isinstance(cfg, dict):
        src = cfg.get("config", cfg) if "block_m" not in cfg else cfg
        if not isinstance(src, dict):
            return normalize(src)
        get = src.get
    elif isinstance(cfg, (list, tuple)):
        if len(cfg) < 3:
            raise ValueError(f"config list needs at least block_m, block_n, block_k, got {cfg!r}")
        # select_config's list: FIELDS, then swap_ab (9 ints); a shorter list has no swapped operands
        vals = dict(zip(FIELDS + ("swap_ab",), cfg))
        get = vals.get
    else:
        def get(name, default=None):
            return getattr(cfg, name, default)
    out = {}
    for name in FIELDS[:6]:
        v = get(name)
        if v is None:
            if name in ("block_m", "block_n", "block_k"):
                raise ValueError(f"config {cfg!r} has no {name}")
            v = {"group_size_m": 1, "stages": 2, "warps": 8}[name]
        out[name] = int(v)
    out["family"] = family_name(get("family"))
    split = get("split_k")
    out["split_k"] = int(split) if split else 1  # launch-time, like group_size_m (cpp/model/types.hpp)
    if get("swap_ab"):  # the swapped-operand wgmma kernels (TileConfig::swap_ab); absent for every other config
        out["swap_ab"] = True
    return out


def config_id(cfg: dict, with_group: bool = True) -> str:
    """'mma_sync 128x128x32 s4 w8 g8' (+ ' sk4' with split-K, ' ab' for a swapped-operand kernel), the format of
    TileConfig::to_string()."""
    s = f"{cfg['family']} {cfg['block_m']}x{cfg['block_n']}x{cfg['block_k']} s{cfg['stages']} w{cfg['warps']}"
    split = split_k_of(cfg)
    return (s + (f" g{cfg['group_size_m']}" if with_group else "") + (f" sk{split}" if split > 1 else "")
            + (" ab" if cfg.get("swap_ab") else ""))


def kernel_id(cfg: dict) -> str:
    """Identity of a launch: the compiled kernel and its split-K slices (group_size_m is a launch argument
    that only orders the tiles)."""
    return config_id(cfg, with_group=False)


def compiled_kernel_id(cfg: dict) -> str:
    """Identity of the compiled kernel alone (split_k and group_size_m excluded)."""
    return config_id(dict(cfg, split_k=1), with_group=False)


def short(cfg: dict | None) -> str:
    """Compact form for tables: (128,128,64)g8 s4w8 [wgmma]."""
    if not cfg:
        return "-"
    s = f"({cfg['block_m']},{cfg['block_n']},{cfg['block_k']})g{cfg['group_size_m']} s{cfg['stages']}w{cfg['warps']}"
    if split_k_of(cfg) > 1:
        s += f" sk{cfg['split_k']}"
    if cfg.get("family") and cfg["family"] != "mma_sync":
        s += f" {cfg['family']}"
    if cfg.get("swap_ab"):
        s += " ab"
    return s


def run_b_layout(records) -> str:
    """The B layout a raw run's harness used for every size ("col": B = W.t(), the llm suite's runs; else
    "row"), from its meta records."""
    return next((m.get("timing", {}).get("b_layout") for m in records if m.get("kind") == "meta"
                 and m.get("timing", {}).get("b_layout")), "row")


def launched_layout(size_layout: str | None, b_layout: str) -> str:
    """The operand layout the kernel ran for a size: its own, or "nt" for a plain size of a run that passed
    B = W.t() for every size (run_b_layout "col")."""
    layout = size_layout or "nn"
    return "nt" if layout == "nn" and b_layout == "col" else layout


def operand_alignment(M: int, N: int, K: int, layout: str, dtype: str = "float16", batch: int = 1) -> dict:
    """{"a_aligned", "b_aligned"} for the harness's operands of a size (timing.CudaHarness.prepare: fresh
    contiguous storage, 't' a transposed view of it), by the op's rule (cpp/ops/ops_cuda.cpp try_layout): the
    leading dimension and, with batch > 1, the batch stride a multiple of 16 bytes, a leading dimension of one
    row exempt. False: matmul copies that operand first, so the model must select with it (Problem::a_aligned)."""
    align = 16 // (4 if str(dtype).endswith("float32") else 2)

    def ok(rows, cols):  # storage (batch, rows, cols) row-major
        ld_ok = rows == 1 or cols % align == 0
        return ld_ok and (batch == 1 or (rows * cols) % align == 0)

    a_t, b_t = layout[0] == "t", layout[1] == "t"
    return {"a_aligned": ok(K, M) if a_t else ok(M, K), "b_aligned": ok(N, K) if b_t else ok(K, N)}


def pick_config_as_run(rec: dict, compiled: set) -> dict:
    """The config of a pick record as the op ran it. Until the fifty-third session (2026-12-07) the runner read
    select_config's list without its ninth int, swap_ab: a swapped-operand pick timed through the op was recorded as
    the unswapped kernel of the same tile. The op launches compiled kernels only, so where the record's kernel is not
    compiled unswapped for its dtype and is compiled swapped (compiled: (dtype, compiled_kernel_id) pairs of the
    build's kernel table), the launch was the swapped kernel. (The swapped kernels' tiles have 80, 96, 112 or 160 rows,
    no multiple of a warpgroup's 64: no build ever compiled them unswapped.) `bench run` times such picks again."""
    cfg = normalize(rec["config"])
    dtype = (rec.get("size_info") or {}).get("dtype", "float16")
    if (cfg.get("swap_ab") or not str(rec.get("via", "")).startswith("origami_nv.matmul(a, b)")
            or (dtype, compiled_kernel_id(cfg)) in compiled):
        return cfg
    swapped = dict(cfg, swap_ab=True)
    return swapped if (dtype, compiled_kernel_id(swapped)) in compiled else cfg


def pick_record_trusted(rec: dict, M: int, N: int, K: int, layout: str, dtype: str = "float16", batch: int = 1) -> bool:
    """Whether a pick record's config is the kernel its through-the-op time ran. Before 2026-11-25 (ninth session)
    the runner selected without the operands' alignment (records without "operand_alignment"), while matmul
    selected with it: at a size with an operand it copies first, the two could differ (1x4097x4099: recorded
    wgmma 64x64, the op ran a tile that needed a transposing copy, 144 us against 45 for 64x64). Aligned sizes are
    unaffected."""
    if rec.get("operand_alignment") is not None:
        return True
    return all(operand_alignment(M, N, K, layout, dtype, batch).values())
