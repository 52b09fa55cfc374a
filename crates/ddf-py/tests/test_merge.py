"""Dedup.merge and ``a |= b``: two halves of a stream merged answer as one
Dedup over the whole stream; refused merges raise ddf.StateError (a ValueError) naming the
difference and change nothing."""

import pytest

import ddf

START = 1_700_000_000.0


def stream(half: int | None) -> list[tuple[str, float]]:
    """Keys repeating within and across halves, 10 per second."""
    out = []
    for i in range(4_000):
        if half is None or i % 2 == half:
            out.append((f"k{(i * 7_919) % 1_500}", START + i / 10))
    return out


def feed(d: ddf.Dedup, events: list[tuple[str, float]]) -> None:
    for key, at in events:
        d.observe(key, at=at)


ARGS = {
    "exact": dict(within=60, exact=True),
    "apbf": dict(within=60, rate=20, fpr=1e-3, slack=60, family="apbf"),
    "apbbf": dict(within=60, rate=20, fpr=1e-3, slack=60, family="apbbf"),
    "sliding": dict(within=60, rate=20, fpr=1e-3, family="sliding"),
}


@pytest.mark.parametrize("family", sorted(ARGS))
def test_merged_halves_answer_as_the_whole_stream(family: str) -> None:
    args = dict(ARGS[family], seed=11)
    one, two, whole = ddf.Dedup(**args), ddf.Dedup(**args), ddf.Dedup(**args)
    feed(one, stream(0))
    feed(two, stream(1))
    feed(whole, stream(None))
    one.merge(two)
    end = START + 400
    probe = [f"k{k}" for k in range(1_700)]
    for at in (end, end + 30):
        assert [one.contains(k, at=at) for k in probe] == [
            whole.contains(k, at=at) for k in probe
        ]
    # Every key of the last minute is reported.
    recent = {k for k, at in stream(None) if end - at < 60}
    assert all(one.contains(k, at=end) for k in recent)
    assert one.stats()["observed"] == whole.stats()["observed"]
    assert one.stats()["clock"] == whole.stats()["clock"]


def test_in_place_or_merges_and_returns_the_same_object() -> None:
    a = ddf.Dedup(**ARGS["apbf"], seed=3)
    b = ddf.Dedup(**ARGS["apbf"], seed=3)
    a.observe("x", at=START)
    b.observe("y", at=START + 1)
    before = a
    a |= b
    assert a is before
    assert a.contains("x", at=START + 2) and a.contains("y", at=START + 2)
    # The merged state saves and loads like any other.
    assert ddf.Dedup.from_bytes(a.to_bytes()).contains("y", at=START + 2)


def test_whole_stream_bloom_filters_merge() -> None:
    args = dict(distinct=1e4, fpr=1e-3, seed=5, family="bloom")
    a, b = ddf.Dedup(**args), ddf.Dedup(**args)
    a.observe_many([f"a{i}" for i in range(1_000)])
    b.observe_many([f"b{i}" for i in range(1_000)])
    a.merge(b)
    assert a.contains_many([f"b{i}" for i in range(1_000)]).all()


def test_refused_merges_name_the_difference_and_change_nothing() -> None:
    a = ddf.Dedup(**ARGS["apbf"], seed=1)
    a.observe("x", at=START)
    before = a.to_bytes()
    other_key = ddf.Dedup(**ARGS["apbf"], seed=2)
    with pytest.raises(ddf.StateError, match="hash key"):
        a.merge(other_key)
    with pytest.raises(ddf.StateError, match="count window"):
        ddf.Dedup(window=100, slack=10**9, seed=1, family="apbf").merge(
            ddf.Dedup(window=100, slack=10**9, seed=1, family="apbf")
        )
    with pytest.raises(ddf.StateError, match="differs"):
        a.merge(ddf.Dedup(**dict(ARGS["apbf"], within=120, slack=120), seed=1))
    with pytest.raises(ddf.StateError, match="APBF"):
        a.merge(ddf.Dedup(**ARGS["sliding"], seed=1))
    with pytest.raises(TypeError):
        a.merge("not a Dedup")  # type: ignore[arg-type]
    assert a.to_bytes() == before
