"""Rendering of a selection as the seed's Appendix A walk-through (text), HTML and a dict."""
from __future__ import annotations

import html
import math
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["Explanation"]


def _n(v: float, digits: int = 0) -> str:
    """A number with thousands separators (integers exact, others rounded)."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if not math.isfinite(v):
        return str(v)
    if digits == 0:
        return f"{round(v):,}"
    return f"{v:,.{digits}f}"


def _swapped_not_ranked(N: int, dtype: str) -> bool:
    """The selector leaves the swapped kernels out (cpp/model/types.hpp swapped_kernels_ranked) and the kernel list has
    some."""
    from . import _core, _kernels
    if _core.swapped_kernels_ranked(N, dtype):
        return False
    return any(r["config"].get("swap_ab") for r in (_kernels.kernel_records() or _kernels.reference_table()["kernels"]))


def _cfg(c: Any) -> str:
    split = getattr(c, "split_k", 1)
    return (f"({c.block_m}, {c.block_n}, {c.block_k}) {c.family} s{c.stages} w{c.warps}" + (f" sk{split}" if split > 1 else "")
            + (" ab" if getattr(c, "swap_ab", False) else ""))


# The breakdown terms compared when a batched / transposed / misaligned problem picks differently from the
# plain one (name in the breakdown, label).
_DIFF_TERMS = (("dp_cycles", "whole tiles (waves x tile)"), ("tail_cycles", "split tail"),
               ("reduction_cycles", "split-K reduction"), ("operand_copy_cycles", "operand copies"),
               ("num_waves", "waves"), ("l2_hit_rate", "L2 hit rate"), ("bias_cycles", "fused bias in the epilogue"))


class Explanation:
    """Why a tile configuration was chosen.

    ``str(e)``: the walk-through (every term with value and unit; tier of each hardware value),
    the top-k table, the phase-2 costs, the excluded configs with reason and figures.
    ``e._repr_html_()``: the same for notebooks. ``e.to_dict()``: JSON-serialisable.
    """

    def __init__(self, problem: Tuple[int, int, int], dtype: str, mode: str, selection: Dict[str, Any],
                 hardware: Any, candidates_note: str, top: int, candidate_count: int,
                 extras: Optional[Dict[str, Any]] = None, plain: Optional[Dict[str, Any]] = None,
                 short_k_candidates: int = 0):
        self.problem = problem
        # candidates this problem ranks beyond its dtype's usual space: the 64-row mma.sync tiles, where K is below the
        # wgmma kernels' BLOCK_K (ModelOptions.mma_sync_dominated_by_wgmma's scope)
        self.short_k_candidates = short_k_candidates
        # batch, layout, a_aligned, b_aligned; plain: the pick of the plain problem (batch 1, "nn", aligned)
        # with its prediction under the real problem (None when the problem is the plain one).
        self.extras = dict(extras or dict(batch=1, layout="nn", a_aligned=True, b_aligned=True, bias=False))
        self.extras.setdefault("bias", False)
        self.plain = plain
        self.dtype = dtype
        self.mode = mode
        self.selection = selection
        self.hardware = hardware
        self.candidates_note = candidates_note
        self.top = top
        self.candidate_count = candidate_count

    # ---- convenience ----------------------------------------------------------------------------
    @property
    def config(self):
        """The chosen configuration (with its phase-2 GROUP_SIZE_M)."""
        return self.selection["config"]

    @property
    def breakdown(self) -> Dict[str, Any]:
        """Every term of the model for the pick, as ranked in phase 1."""
        return self.selection["breakdown"]

    @property
    def predicted_cycles(self) -> float:
        return self.breakdown["total_cycles"]

    def _hv(self, key: str) -> float:
        return self.hardware[key].value

    def _hw_source(self, key: str) -> str:
        v = self.hardware[key]
        return f"[{v.tier}] {v.source}"

    def _us(self, cycles: float) -> float:
        return cycles / self._hv("sustained_clock_mhz")

    def _tie_line(self) -> str:
        """Why the winner heads an exact tie of phase 1 (cpp/model/selector.cpp, phase1: the arithmetic intensity,
        then, in nv mode, the unsplit tile that reads the larger operand once, then the enumeration order)."""
        ranking = self.selection["ranking"]
        if len(ranking) < 2:
            return ""
        (c0, b0), (c1, b1) = ranking[0], ranking[1]
        t0, t1 = b0["total_cycles"], b1["total_cycles"]
        if abs(t0 - t1) > 1e-9 * max(t0, t1):
            return ""
        M, N = self.problem[0], self.problem[1]
        other = f"{c1.block_m}x{c1.block_n}x{c1.block_k} {c1.family} s{c1.stages} w{c1.warps}" + (
            f" sk{c1.split_k}" if c1.split_k > 1 else "")

        from . import _core

        def shared(c):
            return _core.splits_short_side(M, N, c.block_m, c.block_n, c.split_k)
        if self.mode != "seed" and not shared(c0) and shared(c1):
            big = "B" if N > M else "A"
            return (f"  Exact tie with {other}: the winner reads the larger operand ({big}) once per slab (one tile "
                    f"along {'M' if N > M else 'N'}); the other splits that side, and two CTAs streaming the same DRAM "
                    "lines run slower than the model's symmetric terms say (benchmarks/results/"
                    "tie_break_streamed_operand.md)")
        return f"  Exact tie with {other}: decided by arithmetic intensity, then the config space's order"

    def _family_line(self) -> str:
        best = self.selection["best_by_family"]
        fam = self.config.family
        mine = self.predicted_cycles
        others = [(f, v) for f, v in best.items() if f != fam]
        if not others:
            return (f"Family: {fam} (the only family among the admissible candidates; "
                    f"{len(self.selection['excluded'])} excluded)")
        parts = []
        for f, (cfg, cycles) in others:
            parts.append(f"best {f} is {_cfg(cfg)} at {_n(cycles)} cycles ({cycles / mine:.2f}x the pick)")
        return f"Family: {fam} won with {_n(mine)} predicted cycles; " + "; ".join(parts)

    # ---- text -----------------------------------------------------------------------------------
    def _hardware_lines(self) -> List[str]:
        out = [f"Hardware parameters: {self.hardware.name}"
               + (f" (visible device: {self.hardware.live_device})" if self.hardware.live_device else "")]
        w = max(len(k) for k in self.hardware.values)
        for k, v in self.hardware.values.items():
            out.append(f"  {k:<{w}} = {_fmt_hw(v.value):>12} {v.unit:<14} [{v.tier}] {v.source}")
        return out

    def _seed_walkthrough(self) -> List[str]:
        b = self.breakdown
        c = self.config
        M, N, K = self.problem
        bytes_ = 2
        hv = self._hv
        mm, mn, mk = int(hv("mma_m")), int(hv("mma_n")), int(hv("mma_k"))
        L = []
        L.append("[Algorithm 3] Compute latency")
        L.append(f"  N_MMA     = ceil({c.block_m}/{mm}) x ceil({c.block_n}/{mn}) x ceil({c.block_k}/{mk})"
                 f" = {_n(b['n_mma'])} MMA instructions")
        L.append(f"  L_MI      = mma_latency / TC_per_SM = {_n(hv('mma_latency'), 2)} / {_n(hv('tensor_cores_per_sm'))}"
                 f" = {b['mma_issue_cycles']:.3f} cycles per MMA")
        L.append(f"  L_compute = {b['mma_issue_cycles']:.3f} x {_n(b['n_mma'])} = {_n(b['compute_cycles'], 1)} cycles"
                 " per K-iteration")
        L.append("[Algorithm 4] Occupancy")
        L.append(f"  grid_M      = ceil({M}/{c.block_m}) = {b['grid_m']} tiles")
        L.append(f"  grid_N      = ceil({N}/{c.block_n}) = {b['grid_n']} tiles")
        L.append(f"  total_tiles = {b['grid_m']} x {b['grid_n']} = {_n(b['total_tiles'])} tiles")
        L.append(f"  active_SMs  = min({_n(b['total_tiles'])}, {_n(hv('n_sm'))}) = {b['active_sms']} SMs")
        L.append(f"  num_waves   = ceil({_n(b['total_tiles'])}/{_n(hv('n_sm'))}) = {b['num_waves']} waves")
        L.append("[Algorithm 5] L2 hit rate")
        L.append(f"  WGM (phase-1 GROUP_SIZE_M) = {b['group_size_m']}; super-group = {b['l2_tile_m']} x {b['l2_tile_n']} tiles")
        L.append(f"  L2_hit (local reuse) = {b['l2_local_hit_rate']:.4f}")
        cap = "cap 0.5 applied" if b["l2_global_cap_applied"] else "no cap"
        L.append(f"  Global cap check: working set (M+N) x BLOCK_K x {bytes_} = {_n(b['working_set_bytes'])} bytes"
                 f" vs L2 = {_n(hv('l2_bytes'))} bytes -> {cap}")
        L.append(f"  L2_hit = {b['l2_hit_rate']:.4f}")
        L.append("[Algorithm 7] Memory latency")
        L.append(f"  load_A     = {_n(b['load_a_bytes'])} bytes per SM per K-iteration (128-byte lines)")
        L.append(f"  load_B     = {_n(b['load_b_bytes'])} bytes per SM per K-iteration")
        L.append(f"  per_SM     = {_n(b['per_sm_load_bytes'])} bytes")
        L.append(f"  total_load = {_n(b['per_sm_load_bytes'])} x {b['active_sms']} = {_n(b['total_load_bytes'])} bytes")
        L.append(f"  -- L2 path: l2_bw_frac = {b['l2_bw_fraction']:.3f}, limited_L2 = {_n(b['limited_l2_bw'], 1)} bytes/cycle,"
                 f" L_L2 = {_n(b['l2_cycles'], 1)} cycles")
        L.append(f"  -- DRAM path: dram_bw_frac = {b['dram_bw_fraction']:.3f}, load_DRAM = {_n(b['dram_load_bytes'])} bytes,"
                 f" limited_DRAM = {_n(b['limited_dram_bw'], 1)} bytes/cycle,"
                 f" L_DRAM = {_n(b['dram_cycles'], 1)} cycles (incl. hbm_latency_penalty {_n(hv('hbm_latency_penalty'))})")
        L.append(f"  L_mem = max({_n(b['l2_cycles'], 1)}, {_n(b['dram_cycles'], 1)}) = {_n(b['memory_cycles'], 1)} cycles"
                 f"  <- {b['memory_bound']}-bound")
        L.append("[Work utilization]")
        L.append(f"  utilization = {b['utilization']:.4f}, penalty = {b['penalty']:.4f}")
        L.append("[Algorithm 8] Tile latency")
        L.append(f"  occupancy  = {b['occupancy']:g}")
        L.append(f"  L_prologue = 1.5 x L_mem x penalty x 0.95^occupancy = {_n(b['prologue_cycles'], 1)} cycles")
        L.append(f"  output     = {b['active_sms']} x {c.block_m} x {c.block_n} x {bytes_} = {_n(b['output_bytes'])} bytes;"
                 f" epilogue_BW = {_n(b['epilogue_bw'], 1)} bytes/cycle")
        L.append(f"  L_epilogue = (output/epilogue_BW + L_compute x penalty) x 0.95^occupancy = {_n(b['epilogue_cycles'], 1)} cycles")
        L.append(f"  num_iter   = max(ceil({K}/{c.block_k}) - 1, 1) = {b['num_iter']} iterations")
        L.append(f"  k_pad      = {_n(b['k_pad_penalty_cycles'], 1)} cycles")
        L.append(f"  L_steady   = max(L_compute, L_mem) x penalty = {_n(b['steady_cycles'], 1)} cycles  <- {b['bound']}-bound")
        L.append(f"  loop overhead = 500 x {b['num_iter']} = {_n(b['loop_overhead_cycles'])} cycles; setup = {_n(b['setup_cycles'])} cycle")
        L.append(f"  L_tile = L_steady x num_iter + L_prologue + 2 x L_epilogue + setup + loop overhead + k_pad"
                 f" = {_n(b['tile_cycles'], 1)} cycles")
        L.append("[Algorithm 9] Total latency")
        L.append(f"  L_total = {_n(b['tile_cycles'], 1)} x {b['num_waves']} waves = {_n(b['total_cycles'])} cycles"
                 f" ({self._us(b['total_cycles']):,.1f} us at {_n(hv('sustained_clock_mhz'))} MHz)")
        return L

    def _nv_walkthrough(self) -> List[str]:
        b = self.breakdown
        c = self.config
        M, N, K = self.problem
        hv = self._hv
        tf32 = self.dtype == "tfloat32"
        rate_key = ("wgmma_tf32_flops_per_cycle" if c.family == "wgmma" and tf32
                    else "wgmma_flops_per_cycle" if c.family == "wgmma"
                    else "mma_sync_tf32_flops_per_cycle" if tf32 else "mma_sync_flops_per_cycle")
        L = []
        which = "estimated resources of the abstract space" if self.selection["abstract_space"] else "real resources"
        L.append(f"[Algorithm 4] Occupancy ({which}; CUDA occupancy calculator rules)")
        batch = self.extras["batch"]
        units = "work units (split-K slices)" if b["split_slices"] > 1 and b["split_dp_tiles"] == 0 else "tiles"
        # (a swapped kernel's terms are of the transposed launch: its grid rows run along N; [Swapped operands] below)
        grid = (f"ceil({N}/{c.block_n}) x ceil({M}/{c.block_m})" if b.get("swap_ab")
                else f"ceil({M}/{c.block_m}) x ceil({N}/{c.block_n})")
        L.append(f"  grid = {grid} = {b['grid_m']} x {b['grid_n']} tiles"
                 + (f" x batch {batch}" if batch > 1 else "") + f"; this phase: {_n(b['total_tiles'])} {units}")
        L.append(f"  blocks_per_SM = {b['blocks_per_sm']} (limited by {b['occupancy_limiter']});"
                 f" active_SMs = {b['active_sms']}; tiles in flight = {_n(b['concurrent_tiles'])}")
        L.append(f"  num_waves = ceil({_n(b['total_tiles'])} / ({_n(hv('n_sm'))} x {b['blocks_per_sm']})) = {b['num_waves']} waves")
        L.append("[Algorithm 3] Compute per K-iteration (throughput)")
        L.append(f"  flops = 2 x {c.block_m} x {c.block_n} x {c.block_k} = {_n(b['flops_per_k_iter'])} flop"
                 + (" (FFMA on the CUDA cores)" if c.family == "simt"
                    else f" ({_n(b['n_mma'])} m16n8k8-equivalent TF32 MMAs)" if self.dtype == "tfloat32"
                    else f" ({_n(b['n_mma'])} m16n8k16-equivalent MMAs)"))
        if c.family == "simt":
            tm, tn = int(b["fp32_thread_tile_m"]), int(b["fp32_thread_tile_n"])
            loads = -(-tm // 4) + -(-tn // 4)
            L.append("  CUDA-core roof (seed 002): Phi = u_issue x f_fp32 x theta x C_fp32 x (1 + m_FMA) flop/SM-cycle")
            L.append(f"    u_issue x C_fp32 x 2 = fp32_flops_per_cycle {_n(hv('fp32_flops_per_cycle'), 1)}"
                     f" ({self._hw_source('fp32_flops_per_cycle')}: a pure-FFMA stream on every lane)")
            L.append(f"    m_FMA = {b['fp32_fma_fraction']:g} (the main loop's FP32 instructions are FFMA)")
            # the other issue slots per k-step (NvModelConstants.simt_k_step_extra_issue), read back from the share
            extra = round(tm * tn / b["fp32_issue_share"] - tm * tn - loads, 3) if b["fp32_issue_share"] > 0 else 0.0
            L.append(f"    f_fp32 = FFMA / issue slots per k-step = {tm}x{tn} / ({tm}x{tn} + {loads} LDS.128 + {extra:g} other"
                     f" (simt_k_step_extra_issue)) = {b['fp32_issue_share']:.4f} (thread tile {tm}x{tn} ="
                     f" {c.block_m}x{c.block_n} / {32 * c.warps} threads)")
            L.append(f"    theta = 1 on the launched tiles (edge tiles run on zero-filled operands); useful-lane fraction"
                     f" of this problem = {b['fp32_lane_fraction']:.4f}")
            L.append(f"    Phi = {_n(b['fp32_sm_flops_per_cycle'], 1)} flop/SM-cycle, shared by the blocks of one SM"
                     f" = {_n(b['tensor_flops_per_cycle'], 1)} flop/cycle for this block")
        else:
            L.append(f"  rate  = {rate_key} {_n(hv(rate_key))} x issue efficiency, shared by the blocks of one SM"
                     f" = {_n(b['tensor_flops_per_cycle'], 1)} flop/cycle for this block")
        if b.get("smem_cycles"):
            L.append(f"  shared memory = resident blocks x (ldmatrix fragments of {b['warps_m']}x{b['warps_n']} warps"
                     f" + the cp.async stage) = {_n(b['smem_bytes'])} bytes per block / (smem_bytes_per_cycle"
                     f" {_n(hv('smem_bytes_per_cycle'), 1)} x mma_sync_smem_efficiency)"
                     f" = {_n(b['smem_cycles'], 1)} cycles")
        limiter = f"  <- {b['compute_limiter']}" if b.get("compute_limiter") else ""
        L.append(f"  L_compute = {_n(b['compute_cycles'], 1)} cycles per K-iteration{limiter}")
        L.append("[Algorithm 5] L2 hit rate (Triton GROUP_SIZE_M raster of the tiles in flight)")
        L.append(f"  GROUP_SIZE_M = {b['group_size_m']}: {b['l2_tile_m']} unique tile-rows of A x {b['l2_tile_n']}"
                 f" unique tile-columns of B")
        L.append(f"  L2_hit = {b['l2_hit_rate']:.4f} (local {b['l2_local_hit_rate']:.4f},"
                 f" whole-problem reuse {b['l2_global_reuse_rate']:.4f})")
        L.append("[Algorithm 7] Memory per K-iteration")
        L.append(f"  load_A = {_n(b['load_a_bytes'])} bytes, load_B = {_n(b['load_b_bytes'])} bytes per tile (32-byte sectors)")
        L.append(f"  total_load = {_n(b['total_load_bytes'])} bytes over {_n(b['concurrent_tiles'])} tiles in flight")
        feed = b.get("l2_feed_factor", 1.0)
        feed_name = "TMA feed" if c.family == "wgmma" else "cp.async feed"
        feed_txt = f" x {feed:g} ({feed_name})" if feed != 1.0 else ""
        L.append(f"  L_L2   = {_n(b['total_load_bytes'])} / ({_n(hv('l2_perf_ratio'), 1)}{feed_txt} x {b['l2_bw_fraction']:.3f})"
                 f" = {_n(b['l2_cycles'], 1)} cycles")
        cap = ("  (TMA: the per-SM rate is the latency bound's, not the active-SM curve: wgmma_active_sm_dram_cap)"
               if c.family == "wgmma" and self.mode == "nv" else "")
        L.append(f"  L_DRAM = {_n(b['dram_load_bytes'])} / ({_n(hv('dram_perf_ratio'), 1)} x {b['dram_bw_fraction']:.3f})"
                 f" = {_n(b['dram_cycles'], 1)} cycles{cap}")
        if b.get("load_issue_cycles"):
            L.append(f"  load issue = stage bytes / (warps x per-warp cp.async rate; the SM's resident warps share"
                     f" at most mma_sync_load_issue_warps_per_sm warps' rate) = {_n(b['load_issue_cycles'], 1)} cycles")
            L.append(f"  latency bound = (hit x l2_latency + miss x hbm_latency + load issue) / (stages - 1)"
                     f" = {_n(b['latency_bound_cycles'], 1)} cycles (stages = {c.stages})")
        else:
            factor = " x wgmma_pipeline_latency_factor (TMA round trip)" if c.family == "wgmma" else ""
            L.append(f"  latency bound = (hit x l2_latency + miss x hbm_latency){factor} / (stages - 1)"
                     f" = {_n(b['latency_bound_cycles'], 1)}"
                     f" cycles (stages = {c.stages})")
        if b.get("copy_throttle_cycles"):
            L.append(f"  cp.async issue floor = (stage bytes / warps - mma_sync_warp_copy_queue_bytes) / throttled"
                     f" per-warp rate = {_n(b['copy_throttle_cycles'], 1)} cycles")
        if b.get("lone_warp_cycles"):
            L.append("  lone-warp issue (each warp alone on its sub-partition, in place of the cp.async floor) ="
                     " (k-steps x max(mma_sync_lone_warp_k_step_cycles, the warp tile's HMMAs) + stage bytes per"
                     " warp / 512 x mma_sync_lone_warp_cycles_per_warp_load) [x mma_sync_lone_warp_short_k_factor at"
                     f" BLOCK_K <= 64] = {_n(b['lone_warp_cycles'], 1)} cycles")
        if b.get("simt_copy_cycles"):
            L.append(f"  cp.async copy floor = resident blocks x {_n(b['simt_copy_instructions'])} warp copies per stage"
                     " (16-byte chunks; 4-byte where the operand is K-contiguous and transposed on the fly) x"
                     f" simt_copy_cycles_per_warp_instruction = {_n(b['simt_copy_cycles'], 1)} cycles")
        if b.get("tma_oob_fill_cycles"):
            L.append(f"  TMA out-of-bounds fill = zero-filled box bytes / fill rate = {_n(b['tma_oob_fill_cycles'], 1)} cycles"
                     " (added to the memory time: the fill does not overlap the box's real bytes)")
        if b.get("tma_box_cycles"):
            L.append(f"  TMA stage floor = wgmma_tma_stage_cycles + (rows of A + rows of B a stage loads) x BLOCK_K x bytes /"
                     f" wgmma_tma_box_bytes_per_cycle = {_n(b['tma_box_cycles'], 1)} cycles (one SM's TMA rate; a"
                     " tile side past the matrix edge loads zero-filled rows, an operand shorter than the tile only its own)")
        oob = " + TMA out-of-bounds fill" if b.get("tma_oob_fill_cycles") and b["memory_bound"] != "TMA stage throughput" else ""
        ra = (" (a realigning kernel: one k-tile of loads in flight, issue x realign_load_factor)"
              if b.get("realign_read") else "")
        L.append(f"  L_mem = {_n(b['memory_cycles'], 1)} cycles  <- {b['memory_bound']}-bound{oob}{ra}")
        L.append("[Algorithm 8] Tile latency")
        L.append(f"  L_steady   = max(L_compute, L_mem) + (1 - overlap) x min = {_n(b['steady_cycles'], 1)} cycles"
                 f" per K-iteration  <- {b['bound']}-bound")
        L.append(f"  K-loop     = {b['num_iter']} iterations x L_steady + overhead {_n(b['loop_overhead_cycles'])} cycles")
        L.append(f"  L_prologue = {_n(b['prologue_cycles'], 1)} cycles (first load latency)")
        bias_txt = " + bias" if b.get("epilogue_bias") else ""
        L.append(f"  L_epilogue = {_n(b['output_bytes'])} bytes of C / {_n(b['epilogue_bw'], 1)} bytes/cycle + DRAM latency"
                 f"{bias_txt} = {_n(b['epilogue_cycles'], 1)} cycles")
        if b.get("split_n_store"):
            from . import _core
            factor = _core.ModelOptions("nv").nv.wgmma_split_n_store_factor
            L.append(f"    C's write x wgmma_split_n_store_factor {factor:g}: a tile split along N leaves in 32-column"
                     " slices (TMA boxes of 64-byte rows, half a 128-byte line)")
        if b.get("epilogue_bias"):
            L.append(f"    fused bias: {_n(b['bias_bytes'])} bytes of bias columns loaded by the tiles in flight after the"
                     f" main loop: one L2 round trip ({_n(hv('l2_latency_cycles'))} cycles) + the bytes at the L2 rate"
                     f" = {_n(b['bias_cycles'], 1)} cycles")
        L.append(f"  setup      = {_n(b['setup_cycles'])} cycles")
        L.append(f"  L_tile     = {_n(b['tile_cycles'], 1)} cycles")
        if b.get("epilogue_hidden_cycles"):
            how, share = (("the ping-pong schedule runs: one consumer warpgroup's epilogue under the other's main loop",
                           "wgmma_ping_pong_epilogue_overlap") if b.get("ping_pong") else
                          ("C leaves by TMA store while the next tile computes", "wgmma_epilogue_overlap"))
            L.append(f"  hidden epilogues = {_n(b['epilogue_hidden_cycles'])} cycles: {how}; each of the"
                     f" {b['num_waves'] - 1} waves before the last saves"
                     " L_tile - max(main loop, its loads' DRAM time + C's write), times the overlap share"
                     f" ({share})")
        L.extend(self._schedule_lines())
        L.append("[Algorithm 9] Total latency")
        parts = []
        if b["split_slices"] > 1:
            if b["split_dp_tiles"] > 0:
                parts.append(f"whole tiles {_n(b['dp_cycles'])}")
            parts.append(f"split tail {_n(b['tail_cycles'])}")
            parts.append(f"reduction {_n(b['reduction_cycles'])}")
        else:
            parts.append(f"{_n(b['tile_cycles'], 1)} x {b['num_waves']} waves")
            if b.get("epilogue_hidden_cycles"):
                parts[-1] += f" - hidden epilogues {_n(b['epilogue_hidden_cycles'])}"
        if b["operand_copy_cycles"]:
            parts.append(f"operand copies {_n(b['operand_copy_cycles'])}")
        flops = 2.0 * M * N * K * self.extras["batch"]
        L.append(f"  L_total = {' + '.join(parts)} = {_n(b['total_cycles'])} cycles"
                 f" ({self._us(b['total_cycles']):,.1f} us at {_n(hv('sustained_clock_mhz'))} MHz;"
                 f" {flops / self._us(b['total_cycles']) / 1e6:,.1f} TFLOP/s)")
        return L

    def _schedule_lines(self) -> List[str]:
        """Split-K schedule and operand copies (nv)."""
        b = self.breakdown
        L = []
        if b["split_slices"] > 1:
            L.append(f"[Split-K] {b['split_slices']} K-slices of the last partial wave's tiles"
                     " (cpp/model/types.hpp: make_split_plan)")
            L.append(f"  resident slots = {_n(b['resident_slots'])}; whole tiles (unsplit) = {_n(b['split_dp_tiles'])};"
                     f" split tiles = {_n(b['split_tail_tiles'])} -> {_n(b['tail_units'])} units of"
                     f" {b['tail_k_iters']} K-iterations in {b['tail_waves']} wave(s)")
            L.append(f"  slice = {_n(b['tail_unit_cycles'], 1)} cycles, of which the fp32 partial write"
                     f" {_n(b['tail_epilogue_cycles'], 1)}; split tail = {_n(b['tail_cycles'])} cycles")
            # (the cluster form is priced from the reduction kernel's terms, but reduces in the cluster: no second kernel)
            where = "in the thread-block cluster" if b.get("split_cluster") else "second kernel"
            L.append(f"  reduction ({where}, slice order) = max({_n(b['reduction_bytes'])} bytes at the L2/DRAM rate,"
                     f" {_n(b['reduction_latency_cycles'])} cycles of round trips) + split launch cost"
                     f" {_n(b['split_launch_cycles'])} (fixed + per slice + a share of the tail phase, measured:"
                     f" split_k_reduce_fixed_cycles, split_k_slice_cycles, split_k_tail_overhead_fraction)"
                     + (" - the cluster form's saving (cluster_split_saving_cycles: the slices reduce in a thread-block"
                        " cluster, one wave of clusters) + the CTAs reading the partial tiles over distributed"
                        f" shared memory {_n(b['cluster_dsmem_cycles'])} (each SM loads a whole partial tile's real fp32"
                        " bytes, S loads in flight per consumer thread: at the smaller of dsmem_bytes_per_cycle and those"
                        " bytes in flight over the group's latency, dsmem_latency_cycles + (S - 2) x"
                        " dsmem_latency_per_slice_cycles; calibrated)" if b.get("split_cluster") else "")
                     + f" = {_n(b['reduction_cycles'])} cycles")
        if b["operand_copy_cycles"]:
            L.append(f"[Operand copies] {b['operand_copy_reason']}: {_n(b['operand_copy_bytes'])} bytes read and"
                     f" written = {_n(b['operand_copy_cycles'])} cycles")
        if b.get("realign_read"):
            ops = " and ".join(n for n, f in (("A", b.get("realign_a")), ("B", b.get("realign_b"))) if f)
            L.append(f"[Operand reads] misaligned operand {ops or '(none)'} (16-byte base / leading dimension rule) read in"
                     " place by a realigning kernel (the config's _ra variant: each 16-byte chunk loaded as the aligned"
                     " blocks that hold it and realigned in registers) instead of the copy; its loads keep one k-tile in"
                     f" flight (the latency term's depth is 1, not stages - 1; {b.get('realign_groups', 0):g} memory round"
                     " trip(s) per k-tile, one per group of 8 chunks a thread holds) and issue at realign_load_factor ="
                     f" {_realign_load_factor():g} x a cp.async (two 16-byte loads per chunk; model.hpp)")
        return L

    def _problem_line(self) -> str:
        x = self.extras
        bits = [f"batch {x['batch']}", f"layout {x['layout']}"]
        if not (x["a_aligned"] and x["b_aligned"]):
            bits.append("misaligned: " + ", ".join(n for n, ok in (("A", x["a_aligned"]), ("B", x["b_aligned"])) if not ok))
        if x.get("bias"):
            bits.append("fused bias")
        if x.get("a_ld") or x.get("b_ld"):
            bits.append("leading dimensions " + ", ".join(f"{n} {x.get(k) or 'contiguous'}"
                                                          for n, k in (("A", "a_ld"), ("B", "b_ld"))))
        return "; ".join(bits)

    def _plain_lines(self) -> List[str]:
        """Why the pick differs from the plain problem's (batch 1, "nn", aligned, no bias)."""
        if self.plain is None:
            return []
        pc, pb = self.plain["config"], self.plain["breakdown_real"]
        b = self.breakdown
        L = [f"The plain problem ({self.problem[0]}, {self.problem[1]}, {self.problem[2]}), batch 1, layout nn, aligned, no bias,"
             f" picks {_cfg(pc)}"]
        if pc.same_kernel(self.config) and getattr(pc, "split_k", 1) == getattr(self.config, "split_k", 1):
            L.append("  the same kernel and split as here.")
            return L
        L.append(f"  under this problem it is predicted at {_n(pb['total_cycles'])} cycles vs the pick's"
                 f" {_n(b['total_cycles'])} ({pb['total_cycles'] / b['total_cycles']:.2f}x):")
        for key, label in _DIFF_TERMS:
            if pb[key] != b[key]:
                fmt = (lambda v: f"{v:.3f}") if key == "l2_hit_rate" else _n
                L.append(f"    {label:<28} plain pick {fmt(pb[key]):>14}   pick {fmt(b[key]):>14}")
        return L

    def _ranking_rows(self) -> List[Tuple[int, Any, Dict[str, Any]]]:
        return [(i + 1, c, b) for i, (c, b) in enumerate(self.selection["ranking"][: self.top])]

    def __str__(self) -> str:
        M, N, K = self.problem
        s = self.selection
        c = self.config
        L = [f"origami_nv explain: ({M}, {N}, {K}) {self.dtype}, {self._problem_line()}, mode {self.mode},"
             f" gpu {self.hardware.name}"]
        L.append(f"Candidates: {self.candidate_count} admissible, {len(s['excluded'])} excluded; {self.candidates_note}")
        if self.short_k_candidates:
            L.append("  " + self._short_k_line())
        if self.mode != "seed" and _swapped_not_ranked(N, self.dtype):
            L.append("  The swapped-operand wgmma kernels (swap_ab) are not ranked: C's rows (N elements) do not start on "
                     "16-byte boundaries, where they store C element by element (cpp/model/types.hpp "
                     "swapped_kernels_ranked)")
        L.append("")
        L.extend(self._hardware_lines())
        L.append("")
        L.append(f"Phase 1: scored {s['ranking_size']} configs with GROUP_SIZE_M = {s['phase1_group_size_m']}"
                 f" (ceil(sqrt(N_SM)) unless set)")
        L.append(f"Winner: {_cfg(c)} with predicted latency {_n(self.predicted_cycles)} cycles")
        tie = self._tie_line()
        if tie:
            L.append(tie)
        L.append(self._family_line())
        L.append("")
        L.extend(self._seed_walkthrough() if self.mode == "seed" else self._nv_walkthrough())
        L.append("")
        L.append("Phase 2: GROUP_SIZE_M by the L2 footprint of the tiles in flight (|unique_M| x BLOCK_M + |unique_N| x BLOCK_N)")
        L.append("  " + ", ".join(f"g{g}: {_n(cost)}" for g, cost in s["group_size_m_costs"]))
        if self.mode != "seed" and c.swap_ab:
            L.append(f"  (nv, a swapped kernel: GROUP_SIZE_M = {c.group_size_m} as measured, its footprint counted in "
                     "the kernel's orientation (rows = the problem's N); the footprint rule, counted in the problem's, "
                     "chose 12-16, which thrashed the H100's L2 at long K: cpp/model/types.hpp kSwappedGroupSizeM)")
        elif self.mode != "seed":
            L.append(f"  (nv: the phase-1 value {s['phase1_group_size_m']} stands unless another value is strictly "
                     "smaller; seed: ties keep the smallest)")
        L.append(f"  Winner: GROUP_SIZE_M = {c.group_size_m}; re-evaluated with it: "
                 f"{_n(s['final_breakdown']['total_cycles'])} cycles")
        fb = s["final_breakdown"]
        if self.mode != "seed" and (fb.get("off_line_share_a") or fb.get("off_line_share_b") or fb.get("pitch_copy_a")
                                    or fb.get("pitch_copy_b")):
            # (the pick alone: ModelOptions.pitch_copy_plan; the ranking above reads every operand in place)
            def rows(x: str) -> str:
                if fb.get("pitch_copy_" + x):
                    return "copied into padded rows"
                return (f"read in place, {fb.get('off_line_share_' + x, 0):.0%} of its rows off lines, "
                        f"{fb.get('off_sector_share_' + x, 0):.0%} inside 32-byte sectors")
            L.append("  Rows off 128-byte lines (wgmma TMA rows spanning two lines, five sectors where they start inside "
                     "one: NvModelConstants.wgmma_tma_off_line_row_cost, wgmma_tma_off_sector_row_cost): " +
                     ", ".join(f"{x} {rows(x.lower())}" for x in ("A", "B")))
            if fb.get("pitch_copy_a") or fb.get("pitch_copy_b"):
                L.append(f"  [Operand copies] {fb['operand_copy_reason']}: {_n(fb['operand_copy_bytes'])} bytes read "
                         f"and written = {_n(fb['operand_copy_cycles'])} cycles (the op makes them)")
        if fb.get("ping_pong"):
            L.append("  [Ping-pong] the launch runs this config's ping-pong schedule (its launcher takes it where "
                     "every CTA has two or more tiles and there is no split-K): each consumer warpgroup computes whole "
                     "tiles, alternating, so one's epilogue runs under the other's main loop (the hidden epilogues "
                     "above)")
        if fb.get("multicast_b"):
            rp = s.get("replaced_pick")
            why = (f"; it replaces the ranking's first config ({rp.block_m}x{rp.block_n}x{rp.block_k} s{rp.stages} "
                   f"w{rp.warps} {rp.family}, whose own plan predicted {_n(s.get('replaced_pick_cycles', 0))} cycles)"
                   if rp is not None else "")
            L.append("  [Multicast] the launch is this config's 2-CTA cluster twin: the pair shares the B tile by TMA "
                     "multicast, each CTA issuing half of its rows (the TMA stage term), C stored by the threads; "
                     f"predicted {_n(fb['total_cycles'])} cycles, at least NvModelConstants.multicast_min_gain = "
                     f"{_multicast_min_gain():g}x faster than the 1-CTA plan (a twin is weighed only where B's rows "
                     f"are off 128-byte lines: on lines it ran no faster or slower){why}")
        if fb.get("swap_ab"):
            L.append(f"  [Swapped operands] the kernel computes C^T = B^T A^T ({c.block_n} x {c.block_m} tiles of C^T: "
                     "the problem's N on wgmma's M side, its M in steps of 16 on the N side); every term above is of "
                     "that transposed launch (grid_m along N, A's loads are B's), C's rows stored by the threads from "
                     "a transposed staging (no TMA store, no overlap with the next tile); split-K slices write C's "
                     "tiles to the workspace (no in-cluster reduction)")
        L.append("")
        L.append(f"Final configuration: BLOCK_M={c.block_m}, BLOCK_N={c.block_n}, BLOCK_K={c.block_k}, "
                 f"GROUP_SIZE_M={c.group_size_m}, stages={c.stages}, warps={c.warps}, family={c.family}, "
                 f"split_k={getattr(c, 'split_k', 1)}" + (", swap_ab=True" if getattr(c, "swap_ab", False) else ""))
        L.append("")
        plain = self._plain_lines()
        if plain:
            L.extend(plain)
            L.append("")
        L.append(f"Top {min(self.top, s['ranking_size'])} of {s['ranking_size']} (phase 1):")
        L.append(f"  {'#':>3}  {'config':<34} {'cycles':>14} {'us':>10} {'bound':<8} {'memory':<15} "
                 f"{'waves':>6} {'blk/SM':>6} {'L2 hit':>7}")
        for r, cfg, b in self._ranking_rows():
            L.append(f"  {r:>3}  {_cfg(cfg):<34} {_n(b['total_cycles']):>14} {self._us(b['total_cycles']):>10.1f} "
                     f"{b['bound']:<8} {b['memory_bound']:<15} {b['num_waves']:>6} {b['blocks_per_sm']:>6} "
                     f"{b['l2_hit_rate']:>7.3f}")
        L.append("")
        ex = s["excluded"]
        L.append(f"Excluded ({len(ex)}):")
        # A reason shared by many configs (e.g. the mma.sync tiles the wgmma family covers on sm_90) is printed once,
        # with its configs listed after it.
        by_reason: Dict[str, list] = {}
        for cfg, why in ex:
            by_reason.setdefault(why, []).append(cfg)
        for cfg, why in ex:
            group = by_reason.get(why)
            if group is None:
                continue
            if len(group) <= 3:
                for c in group:
                    L.append(f"  {_cfg(c):<34} {why}")
            else:
                L.append(f"  {len(group)} configs: {why}")
                names = [f"{c.block_m}x{c.block_n}x{c.block_k} {c.family} s{c.stages} w{c.warps}" for c in group]
                line = "    "
                for i, n in enumerate(names):
                    item = n + (", " if i + 1 < len(names) else "")
                    if len(line) + len(item) > 118:
                        L.append(line.rstrip())
                        line = "    "
                    line += item
                L.append(line.rstrip())
            del by_reason[why]
        return "\n".join(L)

    __repr__ = __str__

    # ---- html -----------------------------------------------------------------------------------
    def _short_k_line(self) -> str:
        return (f"K = {self.problem[2]} is below the wgmma kernels' BLOCK_K: every wgmma k-tile is mostly zero fill, "
                f"so the {self.short_k_candidates} mma.sync tiles of 64+ rows that the wgmma family covers at longer K "
                "rank too (ModelOptions.mma_sync_dominated_by_wgmma)")

    def _repr_html_(self) -> str:
        e = html.escape
        s = self.selection
        M, N, K = self.problem
        parts = [f"<div class='origami-explain'><h4>origami_nv explain: ({M}, {N}, {K}) {e(self.dtype)},"
                 f" {e(self._problem_line())}, mode {e(self.mode)}, gpu {e(self.hardware.name)}</h4>"]
        parts.append(f"<p><b>Pick:</b> {e(_cfg(self.config))} g{self.config.group_size_m},"
                     f" {_n(self.predicted_cycles)} predicted cycles. {e(self._family_line())}</p>")
        parts.append(f"<p>{e(self.candidates_note)}</p>")
        if self.short_k_candidates:
            parts.append(f"<p>{e(self._short_k_line())}</p>")
        parts.append("<table><tr><th>#</th><th>config</th><th>cycles</th><th>us</th><th>bound</th>"
                     "<th>memory</th><th>waves</th><th>blocks/SM</th><th>L2 hit</th></tr>")
        for r, cfg, b in self._ranking_rows():
            style = " style='font-weight:bold'" if r == 1 else ""
            parts.append(f"<tr{style}><td>{r}</td><td>{e(_cfg(cfg))}</td><td>{_n(b['total_cycles'])}</td>"
                         f"<td>{self._us(b['total_cycles']):.1f}</td><td>{e(b['bound'])}</td><td>{e(b['memory_bound'])}</td>"
                         f"<td>{b['num_waves']}</td><td>{b['blocks_per_sm']}</td><td>{b['l2_hit_rate']:.3f}</td></tr>")
        parts.append("</table>")
        walk = self._seed_walkthrough() if self.mode == "seed" else self._nv_walkthrough()
        parts.append("<details open><summary>Walk-through</summary><pre>" + e("\n".join(walk)) + "</pre></details>")
        plain = self._plain_lines()
        if plain:
            parts.append("<details open><summary>Against the plain problem</summary><pre>" + e("\n".join(plain))
                         + "</pre></details>")
        parts.append("<details><summary>Hardware parameters</summary><table><tr><th>key</th><th>value</th>"
                     "<th>unit</th><th>tier</th><th>source</th></tr>")
        for k, v in self.hardware.values.items():
            parts.append(f"<tr><td>{e(k)}</td><td>{e(_fmt_hw(v.value))}</td><td>{e(v.unit)}</td><td>{e(v.tier)}</td>"
                         f"<td>{e(v.source)}</td></tr>")
        parts.append("</table></details>")
        parts.append(f"<details><summary>Excluded ({len(s['excluded'])})</summary><table>"
                     "<tr><th>config</th><th>reason</th></tr>")
        for cfg, why in s["excluded"]:
            parts.append(f"<tr><td>{e(_cfg(cfg))}</td><td>{e(why)}</td></tr>")
        parts.append("</table></details></div>")
        return "".join(parts)

    # ---- dict -----------------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        s = self.selection
        M, N, K = self.problem
        return {
            "problem": {"M": M, "N": N, "K": K, "dtype": self.dtype, **self.extras},
            "mode": self.mode,
            "gpu": self.hardware.name,
            "candidates": {"admissible": self.candidate_count, "excluded": len(s["excluded"]),
                           "note": self.candidates_note, "short_k_mma_sync": self.short_k_candidates},
            "config": self.config.to_dict(),
            "predicted_cycles": self.predicted_cycles,
            "predicted_us": self._us(self.predicted_cycles),
            "family": {"pick": self.config.family,
                       "best_by_family": {f: {"config": cfg.to_dict(), "predicted_cycles": cyc}
                                          for f, (cfg, cyc) in s["best_by_family"].items()}},
            "breakdown": dict(s["breakdown"]),
            "final_breakdown": dict(s["final_breakdown"]),
            "phase1_group_size_m": s["phase1_group_size_m"],
            "phase2": [{"group_size_m": g, "cost": cost} for g, cost in s["group_size_m_costs"]],
            "ranking": [{"rank": r, "config": cfg.to_dict(), "predicted_cycles": b["total_cycles"],
                         "predicted_us": self._us(b["total_cycles"]), "bound": b["bound"],
                         "memory_bound": b["memory_bound"]} for r, cfg, b in self._ranking_rows()],
            "excluded": [{"config": cfg.to_dict(), "reason": why} for cfg, why in s["excluded"]],
            "hardware": self.hardware.to_dict(),
            "plain": None if self.plain is None else {
                "config": self.plain["config"].to_dict(),
                "predicted_cycles_here": self.plain["breakdown_real"]["total_cycles"]},
        }


def _multicast_min_gain() -> float:
    """NvModelConstants::multicast_min_gain of the installed model."""
    from origami_nv import _core
    return float(_core.ModelOptions("nv").nv.multicast_min_gain)


def _realign_load_factor() -> float:
    """NvModelConstants::realign_load_factor of the installed model (the explained prediction used the defaults)."""
    from . import _core
    return float(_core.ModelOptions("nv").nv.realign_load_factor)


def _fmt_hw(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.6g}"
