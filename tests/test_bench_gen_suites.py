"""The generalisation data sets (issue 11): fixed, seeded, bounded, every class present, train and valid
disjoint; Size keys with batch and layout; the split-K brute-force pass of the origami system. CPU only."""
import pytest

from origami_nv.bench import configs as C
from origami_nv.bench.suites import (GEN_CLASSES, GEN_MAX_BYTES, GEN_MAX_FLOP, SUITES, Size, _gen_sizes,
                                     size_class)


def test_old_keys_unchanged_new_keys_suffixed():
    assert Size(1, 4096, 4096, "float16").key == "1x4096x4096-float16"  # the committed raw data's keys
    assert Size(1, 4096, 4096, "float16", layout="nt").key == "1x4096x4096-float16-nt"
    assert Size(512, 512, 64, "bfloat16", batch=256).key == "512x512x64-bfloat16-b256"
    assert Size(512, 512, 64, "float16", batch=8, layout="tt").key == "512x512x64-float16-b8-tt"
    s = Size(512, 512, 64, "float16", "x", 8, "nt")
    assert Size.from_dict(s.to_dict()) == s and s.flops == 2 * 512 * 512 * 64 * 8
    assert Size.from_dict({"M": 2, "N": 3, "K": 4}).batch == 1  # records written before batch existed
    with pytest.raises(ValueError, match="layout"):
        Size(1, 2, 3, layout="nx")
    with pytest.raises(ValueError, match="batch"):
        Size(1, 2, 3, batch=0)


@pytest.mark.parametrize("which", ["train", "valid"])
def test_gen_suites_are_fixed_bounded_and_cover_every_class(which):
    a, b = _gen_sizes(which), _gen_sizes(which)
    assert [s.key for s in a] == [s.key for s in b]  # the same list every time (seeded)
    suite = SUITES[f"gen-{which}"]
    assert [s.key for s in suite.sizes] == [s.key for s in a]
    assert 100 <= len(a) <= 160
    assert len({s.key for s in a}) == len(a)
    classes = {size_class(s) for s in a}
    assert classes == set(GEN_CLASSES)
    for s in a:
        assert s.flops <= GEN_MAX_FLOP and 2 * s.batch * (s.M * s.K + s.K * s.N + s.M * s.N) <= GEN_MAX_BYTES
    assert {s.dtype for s in a} == {"float16", "bfloat16"} and {s.layout for s in a} == {"nn", "nt"}


def test_train_and_valid_do_not_share_sizes_or_families():
    train, valid = SUITES["gen-train"].sizes, SUITES["gen-valid"].sizes
    assert not {s.key for s in train} & {s.key for s in valid}
    fam = lambda sizes: {s.label.split(" ")[0] for s in sizes if not s.label.startswith("random")}  # noqa: E731
    assert not fam(train) & fam(valid)


@pytest.mark.parametrize("which,earlier", [("test", ("gen-train", "gen-valid")),
                                           ("holdout", ("gen-train", "gen-valid", "gen-test"))])
def test_later_sets_are_fixed_and_share_nothing_with_earlier_ones(which, earlier):
    # gen-test and gen-holdout (each drawn after every fit): their own seed, families and token counts; no size or
    # family of an earlier set; every class of the reports and the short-K draws; bounded like the others.
    a, b = _gen_sizes(which), _gen_sizes(which)
    assert [s.key for s in a] == [s.key for s in b] == [s.key for s in SUITES[f"gen-{which}"].sizes]
    assert 100 <= len(a) <= 160 and len({s.key for s in a}) == len(a)
    assert {size_class(s) for s in a} == set(GEN_CLASSES)
    assert any(s.label == "random short_k" and s.K <= 512 for s in a)
    for s in a:
        assert s.flops <= GEN_MAX_FLOP and 2 * s.batch * (s.M * s.K + s.K * s.N + s.M * s.N) <= GEN_MAX_BYTES
    fam = lambda sizes: {s.label.split(" ")[0] for s in sizes if not s.label.startswith("random")}  # noqa: E731
    for other in earlier:
        assert not {s.key for s in a} & {s.key for s in SUITES[other].sizes}
        assert not fam(a) & fam(SUITES[other].sizes)


def test_size_class_rules():
    assert size_class(Size(1, 4096, 4096)) == "decode"
    assert size_class(Size(333, 4096, 4096)) == "small_m"
    assert size_class(Size(768, 768, 65536)) == "long_k"
    assert size_class(Size(3000, 3000, 3000)) == "odd"
    assert size_class(Size(4096, 4096, 4096)) == "large"
    assert size_class(Size(512, 512, 64, batch=64)) == "batched"


class _FakeOrigami:
    """The parts of OrigamiSystem.extra_candidates that need no GPU: the model's ranking with its slots."""
    from origami_nv.bench.systems import OrigamiSystem as _S
    SPLIT_BF_KERNELS = 2
    extra_candidates = _S.extra_candidates
    _problem = _S._problem

    def __init__(self):
        self.b_layout = "row"

    def _rank(self, size):
        return [(C.normalize(dict(block_m=64, block_n=256, block_k=64, stages=4, warps=8, family="wgmma",
                                  group_size_m=12, split_k=4)), 1000.0)]

    def _rank_breakdowns(self, size):
        cfgs = [dict(block_m=64, block_n=256, block_k=64, stages=4, warps=8, family="wgmma"),
                dict(block_m=16, block_n=64, block_k=64, stages=6, warps=1, family="mma_sync"),
                dict(block_m=128, block_n=128, block_k=64, stages=6, warps=12, family="wgmma")]
        slots = [132, 132 * 4, 132]
        return [((C.normalize(dict(c, group_size_m=12)), s), 0.0) for c, s in zip(cfgs, slots)]


def test_split_brute_force_pass_times_the_fastest_kernels_at_every_split():
    size = Size(1, 4096, 4096)
    sysm = _FakeOrigami()
    mk = lambda **c: C.normalize(dict(c, group_size_m=12))  # noqa: E731
    fast = mk(block_m=64, block_n=256, block_k=64, stages=4, warps=8, family="wgmma")
    mid = mk(block_m=16, block_n=64, block_k=64, stages=6, warps=1, family="mma_sync")
    slow = mk(block_m=128, block_n=128, block_k=64, stages=6, warps=12, family="wgmma")
    measured = {C.config_id(fast): (1e-5, fast), C.config_id(mid): (2e-5, mid), C.config_id(slow): (9e-5, slow),
                C.config_id(dict(fast, split_k=4)): (0.9e-5, dict(fast, split_k=4))}
    more = sysm.extra_candidates(size, measured)
    ids = [C.kernel_id(c.config) for c in more]
    assert ids and len(ids) == len(set(ids))
    # only the 2 fastest unsplit kernels, never the slow one, never a launch already timed
    assert all(c.config["block_m"] in (64, 16) for c in more)
    assert C.kernel_id(dict(fast, split_k=4)) not in ids
    # the small splits and the wave-filling ones (64x256: 16 tiles on 132 slots -> 8, 16; capped at 32 = 64 k-tiles / 2)
    assert {c.config["split_k"] for c in more if c.config["block_m"] == 64} >= {2, 3, 8, 16}
    assert all(c.config["split_k"] <= 4096 // c.config["block_k"] // 2 for c in more)
    # the model's prediction travels with a launch it ranked
    assert all(c.predicted_cycles is None for c in more)  # the fake ranks only sk4, which was timed


@pytest.mark.parametrize("which", ["train", "valid"])
def test_gen_fp32_suites_are_fixed_bounded_disjoint_and_cover_every_class(which):
    # Issue 15's fit / validation sets: float32 only, every class, the fp32 flop bound, no size in both.
    from origami_nv.bench.suites import GEN_FP32_MAX_FLOP
    a = SUITES[f"gen-fp32-{which}"].sizes
    assert [s.key for s in a] == [s.key for s in _gen_sizes(which, fp32=True)]
    assert 60 <= len(a) <= 120 and len({s.key for s in a}) == len(a)
    assert {size_class(s) for s in a} == set(GEN_CLASSES)
    assert {s.dtype for s in a} == {"float32"} and {s.layout for s in a} == {"nn", "nt"}
    for s in a:
        assert s.flops <= GEN_FP32_MAX_FLOP and 4 * s.batch * (s.M * s.K + s.K * s.N + s.M * s.N) <= GEN_MAX_BYTES
    train, valid = SUITES["gen-fp32-train"].sizes, SUITES["gen-fp32-valid"].sizes
    assert not {s.key for s in train} & {s.key for s in valid}


@pytest.mark.parametrize("which", ["train", "valid"])
def test_mid_m_suites_are_fixed_bounded_and_in_the_range_the_token_counts_skip(which):
    # gen-mid-train / gen-mid-valid (issue 11, prefill with a few hundred tokens): seeded, every M in 129..1023 (none of
    # gen-test's token counts), the projections of their set's families plus random shapes in both layouts, bounded
    # like the other sets, and sharing no size with any other generalisation set or with each other.
    from origami_nv.bench.suites import GEN_FAMILIES, GEN_MID_RANDOM, GEN_TEST_TOKENS, _gen_mid_sizes
    a = _gen_mid_sizes(which)
    assert [s.key for s in a] == [s.key for s in _gen_mid_sizes(which)] == [s.key for s in SUITES[f"gen-mid-{which}"].sizes]
    assert len({s.key for s in a}) == len(a) and 40 <= len(a) <= 60
    assert all(128 < s.M < 1024 and s.M not in GEN_TEST_TOKENS and s.batch == 1 for s in a)
    fams = {s.label.rsplit(" ", 1)[0] for s in a if not s.label.startswith("random")}
    assert {f.split(" ")[0] for f in fams} == {f.split(" ")[0] for f in GEN_FAMILIES[which]}
    rand = [s for s in a if s.label == "random mid_m"]
    assert len(rand) == GEN_MID_RANDOM and {s.layout for s in rand} == {"nn", "nt"}
    assert {s.dtype for s in a} == {"float16", "bfloat16"}
    for s in a:
        assert s.flops <= GEN_MAX_FLOP and 2 * (s.M * s.K + s.K * s.N + s.M * s.N) <= GEN_MAX_BYTES
    other = "valid" if which == "train" else "train"
    for name in (f"gen-mid-{other}", "gen-train", "gen-valid", "gen-test"):
        assert not {s.key for s in a} & {s.key for s in SUITES[name].sizes}
