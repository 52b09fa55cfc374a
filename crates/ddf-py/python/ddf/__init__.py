"""Duplicate detection over the last N keys or the last hour, in bounded
memory with a stated error rate: the ddf filters, planner and state files.

>>> import ddf
>>> seen = ddf.Dedup(window=1_000_000, fpr=1e-4)
>>> seen.observe("order-42")
False
>>> seen.observe("order-42")
True

See ``help(ddf.Dedup)`` and the README for the guarantees and their
conditions.
"""

from ddf._ddf import (
    FAMILIES as FAMILIES,
    Candidate as Candidate,
    Dedup as Dedup,
    Plan as Plan,
    __version__ as __version__,
    from_bytes as from_bytes,
    load as load,
    plan as plan,
)

__all__ = [
    "FAMILIES",
    "Candidate",
    "Dedup",
    "Plan",
    "__version__",
    "from_bytes",
    "load",
    "plan",
]
