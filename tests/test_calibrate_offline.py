"""Calibration without a GPU: fits, Little's law, JSON format, gpus.json row update, CLI, and the
extension's behaviour when no CUDA device is visible."""
import importlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

cal = importlib.import_module("origami_nv.calibrate")  # the module (the package binds the function)

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "python" / "origami_nv" / "data" / "gpus.json"


# ---- fits -----------------------------------------------------------------------------------
def test_linear_fit_recovers_coefficient_exactly():
    n = np.arange(1, 133)
    for coeff in (0.0125, 0.025, 1 / 37.0, 0.2):
        got, rms = cal.fit_linear_fraction(n, np.minimum(1.0, coeff * n))
        assert got == pytest.approx(coeff, rel=1e-4)
        assert rms < 1e-4


def test_linear_fit_with_noise_and_sparse_counts():
    rng = np.random.default_rng(1)
    n = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 132])
    f = np.minimum(1.0, 0.03 * n) * (1 + 0.01 * rng.standard_normal(n.size))
    got, rms = cal.fit_linear_fraction(n, f)
    assert got == pytest.approx(0.03, rel=0.03)
    assert 0.001 < rms < 0.03


def test_quadratic_fit_recovers_coefficients():
    n = np.arange(1, 133)
    c = (-0.0002, 0.04, 0.01)  # crosses 1 near n = 29, stays >= 1 up to n = 170
    f = cal.capped_quadratic(c, n)
    got, rms = cal.fit_quadratic_fraction(n, f)
    assert got == pytest.approx(c, rel=1e-6, abs=1e-9)
    assert rms < 1e-9


def test_quadratic_fit_beats_linear_on_a_curved_ramp():
    n = np.arange(1, 133)
    f = 1 - (1 - np.minimum(n, 40) / 40.0) ** 2  # concave ramp, flat from 40 SMs on
    _, rms_lin = cal.fit_linear_fraction(n, f)
    (c0, c1, c2), rms_quad = cal.fit_quadratic_fraction(n, f)
    assert rms_quad < 1e-9 < rms_lin
    assert c0 == pytest.approx(-1 / 1600) and c1 == pytest.approx(2 / 40) and abs(c2) < 1e-9


def test_fits_reject_bad_input():
    with pytest.raises(ValueError):
        cal.fit_linear_fraction([1], [0.1])
    with pytest.raises(ValueError):
        cal.fit_linear_fraction([0, 1], [0.0, 0.1])
    with pytest.raises(ValueError):
        cal.fit_quadratic_fraction([1, 1, 1, 1], [0.1, 0.1, 0.1, 0.1])


def test_mean_cov():
    m, c = cal.mean_cov([9.0, 10.0, 11.0])
    assert m == 10.0 and c == pytest.approx(0.1)
    assert math.isnan(cal.mean_cov([5.0])[1])
    with pytest.raises(ValueError):
        cal.mean_cov([])


# ---- Little's law -----------------------------------------------------------------------------
def test_littles_law_arithmetic():
    # 600 cycles x 1650 B/cycle shared by 132 SMs = 7500 B per SM
    assert cal.bytes_in_flight_per_sm(600, 1650, 132) == pytest.approx(7500.0)
    ll = cal.littles_law({"hbm_latency_penalty": 800, "dram_perf_ratio": 1320, "l2_latency_cycles": 264,
                          "l2_perf_ratio": 3000}, 132)
    assert ll["dram_bytes_in_flight_per_sm"] == pytest.approx(8000.0)
    assert ll["l2_bytes_in_flight_per_sm"] == pytest.approx(6000.0)
    with pytest.raises(ValueError):
        cal.bytes_in_flight_per_sm(0, 1, 1)


def test_stage_rule():
    # 128x128x32 fp16 stage = (128*32 + 32*128) * 2 = 16 KiB
    assert cal.stages_to_cover_latency(16384, 8000) == 2
    assert cal.stages_to_cover_latency(16384, 40000) == 4   # 1 + ceil(40000 / 16384)
    assert cal.stages_to_cover_latency(16384, 40000, blocks_per_sm=2) == 3
    with pytest.raises(ValueError):
        cal.stages_to_cover_latency(0, 1000)


# ---- JSON format -------------------------------------------------------------------------------
def _fake_result(device="NVIDIA H100 80GB HBM3"):
    params = {k: float(i + 1) for i, k in enumerate(cal.PARAM_KEYS)}
    params["dram_bw_c0"] = -0.0004  # signed
    meta = {"device": device, "date": "2026-11-21T05:00:00Z", "compute_capability": "9.0",
            "cov": {k: 0.01 for k in cal.PARAM_KEYS}, "flagged": []}
    figs = [cal.Figure("DRAM bytes per SM-cycle (aggregate)", 5.0, "B/cycle", 0.01, [4.95, 5.0, 5.05], "dram_perf_ratio")]
    meta["figures"] = {f.name: f.to_dict() for f in figs}
    return cal.CalibrationResult(params=params, meta=meta, figures=figs)


def test_json_round_trip(tmp_path):
    r = _fake_result()
    p = tmp_path / "params.json"
    r.write_json(p)
    data = json.loads(p.read_text())
    assert set(data) == set(cal.PARAM_KEYS) | {"meta"}
    assert all(isinstance(data[k], float) for k in cal.PARAM_KEYS)
    back = cal.CalibrationResult.from_json(p)
    assert back.params == r.params
    assert back.meta["device"] == r.meta["device"]
    assert back.figure("DRAM bytes per SM-cycle (aggregate)").samples == [4.95, 5.0, 5.05]
    assert "dram_perf_ratio" in back.table()


@pytest.mark.parametrize("bad, msg", [
    ({"l2_perf_ratio": 1.0, "bogus_key": 2.0}, "unknown key 'bogus_key'"),
    ({"l2_perf_ratio": -1.0}, "'l2_perf_ratio' must be positive"),
    ({"mma_latency": "33"}, "must be a finite number"),
    ({"mma_latency": float("nan")}, "must be a finite number"),
    ({"meta": []}, "'meta' must be an object"),
    ([1, 2], "must be a JSON object"),
])
def test_validation_names_the_problem(bad, msg):
    with pytest.raises(ValueError, match=msg):
        cal.validate_params(bad)


def test_written_json_is_accepted_as_hw_params_override(tmp_path, monkeypatch):
    try:
        import origami_nv
        hardware = origami_nv.hardware
    except (ImportError, AttributeError) as e:
        pytest.skip(f"origami_nv.hardware is not available in this build: {e}")
    r = _fake_result()
    r.params.update({"l2_perf_ratio": 3111.0, "mma_latency": 31.5, "dram_bw_coeff": 0.031})
    p = tmp_path / "params.json"
    r.write_json(p)
    monkeypatch.setenv("ORIGAMI_NV_HW_PARAMS", str(p))
    hw = hardware(gpu="H100_SXM")
    for k in cal.PARAM_KEYS:  # every key the tool writes is read back from the override tier
        assert hw[k].value == pytest.approx(r.params[k]), k
        assert hw[k].tier == "override", k
    assert hw["dram_bw_c0"].value == -0.0004


# ---- gpus.json row update ----------------------------------------------------------------------
@pytest.fixture
def table_copy(tmp_path):
    if not TABLE.exists():
        pytest.skip("python/origami_nv/data/gpus.json not present yet")
    dst = tmp_path / "gpus.json"
    shutil.copy(TABLE, dst)
    return dst


def test_table_update_changes_only_measured_keys_of_the_row(table_copy):
    before = json.loads(table_copy.read_text())
    r = _fake_result("NVIDIA H100 80GB HBM3")
    measured = ("l2_perf_ratio", "mma_latency", "dram_bw_c0")
    r.params = {k: r.params[k] for k in measured}
    row = cal.update_table(table_copy, r)
    after = json.loads(table_copy.read_text())
    assert row == cal.match_row(before["rows"], "NVIDIA H100 80GB HBM3")
    assert {k for k in after if k != "rows"} == {k for k in before if k != "rows"}
    for name in before["rows"]:
        if name != row:
            assert after["rows"][name] == before["rows"][name]
    b, a = before["rows"][row], after["rows"][row]
    for k in set(b["params"]) | set(a["params"]):
        if k in measured:
            assert a["params"][k] == r.params[k]
            assert a["sources"][k] == "calibrated 2026-11-21 on NVIDIA H100 80GB HBM3, CoV 1.0%"
        else:
            assert a["params"].get(k) == b["params"].get(k), k
            assert a["sources"].get(k) == b["sources"].get(k), k
    assert a["match"] == b["match"]
    assert a["meta"]["calibration"]["device"] == "NVIDIA H100 80GB HBM3"
    # the row's status line follows the calibration; the rest of meta is left alone
    assert a["meta"]["status"].startswith(f"{len(r.params)} parameters calibrated 2026-11-21 on NVIDIA H100 80GB HBM3")
    assert {k: v for k, v in a["meta"].items() if k not in ("calibration", "status")} == \
           {k: v for k, v in b["meta"].items() if k not in ("calibration", "status")}
    # pretty, 2-space, sorted keys, trailing newline
    assert table_copy.read_text() == json.dumps(after, indent=2, sort_keys=True) + "\n"


def test_table_update_adds_a_row_for_an_unknown_gpu(table_copy):
    before = json.loads(table_copy.read_text())
    row = cal.update_table(table_copy, _fake_result("NVIDIA Imaginary X9 48GB"))
    after = json.loads(table_copy.read_text())
    assert row not in before["rows"] and row == "Imaginary_X9_48GB"
    assert after["rows"][row]["match"] == ["NVIDIA Imaginary X9 48GB"]
    assert set(after["rows"][row]["params"]) == set(cal.PARAM_KEYS)
    assert all(after["rows"][n] == before["rows"][n] for n in before["rows"])


def test_match_row_prefers_the_longest_match():
    rows = {"H100_SXM": {"match": ["H100 80GB HBM3"]}, "H100_PCIe": {"match": ["H100 PCIe"]},
            "H100_any": {"match": ["H100"]}}
    assert cal.match_row(rows, "NVIDIA H100 80GB HBM3") == "H100_SXM"
    assert cal.match_row(rows, "NVIDIA H100 PCIe") == "H100_PCIe"
    assert cal.match_row(rows, "NVIDIA H100 NVL") == "H100_any"
    assert cal.match_row(rows, "NVIDIA A100-SXM4-80GB") is None


def test_cli_applies_a_saved_result_to_the_table(table_copy, tmp_path, capsys):
    src = tmp_path / "cal.json"
    r = _fake_result()
    r.params = {"mma_latency": 30.25}
    r.write_json(src)
    assert cal.main(["--from-json", str(src), "--write-table", "--table", str(table_copy), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "updated row" in out
    row = cal.match_row(json.loads(table_copy.read_text())["rows"], "NVIDIA H100 80GB HBM3")
    assert json.loads(table_copy.read_text())["rows"][row]["params"]["mma_latency"] == 30.25
    # `origami_nv.calibrate` is the function once the package is imported; it carries the CLI too
    import origami_nv
    assert origami_nv.calibrate.main is cal.main


def test_cli_rejects_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"mma_latency": -3}')
    assert cal.main(["--from-json", str(bad)]) == 2
    assert "'mma_latency' must be positive" in capsys.readouterr().err


# ---- the extension without a GPU ---------------------------------------------------------------
def _has_gpu():
    try:
        import torch
        return torch.version.cuda is not None and torch.cuda.is_available()
    except ImportError:
        return False


def test_extension_raises_clearly_without_a_gpu():
    try:
        ext = importlib.import_module("origami_nv._calibrate")
    except ImportError:
        pytest.skip("origami_nv._calibrate not built (no nvcc at build time)")
    if _has_gpu():
        pytest.skip("a GPU is visible: this test checks the no-GPU behaviour")
    for call in (ext.device_info, lambda: ext.read_bandwidth(1 << 20, 1, 3), lambda: ext.mma_sync("float16"),
                 lambda: ext.pointer_chase(512, 64, 64, False, 3), lambda: ext.wgmma("float16", 256),
                 lambda: ext.tma_stream_vs_sms(1 << 30, [1], 32768, 4, 256, "k_major", 1),
                 lambda: ext.dsmem_read(2)):
        with pytest.raises(RuntimeError, match="^no CUDA device"):
            call()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        cal.calibrate(quick=True, progress=None)
    assert cal.main(["--quick", "--quiet"]) == 2


# ---- the whole pipeline on a synthetic device ------------------------------------------------------
class FakeExt:
    """Stands in for origami_nv._calibrate: returns samples in the extension's exact format for a
    made-up 100-SM device whose DRAM fraction is min(1, n/25)."""
    N_SM, L2 = 100, 40 << 20

    def __init__(self, fail_wgmma=False):
        self.fail_wgmma = fail_wgmma
        self.calls = []

    @staticmethod
    def _r(samples, **info):
        return {"samples": samples, "info": info, "notes": {"method": "fake"}}

    def device_info(self):
        return {"samples": {}, "notes": {"name": "NVIDIA Fake F100"},
                "info": {"sm_count": self.N_SM, "l2_bytes": self.L2, "cc_major": 9, "cc_minor": 0,
                         "sm_clock_max_mhz": 2000.0, "mem_clock_mhz": 2500.0, "mem_bus_width_bits": 4096,
                         "dram_peak_bytes_per_s": 2.56e12, "driver_version": 13000, "runtime_version": 13000}}

    def wgmma_compiled(self):
        return True

    def tma_stream_compiled(self):
        return True

    def tma_stream_vs_sms(self, nbytes, ks, stage_bytes, stages, box_rows, walk, repeats):
        self.calls.append(("tma", stage_bytes, tuple(ks)))
        return self._r({f"bytes_per_s@{k}": [2.1e12 * min(1.0, k / 25.0)] * repeats for k in ks})

    def dsmem_compiled(self):
        return True

    def dsmem_read(self, cluster, rows, cols, threads, passes, repeats):
        self.calls.append(("dsmem", cluster, threads))
        # made up: 20 bytes/cycle, a thread's group of loads 400 cycles at S = 2 and 50 more per further CTA
        every = min(20.0, threads * cluster * 16 / (400.0 + 50.0 * (cluster - 2)))
        return self._r({"bytes_per_cycle_per_sm": [every] * repeats,
                        "remote_bytes_per_cycle_per_sm": [every * (cluster - 1) / cluster] * repeats})

    def sustained_clock(self, target_ms, repeats, load):
        self.calls.append(("clock", load))
        return self._r({"clock_mhz": [1800.0, 1810.0, 1790.0][:repeats] if load == "mma" else [1990.0] * repeats})

    def read_bandwidth(self, nbytes, passes, repeats):
        bw = 6e12 if nbytes < self.L2 else 2.4e12
        return self._r({"bytes_per_s": [bw * (1 + 0.01 * i) for i in range(repeats)],
                        "clock_mhz": [1950.0] * repeats, "time_s": [1e-3] * repeats})

    def dram_bandwidth_vs_sms(self, nbytes, ks, repeats):
        s = {f"bytes_per_s@{k}": [2.4e12 * min(1.0, k / 25.0)] * repeats for k in ks}
        return self._r(s)

    def pointer_chase(self, stride, nodes, hops, flush, repeats):
        return self._r({"cycles_per_load": [700.0 if flush else 260.0] * repeats})

    def shared_memory(self, strides, repeats):
        s = {}
        for st in strides:
            s[f"latency_cycles@{st}"] = [23.0 + 2 * max(st, 1)] * repeats
            s[f"bytes_per_cycle_per_sm@{st}"] = [128.0 / max(st, 1)] * repeats
        return self._r(s)

    def mma_sync(self, dtype, warps, chains, repeats):
        rate = 1250.0 if dtype == "tfloat32" else 2500.0  # m16n8k8 tf32: half the flops per instruction
        return self._r({"latency_cycles": [25.0] * repeats, "flops_per_cycle_per_sm": [rate] * repeats,
                        "clock_mhz": [1800.0] * repeats})

    def wgmma(self, dtype, n, repeats):
        if self.fail_wgmma:
            raise RuntimeError("wgmma accumulators differ from K*count")
        rate = 2000.0 if dtype == "tfloat32" else 4000.0  # k8 tf32: half the 16-bit rate per instruction
        return self._r({f"latency_cycles@n{n}": [100.0] * repeats, f"flops_per_cycle_per_sm@n{n}": [rate] * repeats,
                        f"clock_mhz@n{n}": [1800.0] * repeats})

    def fp32_throughput(self, lanes, fma, repeats):
        return self._r({"flops_per_cycle_per_sm": [128 * lanes / 32 * (1 + fma / 8)] * repeats,
                        "clock_mhz": [1990.0] * repeats})


@pytest.mark.parametrize("quick", [True, False])
def test_calibrate_pipeline_on_a_synthetic_device(monkeypatch, quick):
    fake = FakeExt()
    monkeypatch.setattr(cal, "_ext", lambda: fake)
    monkeypatch.setattr(cal, "_wgmma_cluster_slots", lambda: [66, 39, 30, 22, 17, 15, 15])
    lines = []
    r = cal.calibrate(quick=quick, progress=lines.append)
    assert not r.meta["errors"]
    assert set(r.params) == set(cal.PARAM_KEYS)
    p = r.params
    assert p["sustained_clock_mhz"] == pytest.approx(1800.0)       # the tensor-load clock
    assert ("clock", "mma") in fake.calls
    reps = 3 if quick else 5
    assert r.meta["repeats"] == reps
    mean_bw = 2.4e12 * (1 + 0.01 * (reps - 1) / 2)
    assert p["dram_perf_ratio"] == pytest.approx(mean_bw / 1.8e9)  # mean bandwidth / sustained clock
    assert p["dram_bw_coeff"] == pytest.approx(1 / 25, rel=1e-3)
    assert r.meta["dram_bw_fit"]["linear"]["rms"] < 1e-3
    assert p["hbm_latency_penalty"] == 700.0 and p["l2_latency_cycles"] == 260.0
    assert p["dram_bytes_in_flight_per_sm"] == pytest.approx(700.0 * p["dram_perf_ratio"] / 100)
    assert p["l2_bytes_in_flight_per_sm"] == pytest.approx(260.0 * p["l2_perf_ratio"] / 100)
    assert p["fp32_flops_per_cycle"] == 256.0 and p["wgmma_flops_per_cycle"] == 4000.0
    assert p["wgmma_tf32_flops_per_cycle"] == 2000.0
    assert p["mma_sync_flops_per_cycle"] == 2500.0 and p["mma_sync_tf32_flops_per_cycle"] == 1250.0
    assert r.figure("C_fp32 = Phi / (theta (1 + m_FMA)), all mixes").value == pytest.approx(128.0)
    # TMA streaming: both ring shapes at every SM (and at a quarter and half of them in full mode), reported against
    # the load kernel's rate at the same SM count (2.1 / 2.4 here), and no parameter taken from it
    counts = (100,) if quick else (25, 50, 100)
    assert [c for c in fake.calls if c[0] == "tma"] == [("tma", 32768, counts), ("tma", 8192, counts)]
    assert r.figure("TMA streaming, 32 KiB stages x 6, every SM, / the load kernel's rate there").value == \
        pytest.approx(2.1 / 2.4)
    assert r.figure("TMA streaming, 8 KiB stages x 8, 100 SMs").value == pytest.approx(2.1)
    # Distributed shared memory: clusters of 2 at 128, 256 and 384 threads and of 4 at 128 (and 256 in full mode); the
    # rate with the most loads in flight and, by Little's law from the 128-thread runs, the latency of a thread's group
    # of loads at S = 2 and what each further CTA adds are the model's parameters
    assert [c for c in fake.calls if c[0] == "dsmem"] == \
        [("dsmem", 2, 128), ("dsmem", 2, 256), ("dsmem", 2, 384), ("dsmem", 4, 128)] + ([] if quick else [("dsmem", 4, 256)])
    assert p["dsmem_bytes_per_cycle"] == pytest.approx(20.0) and p["dsmem_latency_cycles"] == pytest.approx(400.0)
    assert p["dsmem_latency_per_slice_cycles"] == pytest.approx(50.0)
    assert r.figure("DSMEM read, clusters of 2, 256 threads").value == pytest.approx(20.0)
    assert "sustained_clock_mhz" in r.meta["flagged"] or r.figure("sustained SM clock (mma.sync load)").cov < 0.05
    assert any("finished" in x for x in lines)
    cal.validate_params(r.to_dict())
    text = r.table()
    assert "NVIDIA Fake F100" in text and "l2_perf_ratio" in text


def test_a_failing_benchmark_is_reported_not_fatal(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cal, "_ext", lambda: FakeExt(fail_wgmma=True))
    monkeypatch.setattr(cal, "_wgmma_cluster_slots", lambda: [66, 39, 30, 22, 17, 15, 15])
    r = cal.calibrate(quick=True, progress=None)
    assert "wgmma_flops_per_cycle" not in r.params and "wgmma_tf32_flops_per_cycle" not in r.params
    assert r.meta["errors"] == {"wgmma m64n256k16 float16": "RuntimeError: wgmma accumulators differ from K*count",
                                "wgmma m64n256k8 tfloat32": "RuntimeError: wgmma accumulators differ from K*count"}
    assert "mma_sync_flops_per_cycle" in r.params
    out = tmp_path / "p.json"
    assert cal.main(["--quick", "--quiet", "--out", str(out)]) == 1  # written, but the exit status says it failed
    assert "FAILED wgmma m64n256k16 float16" in capsys.readouterr().out
    assert "wgmma_flops_per_cycle" not in json.loads(out.read_text())
