"""Pickle, bytes and file round trips; corrupt states are ValueErrors."""

import copy
import os
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddf

KINDS = [
    dict(window=300, fpr=1e-3),
    dict(window=300, exact=True),
    dict(within="30s", rate=10, fpr=1e-3),
    dict(window=300, fpr=1e-3, family="apbf", slack=10**9),
    dict(max_memory=4096, misses_ok=True, distinct=1e4),
]


def feed(seen: ddf.Dedup, keys: list[int], t0: float = 1.7e9) -> list[bool]:
    if seen.is_timed:
        return list(seen.observe_many(keys, at=t0 + np.arange(len(keys)) * 0.1))
    return list(seen.observe_many(keys))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: "-".join(map(str, k.values())))
@given(head=st.lists(st.integers(0, 400), max_size=600), tail=st.lists(st.integers(0, 400), max_size=600))
def test_round_trips_answer_the_same(kind: dict, head: list[int], tail: list[int], tmp_path_factory) -> None:
    seen = ddf.Dedup(**kind, seed=5)
    feed(seen, head)
    path = tmp_path_factory.mktemp("s") / "events.ddf"
    seen.save(path)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    copies = [
        pickle.loads(pickle.dumps(seen)),
        ddf.from_bytes(seen.to_bytes()),
        ddf.Dedup.from_bytes(seen.to_bytes()),
        ddf.load(path),
        ddf.load(str(path)),
        copy.deepcopy(seen),
    ]
    assert path.read_bytes() == seen.to_bytes()
    t1 = 1.7e9 + 100
    expected = feed(seen, tail, t1)
    for c in copies:
        assert c.family == seen.family and c.window == seen.window
        assert c.predicted_fpr == seen.predicted_fpr
        assert feed(c, tail, t1) == expected
        assert c.to_bytes() == seen.to_bytes()


def test_pickle_keeps_the_key_function() -> None:
    seen = ddf.Dedup(window=10, exact=True, key=str.lower)
    seen.observe("ABC")
    back = pickle.loads(pickle.dumps(seen))
    assert back.observe("abc")


def small_state() -> bytes:
    seen = ddf.Dedup(window=64, fpr=1e-2, seed=3)
    seen.observe_many(range(100))
    return seen.to_bytes()


def test_every_truncation_is_a_value_error() -> None:
    good = small_state()
    for n in range(len(good)):
        with pytest.raises(ValueError):
            ddf.from_bytes(good[:n])


def test_every_bit_flip_is_a_value_error() -> None:
    good = small_state()
    step = max(1, len(good) // 2000)
    for i in range(0, len(good), step):
        bad = bytearray(good)
        bad[i] ^= 0x10
        with pytest.raises(ValueError):
            ddf.from_bytes(bytes(bad))


@given(st.binary(max_size=300))
def test_random_bytes_are_value_errors(data: bytes) -> None:
    with pytest.raises(ValueError):
        ddf.from_bytes(data)


def test_corrupt_and_missing_files(tmp_path) -> None:
    p = tmp_path / "bad.ddf"
    p.write_bytes(b"DDFSTATE" + b"\x00" * 40)
    with pytest.raises(ValueError, match="bad.ddf"):
        ddf.load(p)
    with pytest.raises(OSError):
        ddf.load(tmp_path / "absent.ddf")
    with pytest.raises(OSError):
        ddf.Dedup(window=5).save(tmp_path / "no" / "such" / "dir.ddf")


def test_endless_files_are_refused_before_reading() -> None:
    # A device that never ends is refused before it is opened: reading it
    # would allocate without bound.
    with pytest.raises(ValueError, match="not a regular file"):
        ddf.load("/dev/zero")
