"""ddf.plan: the planner's ranked candidates, printable as a table."""

import json
import subprocess

import pytest

import ddf


def test_plan_is_ranked_and_prints_a_table() -> None:
    p = ddf.plan(window=1_000_000, fpr=1e-4)
    assert len(p) >= 1 and p.best.family == p[0].family == p[-len(p)].family
    assert [c.memory_bits for c in p] == sorted(c.memory_bits for c in p)
    for c in p:
        assert c.fpr <= 1e-4 and c.family in ddf.FAMILIES and c.window == 1_000_000
    table = str(p)
    assert table.splitlines()[0].split()[:3] == ["rank", "family", "memory"]
    assert len(table.splitlines()) == len(p) + 1
    assert "Candidate(" in repr(p[0])
    with pytest.raises(IndexError):
        p[len(p)]
    exact = ddf.plan(window=10, exact=True)
    assert len(exact) == 1 and exact[0].family == "exact" and exact[0].fpr == 0.0


def test_named_family() -> None:
    seen = ddf.Dedup(window=100_000, fpr=1e-3, family="apbf", slack=10**9)
    assert seen.family == "apbf"


def test_plan_agrees_with_the_ddf_command(ddf_bin: str) -> None:
    out = subprocess.run(
        [ddf_bin, "plan", "--window", "100000", "--fpr", "0.001", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = json.loads(out)["candidates"]
    ours = ddf.plan(window=100_000, fpr=1e-3)
    assert [(r["family"], r["memory_bytes"], r["config"]) for r in rows] == [
        (c.family, c.memory_bytes, c.config) for c in ours
    ]


def test_fixed_memory_whole_stream_follows_the_planner() -> None:
    # Whether the planner offers a filter for the whole stream in fixed
    # memory without a count of distinct keys depends on the families it
    # has; Dedup must do what plan() says either way.
    args = dict(max_memory="64MiB", misses_ok=True)
    try:
        best = ddf.plan(**args)[0]
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            ddf.Dedup(**args)
        assert str(got.value) == str(e)
        assert "planner" in str(e)
    else:
        seen = ddf.Dedup(**args)
        assert seen.family == best.family
        assert seen.memory_bits <= 64 * 2**20 * 8
