"""Benchmark suites: which GEMM sizes a run measures.

A size is C[M, N] = A[M, K] @ B[K, N] in one dtype. Every suite is a fixed, ordered list, so a
shard index always means the same sizes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

DTYPES = ("float16", "bfloat16")
_DTYPE_ALIASES = {"float16": "float16", "fp16": "float16", "half": "float16",
                  "bfloat16": "bfloat16", "bf16": "bfloat16"}


def canonical_dtype(name: str) -> str:
    try:
        return _DTYPE_ALIASES[str(name).lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; supported: {', '.join(DTYPES)}") from None


@dataclass(frozen=True)
class Size:
    M: int
    N: int
    K: int
    dtype: str = "float16"
    label: str = ""          # where the shape comes from (e.g. "llama3-8b q,o"), shown in reports

    def __post_init__(self):
        for name in ("M", "N", "K"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"GEMM size {name}={v!r} must be a positive integer")
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))

    @property
    def key(self) -> str:
        """Stable identifier used in raw files and for resume (label excluded)."""
        return f"{self.M}x{self.N}x{self.K}-{self.dtype}"

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    def to_dict(self) -> dict:
        return {"M": self.M, "N": self.N, "K": self.K, "dtype": self.dtype, "label": self.label}

    @staticmethod
    def from_dict(d: dict) -> "Size":
        return Size(int(d["M"]), int(d["N"]), int(d["K"]), d.get("dtype", "float16"), d.get("label", ""))

    def __str__(self) -> str:
        return f"({self.M}, {self.N}, {self.K})"


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    sizes: tuple = field(default_factory=tuple)


# Seed 000, table 7.2: the 23 sizes, in the seed's order.
SEED_SIZES = [
    (64, 64, 64), (128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
    (2048, 2048, 2048), (128, 4096, 4096), (128, 4096, 14336), (128, 14336, 4096),
    (64, 16384, 4096), (128, 8192, 4096), (8192, 128, 4096), (16384, 64, 4096),
    (128, 8192, 8192), (128, 8192, 28672), (128, 28672, 8192), (4096, 4096, 4096),
    (4096, 4096, 14336), (4096, 14336, 4096), (8192, 8192, 8192), (8192, 14336, 4096),
    (8192, 28672, 8192), (8192, 53248, 16384),
]

# Projection GEMMs of Llama-3 (config.json of meta-llama/Meta-Llama-3-8B and -70B):
#   8B : hidden 4096, 32 query heads, 8 kv heads, head_dim 128, intermediate 14336
#   70B: hidden 8192, 64 query heads, 8 kv heads, head_dim 128, intermediate 28672
# y[tokens, out] = x[tokens, in] @ W^T, so M = tokens, N = out features, K = in features:
#   q   : N = heads*128          K = hidden
#   kv  : N = 2*kv_heads*128     K = hidden   (k and v fused in one GEMM)
#   o   : N = hidden             K = heads*128
#   gate/up: N = intermediate    K = hidden   (one of the two; each is its own GEMM)
#   down: N = hidden             K = intermediate
# Shapes that coincide (q and o when heads*128 == hidden) are measured once, labelled with both.
LLAMA3 = {
    "llama3-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, intermediate=14336),
    "llama3-70b": dict(hidden=8192, heads=64, kv_heads=8, head_dim=128, intermediate=28672),
}
LLM_TOKENS = (1, 16, 128, 2048, 8192)


def llama3_projections(model: str) -> list[tuple[str, int, int]]:
    """[(projection name, N, K)] for one Llama-3 model, coinciding shapes merged."""
    p = LLAMA3[model]
    q_out = p["heads"] * p["head_dim"]
    shapes = [
        ("q", q_out, p["hidden"]),
        ("kv", 2 * p["kv_heads"] * p["head_dim"], p["hidden"]),
        ("o", p["hidden"], q_out),
        ("gate/up", p["intermediate"], p["hidden"]),
        ("down", p["hidden"], p["intermediate"]),
    ]
    merged: dict[tuple[int, int], list[str]] = {}
    for name, n, k in shapes:
        merged.setdefault((n, k), []).append(name)
    return [(",".join(names), n, k) for (n, k), names in merged.items()]


def _llm_sizes() -> list[Size]:
    out = []
    for model in LLAMA3:
        for proj, n, k in llama3_projections(model):
            for m in LLM_TOKENS:
                out.append(Size(m, n, k, "float16", f"{model} {proj}"))
    return out


# Sizes that are not multiples of 16 (or of 128): masked edges, K remainders, misaligned
# leading dimensions (the op's padded-copy path), primes and +-1 around powers of two.
ODD_SIZES = [
    (127, 129, 130), (1000, 1000, 1000), (1023, 1025, 1027), (4000, 4000, 4000),
    (4097, 4097, 4097), (12289, 1000, 4097), (100, 12289, 4096), (333, 4096, 12289),
    (8191, 8193, 1000), (1, 4097, 4099),
]

# For the end-to-end GPU test: small, fast, one aligned, one odd.
TINY_SIZES = [(128, 128, 128), (512, 512, 512), (1000, 1000, 1000)]

SUITES: dict[str, Suite] = {
    "seed": Suite("seed", "the 23 sizes of seed 000 table 7.2, fp16",
                  tuple(Size(m, n, k, "float16") for m, n, k in SEED_SIZES)),
    "seed-bf16": Suite("seed-bf16", "the 23 sizes of seed 000 table 7.2, bf16",
                       tuple(Size(m, n, k, "bfloat16") for m, n, k in SEED_SIZES)),
    "llm": Suite("llm", "Llama-3-8B/70B projection GEMMs (q, kv, o, gate/up, down), "
                        "M = tokens in {1, 16, 128, 2048, 8192}, fp16", tuple(_llm_sizes())),
    "odd": Suite("odd", "sizes that are not multiples of 16 or 128, fp16",
                 tuple(Size(m, n, k, "float16", "odd") for m, n, k in ODD_SIZES)),
    # Issue 6's speed targets: the Hopper-native family against cuBLAS at the large squares, both dtypes.
    "squares": Suite("squares", "4096^3 and 8192^3 in fp16 and bf16",
                     tuple(Size(n, n, n, dt) for dt in ("float16", "bfloat16") for n in (4096, 8192))),
    "tiny": Suite("tiny", "3 small sizes for the end-to-end GPU test, fp16",
                  tuple(Size(m, n, k, "float16") for m, n, k in TINY_SIZES)),
}


def get_suite(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; known suites: {', '.join(SUITES)}") from None


def parse_shard(spec: str | None) -> tuple[int, int]:
    """'i/n' with 0 <= i < n -> (i, n). None or '' -> (0, 1), the whole suite."""
    if not spec:
        return 0, 1
    try:
        i_s, n_s = str(spec).split("/")
        i, n = int(i_s), int(n_s)
    except ValueError:
        raise ValueError(f"--shard must look like i/n (0-based, e.g. 0/4), got {spec!r}") from None
    if n < 1 or not (0 <= i < n):
        raise ValueError(f"--shard {spec!r}: need n >= 1 and 0 <= i < n")
    return i, n


def shard_sizes(sizes, shard: tuple[int, int]) -> list[Size]:
    """The sizes of shard i of n. Sizes are dealt round-robin in order of decreasing FLOPs so
    every shard gets a similar share of the expensive ones; the result keeps suite order."""
    i, n = shard
    sizes = list(sizes)
    order = sorted(range(len(sizes)), key=lambda j: (-sizes[j].flops, j))
    mine = {j for pos, j in enumerate(order) if pos % n == i}
    return [s for j, s in enumerate(sizes) if j in mine]
