#!/usr/bin/env python3
"""Collect the ptxas reports of the kernel TUs into kernel_resources.json (one record per kernel).

    collect_resources.py --manifest generated/manifest.json --reports DIR --out kernel_resources.json

Every kernel of the manifest must appear in some report, for each real (SASS) architecture compiled,
or the build fails: a kernel whose resources are unknown could not be filtered by the selector.
ptxas reports, per entry function and architecture:
    ptxas info    : Compiling entry function 'NAME' for 'sm_90'
    ptxas info    : Function properties for NAME
        S bytes stack frame, SS bytes spill stores, SL bytes spill loads
    ptxas info    : Used R registers, used 1 barriers, ...
The shared memory of these kernels is dynamic (ptxas reports none); smem_bytes comes from the generator
(static_asserted equal to the kernel's own constant in each TU).
"""
import argparse
import glob
import json
import os
import re
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")


def parse_report(text: str):
    """{(name, arch): {registers_per_thread, local_bytes, spill_store_bytes, spill_load_bytes}}"""
    out, cur = {}, None
    for line in text.splitlines():
        m = ENTRY.search(line)
        if m:
            cur = (m.group(1), m.group(2))
            out[cur] = dict(registers_per_thread=0, local_bytes=0, spill_store_bytes=0, spill_load_bytes=0)
            continue
        if cur is None:
            continue
        m = PROPS.search(line)
        if m:
            out[cur].update(local_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                            spill_load_bytes=int(m.group(3)))
            continue
        m = USED.search(line)
        if m:
            out[cur]["registers_per_thread"] = int(m.group(1))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--reports", required=True, help="directory searched recursively for *.ptxas.txt")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    manifest = json.load(open(args.manifest))
    found, by_tu = {}, {}
    for path in glob.glob(os.path.join(args.reports, "**", "*.ptxas.txt"), recursive=True):
        with open(path) as f:
            rep = parse_report(f.read())
        found.update(rep)
        tu = os.path.basename(path).split(".cu.", 1)[0]
        by_tu[tu] = rep
    tu_sizes = {}
    for k in manifest["kernels"]:
        tu_sizes[k["tu"]] = tu_sizes.get(k["tu"], 0) + 1
    records, missing = [], []
    for k in manifest["kernels"]:
        hits = {arch: (name, r) for (name, arch), r in found.items() if name == k["name"]}
        if not hits and tu_sizes[k["tu"]] == 1 and k["tu"] in by_tu:
            # A one-kernel TU whose kernel is a template (mangled name): its report's entries are it.
            for (name, arch), r in by_tu[k["tu"]].items():
                hits[arch] = (name, r)
        if not hits:
            missing.append(k["name"])
            continue
        # The ping-pong schedule compiled beside the kernel (manifest "pingpong", KernelEntry::ping_pong_kernel): the
        # record says the config has one where ptxas reports it without spill or local memory (the register
        # filter's rule), as realign / multicast say it of their kernels.
        pp = k.get("pingpong")
        pp_ok = {arch: not (r["spill_store_bytes"] or r["spill_load_bytes"] or r["local_bytes"])
                 for (name, arch), r in found.items() if name == pp["name"]} if pp else {}
        if pp and not pp_ok:
            missing.append(pp["name"])
            continue
        for arch, (ptxas_name, r) in sorted(hits.items()):
            records.append(dict(
                name=k["name"], family=k["family"],
                config=dict(block_m=k["block_m"], block_n=k["block_n"], block_k=k["block_k"],
                            stages=k["stages"], warps=k["warps"], family=k["family"],
                            **({"swap_ab": True} if k.get("swap_ab") else {})),
                dtype=k["dtype"], a_k_contiguous=k["a_k_contiguous"], b_k_contiguous=k["b_k_contiguous"],
                realign=bool(k.get("realign", False)), multicast=bool(k.get("multicast", False)),
                **({"pingpong": pp_ok.get(arch, False)} if pp else {}),
                alignment_elems=k.get("alignment_elems"),
                threads=k["threads"], smem_bytes=k["smem_bytes"], arch=arch, source="ptxas",
                ptxas_name=ptxas_name, **r))
    if missing:
        print(f"collect_resources.py: no ptxas report for {len(set(missing))} kernels, e.g. {missing[:3]}",
              file=sys.stderr)
        return 1
    doc = dict(note="One record per compiled kernel and SASS architecture, from the build's -Xptxas -v "
                    "reports (registers, spills, stack) and the generator (threads, dynamic shared memory).",
               filter=manifest.get("filter", ""), excluded=manifest.get("excluded", []), kernels=records)
    text = json.dumps(doc, indent=1) + "\n"
    if not os.path.exists(args.out) or open(args.out).read() != text:
        with open(args.out, "w") as f:
            f.write(text)
    print(f"collect_resources.py: {len(records)} kernel records -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
