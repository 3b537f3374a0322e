# Companion of probe_tf32_rs_swap.cu (issue 15, eighteenth session; not yet run): cuBLAS's TF32 time for a @ b with
# B row-major at the probe's shapes, torch.matmul with TF32 allowed, timed as the probe times its kernel (CUDA events
# around one call, median of 20 after 3 warm-up calls; fresh random operands).
#   python benchmarks/results/probes/probe_tf32_rs_swap_cublas.py
import torch

SHAPES = [(1, 4096, 4096), (16, 4096, 4096), (64, 16384, 4096), (128, 4096, 4096), (128, 4096, 14336),
          (128, 14336, 4096), (128, 8192, 8192), (128, 28672, 8192)]


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    print(f"# {torch.cuda.get_device_name()}: torch.matmul (cuBLAS) TF32, a @ b, B row-major")
    for M, N, K in SHAPES:
        a = torch.randn(M, K, device="cuda")
        b = torch.randn(K, N, device="cuda")
        for _ in range(3):
            a @ b
        ts = []
        for _ in range(20):
            e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True)
            e0.record()
            a @ b
            e1.record()
            e1.synchronize()
            ts.append(e0.elapsed_time(e1) * 1e3)
        ts.sort()
        print(f"{M:5d} x {N:6d} x {K:6d}  cuBLAS TF32 {ts[len(ts) // 2]:8.1f} us")


if __name__ == "__main__":
    main()
