"""The exceptions and warnings of ``ddf``.

Every error ddf raises for a reason of its own is a ``ddf.Error``; each
subclass also derives from the built-in exception code written before the
hierarchy catches (``ValueError``, ``TypeError``), so ``except ValueError``
still works. Messages name the parameter (``window=``, ``keys[3]``) and
say ``missing value`` for ``None``, ``NaN``, ``pandas.NA`` and Arrow nulls.
"""

__all__ = [
    "CapacityWarning",
    "Error",
    "MemoryWarning",
    "ParamError",
    "ParamTypeError",
    "PlanError",
    "StateError",
]


class Error(Exception):
    """The base of every error ddf raises for a reason of its own."""


class ParamError(Error, ValueError):
    """An argument out of its range, or a key or time that is not one.

    The message names the parameter (``window=``, ``at``) and, for an
    element of a batch, its index (``keys[3]``).
    """


class ParamTypeError(ParamError, TypeError):
    """An argument, key or time of the wrong type, a missing key (``None``,
    NaN, ``pandas.NA``, an Arrow null) included: a ``ParamError`` and a
    ``TypeError``."""


class PlanError(ParamError):
    """The arguments are each valid but no filter meets them together; the
    message gives the planner's reasons and what to change."""


class StateError(Error, ValueError):
    """Bytes or a file that are not a usable ddf state (corrupt, foreign,
    truncated, or not a regular file)."""


class CapacityWarning(RuntimeWarning):
    """A time window closed a generation early: more keys arrived than it
    was sized for (``rate=``, ``capacity=``), so keys within the window may
    be missed. Issued once per ``Dedup``; ``stats()["generations_closed_early"]``
    counts every such generation."""


class MemoryWarning(RuntimeWarning):
    """The filter planned may need more memory than this machine has."""


# Shown and pickled as the names users import: `ddf.ParamError`.
for _cls in (
    Error, ParamError, ParamTypeError, PlanError, StateError, CapacityWarning, MemoryWarning
):
    _cls.__module__ = "ddf"
del _cls
