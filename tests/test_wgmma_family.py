"""The wgmma family module (cpp/kernels/families/wgmma.py): every specialisation it lists can exist
on the hardware, the generator interface is complete, and the generated wrappers are current.
No GPU needed; the compile test needs nvcc (skipped otherwise)."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "cpp", "kernels")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look the module up while the class is created
    spec.loader.exec_module(mod)
    return mod


wg = _load("origami_wgmma_family", os.path.join(KERNELS, "families", "wgmma.py"))


def _space():
    space = {}
    with open(os.path.join(ROOT, "cpp", "model", "config_space.def")) as f:
        for line in f:
            m = re.fullmatch(r"ORIGAMI_([A-Z_]+)\(([^)]*)\)", line.split("//", 1)[0].strip())
            if m:
                space[m.group(1)] = [int(v) for v in m.group(2).split(",")]
    return space


SPECS = wg.all_specs()


def test_list_is_modest_and_covers_every_dtype_and_layout():
    assert 8 <= len(SPECS) <= 200  # CI compiles them on 2 cores (~1.5-2.5 s each); 183 since the 24 twins of session 29
    for tile in wg.TILES:
        got = {(s.dtype, s.a_k_major, s.b_k_major) for s in SPECS
               if (s.block_m, s.block_n, s.consumers) == tile and not s.swap_ab}
        # An N-major B is loaded in 64-column boxes: a consumer's columns (all of BLOCK_N, or BLOCK_N / consumers where
        # the consumers split N: 192 rows over 2) not a multiple of 64 exist for a K-major B only.
        split_n = (tile[0] // tile[2]) % 64 != 0 or tile[1] > 256
        cols = tile[1] // tile[2] if split_n else tile[1]
        want = {(d, a, b) for d in ("fp16", "bf16") for a, b in wg.LAYOUTS if b or cols % 64 == 0}
        # wgmma reads TF32 operands from shared memory K-major only: x @ w.t() everywhere, and a @ b (row-major B)
        # as the swapped product where the tile's N splits into at most 2 m64 slabs per consumer warpgroup
        want |= {("tf32", True, True)}
        per_consumer = tile[1] // tile[2]
        if per_consumer % 64 == 0 and 64 <= per_consumer <= 64 * wg.SWAP_MAX_SLABS:
            want |= {("tf32", True, False)}
        assert got == want, tile


@pytest.mark.parametrize("s", SPECS, ids=lambda s: s.name)
def test_every_specialisation_fits_the_hardware(s):
    assert not s.problems()
    assert s.smem_bytes <= 232448                                  # H100/H200 per-block opt-in
    assert s.stages >= 2
    assert s.block_k * s.elem_bytes == 128                         # one 128-byte swizzle row: 64 x 16-bit, 32 x fp32
    assert s.block_k == (32 if s.dtype == "tf32" else 64)
    # the TMA box of a K-major B: at most 256 rows; a wider tile (128x320) loads it as two boxes of half its rows
    assert s.block_n % 16 == 0 and 16 <= s.block_n <= 320 and (s.block_n <= 256 or s.b_k_major)
    # the warpgroup split: whole m64 slabs of BLOCK_M per consumer, or (192 rows over 2; 320 columns, wider than one
    # wgmma) every row and half of BLOCK_N
    assert s.block_m in (64, 128, 192, 256) and s.rows_per_consumer % 64 == 0
    assert s.split_n == (s.block_m == 192 or s.block_n > 256)
    assert s.consumers * s.rows_per_consumer * s.cols_per_consumer == s.block_m * s.block_n  # a partition of the tile
    cols = s.block_n if s.swap else s.cols_per_consumer
    assert cols % 16 == 0 and 16 <= cols <= 256                    # wgmma n (multiples of 16 as generated)
    assert s.threads == 128 * (s.consumers + 1) and s.warps == s.threads // 32
    chunks = s.epi_n * s.elem_bytes // 16                          # 16-byte chunks per staged C row
    assert cols % s.epi_n == 0 and (chunks % 8 == 0 or chunks in (2, 4))
    assert s.c_bytes <= wg.C_STAGING_BYTES
    assert s.dtype != "tf32" or (s.a_k_major and (s.b_k_major or s.swap))
    assert not s.swap or (s.block_n // s.consumers) % 64 == 0      # swapped: wgmma's M side is BLOCK_N
    assert s.b_k_major or cols % 64 == 0
    assert s.accumulators_per_thread <= wg.ACCUM_LIMIT
    # the stage rule: as many as fit, capped, and one more would not fit
    assert s.stages == wg.MAX_STAGES or s.smem_bytes + s.stage_bytes + 16 > wg.SMEM_OPTIN_BYTES


def test_swapped_tf32_tiles_and_bound_are_the_benches():
    # the bench's stale-launch rule (bench/configs.py, kernel change 12) names the swapped tiles and the M bound of
    # the op (cpp/model/types.hpp kSwappedTf32MaxM)
    from origami_nv.bench import configs as C
    assert C.SWAPPED_TF32_TILES == {(s.block_m, s.block_n) for s in SPECS if s.swap}
    src = open(os.path.join(ROOT, "cpp", "model", "types.hpp")).read()
    assert f"kSwappedTf32MaxM = {C.SWAPPED_TF32_MAX_M};" in src


def test_invalid_specialisations_are_refused():
    assert wg.Spec(128, 96, 2, "bf16", True, False).problems()      # 64-column TMA boxes / epilogue slices
    assert wg.Spec(64, 48, 1, "fp16", False, False).problems()      # N-major B: 64-column TMA boxes
    assert not wg.Spec(128, 96, 2, "bf16", True, True).problems()   # K-major B: one box, 32-column slices
    assert wg.Spec(64, 48, 1, "fp16", True, True).epi_n == 16       # 2-chunk slices (c_chunk_offset)
    assert wg.Spec(256, 256, 2, "bf16", True, True).problems()      # 256 accumulators per thread
    assert wg.Spec(96, 128, 2, "fp16", True, True).problems()       # not whole m64 slabs
    assert wg.Spec(64, 128, 2, "fp16", True, True).split_n          # 32 rows each would not be slabs: 64 columns each
    assert wg.Spec(128, 200, 2, "fp16", True, True).problems()      # n not a multiple of 16
    assert not wg.Spec(128, 192, 2, "bf16", True, False).problems()
    assert not wg.Spec(128, 128, 2, "tf32", True, False).problems()  # TF32 a @ b: the swapped product
    assert wg.Spec(128, 128, 2, "tf32", True, False).swap
    assert wg.Spec(128, 64, 2, "tf32", True, False).problems()      # swapped: 32 columns of N per consumer
    assert wg.Spec(64, 256, 1, "tf32", True, False).problems()      # swapped: 4 slabs of N in one consumer
    assert wg.Spec(128, 128, 2, "tf32", False, True).problems()     # TF32 from shared memory: K-major only
    assert wg.Spec(128, 128, 2, "tf32", False, False).problems()
    assert wg.Spec(128, 256, 2, "tf32", True, True).epi_n == 64     # 128 x 64 x 4 B = the 32 KiB staging
    assert wg.Spec(64, 48, 1, "tf32", True, True).epi_n == 16       # 64-byte rows: 4 chunks
    t = wg.Spec(192, 192, 2, "fp16", True, True)                    # 3 slabs over 2 consumers: split along N
    assert not t.problems() and t.split_n and (t.rows_per_consumer, t.cols_per_consumer) == (192, 96)
    assert t.accumulators_per_thread == 144 and t.epi_n == 32 and t.c_bytes == 2 * 192 * 32 * 2
    assert wg.Spec(192, 192, 2, "fp16", True, False).problems()     # 96 columns: not whole 64-column boxes of B
    assert not wg.Spec(128, 256, 2, "fp16", True, True).split_n     # whole slabs: the consumers split M
    assert wg.Spec(192, 192, 1, "fp16", True, True).problems()      # one consumer: 3 x 192 / 2 = 288 accumulators
    w = wg.Spec(128, 320, 2, "fp16", True, True)                    # wider than one wgmma: split along N too
    assert not w.problems() and w.split_n and (w.rows_per_consumer, w.cols_per_consumer) == (128, 160)
    assert w.accumulators_per_thread == 160 and w.stages == 3 and w.epi_n == 32
    assert wg.Spec(128, 320, 2, "fp16", True, False).problems()     # 160 columns: not whole boxes of an N-major B
    assert wg.Spec(128, 320, 2, "fp16", True, True, cluster=2).problems()  # two B boxes, one CTA per cluster
    assert all((s.block_m, s.block_n, s.consumers) not in wg.STUDY_TILES for s in SPECS)  # study tiles: not built


def test_names_are_unique_and_spell_the_config():
    names = [s.name for s in SPECS]
    assert len(names) == len(set(names))
    for s in SPECS:
        # (a swapped-operand kernel by the problem's tile and layouts: its B is the problem's A, its A the problem's B)
        bm, bn = (s.block_n, s.block_m) if s.swap_ab else (s.block_m, s.block_n)
        a_k, b_k = (s.b_k_major, s.a_k_major) if s.swap_ab else (s.a_k_major, s.b_k_major)
        assert s.name == (f"origami_wgmma_{bm}x{bn}x{s.block_k}_s{s.stages}_w{s.warps}_{s.dtype}_"
                          f"{'k' if a_k else 'm'}{'k' if b_k else 'n'}" +
                          ("_c2" if s.cluster == 2 else "") + ("_ab" if s.swap_ab else ""))


def test_multicast_twins_are_the_listed_tiles_in_every_16_bit_layout():
    """MULTICAST_TILES get a 2-CTA twin (KernelEntry::multicast) per fp16/bf16 kernel, each the same config (stages,
    warps, shared memory) as its 1-CTA kernel; no TF32 twin."""
    twins = [s for s in SPECS if s.cluster == 2]
    singles = {(s.block_m, s.block_n, s.dtype, s.a_k_major, s.b_k_major): s for s in SPECS if s.cluster == 1}
    assert {(s.block_m, s.block_n) for s in twins} == set(wg.MULTICAST_TILES)
    assert len(twins) == len(wg.MULTICAST_TILES) * 2 * len(wg.LAYOUTS)
    for t in twins:
        one = singles[(t.block_m, t.block_n, t.dtype, t.a_k_major, t.b_k_major)]
        assert t.dtype != "tf32" and (t.stages, t.warps, t.smem_bytes) == (one.stages, one.warps, one.smem_bytes)
        assert wg.kernel_dict(t)["multicast"] and not wg.kernel_dict(one)["multicast"]


def test_generator_interface():
    specs, excluded = wg.specializations(_space())
    assert len(specs) == len(SPECS)
    need = {"name", "family", "family_enum", "block_m", "block_n", "block_k", "stages", "warps", "dtype",
            "dtype_enum", "a_k_contiguous", "b_k_contiguous", "threads", "smem_bytes", "alignment_elems",
            "min_cc", "launcher"}
    for spec in specs:
        assert spec["nvcc_flags"] == ["-gencode=arch=compute_90a,code=sm_90a"]
        (k,) = spec["kernels"]
        assert need <= set(k)
        assert k["family_enum"] == "origami::Family::Wgmma" and k["min_cc"] == 90
        assert k["dtype"] in ("float16", "bfloat16", "tfloat32")
        assert k["alignment_elems"] == (4 if k["dtype"] == "tfloat32" else 8)  # 16 bytes (TMA strides)
        assert k["dtype_enum"] == {"float16": "origami::DType::Float16", "bfloat16": "origami::DType::BFloat16",
                                   "tfloat32": "origami::DType::TFloat32"}[k["dtype"]]
        text = wg.tu_text(spec)
        assert f'extern "C" __global__ void __launch_bounds__({k["threads"]}, 1) {k["name"]}(' in text
        assert f"static cudaError_t {k['launcher']}(const origami::GemmArgs& g)" in text
        assert f"kSmemBytes == {k['smem_bytes']}" in text
    # every tile of the config space is either compiled or excluded with a reason
    compiled = {(s.block_m, s.block_n, s.block_k) for s in SPECS}
    ex = {t: why for t, why in excluded}
    sp = _space()
    for bm in sp["BLOCK_M"]:
        for bn in sp["BLOCK_N"]:
            for bk in sp["BLOCK_K"]:
                assert ((bm, bn, bk) in compiled) != ((bm, bn, bk) in ex)
    assert "BLOCK_K is one 128-byte swizzle row" in ex[(128, 128, 16)]
    assert (128, 128, 32) in compiled and (128, 128, 64) in compiled  # tf32 and the 16-bit types


def test_generate_py_picks_the_family_up(tmp_path):
    gen = os.path.join(KERNELS, "generate.py")
    if not os.path.exists(gen):
        pytest.skip("cpp/kernels/generate.py is not in this tree")
    out = subprocess.run([sys.executable, gen, "--space", os.path.join(ROOT, "cpp", "model", "config_space.def"),
                          "--out", str(tmp_path), "--wgmma", "--list"], capture_output=True, text=True, check=True)
    listed = {n for n in out.stdout.split() if n.startswith("origami_wgmma_")}
    assert listed == {s.name for s in SPECS}


def test_wgmma_ops_inc_is_current():
    out = subprocess.run([sys.executable, os.path.join(KERNELS, "wgmma", "gen_wgmma_ops.py")],
                         capture_output=True, text=True, check=True).stdout
    with open(os.path.join(KERNELS, "wgmma", "wgmma_ops.inc")) as f:
        assert f.read() == out


def _ptxas_log(tmp_path, s) -> str:
    """nvcc's -Xptxas -v report of the translation unit the generator writes for spec s (compiled here)."""
    src = tmp_path / "k.cu"
    src.write_text(wg.tu_text(dict(name=s.name, kernels=[wg.kernel_dict(s)])))
    r = subprocess.run(["nvcc", "-O3", "-std=c++17", *wg.NVCC_FLAGS, "-I", KERNELS, "-Xptxas", "-v", "-c",
                        str(src), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on the PATH")
@pytest.mark.parametrize("dtype", ["bf16", "tf32"])
def test_one_specialisation_compiles_without_spills(tmp_path, dtype):
    s = next(x for x in SPECS if (x.block_m, x.block_n, x.dtype, x.layout_tag) == (128, 256, dtype, "kk"))
    log = _ptxas_log(tmp_path, s)
    assert "C7508" not in log                      # setmaxnreg honoured
    assert "0 bytes spill stores, 0 bytes spill loads" in log
    assert "0 bytes stack frame" in log


def test_swapped_operand_kernels_speak_the_problems_terms():
    """The kSwapAB kernels (SWAP_AB_TILES built, SWAP_AB_STUDY_TILES --variants only): the kernel's M is the problem's
    N, so the entry's tile and operand layouts are the problem's (BLOCK_M = the kernel's BLOCK_N), the name says so
    ("_ab"), the registry marks them (swap_ab), and the study tiles are not in the build."""
    s = wg.Spec(256, 160, 2, "fp16", True, True, swap_ab=True)
    assert not s.problems() and not s.split_n
    assert s.problem_tile == (160, 256) and s.accumulators_per_thread == 160
    assert s.name == f"origami_wgmma_160x256x64_s{s.stages}_w12_fp16_kk_ab"
    assert s.template_args().endswith(", 1, true")
    k = wg.kernel_dict(s)
    assert (k["block_m"], k["block_n"], k["a_k_contiguous"], k["b_k_contiguous"]) == (160, 256, True, True)
    nn = wg.Spec(128, 112, 2, "bf16", False, True, swap_ab=True)    # the problem's B row-major: the kernel's A M-major
    assert not nn.problems() and nn.layout_tag == "kn" and nn.name.endswith("_bf16_kn_ab")
    assert wg.Spec(128, 160, 2, "tf32", True, True, swap_ab=True).problems()   # 16-bit only
    assert wg.Spec(192, 160, 2, "fp16", True, True, swap_ab=True).problems()   # whole m64 slabs per consumer
    built = {(x.block_m, x.block_n, x.consumers, x.dtype, x.a_k_major) for x in SPECS if x.swap_ab}
    assert built == {(bm, bn, c, d, a) for bm, bn, c in wg.SWAP_AB_TILES for d in ("fp16", "bf16") for a in (True, False)}
    assert all(x.b_k_major and x.cluster == 1 for x in SPECS if x.swap_ab)   # the problem's A K-major; no cluster
    assert not any((x.block_m, x.block_n, x.consumers) in wg.SWAP_AB_STUDY_TILES for x in SPECS if x.swap_ab)
    assert all(wg.kernel_dict(x)["swap_ab"] == x.swap_ab for x in SPECS)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on the PATH")
@pytest.mark.parametrize("spec", [wg.Spec(256, 176, 2, "bf16", True, True, swap_ab=True),
                                  wg.Spec(64, 80, 1, "fp16", True, True, cluster=2, swap_ab=True)],
                         ids=["256x176_ab", "64x80_c2_ab"])
def test_a_swapped_operand_study_kernel_compiles_without_spills(tmp_path, spec):
    log = _ptxas_log(tmp_path, spec)
    assert "C7508" not in log and "0 bytes spill stores, 0 bytes spill loads" in log and "0 bytes stack frame" in log


def test_swapped_multicast_study_kernels_are_not_built():
    """SWAP_AB_MULTICAST_STUDY_TILES (--variants): the swapped tiles in B-sharing 2-CTA clusters (the problem's A
    multicast) compile, but ran slower than their one-CTA kernels (probe_swap_multicast_h200.txt): none is built, and
    no swapped kernel shares A."""
    twins = wg.swapped_specs(wg.SWAP_AB_MULTICAST_STUDY_TILES, cluster=2)
    assert twins and all(t.name.endswith("_c2_ab") and not t.problems() for t in twins)
    assert not any(s.swap_ab and s.cluster > 1 for s in SPECS)
    assert wg.Spec(64, 80, 1, "fp16", True, True, cluster=2, swap_ab=True, share_a=True).problems()


def test_ping_pong_schedule_sits_beside_its_cooperative_kernel():
    """PINGPONG_TILES: each fp16/bf16 one-CTA kernel of the tile gets a ping-pong kernel of the same config in its
    translation unit (same stages and threads; 16 bytes more shared memory: the two order barriers), and its launcher
    runs it where gemm_wgmma.cuh ping_pong_pays says so. One registry entry: no other kernel or TU changes, no
    standalone ping-pong spec is built, and the bench's stale-launch rule names the same tiles."""
    from origami_nv.bench import configs as C
    with_pp = [s for s in SPECS if s.pingpong_twin()]
    assert {(s.block_m, s.block_n) for s in with_pp} == set(wg.PINGPONG_TILES) == set(C.PINGPONG_TILES)
    assert len(with_pp) == len(wg.PINGPONG_TILES) * 2 * len(wg.LAYOUTS)
    assert not any(s.pingpong for s in SPECS)
    for s in SPECS:
        k = wg.kernel_dict(s)
        text = wg.tu_text(dict(name=s.name, kernels=[k]))
        twin = s.pingpong_twin()
        if twin is None:
            assert "pingpong" not in k and "ping_pong_pays" not in text
            continue
        assert s.dtype != "tf32" and s.cluster == 1 and not s.swap_ab
        pp = k["pingpong"]
        assert pp["name"] == s.name + "_pp" and (twin.stages, twin.threads) == (s.stages, s.threads)
        assert pp["smem_bytes"] == s.smem_bytes + 16 and pp["template_args"].endswith(", 1, false, false, true")
        assert (f"if (origami::wgmma::ping_pong_pays(g, {s.block_m}, {s.block_n})) return L_{pp['name']}::launch("
                f"&{pp['name']}, g);") in text
        assert text.index("ping_pong_pays") < text.index(f"return L_{s.name}::launch(&{s.name}, g);")
    # study rules: two consumers, one CTA, 16-bit
    assert wg.Spec(128, 128, 1, "bf16", True, True, pingpong=True).problems()
    assert wg.Spec(128, 128, 2, "tf32", True, True, pingpong=True).problems()
    assert not wg.Spec(64, 256, 2, "fp16", False, False, pingpong=True).problems()


def test_stale_rule_of_the_ping_pong_change():
    """Kernel change 14 (bench/configs.py) marks the launches the ping-pong schedule now runs: unsplit 16-bit 128x128
    with two or more tiles per SM of the 132-SM GPUs the sets were measured on."""
    from origami_nv.bench import configs as C
    cfg = dict(block_m=128, block_n=128, block_k=64, stages=6, warps=12, family="wgmma", split_k=1)
    big = dict(M=4096, N=4096, K=1024, dtype="bfloat16", batch=1)        # 1024 tiles
    one_wave = dict(M=1024, N=2048, K=4096, dtype="float16", batch=1)    # 128 tiles
    batched = dict(M=608, N=592, K=224, dtype="float16", batch=30)       # 750 tiles
    assert C._wgmma_ping_pong(big, cfg) and C._wgmma_ping_pong(batched, cfg)
    assert not C._wgmma_ping_pong(one_wave, cfg)
    assert not C._wgmma_ping_pong(big, {**cfg, "split_k": 2})
    assert not C._wgmma_ping_pong({**big, "dtype": "tfloat32"}, {**cfg, "block_k": 32})
    assert not C._wgmma_ping_pong(big, {**cfg, "block_n": 256})
    assert 14 in C.EVALUATION_KEEPS_STALE


def test_stale_rule_of_the_pdl_fill_change():
    """Kernel change 15 (bench/configs.py) marks the launches the launcher now runs without programmatic dependent
    launch (cpp/kernels/pdl.hpp pdl_suits_sm_filling_grid): grids of more than half and at most 17/20 of the 132 SMs
    whose CTAs run >= PDL_FILL_RULE_MIN_K_ITERS K-iterations; the bench's threshold is the launcher's."""
    from origami_nv.bench import configs as C
    src = open(os.path.join(ROOT, "cpp", "kernels", "pdl.hpp")).read()
    assert f"kPdlFillRuleMinKIters = {C.PDL_FILL_RULE_MIN_K_ITERS};" in src
    assert "2 * ctas <= sms || 20 * ctas > 17LL * sms ||" in src
    cfg = dict(block_m=64, block_n=256, block_k=64, stages=4, warps=8, family="wgmma", split_k=1)
    decode = dict(M=7, N=23680, K=9728, dtype="float16", batch=1)        # 93 CTAs, 152 K-iterations each
    assert C._wgmma_pdl_fill_rule(decode, cfg)
    assert not C._wgmma_pdl_fill_rule({**decode, "K": 5120}, cfg)       # 80 K-iterations: PDL kept
    assert not C._wgmma_pdl_fill_rule({**decode, "N": 8192}, cfg)       # 32 CTAs: at most half of the SMs
    assert not C._wgmma_pdl_fill_rule({**decode, "N": 30720}, cfg)      # 120 CTAs: more than 85 %
    assert not C._wgmma_pdl_fill_rule(decode, {**cfg, "split_k": 2})    # 186 units: a persistent grid of 132
    split = {**cfg, "split_k": 2}
    assert C._wgmma_pdl_fill_rule({**decode, "N": 11776, "K": 19456}, split)  # 46 tiles x 2 slices: 92 CTAs, 152 each
    assert not C._wgmma_pdl_fill_rule({**decode, "N": 11776}, split)           # ...76 each
    assert not C._wgmma_pdl_fill_rule(decode, {**cfg, "family": "mma_sync"})
    assert 15 in C.EVALUATION_KEEPS_STALE


def test_stale_rule_of_the_stepped_descriptors():
    """Kernel change 16 (bench/configs.py): every wgmma launch of the shared-memory-operand main loop (run_ss) now steps
    its consumers' descriptors by an add; the swapped TF32 kernels' loop (run_swap, a row-major B read in place up to
    SWAPPED_TF32_MAX_M) is not that loop, and the mma.sync family is not touched."""
    from origami_nv.bench import configs as C
    cfg = dict(block_m=128, block_n=128, block_k=64, stages=6, warps=12, family="wgmma", split_k=1)
    size = dict(M=512, N=3072, K=3072, dtype="float16", batch=1, layout="nt")
    assert C._wgmma_descriptors_stepped(size, cfg)
    assert C._wgmma_descriptors_stepped({**size, "layout": "nn", "batch": 8}, {**cfg, "split_k": 3})
    tf32 = dict(size, dtype="tfloat32", layout="nn")
    tile = next(iter(C.SWAPPED_TF32_TILES))
    swapped = {**cfg, "block_m": tile[0], "block_n": tile[1], "block_k": 32}
    assert not C._wgmma_descriptors_stepped(tf32, swapped)                                 # run_swap
    assert C._wgmma_descriptors_stepped({**tf32, "M": C.SWAPPED_TF32_MAX_M + 1}, swapped)  # B copied: run_ss
    assert C._wgmma_descriptors_stepped({**tf32, "layout": "nt"}, swapped)
    assert not C._wgmma_descriptors_stepped(size, {**cfg, "family": "mma_sync"})
    assert C.stale_kernel_record({"kind": "config", "system": "origami", "config": cfg, "size_info": size,
                                  "kernel_version": 15})
    assert C.KERNEL_VERSION >= 16 and 16 in C.EVALUATION_KEEPS_STALE


def test_share_a_study_clusters_are_refused_where_the_kernel_cannot_run_them():
    """Clusters sharing A (share_a, --variants only; NOTES.md session 34: slower than the one-CTA kernels at every
    size measured): 2 or 4 CTAs, a K-major A split in whole 8-row groups, 16-bit, never in the build."""
    s = wg.Spec(128, 64, 2, "bf16", True, True, cluster=4, share_a=True)
    assert not s.problems() and s.name.endswith("_bf16_kk_n4") and s.template_args().endswith(", 4, false, true")
    assert wg.Spec(128, 64, 2, "bf16", False, True, cluster=2, share_a=True).problems()   # M-major A
    assert wg.Spec(128, 64, 2, "bf16", True, True, cluster=3, share_a=True).problems()
    assert wg.Spec(128, 64, 2, "tf32", True, True, cluster=2, share_a=True).problems()
    assert not any(x.share_a for x in SPECS)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on the PATH")
def test_the_ping_pong_translation_unit_compiles_without_spills(tmp_path):
    s = next(x for x in SPECS if x.pingpong_twin() and x.dtype == "bf16" and x.layout_tag == "mn")
    log = _ptxas_log(tmp_path, s)
    assert f"'{s.name}'" in log and f"'{s.name}_pp'" in log   # both entry functions
    assert "C7508" not in log and "spill stores" in log
    assert all(m == ("0", "0") for m in re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log))


def _collect(tmp_path, pp_spill: int, with_pp_report: bool = True):
    """collect_resources.py over a manifest of one kernel with a ping-pong schedule and a ptxas report of both."""
    import json
    cr = _load("origami_collect_resources", os.path.join(KERNELS, "collect_resources.py"))
    s = next(x for x in SPECS if x.pingpong_twin() and x.dtype == "fp16" and x.layout_tag == "kk")
    k = wg.kernel_dict(s)
    (tmp_path / "manifest.json").write_text(json.dumps(dict(filter="", excluded=[], kernels=[{**k, "tu": s.name}])))
    entry = ("ptxas info    : Compiling entry function '{n}' for 'sm_90a'\n"
             "ptxas info    : Function properties for {n}\n"
             "    0 bytes stack frame, {sp} bytes spill stores, {sp} bytes spill loads\n"
             "ptxas info    : Used 168 registers, used 1 barriers\n")
    text = entry.format(n=s.name, sp=0) + (entry.format(n=s.name + "_pp", sp=pp_spill) if with_pp_report else "")
    (tmp_path / f"{s.name}.cu.ptxas.txt").write_text(text)
    rc = cr.main(["--manifest", str(tmp_path / "manifest.json"), "--reports", str(tmp_path),
                  "--out", str(tmp_path / "out.json")])
    return rc, (json.loads((tmp_path / "out.json").read_text())["kernels"] if rc == 0 else None)


def test_kernel_table_says_which_kernels_have_a_ping_pong_schedule(tmp_path):
    """The build's table marks the kernels whose ping-pong schedule compiled without spill (record `pingpong`), and
    the op's view of it (merge_kernel_records) turns that into KernelResources::ping_pong_layouts, which the model
    reads (tests/test_model_nv_feed.py); ORIGAMI_NV_PINGPONG=0 (ping_pong=False) clears it. A missing report of the
    ping-pong kernel fails the build like any other."""
    from origami_nv import _kernels
    for d in "abc":
        (tmp_path / d).mkdir()
    rc, (rec,) = _collect(tmp_path / "a", 0)
    assert rc == 0 and rec["pingpong"] is True and rec["registers_per_thread"] == 168
    rc, (spilling,) = _collect(tmp_path / "b", 8)
    assert rc == 0 and spilling["pingpong"] is False
    assert _collect(tmp_path / "c", 0, with_pp_report=False)[0] == 1
    lb = _kernels.layout_bit(rec["a_k_contiguous"], rec["b_k_contiguous"])
    (m,) = _kernels.merge_kernel_records([rec], "float16", "sm_90")
    assert m["ping_pong_layouts"] == lb and m["layouts"] == lb
    assert _kernels.merge_kernel_records([rec], "float16", "sm_90", ping_pong=False)[0]["ping_pong_layouts"] == 0
    assert _kernels.merge_kernel_records([spilling], "float16", "sm_90")[0]["ping_pong_layouts"] == 0
