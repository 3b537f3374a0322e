"""Does the SM clock under a sustained tensor-core GEMM depend on the operands' data (the power the tensor cores draw)?

Twenty-seventh session. The nv model converts predicted cycles to seconds with `sustained_clock_mhz`, which the
calibration measures under an mma.sync load whose operands are constants. Compute-bound two-consumer wgmma launches at
full M run at 0.72-0.80 of the wgmma peak in those cycles (both GPUs' gen-train), the same tiles at M = 64 (half the
tile's rows empty) at 0.90-0.94. If a GEMM on random data runs at a lower clock than one on constants, that is the
reason. cuBLAS (torch.matmul) is the load: no build needed. nvidia-smi samples the clock and power every 50 ms.

    python benchmarks/results/probes/probe_tensor_clock.py [--seconds 2.5]
"""
import argparse
import subprocess
import time

import torch


def sample_smi() -> subprocess.Popen:
    return subprocess.Popen(
        ["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active",
         "--format=csv,noheader,nounits", "-lms", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def run_case(name: str, a: torch.Tensor, b: torch.Tensor, seconds: float) -> None:
    for _ in range(3):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    # time one matmul (median of several, events) on this data
    times = []
    for _ in range(10):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        torch.matmul(a, b)
        e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1))
    ms = sorted(times)[len(times) // 2]
    reps = max(1, int(seconds * 1e3 / ms))
    p = sample_smi()
    time.sleep(0.2)
    t0 = time.time()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(reps):
        torch.matmul(a, b)
    e1.record()
    torch.cuda.synchronize()
    wall = time.time() - t0
    p.terminate()
    out = p.communicate()[0].strip().splitlines()
    # keep the samples of the busy window's second half (clocks settled)
    rows = []
    for line in out:
        f = [x.strip() for x in line.split(",")]
        try:
            rows.append((float(f[1]), float(f[2]), float(f[3]), f[4]))
        except (ValueError, IndexError):
            pass
    half = rows[len(rows) // 3: -2] if len(rows) > 6 else rows
    M, K = a.shape[-2], a.shape[-1]
    N = b.shape[-1]
    tflops = 2.0 * M * N * K * reps / (e0.elapsed_time(e1) * 1e-3) / 1e12
    if half:
        clk = sorted(r[0] for r in half)[len(half) // 2]
        pw = sorted(r[1] for r in half)[len(half) // 2]
        tmp = max(r[2] for r in half)
        reasons = sorted({r[3] for r in half})
    else:
        clk = pw = tmp = float("nan")
        reasons = []
    print(f"{name:34s} {M}x{N}x{K} {str(a.dtype)[6:]:9s} one {ms * 1e3:8.1f} us  sustained {tflops:6.1f} TFLOP/s  "
          f"SM clock {clk:6.0f} MHz  power {pw:6.1f} W  max temp {tmp:4.0f} C  throttle {reasons}  "
          f"({len(half)} samples, {reps} reps, {wall:.1f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.5)
    args = ap.parse_args()
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    for dtype in (torch.float16, torch.bfloat16):
        for (M, N, K) in ((8192, 8192, 8192), (4096, 4096, 4096)):
            rnd_a = torch.randn(M, K, device="cuda", dtype=dtype)
            rnd_b = torch.randn(K, N, device="cuda", dtype=dtype)
            half_a = rnd_a.clone()
            half_a[M // 2:] = 0  # half the rows zero: what a 128-row tile sees at M = 64
            alt = [("random", rnd_a, rnd_b),
                   ("constant (ones x 1/64)", torch.ones_like(rnd_a), torch.full_like(rnd_b, 1 / 64)),
                   ("zeros", torch.zeros_like(rnd_a), torch.zeros_like(rnd_b)),
                   ("random, half of A's rows zero", half_a, rnd_b),
                   ("random again", rnd_a, rnd_b)]
            for name, a, b in alt:
                run_case(name, a, b, args.seconds)
            del rnd_a, rnd_b, half_a, alt
            torch.cuda.empty_cache()
            time.sleep(1.0)


if __name__ == "__main__":
    main()
