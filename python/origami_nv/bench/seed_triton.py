"""The seed's own GEMM kernel (seed 000, section 6 and Appendix C.2), as a baseline column.

A tiled Triton GEMM with fp32 accumulation, the GROUP_SIZE_M raster of Triton (groups of M-rows)
and the seed's fixed launch parameters num_stages=2, num_warps=8, over the seed's 5x5x6 tile
space (cpp/model/config_space.def). Written for this harness (the structure is the standard
Triton tiled matmul); Triton is a benchmark-only dependency.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

NUM_STAGES = 2   # seed 000, Appendix C.2
NUM_WARPS = 8    # seed 000, Appendix C.2

_kernel = None


def _build_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def seed_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_SIZE_M: tl.constexpr, EVEN_K: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        # Triton-order raster: GROUP_SIZE_M consecutive M-rows of tiles sweep N together, so
        # concurrently running blocks share A rows and B columns in L2.
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_rows = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_rows)
        pid_n = (pid % num_pid_in_group) // group_rows

        # Rows/columns past the edge wrap around (modulo): loads stay in bounds without masks,
        # and the store below is masked, so the wrapped values are never written.
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BLOCK_K)):
            if EVEN_K:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            else:
                k_left = K - kk * BLOCK_K
                a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
                b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk

        c = acc.to(c_ptr.dtype.element_ty)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
        tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))

    return seed_gemm_kernel


def kernel():
    global _kernel
    if _kernel is None:
        _kernel = _build_kernel()
    return _kernel


def as_seed_config(cfg: dict) -> dict:
    """A config of the seed system: the tile and GROUP_SIZE_M vary, stages/warps are the seed's."""
    return {"block_m": int(cfg["block_m"]), "block_n": int(cfg["block_n"]), "block_k": int(cfg["block_k"]),
            "group_size_m": int(cfg.get("group_size_m", 1)), "stages": NUM_STAGES, "warps": NUM_WARPS,
            "family": "triton"}


def matmul(a, b, cfg: dict, out=None):
    """c = a @ b with one seed config. a: [M, K], b: [K, N], any strides; c row-major."""
    import torch
    import triton
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"seed_triton.matmul: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not multiply")
    if a.dtype != b.dtype or a.dtype not in (torch.float16, torch.bfloat16):
        raise TypeError(f"seed_triton.matmul: float16/bfloat16 operands of one dtype, got {a.dtype}, {b.dtype}")
    M, K = a.shape
    N = b.shape[1]
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=a.dtype)
    bm, bn, bk, g = cfg["block_m"], cfg["block_n"], cfg["block_k"], cfg["group_size_m"]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    kernel()[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                   BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_SIZE_M=g, EVEN_K=(K % bk == 0),
                   num_stages=NUM_STAGES, num_warps=NUM_WARPS)
    return c


def make_fn(cfg: dict):
    cfg = as_seed_config(cfg)
    return functools.partial(_call, cfg=cfg)


def _call(a, b, cfg):
    return matmul(a, b, cfg)


# ---- parallel compilation ---------------------------------------------------------------------
# A Triton compile takes ~1-3 s of CPU; the seed's brute force compiles ~150 tiles per argument
# specialisation. Worker processes compile with JITFunction.warmup (no launch; dtypes stand in for
# tensors, so pointers specialise as 16-byte aligned, like torch allocations) into Triton's on-disk
# cache, which the timing process then loads instead of compiling.

def _warm_worker(jobs):
    import torch
    k = kernel()
    dt = {"float16": torch.float16, "bfloat16": torch.bfloat16}
    done = 0
    for cfg, M, N, K, strides, dtype in jobs:
        try:
            k.warmup(dt[dtype], dt[dtype], dt[dtype], M, N, K, *strides,
                     BLOCK_M=cfg["block_m"], BLOCK_N=cfg["block_n"], BLOCK_K=cfg["block_k"],
                     GROUP_SIZE_M=cfg["group_size_m"], EVEN_K=(K % cfg["block_k"] == 0),
                     num_stages=NUM_STAGES, num_warps=NUM_WARPS, grid=(1,))
            done += 1
        except Exception:  # noqa: BLE001 - e.g. out of resources: the real launch reports it
            pass
    return done


_pool = None


def precompile(cfgs, M, N, K, dtype, b_layout="row", workers=8) -> int:
    """Compile the seed kernel for every config of one problem in `workers` processes.
    Returns how many compiled (or were cached). Best effort: the timing path compiles anything missed."""
    global _pool
    if workers <= 0 or not cfgs:
        return 0
    import concurrent.futures as cf
    import multiprocessing as mp
    strides = (K, 1, N, 1, N, 1) if b_layout == "row" else (K, 1, 1, K, N, 1)
    jobs = [(as_seed_config(c), M, N, K, strides, dtype) for c in cfgs]
    if _pool is None:
        _pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"))
    chunks = [jobs[i::workers] for i in range(workers)]
    return sum(_pool.map(_warm_worker, [c for c in chunks if c]))


def shutdown_pool():
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


# ---- the tile space (cpp/model/config_space.def, never re-spelled here) -----------------------

def _candidate_def_paths() -> list[Path]:
    here = Path(__file__).resolve()
    paths = []
    env = os.environ.get("ORIGAMI_NV_SOURCE_DIR")
    if env:
        paths.append(Path(env) / "cpp" / "model" / "config_space.def")
    paths.append(here.parents[1] / "data" / "config_space.def")           # installed package data
    paths.append(here.parents[3] / "cpp" / "model" / "config_space.def")  # source tree
    for base in (Path.cwd(), *Path.cwd().parents, Path(os.environ.get("OLDPWD", "/nonexistent"))):
        paths.append(base / "cpp" / "model" / "config_space.def")
    return paths


def parse_config_space(text: str) -> dict[str, list[int]]:
    """{'BLOCK_M': [...], 'BLOCK_N': [...], 'BLOCK_K': [...], 'GROUP_SIZE_M': [...]} from the .def text."""
    out = {}
    for line in text.splitlines():
        line = line.split("//", 1)[0].strip()
        m = re.fullmatch(r"ORIGAMI_([A-Z_]+)\(([\d,\s]+)\)", line)
        if m:
            out[m.group(1)] = [int(v) for v in m.group(2).split(",") if v.strip()]
    for need in ("BLOCK_M", "BLOCK_N", "BLOCK_K"):
        if need not in out:
            raise ValueError(f"config_space.def: no ORIGAMI_{need}(...) line")
    return out


@functools.lru_cache(maxsize=1)
def seed_tile_space() -> list[tuple[int, int, int]]:
    """Every (BLOCK_M, BLOCK_N, BLOCK_K) of the seed's space: from the package's bindings
    (origami_nv._core.space(), compiled from config_space.def), else from the .def file."""
    try:
        from origami_nv import _core  # type: ignore
        sp = _core.space()
        return [(m, n, k) for m in sp["block_m"] for n in sp["block_n"] for k in sp["block_k"]]
    except Exception:  # noqa: BLE001 - no compiled package here: read the file
        pass
    for p in _candidate_def_paths():
        if p.is_file():
            sp = parse_config_space(p.read_text())
            return [(m, n, k) for m in sp["BLOCK_M"] for n in sp["BLOCK_N"] for k in sp["BLOCK_K"]]
    raise FileNotFoundError("the config space is unavailable: origami_nv._core.space() failed and "
                            "cpp/model/config_space.def was not found (set ORIGAMI_NV_SOURCE_DIR)")
