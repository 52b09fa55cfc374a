"""The exception hierarchy: every error names its parameter or element,
says "missing value" for None/NaN/NA, and is a ``ddf.Error`` that still
catches as the built-in it was (ValueError, TypeError)."""

import math
import pickle
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import ddf


def test_the_hierarchy() -> None:
    assert issubclass(ddf.ParamError, ddf.Error) and issubclass(ddf.ParamError, ValueError)
    assert issubclass(ddf.ParamTypeError, ddf.ParamError)
    assert issubclass(ddf.ParamTypeError, TypeError)
    assert issubclass(ddf.PlanError, ddf.ParamError)
    assert issubclass(ddf.StateError, ddf.Error) and issubclass(ddf.StateError, ValueError)
    assert issubclass(ddf.CapacityWarning, RuntimeWarning)
    assert issubclass(ddf.MemoryWarning, RuntimeWarning)
    for cls in (ddf.Error, ddf.ParamError, ddf.ParamTypeError, ddf.PlanError, ddf.StateError):
        assert cls.__module__ == "ddf"
        e = pickle.loads(pickle.dumps(cls("m")))
        assert type(e) is cls and str(e) == "m"


# (arguments, class, the words the message must hold)
BAD = [
    (dict(seed=-1, window=10), ddf.ParamError, "seed= must be an int from 0 to 2^64 - 1, not -1"),
    (dict(seed=2**64, window=10), ddf.ParamError, "seed="),
    (dict(seed="1", window=10), ddf.ParamTypeError, "seed= must be an int"),
    (dict(window=10**30), ddf.ParamError, "window= must be a count of records from 1 to 2^40, not 10" + "0" * 29),
    (dict(window=-5), ddf.ParamError, "from 1 to 2^40, not -5"),
    (dict(window=0), ddf.ParamError, "from 1 to 2^40, not 0"),
    (dict(window=True), ddf.ParamTypeError, "window= must be an int"),
    (dict(window=1.5), ddf.ParamTypeError, "window= must be an int (a count of keys), not float"),
    (dict(within=-1), ddf.ParamError, "within= must be a duration"),
    (dict(within=0), ddf.ParamError, "within= must be a duration of at least 1 ms"),
    (dict(within="soon"), ddf.ParamError, "within="),
    (dict(within=[1]), ddf.ParamTypeError, "within must be a duration"),
    (dict(within="1h", rate=-1.0), ddf.ParamError, "rate= must be a positive number"),
    (dict(within="1h", rate="fast"), ddf.ParamTypeError, "rate= must be a number, not str"),
    (dict(within="1h", capacity=-1), ddf.ParamError, "capacity= must be at least 1"),
    (dict(within="1h", capacity=2.5), ddf.ParamTypeError, "capacity= must be an int"),
    (dict(window=10, fpr=2), ddf.ParamError, "fpr= must be in (0, 1), not 2"),
    (dict(window=10, fpr=None, max_memory=0), ddf.ParamError, "max_memory"),
    (dict(window=10, fpr=True), ddf.ParamTypeError, "fpr= must be a number, not bool"),
    (dict(window=10, distinct="many"), ddf.ParamTypeError, "distinct= must be a number"),
    (dict(window=10, family=3), ddf.ParamTypeError, "family= must be a str"),
    (dict(window=10, family="nope"), ddf.PlanError, 'family= "nope" is not a family'),
    (dict(window=10, slack=-1), ddf.ParamError, "slack= must be a count of keys"),
    (dict(window=10, key=3), ddf.ParamTypeError, "key= must be a callable"),
    (dict(window=10, within="1h"), ddf.ParamError, "not both"),
    (dict(max_memory=1 << 20), ddf.PlanError, "in fixed memory"),
    (dict(window=1000, family="queued-qht"), ddf.PlanError, "families that do"),
]


@pytest.mark.parametrize("kwargs, cls, words", BAD, ids=[str(b[0]) for b in BAD])
def test_bad_arguments_name_themselves(kwargs: dict, cls: type, words: str) -> None:
    with pytest.raises(cls, match=re.escape(words)) as e:
        ddf.Dedup(**kwargs)
    assert type(e.value) is cls
    # Never Python's or Rust's own words.
    for foreign in ("OverflowError", "can't convert", "argument '", "allow_false_negatives",
                    "memory_budget", "max_slack", "Requirements"):
        assert foreign not in str(e.value)


def test_plan_raises_the_same() -> None:
    with pytest.raises(ddf.ParamError, match="window="):
        ddf.plan(window=-1)
    with pytest.raises(ddf.PlanError):
        ddf.plan(max_memory=1 << 20)


MISSING = [None, float("nan"), np.nan, np.float64("nan"), pd.NA, pd.NaT]


@pytest.mark.parametrize("value", MISSING, ids=repr)
def test_missing_keys_say_so_with_their_index(value: object) -> None:
    seen = ddf.Dedup(window=100, seed=1)
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[2\]: missing value"):
        seen.observe_many(["a", "b", value, "c"])
    with pytest.raises(ddf.ParamTypeError, match=r"^key: missing value"):
        seen.observe(value)
    with pytest.raises(ddf.ParamTypeError, match=r"^key: missing value"):
        seen.contains(value)


def test_missing_in_columns() -> None:
    seen = ddf.Dedup(window=100, seed=1)
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[1\]: missing value"):
        seen.observe_many(pd.Series(["a", np.nan, "b"], dtype=object))
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[3\]: missing value \(null\)"):
        seen.observe_many(pa.chunked_array([["a", "b"], ["c", None]]))
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[1\]: missing value"):
        seen.observe_many(pd.Series([1, None, 3], dtype="Int64"))
    assert seen.stats()["observed"] == 0, "a refused column observes nothing"


def test_a_bad_element_names_its_index() -> None:
    seen = ddf.Dedup(window=100, seed=1)
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[1\]: a key must be .* not float"):
        seen.observe_many(["a", 1.5])
    with pytest.raises(ddf.ParamTypeError, match=r"^keys\[0\]: .* not tuple"):
        seen.contains_many([(1, 2)])
    with pytest.raises(ddf.ParamTypeError, match=r"^key: .* not list"):
        seen.observe([1])
    mapped = ddf.Dedup(window=100, seed=1, key=lambda e: e["id"])
    with pytest.raises(ddf.ParamTypeError, match=r"^key\(keys\[1\]\): missing value \(None\)"):
        mapped.observe_many([{"id": "a"}, {"id": None}])
    with pytest.raises(ddf.ParamTypeError, match="keys must be an iterable of keys, not one str"):
        seen.observe_many("abc")
    with pytest.raises(ddf.ParamTypeError, match="keys must be an iterable"):
        seen.observe_many(42)
    with pytest.raises(ddf.ParamTypeError, match="dtype float64 holds no key type"):
        seen.observe_many(np.array([1.0, 2.0]))
    with pytest.raises(ddf.ParamError, match="one-dimensional"):
        seen.observe_many(np.zeros((2, 2), dtype=np.int64))


def test_times_name_at_and_the_index() -> None:
    seen = ddf.Dedup(within="1h", seed=1)
    t = 1.7e9
    with pytest.raises(ddf.ParamError, match=r"^at\[1\]: missing value \(NaN\)"):
        seen.observe_many(["a", "b"], at=np.array([t, math.nan]))
    with pytest.raises(ddf.ParamError, match=r"^at\[1\]: missing value \(NaT\)"):
        seen.observe_many(["a", "b"], at=np.array(["2026-01-01", "NaT"], dtype="datetime64[s]"))
    with pytest.raises(ddf.ParamError, match=r"^at\[0\]: missing value \(None\)"):
        seen.observe_many(["a"], at=[None])
    with pytest.raises(ddf.ParamError, match="at has 1 times for 2 keys"):
        seen.observe_many(["a", "b"], at=[t])
    with pytest.raises(ddf.ParamError, match=r"^at: .*milliseconds"):
        seen.observe("a", at=t * 1000)
    with pytest.raises(ddf.ParamTypeError, match="at must be a time"):
        seen.observe("a", at="yesterday")
    counted = ddf.Dedup(window=10, seed=1)
    with pytest.raises(ddf.ParamError, match="at= is for time windows"):
        counted.observe("a", at=t)


def test_corrupt_state_is_a_state_error(tmp_path) -> None:
    with pytest.raises(ddf.StateError, match="not a usable ddf state"):
        ddf.from_bytes(b"not a state")
    with pytest.raises(ddf.StateError):
        ddf.Dedup.from_bytes(bytearray(b"\x00" * 64))
    (tmp_path / "bad.ddf").write_bytes(b"garbage")
    with pytest.raises(ddf.StateError, match="bad.ddf"):
        ddf.load(tmp_path / "bad.ddf")
    with pytest.raises(ddf.StateError, match="not a regular file"):
        ddf.load(tmp_path)
    with pytest.raises(FileNotFoundError):
        ddf.load(tmp_path / "absent.ddf")
    with pytest.raises(ddf.ParamTypeError, match="data must be bytes-like"):
        ddf.from_bytes("text")
    with pytest.raises(ddf.ParamTypeError, match="data must be bytes-like"):
        ddf.from_bytes(3.5)
