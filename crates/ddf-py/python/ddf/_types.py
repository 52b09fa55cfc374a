"""The type aliases of ``ddf``'s signatures, importable at run time
(``ddf.Key``, ``ddf.Keys``, ``ddf.Times``, …)."""

import datetime
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np
import numpy.typing as npt

__all__ = ["Duration", "Key", "KeyFunction", "Keys", "Size", "Time", "Times"]

#: A key: str (hashed as UTF-8), bytes-like, or int (hashed as ``str(n)``).
Key = Union[str, bytes, bytearray, memoryview, int]
#: A function of one element that returns its key (``key=``): its argument
#: is whatever the caller's keys are, so it is typed ``Any``.
KeyFunction = Callable[[Any], Key]
#: A duration: text such as ``"1h"`` or ``"90s"``, seconds, or a timedelta.
Duration = Union[str, float, int, datetime.timedelta]
#: A size: bytes (int), or text such as ``"64MiB"``.
Size = Union[int, str]
#: Keys for a batch: an iterable of keys, a 1-D numpy array of integers,
#: ``S`` bytes, ``U`` str or objects, or an Arrow column (anything with
#: ``__arrow_c_array__`` or ``__arrow_c_stream__``: pyarrow, pandas, polars).
Keys = Union[Iterable[Any], npt.NDArray[Any]]
#: One time: seconds since the epoch, a datetime (naive = UTC), a
#: ``pandas.Timestamp`` or a ``numpy.datetime64`` of any unit.
Time = Union[float, int, datetime.datetime, np.datetime64]
#: Times for a batch: one time for all, or one per key (a sequence of times,
#: a numpy array of seconds or of datetime64, a pandas or polars datetime
#: column).
Times = Union[Time, Sequence[Time], npt.NDArray[Any], Iterable[Any]]
