"""Time windows: the caller's clock in seconds (at=), or time.time()."""

import math
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddf

T0 = 1.7e9


def test_exact_time_window() -> None:
    seen = ddf.Dedup(within="10s", exact=True, seed=1)
    assert seen.is_timed and seen.window == 10.0
    assert not seen.observe("a", at=T0)
    assert seen.observe("a", at=T0 + 5)
    assert not seen.observe("a", at=T0 + 16)
    assert seen.stats()["clock"] == pytest.approx(T0 + 16)
    # Queries answer at the latest time observed, or at `at`.
    assert "a" in seen
    assert not seen.contains("a", at=T0 + 100)


@given(
    gaps=st.lists(st.floats(0, 3), min_size=1, max_size=400),
    keys=st.lists(st.integers(0, 50), min_size=400, max_size=400),
)
def test_planned_time_window_has_no_false_negative(gaps: list[float], keys: list[int]) -> None:
    seen = ddf.Dedup(within="1min", rate=20, fpr=1e-3, seed=4)
    assert seen.predicted_fnr == 0.0
    now, last = T0, {}
    for gap, k in zip(gaps, keys):
        now += gap
        dup = seen.observe(k, at=now)
        # Compared in whole ms, as the filter's clock runs.
        ms = math.floor(now * 1000 + 0.5)
        if k in last and ms - last[k] < 60_000:
            assert dup, f"missed {k} after {(ms - last[k]) / 1000} s"
        last[k] = ms


@given(st.lists(st.tuples(st.integers(0, 30), st.floats(0, 2)), min_size=1, max_size=300))
def test_batch_times_equal_one_by_one(items: list[tuple[int, float]]) -> None:
    keys = [k for k, _ in items]
    times = np.cumsum([g for _, g in items]) + T0
    one = ddf.Dedup(within="5s", rate=10, fpr=1e-3, seed=8)
    many = ddf.Dedup(within="5s", rate=10, fpr=1e-3, seed=8)
    expected = [one.observe(k, at=float(t)) for k, t in zip(keys, times)]
    assert list(many.observe_many(keys, at=times)) == expected
    assert many.to_bytes() == one.to_bytes()
    # One time for the whole batch.
    a = ddf.Dedup(within="5s", exact=True, seed=1)
    b = ddf.Dedup(within="5s", exact=True, seed=1)
    assert list(a.observe_many(keys, at=T0)) == [b.observe(k, at=T0) for k in keys]


def test_default_clock_is_now() -> None:
    seen = ddf.Dedup(within="1h", rate=5_000, fpr=1e-4)
    before = time.time()
    seen.observe("order-42")
    clock = seen.stats()["clock"]
    assert before - 0.001 <= clock <= time.time() + 0.001
    assert seen.observe("order-42")


def test_bad_times() -> None:
    timed = ddf.Dedup(within="10s", exact=True)
    for bad in [-1.0, float("nan"), float("inf"), 1e300]:
        with pytest.raises(ValueError, match="at"):
            timed.observe("a", at=bad)
    with pytest.raises(ValueError, match="3 times for 2 keys"):
        timed.observe_many(["a", "b"], at=[T0, T0, T0])
    with pytest.raises(TypeError, match="at"):
        timed.observe_many(["a"], at="now")
    counted = ddf.Dedup(window=10)
    with pytest.raises(ValueError, match="time windows"):
        counted.observe("a", at=T0)
    with pytest.raises(ValueError, match="time windows"):
        counted.observe_many(["a"], at=T0)
