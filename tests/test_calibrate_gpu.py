"""Calibration on a GPU (quick mode, run twice): every figure inside physical bounds, stable."""
import importlib
import math

import pytest

cal = importlib.import_module("origami_nv.calibrate")

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def runs():
    pytest.importorskip("origami_nv._calibrate", reason="origami_nv._calibrate not built")
    return [cal.calibrate(quick=True, progress=None) for _ in range(2)]


def test_every_key_is_measured_and_valid(runs):
    r = runs[0]
    assert not r.meta["errors"]
    expected = set(cal.PARAM_KEYS)
    if r.meta["compute_capability"] != "9.0":  # (wgmma, clusters and their distributed shared memory: sm_90 only)
        expected -= {"wgmma_flops_per_cycle", "wgmma_tf32_flops_per_cycle", "dsmem_bytes_per_cycle",
                     "dsmem_latency_cycles", "dsmem_latency_per_slice_cycles"}
        expected -= {f"resident_clusters_{s}" for s in range(2, 9)}
    assert expected <= set(r.params)
    cal.validate_params(r.to_dict())


def test_dram_bandwidth_between_half_and_full_datasheet_peak(runs):
    r = runs[0]
    peak = r.meta["dram_peak_bytes_per_s"]
    bw = r.figure(next(f.name for f in r.figures if f.name.startswith("DRAM read bandwidth"))).value * 1e12
    assert 0.5 * peak < bw < peak


def test_l2_faster_and_nearer_than_dram(runs):
    p = runs[0].params
    # Hopper's L2 is only modestly faster than its HBM for streaming reads (H200: ~5.2 vs ~4.5 TB/s)
    assert p["l2_perf_ratio"] > 1.05 * p["dram_perf_ratio"]
    assert 100 < p["l2_latency_cycles"] < 1000
    assert 300 < p["hbm_latency_penalty"] < 3000
    assert p["hbm_latency_penalty"] > p["l2_latency_cycles"] + 50


def test_dram_fraction_curve(runs):
    r = runs[0]
    p = r.params
    n_sm = r.meta["n_sm"]
    assert 1.0 / n_sm < p["dram_bw_coeff"] < 1.0  # one SM cannot saturate DRAM, all SMs can
    fit = r.meta["dram_bw_fit"]
    assert fit["linear"]["rms"] < 0.1 and fit["quadratic"]["rms"] < 0.1
    assert fit["quadratic"]["rms"] <= fit["linear"]["rms"] + 0.02


def test_tensor_core_figures_within_datasheet(runs):
    r = runs[0]
    p = r.params
    cc = tuple(int(x) for x in r.meta["compute_capability"].split("."))
    peak = cal.DATASHEET_TENSOR_FLOPS_PER_CYCLE.get(cc)
    assert 8 < p["mma_latency"] < 100
    if peak:
        assert 0.2 * peak < p["mma_sync_flops_per_cycle"] <= 1.02 * peak
        # m16n8k8.tf32: half the flops of m16n8k16 per instruction, at most half the 16-bit peak
        assert 0.05 * peak < p["mma_sync_tf32_flops_per_cycle"] <= 0.51 * peak
        if "wgmma_flops_per_cycle" in p:
            assert 0.5 * peak < p["wgmma_flops_per_cycle"] <= 1.02 * peak
            assert p["wgmma_flops_per_cycle"] > p["mma_sync_flops_per_cycle"]


def test_fp32_and_clock(runs):
    r = runs[0]
    p = r.params
    cc = tuple(int(x) for x in r.meta["compute_capability"].split("."))
    ref = cal.DATASHEET_FP32_FLOPS_PER_CYCLE.get(cc)
    if ref:
        assert 0.7 * ref < p["fp32_flops_per_cycle"] <= 1.02 * ref
    half = r.figure("FP32 flops/cycle, theta=0.50 m_FMA=1.00").value
    assert half == pytest.approx(p["fp32_flops_per_cycle"] / 2, rel=0.1)  # seed 002: linear in theta
    fadd = r.figure("FP32 flops/cycle, theta=1.00 m_FMA=0.00").value
    assert fadd == pytest.approx(p["fp32_flops_per_cycle"] / 2, rel=0.1)  # (1 + m_FMA)
    assert 0.4 * r.meta["sm_clock_max_mhz"] < p["sustained_clock_mhz"] <= 1.01 * r.meta["sm_clock_max_mhz"]


def test_shared_memory_bank_conflicts(runs):
    r = runs[0]
    free = r.figure("smem ld.shared.u32 throughput, no conflict").value
    two = r.figure("smem ld.shared.u32 throughput, 2-way conflict").value
    full = r.figure("smem ld.shared.u32 throughput, 32-way conflict").value
    assert 64 < free <= 129
    assert two == pytest.approx(free / 2, rel=0.15)
    assert full == pytest.approx(free / 32, rel=0.25)
    lat_free = r.figure("smem ld.shared.u32 latency, no conflict").value
    lat_full = r.figure("smem ld.shared.u32 latency, 32-way conflict").value
    assert 10 < lat_free < 100 and lat_full > lat_free + 20


def test_littles_law_consistent(runs):
    r = runs[0]
    p = r.params
    n = r.meta["n_sm"]
    assert p["dram_bytes_in_flight_per_sm"] == pytest.approx(p["hbm_latency_penalty"] * p["dram_perf_ratio"] / n)
    assert p["l2_bytes_in_flight_per_sm"] == pytest.approx(p["l2_latency_cycles"] * p["l2_perf_ratio"] / n)


STABLE = ("l2_perf_ratio", "dram_perf_ratio", "hbm_latency_penalty", "l2_latency_cycles", "mma_latency",
          "mma_sync_flops_per_cycle", "wgmma_flops_per_cycle", "fp32_flops_per_cycle", "sustained_clock_mhz")


@pytest.mark.parametrize("key", STABLE)
def test_stable_across_two_runs(runs, key):
    a, b = (r.params.get(key) for r in runs)
    if a is None:
        pytest.skip(f"{key} not measured on this device")
    assert b == pytest.approx(a, rel=0.08), f"{key}: {a} then {b}"


def test_dram_coeff_stable_across_two_runs(runs):
    a, b = (r.params["dram_bw_coeff"] for r in runs)
    assert b == pytest.approx(a, rel=0.15)
    assert not math.isnan(runs[0].figures[0].cov)


def test_tma_streaming_figures(runs):
    """sm_90: TMA box streaming with every SM busy reaches a real share of the load kernel's DRAM rate (H200, two runs:
    0.93 and 1.00 with 32 KiB stages, 0.81 and 0.86 with 8 KiB; benchmarks/results/tma_streaming.md) and never more
    than the DRAM delivers."""
    r = runs[0]
    if r.meta["compute_capability"] != "9.0":
        pytest.skip("TMA streaming benchmark: sm_90 only")
    wide = r.figure("TMA streaming, 32 KiB stages x 6, every SM, / the load kernel's rate there").value
    narrow = r.figure("TMA streaming, 8 KiB stages x 8, every SM, / the load kernel's rate there").value
    assert 0.5 < narrow < 1.1 and 0.5 < wide < 1.1
    assert wide > narrow  # a wider stage keeps more bytes in flight per box hand-off


def test_tma_streaming_rejects_bad_arguments():
    ext = pytest.importorskip("origami_nv._calibrate", reason="origami_nv._calibrate not built")
    info = ext.device_info()["info"]
    if (info["cc_major"], info["cc_minor"]) != (9, 0) or not ext.tma_stream_compiled():
        pytest.skip("TMA streaming benchmark: sm_90 and an sm_90a build only")
    n_sm = int(info["sm_count"])
    for args, msg in (((1 << 30, [1], 32768, 4, 256, "diagonal", 1), "walk"),
                      ((1 << 30, [1], 30000, 4, 256, "k_major", 1), "stage_bytes"),
                      ((1 << 30, [1], 32768, 1, 256, "k_major", 1), "stages"),
                      ((1 << 30, [1], 32768, 4, 300, "k_major", 1), "box_rows"),
                      ((1 << 30, [n_sm + 1], 32768, 4, 256, "k_major", 1), "SM count"),
                      ((1 << 30, [1], 65536, 8, 256, "k_major", 1), "shared memory"),
                      ((1 << 24, [1], 32768, 4, 256, "k_major", 1), "working set too small")):
        with pytest.raises(ValueError, match=msg):
            ext.tma_stream_vs_sms(*args)


def test_dsmem_figures(runs):
    """sm_90: a CTA reads its cluster's shared memory (the cluster split-K reduction's pattern) at a real rate, below
    what its own shared memory delivers (128 B/cycle: 32 banks x 4 B), faster with more loads in flight (H100,
    2026-12-07: 9.9, 17.0, 20.5 bytes/cycle at 128, 256, 384 threads), and the latency the model takes from it is
    longer than a local shared-memory load's (~30 cycles) and shorter than DRAM's."""
    r = runs[0]
    if r.meta["compute_capability"] != "9.0":
        pytest.skip("distributed shared memory benchmark: sm_90 only")
    few, more = (r.figure(f"DSMEM read, clusters of 2, {t} threads").value for t in (128, 384))
    assert 1.0 < few < more < 128.0
    assert r.params["dsmem_bytes_per_cycle"] == more
    assert 50.0 < r.params["dsmem_latency_cycles"] < r.params["hbm_latency_penalty"] * 2
    # each further CTA's load adds to a thread's group (H100: 414, 469, 514 cycles at S = 2, 3, 4), less than a group
    assert 0.0 < r.params["dsmem_latency_per_slice_cycles"] < r.params["dsmem_latency_cycles"]


def test_dsmem_rejects_bad_arguments():
    ext = pytest.importorskip("origami_nv._calibrate", reason="origami_nv._calibrate not built")
    info = ext.device_info()["info"]
    if (info["cc_major"], info["cc_minor"]) != (9, 0) or not ext.dsmem_compiled():
        pytest.skip("distributed shared memory benchmark: sm_90 and an sm_90a build only")
    for kwargs, msg in (({"cluster": 1}, "cluster"), ({"cluster": 16}, "cluster"), ({"cluster": 2, "rows": 0}, "rows"),
                        ({"cluster": 2, "cols": 6}, "cols"), ({"cluster": 2, "threads": 100}, "threads"),
                        ({"cluster": 2, "passes": 0}, "passes"), ({"cluster": 2, "rows": 256, "cols": 256}, "fit")):
        with pytest.raises(ValueError, match=msg):
            ext.dsmem_read(**kwargs)
