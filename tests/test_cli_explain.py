"""The command line: python -m origami_nv explain / gpus / hardware / --help; calibrate and bench forward."""
import json
import os
import subprocess
import sys
import types

import pytest

from origami_nv import __main__ as cli


def run(*args):
    env = dict(os.environ)
    env.pop("ORIGAMI_NV_HW_PARAMS", None)
    return subprocess.run([sys.executable, "-m", "origami_nv", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_explain_text():
    r = run("explain", "4096", "4096", "4096", "--gpu", "RTX_3090", "--mode", "seed", "--top", "3")
    assert r.returncode == 0, r.stderr
    assert "4,044,272 cycles" in r.stdout and "GROUP_SIZE_M=8" in r.stdout and "Top 3 of 122" in r.stdout


def test_explain_json_parses():
    r = run("explain", "128", "14336", "4096", "--gpu", "RTX_3090", "--mode", "seed", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    c = d["config"]
    assert (c["block_m"], c["block_n"], c["block_k"], c["group_size_m"]) == (64, 128, 128, 2)


def test_explain_default_mode_and_dtype():
    r = run("explain", "512", "512", "512", "--dtype", "bf16", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["problem"]["dtype"] == "bfloat16"


def test_gpus_and_hardware():
    r = run("gpus")
    assert r.returncode == 0 and all(n in r.stdout for n in ("H100_SXM", "H200", "RTX_3090"))
    r = run("gpus", "--json")
    assert json.loads(r.stdout)["default"] == "H100_SXM"
    r = run("hardware", "--gpu", "H200", "--json")
    assert json.loads(r.stdout)["values"]["l2_bytes"]["value"] == 62914560


def test_help_and_errors():
    assert run("--help").returncode == 0
    r = run("explain", "0", "64", "64")
    assert r.returncode == 2 and "positive integer" in r.stderr
    r = run("explain", "64", "64", "64", "--dtype", "int8")
    assert r.returncode == 2 and "supported: float16, bfloat16" in r.stderr
    r = run("explain", "64", "64", "64", "--gpu", "Z80")
    assert r.returncode == 2 and "H100_SXM" in r.stderr


def test_bad_override_file_is_a_message_not_a_traceback(tmp_path):
    f = tmp_path / "o.json"
    f.write_text("{not json")
    env = dict(os.environ, ORIGAMI_NV_HW_PARAMS=str(f))
    r = subprocess.run([sys.executable, "-m", "origami_nv", "explain", "64", "64", "64"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 2 and str(f) in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("sub", ["calibrate", "bench"])
def test_subcommands_forward_argv(monkeypatch, sub):
    seen = {}
    fake = types.ModuleType(f"origami_nv.{sub}")
    fake.main = lambda argv: seen.setdefault("argv", argv) and 0
    monkeypatch.setitem(sys.modules, f"origami_nv.{sub}", fake)
    assert cli.main([sub, "--foo", "1"]) == 0
    assert seen["argv"] == ["--foo", "1"]
