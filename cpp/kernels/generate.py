#!/usr/bin/env python3
"""Generate one CUDA translation unit per kernel specialisation group, plus the registry table.

    generate.py --space cpp/model/config_space.def --out BUILD/generated [--filter REGEX] [--wgmma]

Families are plug-ins under cpp/kernels/families/: `mma_sync` and `simt` (fp32 on the CUDA cores) always,
`wgmma` when --wgmma is given and families/wgmma.py exists. A family module provides
    FAMILY (str), NVCC_FLAGS (list[str], extra flags for its TUs; -gencode/-arch flags among them
    replace the default CMAKE_CUDA_ARCHITECTURES: such TUs build in a separate object library),
    specializations(space) -> (specs, excluded):
        spec = {"name": TU name, "family": FAMILY, "nvcc_flags": [...], "kernels": [kernel, ...]}
        kernel = {"name": the extern "C" __global__ symbol (what ptxas reports), "launcher": the host
                  function `cudaError_t launcher(const origami::GemmArgs&)` defined by tu_text,
                  "family_enum", "block_m", "block_n", "block_k", "stages", "warps", "dtype" ("float16"...),
                  "dtype_enum", "a_k_contiguous", "b_k_contiguous", "threads", "smem_bytes",
                  "alignment_elems", "min_cc", optional "realign" (bool, default false: reads operands whose
                  rows are only element-aligned in place; alignment_elems then says how little it needs),
                  optional "multicast" (bool, default false: a 2-CTA cluster twin of the same config that
                  TMA-multicasts the B tile, KernelEntry::multicast), optional "swap_ab" (bool, default false:
                  the swapped-operand kernel, TileConfig::swap_ab; block_m/block_n are the problem's tile),
                  optional "pingpong" (dict: name, template_args, smem_bytes, threads of a second kernel of the
                  same config in the same TU, which the launcher runs instead where it pays; wgmma.py PINGPONG_TILES)}
        excluded = [((bm, bn, bk), reason), ...]  tiles of the space the family cannot run
    tu_text(spec) -> CUDA source defining the kernels and launchers of the spec.
The generator appends the registration function to each TU, writes kernel_table.cpp (which calls them
all), manifest.json (every kernel with its compile-time facts, read by collect_resources.py) and
sources.cmake (the TU list and per-TU flags). Files are rewritten only when their text changes, so
re-running CMake does not recompile unchanged kernels.

--filter REGEX (ORIGAMI_NV_KERNEL_FILTER) keeps only kernels whose name matches (re.search).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_config_space(path: str) -> dict:
    space = {}
    with open(path) as f:
        for line in f:
            line = line.split("//", 1)[0].strip()
            m = re.fullmatch(r"ORIGAMI_([A-Z_]+)\(([^)]*)\)", line)
            if m:
                space[m.group(1)] = [int(v) for v in m.group(2).split(",") if v.strip()]
    for key in ("BLOCK_M", "BLOCK_N", "BLOCK_K"):
        if key not in space:
            raise SystemExit(f"{path}: no ORIGAMI_{key}(...) line")
    return space


def adapt_entry_function_family(mod):
    """Adapter for a family module written against the entry-function interface (families/wgmma.py as
    first committed): specialisations() -> objects with .name/.block_m/... and render_tu(spec) defining
    `const KernelEntry& origami::<ns>::entry_<name>()`. Each of its TUs holds one kernel."""
    flags = list(getattr(mod, "NVCC_ARCH_FLAGS", []))

    class Adapted:
        FAMILY = mod.FAMILY
        NVCC_FLAGS = flags

        @staticmethod
        def specializations(space):
            specs = []
            for s in mod.specialisations():
                dt = {"fp16": "float16", "bf16": "bfloat16"}.get(s.dtype, s.dtype)
                k = dict(name=s.name, family=mod.FAMILY, block_m=s.block_m, block_n=s.block_n,
                         block_k=s.block_k, stages=s.stages, warps=s.warps, dtype=dt,
                         a_k_contiguous=s.a_k_major, b_k_contiguous=s.b_k_major, threads=s.threads,
                         smem_bytes=s.smem_bytes, alignment_elems=getattr(mod, "ALIGNMENT_ELEMS", 8),
                         min_cc=getattr(mod, "MIN_CC", 90))
                specs.append(dict(name=s.name, family=mod.FAMILY, kernels=[k], arch_flags=flags, obj=s,
                                  register_body=f"  out.push_back(origami::wgmma_gen::entry_{s.name}());"))
            return specs, []

        @staticmethod
        def tu_text(spec):
            return mod.render_tu(spec["obj"])

    return Adapted


def load_families(wgmma: bool):
    sys.path.insert(0, HERE)
    fams = [importlib.import_module("families.mma_sync"), importlib.import_module("families.simt")]
    if wgmma:
        if os.path.exists(os.path.join(HERE, "families", "wgmma.py")):
            mod = importlib.import_module("families.wgmma")
            if not hasattr(mod, "specializations") and hasattr(mod, "specialisations"):
                mod = adapt_entry_function_family(mod)
            fams.append(mod)
        else:
            print("generate.py: ORIGAMI_NV_WGMMA is ON but cpp/kernels/families/wgmma.py does not exist; "
                  "building the mma_sync family only", file=sys.stderr)
    return fams


def write_if_changed(path: str, text: str) -> None:
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def c_bool(v: bool) -> str:
    return "true" if v else "false"


def registration(spec: dict) -> str:
    lines = ["", "// ---- registration (written by cpp/kernels/generate.py) ----", "#include <vector>",
             f"void origami_register_{spec['name']}(std::vector<origami::KernelEntry>& out) {{"]
    if spec.get("register_body"):
        return "\n".join(lines + [spec["register_body"], "}", ""])
    for k in spec["kernels"]:
        lines += [
            "  {",
            "    origami::KernelEntry e{};",
            f"    e.config.block_m = {k['block_m']}; e.config.block_n = {k['block_n']}; e.config.block_k = {k['block_k']};",
            f"    e.config.stages = {k['stages']}; e.config.warps = {k['warps']}; e.config.family = {k['family_enum']};",
            f"    e.config.swap_ab = {c_bool(k.get('swap_ab', False))};",
            f"    e.dtype = {k['dtype_enum']};",
            f"    e.a_k_contiguous = {c_bool(k['a_k_contiguous'])}; e.b_k_contiguous = {c_bool(k['b_k_contiguous'])};",
            f"    e.kernel = reinterpret_cast<const void*>(&{k['name']});",
            f"    e.threads = {k['threads']}; e.smem_bytes = {k['smem_bytes']};",
            f"    e.alignment_elems = {k['alignment_elems']}; e.min_cc = {k['min_cc']};",
            f"    e.realign = {c_bool(k.get('realign', False))};",
            f"    e.multicast = {c_bool(k.get('multicast', False))};",
            *([f"    e.ping_pong_kernel = reinterpret_cast<const void*>(&{k['pingpong']['name']});"]
              if k.get("pingpong") else []),
            f"    e.launch = &{k['launcher']};",
            f"    e.name = \"{k['name']}\";",
            "    out.push_back(e);",
            "  }",
        ]
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--space", required=True, help="cpp/model/config_space.def")
    ap.add_argument("--out", required=True, help="output directory (in the build tree)")
    ap.add_argument("--filter", default="", help="regex on kernel names; empty = all")
    ap.add_argument("--wgmma", action="store_true", help="include the wgmma family if its module exists")
    ap.add_argument("--list", action="store_true", help="print the kernel names and exit")
    args = ap.parse_args(argv)

    space = parse_config_space(args.space)
    flt = re.compile(args.filter) if args.filter else None
    specs, excluded = [], []
    for fam in load_families(args.wgmma):
        s, e = fam.specializations(space)
        for spec in s:
            spec["tu_text"] = fam.tu_text
        specs += s
        excluded += [dict(family=fam.FAMILY, tile=list(t), reason=r) for t, r in e]

    if flt:
        kept = []
        for spec in specs:
            ks = [k for k in spec["kernels"] if flt.search(k["name"])]
            if ks:
                kept.append(dict(spec, kernels=ks))
        specs = kept

    if args.list:
        for spec in specs:
            for k in spec["kernels"]:
                print(k["name"])
        return 0

    os.makedirs(args.out, exist_ok=True)
    tus = []
    for spec in specs:
        text = ("// Generated by cpp/kernels/generate.py from cpp/model/config_space.def. Do not edit.\n"
                + spec["tu_text"](spec) + registration(spec))
        path = os.path.join(args.out, spec["name"] + ".cu")
        write_if_changed(path, text)
        tus.append((path, spec))
    keep = {os.path.basename(p) for p, _ in tus}
    for f in os.listdir(args.out):
        if f.endswith(".cu") and f not in keep:
            os.remove(os.path.join(args.out, f))

    table = ["// Generated by cpp/kernels/generate.py. Do not edit.", "#include <vector>",
             '#include "gemm_args.hpp"', ""]
    table += [f"void origami_register_{s['name']}(std::vector<origami::KernelEntry>& out);" for _, s in tus]
    table += ["", "namespace origami {", "namespace detail {",
              "std::vector<KernelEntry> build_kernel_table() {", "  std::vector<KernelEntry> out;",
              f"  out.reserve({sum(len(s['kernels']) for _, s in tus)});"]
    table += [f"  origami_register_{s['name']}(out);" for _, s in tus]
    table += ["  return out;", "}", "}  // namespace detail", "}  // namespace origami", ""]
    write_if_changed(os.path.join(args.out, "kernel_table.cpp"), "\n".join(table))

    manifest = dict(
        filter=args.filter,
        families=sorted({s["family"] for _, s in tus}),
        kernels=[{k: v for k, v in kern.items() if k not in ("ctype",)} | {"tu": s["name"]}
                 for _, s in tus for kern in s["kernels"]],
        excluded=excluded,
    )
    write_if_changed(os.path.join(args.out, "manifest.json"), json.dumps(manifest, indent=1) + "\n")

    # TUs of the default targets (CMAKE_CUDA_ARCHITECTURES) go in ORIGAMI_KERNEL_TUS; a family that
    # names its own targets (arch_flags, e.g. sm_90a) gets its own list, compiled in a separate object
    # library with exactly those flags (CUDA_ARCHITECTURES is per target in CMake, not per source).
    def is_arch_flag(f):
        return f.startswith(("-gencode", "--generate-code", "-arch", "--gpu-architecture"))

    for _, s in tus:
        if not s.get("arch_flags"):
            s["arch_flags"] = [f for f in s.get("nvcc_flags", []) if is_arch_flag(f)]
        s["other_flags"] = [f for f in s.get("nvcc_flags", []) if not is_arch_flag(f)]
    cm = ["# Generated by cpp/kernels/generate.py. Do not edit.", "set(ORIGAMI_KERNEL_TUS"]
    cm += [f'  "{p}"' for p, s in tus if not s.get("arch_flags")]
    cm += [")"]
    arch_groups = {}
    for p, s in tus:
        if s.get("arch_flags"):
            arch_groups.setdefault(s["family"], (s["arch_flags"], []))[1].append(p)
    cm.append("set(ORIGAMI_KERNEL_ARCH_FAMILIES " + " ".join(sorted(arch_groups)) + ")")
    for fam, (flags, paths) in sorted(arch_groups.items()):
        cm.append(f"set(ORIGAMI_KERNEL_TUS_{fam}")
        cm += [f'  "{p}"' for p in paths]
        cm.append(")")
        cm.append(f'set(ORIGAMI_KERNEL_FLAGS_{fam} {" ".join(flags)})')
    for p, s in tus:
        if s["other_flags"]:
            cm.append(f'set_source_files_properties("{p}" PROPERTIES COMPILE_OPTIONS "{";".join(s["other_flags"])}")')
    write_if_changed(os.path.join(args.out, "sources.cmake"), "\n".join(cm) + "\n")
    n = sum(len(s["kernels"]) for _, s in tus)
    print(f"generate.py: {len(tus)} translation units, {n} kernels, {len(excluded)} tiles excluded"
          + (f" (filter {args.filter!r})" if args.filter else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
