"""Duplicate detection over the last N keys or the last hour, in bounded
memory with a stated error rate: the ddf filters, planner and state files.

>>> import ddf
>>> seen = ddf.Dedup(window=1_000_000, fpr=1e-4)
>>> seen.observe("order-42")
False
>>> seen.observe("order-42")
True

Errors are ``ddf.Error``: ``ddf.ParamError`` (a ``ValueError``; its
subclass ``ddf.ParamTypeError`` is also a ``TypeError``) names the
argument or the element (``keys[3]``), ``ddf.PlanError`` gives the
planner's reasons, ``ddf.StateError`` refuses corrupt state. See
``help(ddf.Dedup)`` and the README for the guarantees and their
conditions; ``ddf.polars.is_duplicate`` is the polars expression.
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
from ddf._errors import (
    CapacityWarning as CapacityWarning,
    Error as Error,
    MemoryWarning as MemoryWarning,
    ParamError as ParamError,
    ParamTypeError as ParamTypeError,
    PlanError as PlanError,
    StateError as StateError,
)
from ddf._types import (
    Duration as Duration,
    Key as Key,
    KeyFunction as KeyFunction,
    Keys as Keys,
    Size as Size,
    Time as Time,
    Times as Times,
)

__all__ = [
    "FAMILIES",
    "Candidate",
    "CapacityWarning",
    "Dedup",
    "Duration",
    "Error",
    "Key",
    "KeyFunction",
    "Keys",
    "MemoryWarning",
    "ParamError",
    "ParamTypeError",
    "Plan",
    "PlanError",
    "Size",
    "StateError",
    "Time",
    "Times",
    "__version__",
    "from_bytes",
    "load",
    "plan",
]
