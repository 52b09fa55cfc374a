"""ddf as a polars expression: ``is_duplicate`` flags each row whose key
was seen within the window, through a ``Dedup`` that keeps its state across
frames (save it, load it, go on).

>>> import polars as pl
>>> import ddf.polars
>>> df = pl.DataFrame({"id": ["a", "b", "a"]})
>>> df.with_columns(ddf.polars.is_duplicate(pl.col("id"), window=1_000, fpr=1e-4))["is_duplicate"].to_list()
[False, False, True]

Each batch of the column is handed to ``Dedup.observe_many`` as Arrow
(read in place, with the GIL released), in row order.
"""

from __future__ import annotations

from typing import Union

import polars as pl

from ddf._ddf import Dedup
from ddf._errors import ParamError, ParamTypeError
from ddf._types import Duration, Size

__all__ = ["is_duplicate"]

#: A column: an expression, or a column's name.
Column = Union[pl.Expr, str]


def _expr(param: str, column: Column) -> pl.Expr:
    if isinstance(column, str):
        return pl.col(column)
    if isinstance(column, pl.Expr):
        return column
    raise ParamTypeError(
        f"{param} must be a polars expression or a column name, not {type(column).__name__}"
    )


def is_duplicate(
    keys: Column,
    *,
    dedup: Dedup | None = None,
    at: Column | None = None,
    window: int | None = None,
    within: Duration | None = None,
    rate: float | None = None,
    capacity: int | None = None,
    fpr: float | None = None,
    exact: bool = False,
    max_memory: Size | None = None,
    misses_ok: bool = False,
    family: str | None = None,
    slack: int | Duration | None = None,
    distinct: float | None = None,
    seed: int | None = None,
    name: str = "is_duplicate",
) -> pl.Expr:
    """A Boolean expression: ``True`` where the row's key was seen within
    the window (earlier in this frame or in any frame the same ``dedup``
    saw), named ``name``.

    Args:
        keys: the key column (strings, binary or integers; nulls refused).
        dedup: the ``Dedup`` that holds the state; keep it to resume on the
            next frame, ``save`` it to resume in another process. Without
            it, one is built from the remaining arguments (as
            ``ddf.Dedup``'s) and lives in the expression.
        at: the time column of a time window (datetimes, or seconds since
            the Unix epoch); without it, time windows read the clock.
        name: the output column's name.

    Raises:
        ddf.ParamError: ``dedup`` together with ``Dedup``'s arguments, or
            an argument out of range.
    """
    given = {
        k: v
        for k, v in dict(
            window=window, within=within, rate=rate, capacity=capacity, fpr=fpr,
            max_memory=max_memory, family=family, slack=slack, distinct=distinct, seed=seed,
        ).items()
        if v is not None
    }
    if exact:
        given["exact"] = True
    if misses_ok:
        given["misses_ok"] = True
    if dedup is not None and given:
        raise ParamError(
            f"give dedup= or the arguments of ddf.Dedup ({', '.join(sorted(given))}=), not both"
        )
    seen = dedup
    if seen is None:
        seen = Dedup(
            window, within=within, rate=rate, capacity=capacity, fpr=fpr, exact=exact,
            max_memory=max_memory, misses_ok=misses_ok, family=family, slack=slack,
            distinct=distinct, seed=seed,
        )
    key_expr = _expr("keys", keys)
    if at is None:

        def observe(s: pl.Series) -> pl.Series:
            return pl.Series(name, seen.observe_many(s), dtype=pl.Boolean)

        return key_expr.map_batches(observe, return_dtype=pl.Boolean).alias(name)

    at_expr = _expr("at", at)

    def observe_at(s: pl.Series) -> pl.Series:
        times = s.struct.field("at")
        return pl.Series(name, seen.observe_many(s.struct.field("key"), at=times), dtype=pl.Boolean)

    both = pl.struct(key_expr.alias("key"), at_expr.alias("at"))
    return both.map_batches(observe_at, return_dtype=pl.Boolean).alias(name)
