"""The polars expression and the pandas recipe against an exact oracle:
every key seen within the window is reported (0 misses), and the state
carries over frames, saves and loads."""

import collections
import pathlib

import numpy as np
import pandas as pd
import polars as pl
import pytest

import ddf
import ddf.polars


def count_oracle(keys: list[int], window: int) -> list[bool]:
    """Whether each key occurred among the `window` keys before it."""
    counts: collections.Counter[int] = collections.Counter()
    fifo: collections.deque[int] = collections.deque()
    out = []
    for k in keys:
        out.append(counts[k] > 0)
        counts[k] += 1
        fifo.append(k)
        if len(fifo) > window:
            old = fifo.popleft()
            counts[old] -= 1
    return out


def time_oracle(keys: list[int], times_ms: list[int], within_ms: int) -> list[bool]:
    """Whether each key occurred within `within_ms` before it."""
    last: dict[int, int] = {}
    out = []
    for k, t in zip(keys, times_ms):
        out.append(k in last and t - last[k] < within_ms)
        last[k] = t
    return out


def stream(n: int, universe: int, seed: int) -> list[int]:
    return np.random.default_rng(seed).integers(0, universe, n).tolist()


def check(got: list[bool], truth: list[bool], fpr: float) -> None:
    misses = sum(t and not g for g, t in zip(got, truth))
    assert misses == 0
    negatives = sum(not t for t in truth)
    false_positives = sum(g and not t for g, t in zip(got, truth))
    # Keys just past the window may be reported (slack): allow a margin.
    assert false_positives <= max(10, 20 * fpr * negatives), (false_positives, negatives)


@pytest.mark.parametrize("as_text", [False, True])
def test_polars_count_window(as_text: bool, tmp_path: pathlib.Path) -> None:
    window, fpr = 5_000, 1e-3
    keys = stream(60_000, 40_000, 1)
    truth = count_oracle(keys, window)
    column = [f"user-{k}" for k in keys] if as_text else keys
    seen = ddf.Dedup(window=window, fpr=fpr, seed=3)
    expr = ddf.polars.is_duplicate(pl.col("id"), dedup=seen)
    first = pl.DataFrame({"id": column[:30_000]}).with_columns(expr)
    assert first.columns == ["id", "is_duplicate"]
    # The next frame resumes from a saved state, in another object.
    seen.save(tmp_path / "s.ddf")
    resumed = ddf.load(tmp_path / "s.ddf")
    second = pl.DataFrame({"id": column[30_000:]}).lazy().with_columns(
        ddf.polars.is_duplicate("id", dedup=resumed, name="dup")
    ).collect()
    got = first["is_duplicate"].to_list() + second["dup"].to_list()
    check(got, truth, fpr)
    # The expression's own Dedup, from Dedup's arguments.
    own = pl.DataFrame({"id": column}).with_columns(
        ddf.polars.is_duplicate(pl.col("id"), window=window, fpr=fpr, seed=3)
    )
    check(own["is_duplicate"].to_list(), truth, fpr)


def test_polars_time_window() -> None:
    n, within_ms = 40_000, 60_000
    keys = stream(n, 20_000, 2)
    gaps = np.random.default_rng(3).integers(0, 10, n)
    times_ms = (1_700_000_000_000 + np.cumsum(gaps)).tolist()
    truth = time_oracle(keys, times_ms, within_ms)
    df = pl.DataFrame({"id": keys, "ts": pl.Series(times_ms).cast(pl.Datetime("ms"))})
    out = df.with_columns(
        ddf.polars.is_duplicate("id", at="ts", within="60s", rate=250, fpr=1e-3, seed=1)
    )
    check(out["is_duplicate"].to_list(), truth, 1e-3)
    exact = df.with_columns(ddf.polars.is_duplicate("id", at=pl.col("ts"), within="60s", exact=True))
    assert exact["is_duplicate"].to_list() == truth


def test_polars_refusals() -> None:
    seen = ddf.Dedup(window=10, seed=1)
    with pytest.raises(ddf.ParamError, match="not both"):
        ddf.polars.is_duplicate("id", dedup=seen, window=10)
    with pytest.raises(ddf.ParamTypeError, match="keys must be a polars expression"):
        ddf.polars.is_duplicate(3)  # type: ignore[arg-type]
    df = pl.DataFrame({"id": ["a", None]})
    with pytest.raises(ddf.ParamTypeError, match=r"keys\[1\]: missing value"):
        df.with_columns(ddf.polars.is_duplicate("id", dedup=seen))


def test_pandas_recipe() -> None:
    window, fpr = 5_000, 1e-3
    keys = stream(60_000, 40_000, 4)
    truth = count_oracle(keys, window)
    df = pd.DataFrame({"id": [f"k{k}" for k in keys]})
    seen = ddf.Dedup(window=window, fpr=fpr, seed=5)
    df["dup"] = seen.observe_many(df["id"])
    check(df["dup"].tolist(), truth, fpr)
    times_ms = (1_700_000_000_000 + np.arange(len(keys)) * 3).tolist()
    frame = pd.DataFrame({"id": keys, "ts": pd.to_datetime(times_ms, unit="ms")})
    timed = ddf.Dedup(within="60s", exact=True)
    frame["dup"] = timed.observe_many(frame["id"], at=frame["ts"])
    assert frame["dup"].tolist() == time_oracle(keys, times_ms, 60_000)
