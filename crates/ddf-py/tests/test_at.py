"""Times as users hold them: `at=` takes seconds, datetimes, pandas and
numpy times of any unit, and pandas/polars columns, all read as the same
instant; epoch milliseconds passed as seconds are refused, naming `at`."""

import datetime

import numpy as np
import pandas as pd
import polars as pl
import pytest

import ddf

# 2024-01-01T13:00:00.250Z, in seconds since the epoch.
S = 1_704_114_000.25
UTC = datetime.timezone.utc


def clock(d: ddf.Dedup) -> float:
    return d.stats()["clock"]


def fresh() -> ddf.Dedup:
    return ddf.Dedup(within="1h", rate=1000, fpr=1e-3, seed=1)


SCALARS = [
    S,
    int(S),
    datetime.datetime.fromtimestamp(S, UTC),
    datetime.datetime.fromtimestamp(S, UTC).replace(tzinfo=None),  # naive = UTC
    datetime.datetime.fromtimestamp(S, UTC).astimezone(datetime.timezone(datetime.timedelta(hours=-5))),
    pd.Timestamp(S, unit="s"),
    pd.Timestamp(S, unit="s", tz="UTC").tz_convert("Asia/Tokyo"),
    *[np.datetime64(int(S * 1000), "ms").astype(f"datetime64[{u}]") for u in ("ms", "us", "ns")],
    np.datetime64(int(S), "s"),
]


@pytest.mark.parametrize("at", SCALARS, ids=[type(a).__name__ + str(i) for i, a in enumerate(SCALARS)])
def test_one_time_of_every_type_is_the_same_instant(at) -> None:
    d = fresh()
    assert not d.observe("a", at=at)
    expected = int(S) if isinstance(at, int) or (isinstance(at, np.datetime64) and at.dtype == "datetime64[s]") else S
    assert clock(d) == pytest.approx(expected, abs=1e-3)
    assert d.observe("a", at=at)
    assert d.contains("a", at=at)


UNITS = ["s", "ms", "us", "ns", "m", "h", "D"]


@pytest.mark.parametrize("unit", UNITS)
def test_datetime64_arrays_of_every_unit_round_trip(unit: str) -> None:
    seconds = np.array([S, S + 20, S + 7200], dtype="f8")
    arr = (seconds * 1e9).astype("int64").astype("datetime64[ns]").astype(f"datetime64[{unit}]")
    want = arr.astype("datetime64[ns]").astype("int64") / 1e9
    d = fresh()
    out = d.observe_many(["a", "a", "a"], at=arr)
    assert clock(d) == pytest.approx(want[-1], abs=1e-3)
    # A key is a duplicate when its last time, as the unit rounds it, is
    # within the hour.
    assert list(out) == [False, want[1] - want[0] < 3600, want[2] - want[1] < 3600]


def test_columns_of_pandas_and_polars() -> None:
    instants = [S, S + 20, S + 40]
    naive = pd.to_datetime(instants, unit="s")
    columns = [
        pd.Series(naive),
        pd.Index(naive),
        pd.Series(naive.tz_localize("UTC").tz_convert("Europe/Paris")),
        pd.DatetimeIndex(naive).tz_localize("UTC").tz_convert("America/New_York"),
        pl.Series([datetime.datetime.fromtimestamp(t, UTC).replace(tzinfo=None) for t in instants]),
        pl.Series([datetime.datetime.fromtimestamp(t, UTC) for t in instants]).dt.convert_time_zone("Asia/Tokyo"),
        [datetime.datetime.fromtimestamp(t, UTC) for t in instants],
        np.array(instants),
    ]
    for col in columns:
        d = fresh()
        assert list(d.observe_many(["a", "b", "a"], at=col)) == [False, False, True], type(col)
        assert clock(d) == pytest.approx(S + 40, abs=1e-3), type(col)


def test_milliseconds_as_seconds_are_refused_naming_at() -> None:
    d = fresh()
    ms = 1_704_114_000_000
    with pytest.raises(ValueError, match=r"^at: .*looks like milliseconds"):
        d.observe("a", at=ms)
    with pytest.raises(ValueError, match=r"^at\[0\]: .*looks like milliseconds"):
        d.observe_many(["a", "b"], at=np.array([ms, ms + 20_000]))
    with pytest.raises(ValueError, match=r"^at: .*looks like microseconds"):
        d.observe("a", at=ms * 1000)
    with pytest.raises(ValueError, match=r"^at\[0\]: .*looks like nanoseconds"):
        d.observe_many(["a"], at=[ms * 1_000_000])
    # Nothing was observed.
    assert d.stats()["observed"] == 0
    with pytest.raises(ValueError, match="NaT"):
        d.observe("a", at=np.datetime64("NaT"))
    with pytest.raises(TypeError, match="at"):
        d.observe("a", at="2024-01-01")
    with pytest.raises(TypeError, match="at"):
        d.observe("a", at=True)
