"""Hardware parameters in three tiers (derived < table < override, plus defaults), the embedded
table, and the errors of an ORIGAMI_NV_HW_PARAMS override file."""
import json
import os

import pytest

import origami_nv
from origami_nv import _core

DATA = os.path.join(os.path.dirname(origami_nv.__file__), "data", "gpus.json")


def _values(hw):
    return hw.to_dict()["values"]


def test_every_known_key_has_a_value_tier_and_source():
    for gpu in _core.table_gpu_names():
        v = _values(_core.resolve_hardware(None, gpu, ""))
        assert set(v) == set(_core.known_hardware_keys())
        for key, e in v.items():
            assert e["tier"] in ("default", "derived", "table", "override"), key
            assert e["source"], key


def test_table_tier_and_default_row():
    hw = _core.resolve_hardware(None, "", "")
    assert hw.name == _core.default_gpu_name() == "H100_SXM"
    assert hw.tier("n_sm") == "table" and hw.get("n_sm") == 132
    h200 = _core.resolve_hardware(None, "H200", "")
    assert h200.get("l2_bytes") == 62_914_560 and h200.tier("l2_bytes") == "table"
    assert "gpus.json row H200" in _values(h200)["l2_bytes"]["source"]
    # ISA/occupancy constants nobody tabulates stay at the default tier
    assert hw.tier("register_allocation_unit") == "default"


def test_row_names_are_case_insensitive():
    assert _core.resolve_hardware(None, "h200", "").name == "H200"


def test_row_names_as_users_type_them():
    # the row's name or a device-name pattern, without case, spaces, '-' or '_', as the start of one row's
    for typed, row in (("h100", "H100_SXM"), ("H100 SXM", "H100_SXM"), ("h100-sxm", "H100_SXM"),
                       ("rtx3090", "RTX_3090"), ("RTX 3090", "RTX_3090")):
        assert _core.resolve_hardware(None, typed, "").name == row, typed
    with pytest.raises(ValueError, match="ambiguous"):
        _core.resolve_hardware(None, "h", "")  # the start of both Hopper rows


def test_unknown_gpu_lists_known_names():
    with pytest.raises(ValueError) as e:
        _core.resolve_hardware(None, "RTX_9999", "")
    for name in _core.table_gpu_names():
        assert name in str(e.value)
    assert "RTX_9999" in str(e.value)


def _device(name, sm=100, cc=(9, 0)):
    d = _core.DeviceProperties()
    d.name = name
    d.cc_major, d.cc_minor = cc
    d.sm_count = sm
    d.l2_bytes = 40 * 1024 * 1024
    d.smem_per_block_optin_bytes = 232448
    d.smem_per_sm_bytes = 233472
    d.regs_per_sm = 65536
    d.regs_per_block = 65536
    d.max_threads_per_sm = 2048
    d.max_blocks_per_sm = 32
    d.sm_clock_khz = 1_500_000
    d.mem_clock_khz = 2_000_000
    d.mem_bus_width_bits = 4096
    return d


def test_derived_tier_from_device_properties():
    hw = _core.resolve_hardware(_device("NVIDIA Imaginary GPU"), "", "")
    assert hw.name == "NVIDIA Imaginary GPU"  # no row matched
    assert hw.get("n_sm") == 100 and hw.tier("n_sm") == "derived"
    assert hw.get("l2_bytes") == 40 * 1024 * 1024 and hw.tier("l2_bytes") == "derived"
    # peak DDR bandwidth per SM cycle: 2 x 2000 MHz x 4096/8 B / 1500 MHz
    assert hw.get("dram_perf_ratio") == pytest.approx(2 * 2000e6 * 512 / 1500e6)
    assert hw.tier("dram_perf_ratio") == "derived"
    assert hw.get("wgmma_flops_per_cycle") == 4096  # cc 9.0
    assert hw.tier("mma_latency") == "default"


def test_table_beats_derived_and_override_beats_table(tmp_path):
    dev = _device("NVIDIA H200", sm=130)
    hw = _core.resolve_hardware(dev, "", "")
    assert hw.name == "H200"
    assert hw.get("n_sm") == 132 and hw.tier("n_sm") == "table"
    f = tmp_path / "hw.json"
    f.write_text(json.dumps({"l2_perf_ratio": 3333.5, "n_sm": 128, "meta": {"who": "test", "date": "today"}}))
    hw = _core.resolve_hardware(dev, "", str(f))
    assert hw.get("l2_perf_ratio") == 3333.5 and hw.tier("l2_perf_ratio") == "override"
    assert _values(hw)["l2_perf_ratio"]["source"] == str(f)
    assert hw.get("n_sm") == 128 and hw.tier("n_sm") == "override"
    assert hw.tier("dram_perf_ratio") == "table"


def test_override_via_environment_variable(tmp_path, monkeypatch):
    f = tmp_path / "hw.json"
    f.write_text('{"hbm_latency_penalty": 777}')
    monkeypatch.setenv("ORIGAMI_NV_HW_PARAMS", str(f))
    hw = _core.resolve_hardware(None, "RTX_3090")  # override_path=None reads the environment
    assert hw.get("hbm_latency_penalty") == 777 and hw.tier("hbm_latency_penalty") == "override"


@pytest.mark.parametrize("content,field,phrase", [
    (None, None, "cannot be read"),
    ('{"n_sm": 132,', None, "not valid JSON"),
    ('{"n_sm": 132, "l2_flux_capacitor": 1}', "l2_flux_capacitor", "unknown field"),
    ('{"l2_perf_ratio": 0}', "l2_perf_ratio", "positive"),
    ('{"dram_perf_ratio": -5}', "dram_perf_ratio", "positive"),
    ('{"n_sm": "many"}', "n_sm", "must be a number"),
    ('{"n_sm": 131.5}', "n_sm", "whole number"),
    ('[1, 2]', None, "JSON object"),
])
def test_override_errors_name_file_and_field(tmp_path, content, field, phrase):
    f = tmp_path / "override.json"
    if content is not None:
        f.write_text(content)
    with pytest.raises(ValueError) as e:
        _core.resolve_hardware(None, "H100_SXM", str(f))
    msg = str(e.value)
    assert str(f) in msg and phrase in msg
    if field:
        assert f"'{field}'" in msg


def test_quadratic_coefficients_may_be_negative(tmp_path):
    f = tmp_path / "q.json"
    f.write_text('{"dram_bw_c0": -0.001, "dram_bw_c2": 0}')
    hw = _core.resolve_hardware(None, "H100_SXM", str(f))
    assert hw.get("dram_bw_c0") == -0.001


def test_embedded_table_is_the_committed_file():
    with open(DATA) as fh:
        on_disk = json.load(fh)
    assert json.loads(_core.embedded_gpu_table_json()) == on_disk
    assert origami_nv.gpus() == sorted(on_disk["rows"])


def test_table_file_format():
    with open(DATA) as fh:
        text = fh.read()
    t = json.loads(text)
    assert t["default"] in t["rows"]
    for name, row in t["rows"].items():
        keys = list(row["params"])
        assert keys == sorted(keys), name
        assert set(row["sources"]) == set(row["params"]), f"{name}: every value says where it came from"
        assert isinstance(row["match"], list) and row["match"]
    assert '\n  "rows": {\n' in text  # 2-space pretty print


def test_rtx3090_row_is_the_seed_appendix_a():
    hw = _core.resolve_hardware(None, "RTX_3090", "")
    expect = dict(n_sm=82, l2_bytes=6_291_456, smem_per_block_bytes=101_376, mma_latency=33, tensor_cores_per_sm=4,
                  l2_perf_ratio=1269.2, dram_perf_ratio=439.2, dram_bw_coeff=0.0317, hbm_latency_penalty=500,
                  mma_m=16, mma_n=8, mma_k=16)
    for k, v in expect.items():
        assert hw.get(k) == v, k


def test_python_hardware_view(tmp_path, monkeypatch):
    monkeypatch.delenv("ORIGAMI_NV_HW_PARAMS", raising=False)
    hw = origami_nv.hardware("H200")
    assert hw.name == "H200"
    assert hw["n_sm"].value == 132 and hw["n_sm"].tier == "table" and hw["n_sm"].unit == "SMs"
    assert "n_sm" in str(hw) and "table" in str(hw)
    assert json.loads(json.dumps(hw.to_dict()))["values"]["n_sm"]["tier"] == "table"
    derived = origami_nv.hardware(device=_device("NVIDIA Imaginary GPU"))
    assert derived["n_sm"].tier == "derived"
    with pytest.raises(ValueError, match="known: "):
        origami_nv.hardware("nope")
    with pytest.raises(KeyError):
        hw["not_a_key"]
