"""pytest entry of the A/BF benchmarks (benchmarks/METHOD.md).

    pytest benchmarks/ --gpu-bench --suite seed [--shard i/n] [--bench-out reports] [--time-budget 400]

Without --gpu-bench every benchmark is skipped with a reason: they need a GPU and run for minutes.
"""
import pytest


def pytest_addoption(parser):
    g = parser.getgroup("origami_nv benchmarks")
    g.addoption("--gpu-bench", action="store_true", default=False,
                help="run the A/BF benchmark suites (needs a CUDA GPU)")
    g.addoption("--suite", default="seed", help="suite to run: seed, seed-bf16, llm, odd, tiny (default seed)")
    g.addoption("--shard", default=None, help="i/n: run shard i (0-based) of n")
    g.addoption("--bench-out", default="reports", help="report folder (default ./reports)")
    g.addoption("--time-budget", type=float, default=None, help="stop cleanly after this many seconds")
    g.addoption("--timing", default="rotate", choices=("rotate", "flush", "warm"), help="cold-cache method")
    g.addoption("--bf-limit", type=int, default=None, help="partial brute force: pick + N best-predicted")
    g.addoption("--no-seed", action="store_true", default=False, help="skip the seed's Triton system")


@pytest.fixture
def bench_args(request):
    c = request.config
    if not c.getoption("--gpu-bench"):
        pytest.skip("benchmark: pass --gpu-bench to run it (needs a CUDA GPU; minutes per suite)")
    args = ["run", "--suite", c.getoption("--suite"), "--out", c.getoption("--bench-out"),
            "--timing", c.getoption("--timing")]
    if c.getoption("--shard"):
        args += ["--shard", c.getoption("--shard")]
    if c.getoption("--time-budget") is not None:
        args += ["--time-budget", str(c.getoption("--time-budget"))]
    if c.getoption("--bf-limit") is not None:
        args += ["--bf-limit", str(c.getoption("--bf-limit"))]
    if c.getoption("--no-seed"):
        args += ["--no-seed"]
    return args
