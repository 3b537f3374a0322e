"""The build's table of compiled kernels and their real resources (data/kernel_resources.json).

The table is written at build time from the `-Xptxas -v` report of every kernel translation unit
(cpp/kernels/collect_resources.py), so registers, spills and stack are known without a GPU. It is
absent when the build had no CUDA compiler; then there are no compiled kernels, and such a build installs the
reference sm_90 table instead (reports/kernel_resources_sm90.json, the table of the CUDA build the committed reports
were measured with, as data/kernel_resources_reference_sm90.json): the model then selects among the kernels a CUDA
build's op has (reference_kernel_resources), not among the abstract config space.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernel_resources.json")
_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernel_resources_reference_sm90.json")

_DTYPE_ALIASES = {"float16": "float16", "fp16": "float16", "half": "float16", "torch.float16": "float16",
                  "bfloat16": "bfloat16", "bf16": "bfloat16", "torch.bfloat16": "bfloat16",
                  "float32": "float32", "fp32": "float32", "float": "float32", "torch.float32": "float32",
                  "tfloat32": "tfloat32", "tf32": "tfloat32"}


def _canonical_dtype(dtype) -> str:
    key = str(dtype).lower()
    if key not in _DTYPE_ALIASES:
        raise ValueError(f"unsupported dtype {dtype!r}; supported: float16, bfloat16, float32, tfloat32")
    return _DTYPE_ALIASES[key]


@lru_cache(maxsize=1)
def _table() -> dict:
    if not os.path.exists(_DATA):
        return {"kernels": [], "excluded": []}
    with open(_DATA) as f:
        return json.load(f)


@lru_cache(maxsize=1)
def reference_table() -> dict:
    """The reference sm_90 kernel table a build without CUDA installs (module doc); empty where absent."""
    if not os.path.exists(_REFERENCE):
        return {"kernels": [], "excluded": [], "note": ""}
    with open(_REFERENCE) as f:
        return json.load(f)


def reference_kernel_resources(dtype="float16", arch="sm_90") -> list[dict]:
    """compiled_kernel_resources over the reference sm_90 table: the kernels a CUDA build's op selects among, for
    a build that compiled none (select / rank / explain use them there). [] where the build has its own kernels (the
    reference is installed only without CUDA) or the table is absent."""
    if _table()["kernels"]:
        return []
    return merge_kernel_records(reference_table()["kernels"], dtype, arch, realign=realign_enabled(),
                                multicast=multicast_enabled(), ping_pong=ping_pong_enabled())


def kernel_records() -> list[dict]:
    """Every compiled kernel (each dtype, operand layout and SASS architecture) as the build recorded it.
    `realign`: a realigning variant (the mma_sync `_ra` kernels: read operands with 2-byte aligned rows in place;
    False for tables written before they existed). `multicast`: a 2-CTA cluster twin of its config (the wgmma `_c2`
    kernels: the two CTAs share the B tile by TMA multicast), launched only where the model's plan for the pick says
    so (False for tables written before they existed)."""
    return [dict(r, realign=bool(r.get("realign", False)), multicast=bool(r.get("multicast", False)))
            for r in _table()["kernels"]]


def excluded_tiles() -> list[dict]:
    """Tiles of the config space that were not compiled, with the reason (e.g. shared memory)."""
    return [dict(e) for e in _table().get("excluded", [])]


def layout_bit(a_k_contiguous: bool, b_k_contiguous: bool) -> int:
    """cpp/model/types.hpp: layout_bit (bit 0 'nn', 1 'nt', 2 'tn', 3 'tt')."""
    return 1 << ((0 if a_k_contiguous else 2) | (1 if b_k_contiguous else 0))


def _arch_matches(record_arch: str, arch: str) -> bool:
    # sm_90a code (the wgmma family) runs on sm_90 devices: asking for sm_90 includes it.
    return record_arch == arch or record_arch == arch + "a"


def realign_enabled() -> bool:
    """Whether the op uses the realigning kernels: not with ORIGAMI_NV_REALIGN=0 in the environment (the op reads it
    once, when it first plans; cpp/ops/ops_cuda.cpp). compiled_kernel_resources follows it, so the model's picks here
    are the op's."""
    return os.environ.get("ORIGAMI_NV_REALIGN", "1")[:1] != "0"


def multicast_enabled() -> bool:
    """Whether the op may launch the 2-CTA multicast twins: not with ORIGAMI_NV_MULTICAST=0 in the environment (read
    once by the op, cpp/ops/ops_cuda.cpp; the model's records then have multicast_layouts 0, as here)."""
    return os.environ.get("ORIGAMI_NV_MULTICAST", "1")[:1] != "0"


def ping_pong_enabled() -> bool:
    """Whether the launchers may run the ping-pong schedules: not with ORIGAMI_NV_PINGPONG=0 in the environment (read
    once, cpp/kernels/gemm_args.hpp ping_pong_enabled; the model's records then have ping_pong_layouts 0, as here)."""
    return os.environ.get("ORIGAMI_NV_PINGPONG", "1") != "0"


def compiled_kernel_resources(dtype="float16", arch="sm_90") -> list[dict]:
    """Resources of every compiled kernel configuration for `dtype` on `arch`, one dict per config.

    Fields are those of origami::KernelResources (cpp/model/types.hpp): config (block_m, block_n,
    block_k, stages, warps, family "mma_sync"/"wgmma", swap_ab where true), dtype, threads, registers_per_thread,
    spill_store_bytes, spill_load_bytes, local_bytes, smem_bytes, arch, source ("ptxas").
    A configuration is compiled once per operand layout (A K/M-contiguous x B K/N-contiguous); the op
    may launch any of them, so each value here is the worst (largest) over those layout variants, and
    `layouts` is the bit mask of the compiled ones (cpp/model/types.hpp: layout_bit).
    `realign_layouts`: the mask of the layouts in which the config also has a realigning kernel (record
    `realign`: reads operands that break the 16-byte rule in place) without spill or local memory; those
    kernels do not enter the resource values (aligned problems never run them). 0 with ORIGAMI_NV_REALIGN=0.
    `multicast_layouts`: the same for the 2-CTA multicast twins (record `multicast`); 0 with ORIGAMI_NV_MULTICAST=0.
    `ping_pong_layouts`: the layouts whose kernel has a ping-pong schedule beside it (record `pingpong`, true where it
    compiled without spill); 0 with ORIGAMI_NV_PINGPONG=0.
    Returns [] when the build had no CUDA.
    """
    return merge_kernel_records(_table()["kernels"], dtype, arch, realign=realign_enabled(),
                                multicast=multicast_enabled(), ping_pong=ping_pong_enabled())


def _merge_key(c: dict) -> tuple:
    """One compiled config (TileConfig::same_kernel): a swapped-operand kernel (`swap_ab`) is a config of its own."""
    return (c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"], c["family"], bool(c.get("swap_ab")))


def merge_kernel_records(records: list, dtype="float16", arch="sm_90", realign: bool = True,
                         multicast: bool = True, ping_pong: bool = True) -> list[dict]:
    """compiled_kernel_resources over a given kernel table's records (a build's data/kernel_resources.json
    read elsewhere, e.g. by the offline re-prediction of stored measurements): the op's view of them.
    realign=False: the realigning kernels are left out (realign_layouts 0), as the op with ORIGAMI_NV_REALIGN=0;
    multicast=False: the multicast twins (multicast_layouts 0), as with ORIGAMI_NV_MULTICAST=0;
    ping_pong=False: the ping-pong schedules (ping_pong_layouts 0), as with ORIGAMI_NV_PINGPONG=0."""
    dt = _canonical_dtype(dtype)
    merged: dict[tuple, dict] = {}
    realigning, twins = [], []
    for r in records:
        if r["dtype"] != dt or not _arch_matches(r["arch"], arch):
            continue
        if r.get("realign"):
            realigning.append(r)
            continue
        if r.get("multicast"):
            twins.append(r)
            continue
        c = r["config"]
        key = _merge_key(c)
        m = merged.get(key)
        if m is None:
            merged[key] = dict(
                config=dict(block_m=c["block_m"], block_n=c["block_n"], block_k=c["block_k"],
                            stages=c["stages"], warps=c["warps"], family=c["family"],
                            **({"swap_ab": True} if c.get("swap_ab") else {})),
                dtype=dt, threads=r["threads"], registers_per_thread=r["registers_per_thread"],
                spill_store_bytes=r["spill_store_bytes"], spill_load_bytes=r["spill_load_bytes"],
                local_bytes=r["local_bytes"], smem_bytes=r["smem_bytes"], arch=r["arch"], source="ptxas",
                layouts=0, realign_layouts=0, multicast_layouts=0, ping_pong_layouts=0)
            m = merged[key]
        for f in ("threads", "registers_per_thread", "spill_store_bytes", "spill_load_bytes",
                  "local_bytes", "smem_bytes"):
            m[f] = max(m[f], r[f])
        m["layouts"] |= layout_bit(bool(r["a_k_contiguous"]), bool(r["b_k_contiguous"]))
        if ping_pong and r.get("pingpong"):
            m["ping_pong_layouts"] |= layout_bit(bool(r["a_k_contiguous"]), bool(r["b_k_contiguous"]))
    # A realigning kernel (a multicast twin) marks its layout in its config's record when it could run as compiled: no
    # spill, no local memory (the register filter's rule, model.cpp kernel_exclusion_reason; the op skips such a
    # kernel too).
    for field, variants in (("realign_layouts", realigning if realign else []),
                            ("multicast_layouts", twins if multicast else [])):
        for r in variants:
            c = r["config"]
            m = merged.get(_merge_key(c))
            if m is None or r["spill_store_bytes"] or r["spill_load_bytes"] or r["local_bytes"]:
                continue
            m[field] |= layout_bit(bool(r["a_k_contiguous"]), bool(r["b_k_contiguous"]))
    return [merged[k] for k in sorted(merged)]
