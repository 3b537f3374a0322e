# One-off probe (twenty-first session, issue 13): operands whose rows are 16-byte aligned but not on 128-byte lines
# (a leading dimension of 3000 fp16 elements: 6000 bytes) read in place by the wgmma kernels, against the same GEMM on
# copies of the operands with the rows padded to a multiple of 128 bytes, and the copies' own time. Run from the
# repository root after `pip install --no-build-isolation .`:
#   python3 benchmarks/results/probes/probe_pitch.py TAG > out.txt
# Per shape (fp16, nn and nt): cuBLAS in place; the model's pick in place; the pick's config (and the model's pick for
# the padded problem) on padded A, padded B, both; the copy of A and of B into padded buffers (torch copy_). CUDA graphs
# over rotating cold inputs (probe_bench.bench), two rounds in alternating order, the mean of the two medians; every
# output checked against fp32.
import sys
import torch
import origami_nv

exec(open(__file__.replace("probe_pitch.py", "probe_bench.py")).read())  # bench(fn, sets)
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
shapes = [(3000, 3000, 3000), (1000, 1000, 1000), (4000, 4000, 4000), (6000, 6000, 3000), (2000, 5000, 3000),
          (1500, 1500, 1500), (8000, 2000, 1000), (5000, 5000, 5000), (300, 3000, 3000), (3000, 300, 3000)]


def pad_rows(t):
    """A copy of 2-D t (row-major) whose rows start on 128-byte lines (pitch a multiple of 64 fp16 elements)."""
    r, c = t.shape
    pitch = -(-c // 64) * 64
    buf = torch.empty(r, pitch, dtype=t.dtype, device=t.device)
    view = buf[:, :c]
    view.copy_(t)
    return view


def cfg_of(sel):
    return {k: getattr(sel, k) for k in ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family",
                                         "split_k")}


for M, N, K in shapes:
    for layout in ("nn", "nt"):
        nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
        raw = [(torch.randn(M, K, device="cuda").half(),
                torch.randn(K, N, device="cuda").half() if layout == "nn" else torch.randn(N, K, device="cuda").half())
               for _ in range(min(nb, 48))]
        sets = [(a, b if layout == "nn" else b.t()) for a, b in raw]
        # padded copies: B's stored matrix (K x N row-major, or the N x K weight) padded, the view as the op sees it
        padded = [(pad_rows(a), pad_rows(b) if layout == "nn" else pad_rows(b).t()) for a, b in raw]
        a0, b0 = sets[0]
        ref = a0.float() @ b0.float()
        pick = cfg_of(origami_nv.select(M, N, K, "float16", layout=layout))
        fns = {
            "cublas": (torch.matmul, sets),
            "pick in place": (lambda a, b: origami_nv.matmul(a, b, config=pick), sets),
            "model in place": (origami_nv.matmul, sets),
            "pick, A and B padded": (lambda a, b: origami_nv.matmul(a, b, config=pick), padded),
            "model, A and B padded": (origami_nv.matmul, padded),
            "pick, A padded": (lambda a, b: origami_nv.matmul(a, b, config=pick), [(p[0], s[1]) for p, s in zip(padded, sets)]),
            "pick, B padded": (lambda a, b: origami_nv.matmul(a, b, config=pick), [(s[0], p[1]) for p, s in zip(padded, sets)]),
            "copy A": (lambda a, b: pad_rows(a), sets),
            "copy B": (lambda a, b: pad_rows(b if layout == "nn" else b.t()), sets),
        }
        for k, (f, ss) in fns.items():
            if k.startswith("copy"):
                continue
            out = f(*ss[0])
            err = ((out.float() - ref).norm() / ref.norm()).item()
            assert err < 2e-3, (M, N, K, layout, k, err)
        times = {k: [] for k in fns}
        order = list(fns)
        for rnd in range(2):
            for k in (order if rnd == 0 else order[::-1]):
                f, ss = fns[k]
                times[k].append(bench(f, ss) * 1e6)
        med = {k: sum(v) / len(v) for k, v in times.items()}
        cub = med["cublas"]
        print(f"{tag} {M}x{N}x{K} {layout} pick {origami_nv.select(M, N, K, 'float16', layout=layout)}: " +
              "; ".join(f"{k} {v:.2f} ({cub / v:.3f}x)" for k, v in med.items()), flush=True)
