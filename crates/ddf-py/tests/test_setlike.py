"""The set-like API (add, update, len, copy, ==, clear), bytes-like
states, per-key times for contains_many, and the two warnings."""

import copy
import mmap
import warnings

import numpy as np
import pytest

import ddf


def test_add_and_update_remember_without_answers() -> None:
    seen = ddf.Dedup(window=100, exact=True, seed=1)
    assert seen.add("a") is None
    assert seen.update(["b", "c", "a"]) is None
    assert "a" in seen and "b" in seen and "c" in seen
    assert len(seen) == 4
    assert seen.stats()["duplicates"] == 1
    assert seen.observe_many(["a", "d"]).tolist() == [True, False]
    assert len(seen) == 6


def test_len_counts_keys_observed() -> None:
    seen = ddf.Dedup(window=3, exact=True, seed=1)
    assert len(seen) == 0
    seen.observe_many(list(range(10)))
    seen.observe(1)
    assert len(seen) == 11 == seen.stats()["observed"]


def test_copy_is_independent_and_equal() -> None:
    seen = ddf.Dedup(window=100, fpr=1e-3, seed=1, key=str.lower)
    seen.update(["A", "b"])
    for twin in (seen.copy(), copy.copy(seen), copy.deepcopy(seen)):
        assert twin == seen and twin is not seen
        assert twin.stats() == seen.stats()
        assert "a" in twin
        twin.add("c")
        assert twin != seen and "c" not in seen
    other = ddf.Dedup(window=100, fpr=1e-3, seed=2)
    assert other != seen
    assert seen != "a Dedup"
    with pytest.raises(TypeError):
        hash(seen)


def test_equal_states_are_equal() -> None:
    a = ddf.Dedup(within="1m", seed=4, exact=True)
    b = ddf.Dedup(within="1m", seed=4, exact=True)
    assert a == b
    a.observe("k", at=100.0)
    assert a != b
    b.observe("k", at=100.0)
    assert a == b


def test_clear_resets_keys_and_counters() -> None:
    seen = ddf.Dedup(within="10s", capacity=20, fpr=1e-3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seen.update([str(i) for i in range(500)], at=1.7e9)
    assert seen.stats()["generations_closed_early"] > 0
    seen.clear()
    stats = seen.stats()
    assert len(seen) == 0 and "1" not in seen
    assert (stats["observed"], stats["duplicates"], stats["clock"]) == (0, 0, None)
    assert stats["generations_closed_early"] == 0 and stats["clock_regressions"] == 0
    # The warning is armed again.
    with pytest.warns(ddf.CapacityWarning):
        seen.update([str(i) for i in range(500)], at=1.7e9)


def test_states_from_any_bytes_like(tmp_path) -> None:
    seen = ddf.Dedup(window=100, fpr=1e-3, seed=1)
    seen.update(["a", "b"])
    raw = seen.to_bytes()
    path = tmp_path / "s.ddf"
    seen.save(path)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        views = [raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, dtype=np.uint8), m]
        for data in views:
            assert ddf.Dedup.from_bytes(data) == seen
            assert ddf.from_bytes(data) == seen
    assert ddf.Dedup.load(path) == seen == ddf.load(path)


def test_contains_many_takes_one_time_per_key() -> None:
    seen = ddf.Dedup(within="10s", exact=True, seed=1)
    seen.update(["a", "b"], at=[100.0, 105.0])
    t = np.array([109.0, 112.0, 114.0, 116.0])
    assert seen.contains_many(["a", "a", "b", "b"], at=t).tolist() == [True, False, True, False]
    assert seen.contains_many(["a", "b"], at=np.array([100, 105], dtype="datetime64[s]")).tolist() == [True, True]
    assert seen.contains_many(["a", "b"]).tolist() == [True, True]
    with pytest.raises(ddf.ParamError, match="at has 1 times for 2 keys"):
        seen.contains_many(["a", "b"], at=[1.0])
    with pytest.raises(ddf.ParamError, match=r"at\[0\]: missing value"):
        seen.contains_many(["a"], at=np.array([np.nan]))


def test_a_generation_closed_early_warns_once() -> None:
    seen = ddf.Dedup(within="10s", capacity=100, fpr=1e-3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seen.update([str(i) for i in range(50)], at=1.7e9)  # within capacity: silent
    with pytest.warns(ddf.CapacityWarning, match="closed a generation early") as record:
        seen.update([str(i) for i in range(1000)], at=1.7e9)
    assert len(record) == 1
    assert "generations_closed_early" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seen.update([str(i) for i in range(1000, 3000)], at=1.7e9)  # once per Dedup
        for i in range(3000, 4000):
            seen.observe(str(i), at=1.7e9)
    one = ddf.Dedup(within="10s", capacity=100, fpr=1e-3, seed=1)
    with pytest.warns(ddf.CapacityWarning):
        for i in range(1000):
            one.observe(str(i), at=1.7e9)
    # A count window never warns.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ddf.Dedup(window=10, fpr=1e-3, seed=1).update(range(1000))


def test_a_plan_beyond_the_machine_warns() -> None:
    with pytest.warns(ddf.MemoryWarning, match="more than this machine's"):
        big = ddf.Dedup(window=10**12, exact=True)
    assert big.family == "exact"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ddf.Dedup(window=10**6, fpr=1e-3)
