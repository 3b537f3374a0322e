"""Re-predict stored measurements with the INSTALLED model (no GPU): `bench report --repredict`.

The raw records keep the predicted cycles of the model a suite was measured with. After the model
changes, the report should show the model in the repository: this module rewrites, for the
origami_nv system, every timed config's predicted_cycles and the pick (the installed model's
pick; its time = its own measurement through the op when a `bench run` timed it, otherwise the
brute-force time of the same compiled kernel, since it was not timed through
the op). The selector is built from the kernels' resources recorded with each config (so no
compiled kernel list is needed) and the GPU table row the run used.
"""
from __future__ import annotations

from . import configs as C

SYSTEM = "origami"


def _kid(cfg: dict) -> str:
    return C.kernel_id(C.normalize(cfg))


def _resources(core, cfg: dict, dtype: str, res: dict):
    tc = core.TileConfig(cfg["block_m"], cfg["block_n"], cfg["block_k"], group_size_m=1,
                         stages=cfg["stages"], warps=cfg["warps"], family=cfg["family"],
                         swap_ab=bool(cfg.get("swap_ab", False)))
    return core.KernelResources(
        tc, dtype=dtype, threads=int(res["threads"]), registers_per_thread=int(res["registers_per_thread"]),
        spill_store_bytes=int(res.get("spill_store_bytes") or 0), spill_load_bytes=int(res.get("spill_load_bytes") or 0),
        local_bytes=int(res.get("local_bytes") or 0), smem_bytes=int(res["smem_bytes"]),
        arch=str(res.get("arch", "")), source="raw bench record")


def load_kernel_table(path) -> list[dict]:
    """The kernel records of a build's data/kernel_resources.json (every compiled kernel per dtype, operand
    layout and architecture, with ptxas resources), e.g. reports/kernel_resources_sm90.json."""
    import json
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    kernels = table.get("kernels") if isinstance(table, dict) else None
    if not kernels:
        raise ValueError(f"{path}: not a kernel table (no 'kernels' list of a build's data/kernel_resources.json)")
    return kernels


def _op_kernels(table: list[dict], dtypes) -> dict[tuple, object]:
    """The kernels as the op's selector sees them (origami_nv._kernels.compiled_kernel_resources over this
    table: the worst resources over a config's layout variants and the mask of its compiled layouts, so a
    problem in a layout the kernel lacks pays the operand copy as on the GPU)."""
    from origami_nv._api import _resources_from_dict
    from origami_nv._kernels import merge_kernel_records
    out = {}
    for dt in sorted(dtypes):
        for r in merge_kernel_records(table, dt, "sm_90"):
            out[(dt, C.compiled_kernel_id(C.normalize(r["config"])))] = _resources_from_dict(r)
    return out


def every_kernel_options(split_k: bool):
    """nv ModelOptions with every compiled kernel a candidate (ModelOptions.mma_sync_dominated_by_wgmma off), for the
    metrics over every timed launch (Kendall tau, log errors): that rule narrows which kernels the pick is chosen
    among, not their predictions. The one definition of it, used here and by benchmarks/fit_model.py."""
    from origami_nv import _core  # the installed model, imported where used as in repredict()

    o = _core.ModelOptions("nv")
    o.split_k = split_k
    o.mma_sync_dominated_by_wgmma = False
    return o


def repredict(records: list[dict], gpu: str | None = None,
              kernel_table: list[dict] | None = None) -> tuple[list[dict], dict]:
    """(new records, info). Records of other systems are returned unchanged. info names the GPU
    row, the number of configs re-predicted and the picks that changed.
    kernel_table: the kernel records of the build the data was measured with (load_kernel_table); without
    one, the installed build's table, and without that (a build with no CUDA) the resources recorded with
    each timed launch, which carry no operand layouts (every kernel then counts as compiled for every
    layout, so the re-predicted pick can be a kernel the op would first copy an operand for)."""
    from origami_nv import _core  # the installed model
    from origami_nv import _kernels

    metas = [r for r in records if r.get("kind") == "meta"]
    if gpu is None:
        for m in reversed(metas):
            d = (m.get("systems") or {}).get(SYSTEM) or {}
            if d.get("gpu"):
                gpu = d["gpu"]
                break
    if not gpu:
        raise ValueError("--repredict: no GPU table row recorded in the raw data's meta; pass --repredict-gpu")
    hw = _core.resolve_hardware(None, gpu, "")

    kernels: dict[tuple, object] = {}
    newest: dict[tuple, float] = {}
    for r in records:
        if r.get("system") == SYSTEM and r.get("kind") == "config" and r.get("config") and r.get("resources"):
            dtype = (r.get("size_info") or {}).get("dtype", "float16")
            # One entry per compiled kernel: its split launches are the same kernel (a duplicate would take
            # one of the selector's split_k_candidate_kernels slots and hide another kernel's splits). The
            # newest measurement's resources: a kernel change can move registers (the mma.sync edge loop of
            # 848a8cb took 16x256x32 s4 w4 from 146 to 158), and the op selects with the kernels it has now.
            key = (dtype, C.compiled_kernel_id(C.normalize(r["config"])))
            t = float(r.get("t") or 0.0)
            if key not in kernels or t > newest[key]:
                kernels[key] = _resources(_core, C.normalize(r["config"]), dtype, r["resources"])
                newest[key] = t
    if not kernels:
        raise ValueError("--repredict: the raw data has no origami config records with kernel resources")
    table = kernel_table if kernel_table else _kernels.kernel_records()
    if table:
        op_kernels = _op_kernels(table, {dt for dt, _ in kernels})
        if not op_kernels:
            raise ValueError("--repredict: the kernel table has no sm_90 kernels of the raw data's dtypes")
        resources_from = ("kernel table given" if kernel_table else "the installed build's kernel table") + \
            f" ({len(op_kernels)} kernels, with their compiled operand layouts)"
        kernels = op_kernels
    else:
        resources_from = "the resources recorded with the timed launches (no operand layouts: no kernel table)"
    # Split-K launches are ranked only where the raw data timed some (measurements before split-K existed
    # cannot judge a split pick): ModelOptions.split_k.
    options = _core.ModelOptions("nv")
    options.split_k = any(r.get("system") == SYSTEM and r.get("kind") == "config" and r.get("config")
                          and C.split_k_of(r["config"]) > 1 for r in records)
    sel = _core.Selector(hw, list(kernels.values()), options)
    # The predictions of every timed kernel (tau, errors) come from a selector with every compiled kernel a
    # candidate: ModelOptions.mma_sync_dominated_by_wgmma only narrows what the pick is chosen among.
    sel_all = _core.Selector(hw, list(kernels.values()), every_kernel_options(options.split_k))

    b_layout = C.run_b_layout(metas)
    # per size: the installed model's ranking (phase 1) and pick (both phases)
    sizes: dict[str, dict] = {}
    for r in records:
        if r.get("system") == SYSTEM and r.get("size") and r.get("size_info") and r["size"] not in sizes:
            si = r["size_info"]
            M, N, K, dt = int(si["M"]), int(si["N"]), int(si["K"]), si.get("dtype", "float16")
            # The problem the kernel ran: batch count and operand layout (the llm suite's runs used B = W.t()
            # for every size: "nt", recorded in the meta's timing.b_layout).
            batch, layout = int(si.get("batch", 1) or 1), C.launched_layout(si.get("layout"), b_layout)
            al = C.operand_alignment(M, N, K, layout, dt, batch)  # what the op copies first
            pred = {}
            for cfg, cycles in sel_all.rank(M, N, K, dt, batch=batch, layout=layout, **al):
                pred.setdefault(_kid(cfg), float(cycles))
            pick = C.normalize(sel.select_config(M, N, K, dt, batch=batch, layout=layout, **al))
            sizes[r["size"]] = {"pred": pred, "pick": pick}

    # latest ok timing of every kernel per size (the brute force's). A cut-off timed by one eager probe is a
    # "slower than the cut-off" for the ranking, not a time of the launch: it cannot stand for the pick's time.
    timed: dict[tuple, dict] = {}
    for r in records:
        if r.get("system") == SYSTEM and r.get("kind") == "config" and r.get("status") == "ok" and r.get("time_s"):
            key = (r["size"], _kid(r["config"]))
            if r.get("cut_off") and r.get("method") == "eager-probe":
                timed.pop(key, None)
            else:
                timed[key] = r

    out, n_pred, changed, unmeasured, from_op = [], 0, [], [], 0
    old_pick = {}
    for r in records:
        if r.get("system") != SYSTEM or r.get("size") not in sizes:
            out.append(r)
            continue
        s = sizes[r["size"]]
        if r.get("kind") == "config" and r.get("config"):
            r = dict(r, predicted_cycles=s["pred"].get(_kid(r["config"])))
            n_pred += 1
            out.append(r)
        elif r.get("kind") == "pick":
            old_pick[r["size"]] = r
        else:
            out.append(r)
    compiled = set(kernels)  # (dtype, compiled kernel id): what a pick through the op can have launched
    for size, s in sizes.items():
        kid = _kid(s["pick"])
        src = timed.get((size, kid))
        old = old_pick.get(size)
        if old is not None and old.get("config"):
            ran = C.pick_config_as_run(old, compiled)  # (a swapped pick recorded unswapped before 2026-12-07)
            if ran != C.normalize(old["config"]):
                old = dict(old, config=ran, config_id=C.config_id(ran))
            if _kid(ran) != kid:
                changed.append(size)
        si = (old or {}).get("size_info") or {}
        trusted = old is not None and (not si or C.pick_record_trusted(
            old, int(si["M"]), int(si["N"]), int(si["K"]), C.launched_layout(si.get("layout"), b_layout),
            si.get("dtype", "float16"), int(si.get("batch", 1) or 1)))
        if trusted and old.get("status") == "ok" and old.get("config") and _kid(old["config"]) == kid:
            # The installed model's pick was timed through the op (a `bench run` after the model change):
            # keep that measurement, with the installed model's prediction.
            rec = dict(old, predicted_cycles=s["pred"].get(kid))
            from_op += 1
        elif src is None:
            unmeasured.append(size)
            rec = {"kind": "pick", "size": size, "system": SYSTEM, "item": "pick", "status": "unmeasured",
                   "error": f"repredicted pick {C.config_id(s['pick'])} was not measured by the brute force",
                   "size_info": (old or {}).get("size_info")}
        else:
            rec = {k: v for k, v in src.items() if k not in ("item", "kind", "config", "config_id", "predicted_cycles")}
            rec.update(kind="pick", item="pick", config=s["pick"], config_id=C.config_id(s["pick"]),
                       predicted_cycles=s["pred"].get(kid), via="repredicted: brute-force time of the same kernel",
                       selection=(old or {}).get("selection") or {})
        out.append(rec)
    info = {"gpu": gpu, "configs": n_pred, "sizes": len(sizes), "kernels": len(kernels), "picks_changed": changed, "picks_unmeasured": unmeasured,
            "picks_timed_through_op": from_op, "resources_from": resources_from}
    return out, info
