"""Every bad argument is a ValueError or TypeError naming the parameter."""

import datetime

import pytest

import ddf


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(window=0), ValueError, "window"),
        (dict(window=-5), ValueError, "window"),
        (dict(window="10"), TypeError, "window"),
        (dict(window=10, within="1h"), ValueError, "within"),
        (dict(window=10, fpr=0.0), ValueError, "fpr"),
        (dict(window=10, fpr=1.5), ValueError, "fpr"),
        (dict(window=10, fpr=float("nan")), ValueError, "fpr"),
        (dict(within="soon"), ValueError, "within"),
        (dict(within=0), ValueError, "within"),
        (dict(within=[1]), TypeError, "within"),
        (dict(within="1h", rate=-1.0), ValueError, "rate"),
        (dict(window=10, rate=5.0), ValueError, "rate"),
        (dict(window=10, family="nope"), ValueError, "family"),
        (dict(window=10, exact=True, family="shf"), ValueError, "exact"),
        (dict(window=10, exact=True, misses_ok=True), ValueError, "exact"),
        (dict(window=10, max_memory="lots"), ValueError, "max_memory"),
        (dict(window=10, max_memory=0), ValueError, "max_memory"),
        (dict(window=10, max_memory=1.5), TypeError, "max_memory"),
        (dict(slack=5), ValueError, "slack"),
        (dict(window=10, slack=-1), ValueError, "slack"),
        (dict(distinct=0.0, fpr=0.01), ValueError, "distinct"),
        (dict(window=10**15, fpr=0.01), ValueError, "window"),
    ],
)
def test_bad_arguments(kwargs: dict, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        ddf.Dedup(**kwargs)


def test_durations_and_sizes() -> None:
    assert ddf.Dedup(within="1h 30m", exact=True).window == 5400.0
    assert ddf.Dedup(within=90, exact=True).window == 90.0
    assert ddf.Dedup(within=datetime.timedelta(minutes=2), exact=True).window == 120.0
    small = ddf.Dedup(window=100_000, max_memory="64KiB", misses_ok=True)
    assert small.memory_bits <= 64 * 1024 * 8


def test_family_that_does_not_qualify_names_the_ones_that_do() -> None:
    with pytest.raises(ValueError, match="families that do"):
        ddf.Dedup(window=1000, family="queued-qht")
