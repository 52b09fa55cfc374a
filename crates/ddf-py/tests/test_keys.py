"""A key's bytes: str as UTF-8, bytes-likes as-is, ints as decimal text,
numpy arrays element by element; anything else is a TypeError."""

import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddf


def fresh() -> ddf.Dedup:
    return ddf.Dedup(exact=True, seed=11)


@given(st.integers())
def test_int_is_its_decimal_text(n: int) -> None:
    seen = fresh()
    assert not seen.observe(n)
    assert str(n) in seen
    assert str(n).encode() in seen
    assert str(n + 1) not in seen


def test_ints_of_any_size() -> None:
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for n in [2**64, -(2**64), 2**64 - 1, -(2**63), 10**5000 + 7, -(10**5000) - 3, 0]:
            seen = fresh()
            seen.observe(n)
            assert str(n) in seen, n
            assert str(n + 1) not in seen
    finally:
        sys.set_int_max_str_digits(old)


@given(st.text())
def test_str_is_its_utf8(s: str) -> None:
    seen = fresh()
    seen.observe(s)
    b = s.encode()
    assert b in seen
    assert bytearray(b) in seen
    assert memoryview(b) in seen


def test_bools_and_numpy_scalars_are_ints() -> None:
    seen = fresh()
    seen.observe(True)
    assert "1" in seen
    seen.observe(np.int64(-5))
    assert "-5" in seen
    seen.observe(np.uint64(2**64 - 1))
    assert str(2**64 - 1) in seen
    seen.observe(np.str_("x"))
    assert "x" in seen
    seen.observe(np.bytes_(b"y"))
    assert b"y" in seen


@pytest.mark.parametrize("bad", [1.5, None, [1], (1,), {"a": 1}, object(), np.float64(2.0)])
def test_other_types_are_type_errors(bad: object) -> None:
    seen = fresh()
    words = "missing value" if bad is None else type(bad).__name__
    with pytest.raises(TypeError, match=words):
        seen.observe(bad)
    with pytest.raises(TypeError):
        _ = bad in seen
    with pytest.raises(TypeError):
        seen.observe_many([b"ok", bad])


def test_key_function_maps_first() -> None:
    seen = ddf.Dedup(exact=True, seed=1, key=lambda e: e["id"])
    assert not seen.observe({"id": 7})
    assert seen.observe({"id": 7, "other": 1})
    assert list(seen.observe_many([{"id": 8}, {"id": 7}])) == [False, True]
    with pytest.raises(TypeError, match="callable"):
        ddf.Dedup(exact=True, key=3)  # type: ignore[arg-type]


def test_numpy_arrays_match_lists() -> None:
    rng = np.random.default_rng(5)
    ints = rng.integers(-(2**63), 2**63 - 1, size=500, dtype=np.int64)
    ints = np.concatenate([ints, ints[:100]])
    cases = [
        (ints, [int(x) for x in ints]),
        (ints.astype(np.uint64), [int(x) for x in ints.astype(np.uint64)]),
        (ints.astype(np.int32), [int(x) for x in ints.astype(np.int32)]),
        (ints.astype(np.uint8), [int(x) for x in ints.astype(np.uint8)]),
        (np.array([b"a", b"bb", b"", b"a\x00b", b"bb"]), [b"a", b"bb", b"", b"a\x00b", b"bb"]),
        (np.array(["é", "日本", "", "é", "x"]), ["é", "日本", "", "é", "x"]),
        (np.array(["a", 3, b"c", "a"], dtype=object), ["a", 3, b"c", "a"]),
    ]
    for array, items in cases:
        a, b = ddf.Dedup(window=300, seed=3), ddf.Dedup(window=300, seed=3)
        got = a.observe_many(array)
        assert got.dtype == np.bool_
        assert list(got) == [b.observe(x) for x in items], array.dtype


def test_batched_ints_are_their_decimal_text() -> None:
    # Every digit count and the group boundaries of the batch formatter.
    edges = {0, 1, 2**63 - 1, 2**63, 2**64 - 1}
    for d in range(1, 20):
        edges |= {10**d - 1, 10**d, 10**d + 1}
    rng = np.random.default_rng(9)
    unsigned = np.array(sorted(edges), dtype=np.uint64)
    unsigned = np.concatenate([unsigned, rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64)])
    signed = np.concatenate([-unsigned[unsigned < 2**63].astype(np.int64), np.array([-(2**63)])])
    for array in (unsigned, signed):
        seen = fresh()
        seen.observe_many(array)
        for x in array.tolist():
            assert str(x) in seen, x
            assert str(x) + "x" not in seen, x


def test_bad_batches() -> None:
    seen = fresh()
    with pytest.raises(TypeError, match="float64"):
        seen.observe_many(np.zeros(3))
    with pytest.raises(ValueError, match="one-dimensional"):
        seen.observe_many(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(TypeError, match="iterable"):
        seen.observe_many(5)
    with pytest.raises(TypeError, match="str"):
        seen.observe_many("abc")
    assert list(seen.observe_many([])) == []
    assert list(seen.observe_many(iter(["g", "g"]))) == [False, True]
