"""Types of the extension module ``ddf._ddf`` (re-exported by ``ddf``)."""

import datetime
import os
from typing import Callable, Iterable, Iterator, Sequence, Union, final

import numpy as np
import numpy.typing as npt

__version__: str
#: The family names ``Dedup(family=...)`` accepts.
FAMILIES: list[str]

#: A key: str (hashed as UTF-8), bytes-like, or int (hashed as ``str(n)``).
Key = Union[str, bytes, bytearray, memoryview, int]
#: A duration: text such as ``"1h"`` or ``"90s"``, seconds, or a timedelta.
Duration = Union[str, float, int, datetime.timedelta]
#: A size: bytes (int), or text such as ``"64MiB"``.
Size = Union[int, str]
#: Keys for a batch: an iterable of keys, or a 1-D numpy array of integers,
#: ``S`` bytes, ``U`` str or objects.
Keys = Union[Iterable[object], npt.NDArray[np.generic]]
#: One time: seconds since the epoch, a datetime (naive = UTC), a
#: ``pandas.Timestamp`` or a ``numpy.datetime64`` of any unit.
Time = Union[float, int, datetime.datetime, np.datetime64]
#: Times for a batch: one time for all, or one per key (a sequence of times,
#: a numpy array of seconds or of datetime64, a pandas/polars datetime column).
Times = Union[Time, Sequence[Time], npt.NDArray[np.floating], npt.NDArray[np.datetime64], object]

@final
class Dedup:
    """Duplicate detection over a window of keys or of time.

    ``observe(key)`` answers whether ``key`` was seen within the window
    (``True``: a duplicate), then remembers it. The filter is the planner's
    first choice for the arguments, or the named ``family``; it is safe to
    share between threads (one mutex inside; batch calls release the GIL).

    Args:
        window: remember the last ``window`` keys.
        within: remember keys of the last duration (``"1h"``); times are
            seconds since the Unix epoch, ``at=`` or ``time.time()``.
        rate: expected keys per second, to size a ``within`` window
            (default 1000).
        capacity: expected keys per ``within`` window, to size it (instead
            of ``rate``).
        fpr: largest share of new keys reported as duplicates (default 1e-6,
            unless ``max_memory`` is given alone).
        exact: no false positives: keep every key of the window.
        max_memory: most memory for the filter (``"64MiB"`` or bytes).
        misses_ok: accept filters that may miss duplicates.
        family: one of ``FAMILIES`` (or its display name, case and
            separators ignored) instead of the planner's pick.
        slack: how far beyond the window a key may still be reported
            (keys, or a duration for ``within``); default 1 % of the window.
        distinct: expected distinct keys, to size a filter without a window.
        seed: derive the hash key from this seed (reproducible, NOT secret);
            default a random key.
        key: a function applied to every key first.

    Raises:
        ValueError: an argument out of range (the message names it), or no
            filter meets the arguments (the planner's reasons).
        TypeError: an argument of the wrong type.
    """

    def __init__(
        self,
        window: int | None = None,
        *,
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
        key: Callable[[object], Key] | None = None,
    ) -> None: ...
    def observe(self, key: object, *, at: Time | None = None) -> bool:
        """``True`` if ``key`` was seen within the window; then remembers it.

        ``at``: seconds since the epoch, time windows only (default now).
        """
    def contains(self, key: object, *, at: Time | None = None) -> bool:
        """Whether ``key`` is reported as seen, without remembering it.

        A time window answers at ``at`` (default: the latest time observed).
        """
    def __contains__(self, key: object) -> bool: ...
    def observe_many(self, keys: Keys, *, at: Times | None = None) -> npt.NDArray[np.bool_]:
        """``observe`` for every key in order, through the prefetching batch
        path with the GIL released; ``True`` for each duplicate."""
    def contains_many(self, keys: Keys, *, at: Time | None = None) -> npt.NDArray[np.bool_]:
        """``contains`` for every key, without remembering any."""
    def merge(self, other: Dedup) -> None:
        """Merges ``other`` (another node's share of the stream: same window,
        parameters and hash key) into this one; a refused merge raises
        ``ValueError`` naming the difference and changes nothing."""
    def __ior__(self, other: Dedup) -> Dedup:
        """``a |= b``: ``a.merge(b)``."""
    def clear(self) -> None:
        """Forgets every key (the hash key stays)."""
    @property
    def family(self) -> str:
        """The family name (one of ``FAMILIES``)."""
    @property
    def config(self) -> str:
        """The family's parameters, as text."""
    @property
    def window(self) -> int | float | None:
        """Keys (int), seconds (float), or ``None`` for the whole stream."""
    @property
    def slack(self) -> int | float | None:
        """How far beyond the window a key may still be reported."""
    @property
    def memory_bits(self) -> int:
        """State bits of the filter."""
    @property
    def predicted_fpr(self) -> float:
        """The false-positive rate predicted when the filter was planned."""
    @property
    def predicted_fnr(self) -> float:
        """The false-negative rate predicted (0: no key in the window is missed)."""
    @property
    def is_timed(self) -> bool:
        """Whether the window is a span of time."""
    def stats(self) -> dict[str, object]:
        """Counters (observed, duplicates, clock, …) and parameters."""
    def to_bytes(self) -> bytes:
        """The state in the ``.ddf`` state file format (holds the hash key)."""
    @staticmethod
    def from_bytes(data: bytes, *, key: Callable[[object], Key] | None = None) -> Dedup:
        """Restores ``to_bytes`` output; corrupt bytes raise ``ValueError``."""
    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the state file atomically (mode 0600)."""

@final
class Candidate:
    """One configuration the planner offers, with its predictions."""

    @property
    def family(self) -> str: ...
    @property
    def config(self) -> str: ...
    @property
    def memory_bits(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def fpr(self) -> float: ...
    @property
    def fnr(self) -> float: ...
    @property
    def false_negatives(self) -> bool: ...
    @property
    def slack(self) -> int | float | None: ...
    @property
    def window(self) -> int | float | None: ...
    @property
    def accesses(self) -> float: ...

@final
class Plan:
    """The ranked candidates, best first; ``print(plan)`` shows a table."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Candidate: ...
    def __iter__(self) -> Iterator[Candidate]: ...
    @property
    def best(self) -> Candidate: ...

def plan(
    window: int | None = None,
    *,
    within: Duration | None = None,
    rate: float | None = None,
    capacity: int | None = None,
    fpr: float | None = None,
    exact: bool = False,
    max_memory: Size | None = None,
    misses_ok: bool = False,
    slack: int | Duration | None = None,
    distinct: float | None = None,
) -> Plan:
    """The planner's ranked candidates for the arguments of ``Dedup``.

    Raises ``ValueError`` with the planner's reasons when none qualifies.
    """

def load(path: str | os.PathLike[str], *, key: Callable[[object], Key] | None = None) -> Dedup:
    """A ``Dedup`` from a state file (``Dedup.save`` or ``ddf dedup --state``).

    A corrupt or foreign file, or a path that cannot be a state file (a
    device such as ``/dev/zero``, a pipe, a directory), raises
    ``ValueError`` without reading more than the file's header declares; a
    missing file raises ``FileNotFoundError``.
    """

def from_bytes(data: bytes, *, key: Callable[[object], Key] | None = None) -> Dedup:
    """A ``Dedup`` from ``Dedup.to_bytes`` output."""
