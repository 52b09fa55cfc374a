"""Batch = one by one, and no false negative within the window against a
Python dict, for every family the planner offers."""

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddf

WINDOW = 400

# Argument sets under which the planner offers each family; together they
# must cover every family (checked below).
ARG_SETS = [
    dict(window=WINDOW, fpr=1e-3, slack=10**9),
    dict(window=50, fpr=1e-3, slack=10**9),
    dict(window=WINDOW, max_memory=300, misses_ok=True, slack=10**9),
    dict(window=WINDOW, fpr=0.01, max_memory=2000, misses_ok=True, slack=10**9),
    dict(distinct=1e4, fpr=1e-3),
    dict(max_memory=4096, misses_ok=True, distinct=1e4),
    # The whole stream in fixed memory, no count of keys: the filters that
    # forget, rated at saturation.
    dict(max_memory=8192, misses_ok=True),
]


@functools.cache
def family_args() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for args in ARG_SETS:
        for c in ddf.plan(**args):
            out.setdefault(c.family, args)
    return out


def test_every_family_is_planned() -> None:
    assert set(family_args()) == set(ddf.FAMILIES)


def make(family: str, seed: int = 9) -> ddf.Dedup:
    return ddf.Dedup(**family_args()[family], family=family, seed=seed)


streams = st.lists(st.integers(0, 600), min_size=1, max_size=1500)


@pytest.mark.parametrize("family", ddf.FAMILIES)
@given(stream=streams, split=st.integers(0, 1500))
def test_batch_equals_one_by_one(family: str, stream: list[int], split: int) -> None:
    one, many = make(family), make(family)
    expected = [one.observe(k) for k in stream]
    split = min(split, len(stream))
    got = list(many.observe_many(stream[:split])) + list(many.observe_many(np.array(stream[split:], dtype=np.int64)))
    assert got == expected
    assert many.to_bytes() == one.to_bytes()


def test_batch_equals_one_by_one_across_chunks() -> None:
    # More keys than one release of the GIL handles (2^16).
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 50_000, size=150_000, dtype=np.uint64)
    one, many = ddf.Dedup(window=20_000, seed=2), ddf.Dedup(window=20_000, seed=2)
    expected = [one.observe(int(k)) for k in keys]
    assert list(many.observe_many(keys)) == expected
    assert many.stats()["observed"] == len(keys)
    assert many.stats()["duplicates"] == sum(expected)


@pytest.mark.parametrize("family", ddf.FAMILIES)
@given(stream=streams)
def test_no_false_negative_within_the_window(family: str, stream: list[int]) -> None:
    seen = make(family)
    args = family_args()[family]
    window = args.get("window")
    last: dict[int, int] = {}
    for i, k in enumerate(stream):
        dup = seen.observe(k)
        j = last.get(k)
        within = j is not None and (window is None or i - j <= window)
        if within and seen.predicted_fnr == 0.0:
            assert dup, f"{family} missed key {k} seen {i - j} keys ago"
        last[k] = i


@given(stream=streams)
def test_exact_window_is_exact(stream: list[int]) -> None:
    seen = ddf.Dedup(window=WINDOW, exact=True, seed=1)
    assert seen.slack == 0 and seen.predicted_fpr == 0.0
    last: dict[int, int] = {}
    for i, k in enumerate(stream):
        j = last.get(k)
        assert seen.observe(k) == (j is not None and i - j <= WINDOW)
        last[k] = i


def test_properties() -> None:
    seen = ddf.Dedup(window=1_000_000, fpr=1e-4)
    best = ddf.plan(window=1_000_000, fpr=1e-4)[0]
    assert seen.family == best.family
    assert seen.window == 1_000_000
    assert seen.slack == best.slack
    assert seen.memory_bits == best.memory_bits
    assert seen.predicted_fpr == best.fpr <= 1e-4
    assert not seen.is_timed
    s = seen.stats()
    assert s["observed"] == 0 and s["family"] == seen.family and s["clock"] is None
    assert "ddf.Dedup" in repr(seen)
    whole = ddf.Dedup()
    assert whole.family == "exact" and whole.window is None
    seen.observe("a")
    seen.clear()
    assert "a" not in seen


def test_contains_many_does_not_remember() -> None:
    seen = ddf.Dedup(window=100, exact=True, seed=1)
    seen.observe_many(["a", "b"])
    assert list(seen.contains_many(["a", "c", "b"])) == [True, False, True]
    assert list(seen.contains_many(["c"])) == [False]
    assert seen.stats()["observed"] == 2
