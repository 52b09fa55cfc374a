"""Arrow columns as keys (the C data interface): pyarrow arrays and chunked
arrays, pandas and polars columns, of every string, binary and integer
type, give the answers of the same keys as a list; nulls are refused by
index before anything is observed."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddf


def answers(keys: object, **kw: object) -> list[bool]:
    return ddf.Dedup(window=50, exact=True, seed=3, **kw).observe_many(keys).tolist()


TEXT = st.lists(st.sampled_from(["a", "b", "ç", "", "a long key past twelve bytes", "z" * 40]), max_size=300)


@given(TEXT)
def test_strings_of_every_arrow_type(keys: list[str]) -> None:
    expected = answers(keys)
    for t in (pa.string(), pa.large_string(), pa.string_view()):
        assert answers(pa.array(keys, type=t)) == expected, t
    data = [k.encode() for k in keys]
    for t in (pa.binary(), pa.large_binary(), pa.binary_view()):
        assert answers(pa.array(data, type=t)) == expected, t
    assert answers(pl.Series(keys, dtype=pl.String)) == expected
    assert answers(pd.Series(keys, dtype="str")) == expected
    assert answers(pd.Series(keys, dtype="string[pyarrow]")) == expected


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300))
def test_integers_are_their_decimal_text(keys: list[int]) -> None:
    expected = answers([str(k) for k in keys])
    assert answers(pa.array(keys, type=pa.int64())) == expected
    assert answers(pl.Series(keys, dtype=pl.Int64)) == expected
    assert answers(pd.Series(keys, dtype="int64")) == expected
    small = [k % 100 for k in keys]
    expected = answers([str(k) for k in small])
    for t in (pa.int8(), pa.uint8(), pa.int16(), pa.uint16(), pa.int32(), pa.uint32(), pa.uint64()):
        assert answers(pa.array(small, type=t)) == expected, t
    negative = [-k for k in small]
    for t in (pa.int8(), pa.int16(), pa.int32()):
        assert answers(pa.array(negative, type=t)) == answers([str(k) for k in negative]), t


def test_uint64_beyond_i64() -> None:
    keys = [2**64 - 1, 2**63, 0]
    assert answers(pa.array(keys, type=pa.uint64())) == answers([str(k) for k in keys])
    seen = ddf.Dedup(window=10, exact=True, seed=1)
    seen.observe_many(pa.array(keys, type=pa.uint64()))
    assert str(2**64 - 1) in seen and 2**63 in seen


@given(st.lists(st.lists(st.sampled_from(["x", "y", "zz", "a key longer than twelve"]), max_size=40), max_size=8),
       st.integers(0, 5), st.integers(0, 5))
def test_chunks_and_slices(chunks: list[list[str]], lo: int, cut: int) -> None:
    flat = [k for c in chunks for k in c]
    chunked = pa.chunked_array(chunks, type=pa.string())
    assert answers(chunked) == answers(flat)
    hi = max(lo, len(flat) - cut)
    # A slice is an array with an offset into its buffers.
    for t in (pa.string(), pa.string_view(), pa.large_binary()):
        whole = pa.array([k.encode() if t == pa.large_binary() else k for k in flat], type=t)
        assert answers(whole.slice(lo, hi - lo)) == answers(flat[lo:hi]), t
    ints = pa.array(range(len(flat)), type=pa.int32())
    assert answers(ints.slice(lo, hi - lo)) == answers([str(i) for i in range(lo, hi)])


def test_more_than_one_chunk_of_the_batch_path() -> None:
    n = 200_000
    keys = np.random.default_rng(7).integers(0, 50_000, n)
    text = [str(k) for k in keys.tolist()]
    big = ddf.Dedup(window=1_000_000, exact=True, seed=2)
    expected = big.observe_many(text).tolist()
    for column in (pa.array(text), pa.array(keys), pl.Series(text), pd.Series(text, dtype="str")):
        seen = ddf.Dedup(window=1_000_000, exact=True, seed=2)
        assert seen.observe_many(column).tolist() == expected
        assert seen.contains_many(column).all()
        assert len(seen) == n


def test_nulls_are_refused_by_index_before_anything_is_observed() -> None:
    seen = ddf.Dedup(window=10, exact=True, seed=1)
    big = ["k"] * 100_000 + [None]
    for column in (pa.array(big), pl.Series(big), pd.Series(big, dtype="str"),
                   pa.array([1, None], type=pa.int64()).slice(0, 2)):
        with pytest.raises(ddf.ParamTypeError, match=r"keys\[\d+\]: missing value \(null\)") as e:
            seen.observe_many(column)
        index = int(str(e.value).split("[")[1].split("]")[0])
        assert index == len(column) - 1
    assert len(seen) == 0
    # A slice past the null has none.
    assert answers(pa.array(["a", None, "b"]).slice(2, 1)) == [False]


def test_other_types_are_refused_by_name() -> None:
    seen = ddf.Dedup(window=10, seed=1)
    cases = [
        (pa.array([1.5]), "float64"),
        (pa.array([True]), "bool"),
        (pa.array([1], type=pa.timestamp("s")), "timestamp"),
        (pa.array(["a", "b"]).dictionary_encode(), "dictionary"),
        (pl.Series(["a"], dtype=pl.Categorical), "dictionary"),
        (pl.DataFrame({"a": [1]}), "struct"),
    ]
    for column, words in cases:
        with pytest.raises(ddf.ParamTypeError, match=words):
            seen.observe_many(column)
    assert len(seen) == 0


def test_a_key_function_sees_values() -> None:
    seen = ddf.Dedup(window=10, exact=True, seed=1, key=lambda s: s.upper())
    assert seen.observe_many(pa.array(["a", "A", "b"])).tolist() == [False, True, False]
    assert "B" in seen


def test_time_windows_take_arrow_keys() -> None:
    t = np.datetime64("2026-01-01T00:00:00", "ms") + np.arange(6) * np.timedelta64(20, "m")
    keys = ["a", "b", "a", "a", "c", "a"]
    seen = ddf.Dedup(within="30m", exact=True, seed=1)
    got = seen.observe_many(pa.array(keys), at=pl.Series(t)).tolist()
    # a at 0, 40, 60, 100 min: within 30 min only at 60 (after 40).
    assert got == [False, False, False, True, False, False]
