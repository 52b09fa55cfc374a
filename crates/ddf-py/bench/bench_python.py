"""One timed run of one subject, for `cargo xtask bench-python`.

    python bench_python.py KEYS_FILE N KIND SUBJECT WINDOW FPR

KEYS_FILE holds little-endian uint64 keys written by xtask; KIND is `str`
(each key's decimal text, the bytes ddf hashes for an int too) or `u64`
(a numpy uint64 array for batch calls, Python ints one by one). The column
subjects (`ddf-numpy-S`, `ddf-pandas`, `ddf-arrow`, `ddf-polars`) hand
`observe_many` the same keys as a numpy `S` array, a pandas `str` Series,
a pyarrow array (string, or int64 for `u64`) and a polars Series, built
before the clock starts. Prints one
JSON line: seconds for the timed loop and the peak resident memory it
added (VmHWM reset before the structure is built), in KiB.
"""

import gc
import json
import sys
import time
from collections import deque

import numpy as np


def rss_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def reset_peak() -> None:
    # Linux: writing 5 resets the peak resident set size (VmHWM).
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def dict_deque(keys, window):
    counts: dict = {}
    fifo: deque = deque()
    get, append, popleft = counts.get, fifo.append, fifo.popleft
    dups = 0
    for k in keys:
        c = get(k, 0)
        dups += c > 0
        counts[k] = c + 1
        append(k)
        if len(fifo) > window:
            old = popleft()
            n = counts[old] - 1
            if n:
                counts[old] = n
            else:
                del counts[old]
    return dups, (counts, fifo)


def python_set(keys):
    s: set = set()
    add = s.add
    dups = 0
    for k in keys:
        if k in s:
            dups += 1
        else:
            add(k)
    return dups, s


def numpy_s(kind, raw, keys):
    return np.array(keys, dtype="S") if kind == "str" else raw


def pandas_str(kind, raw, keys):
    import pandas as pd

    return pd.Series(keys, dtype="str") if kind == "str" else pd.Series(raw.view(np.int64))


def arrow(kind, raw, keys):
    import pyarrow as pa

    return pa.array(keys, type=pa.string()) if kind == "str" else pa.array(raw.view(np.int64))


def polars_series(kind, raw, keys):
    import polars as pl

    return pl.Series(keys, dtype=pl.String) if kind == "str" else pl.Series(raw.view(np.int64))


# The columns `observe_many` reads (built before the clock starts).
COLUMNS = {
    "ddf-numpy-S": numpy_s,
    "ddf-pandas": pandas_str,
    "ddf-arrow": arrow,
    "ddf-polars": polars_series,
}


def main() -> None:
    path, n, kind, subject, window, fpr = sys.argv[1:7]
    n, window, fpr = int(n), int(window), float(fpr)
    raw = np.fromfile(path, dtype="<u8", count=n)
    if kind == "str":
        keys = [str(k) for k in raw.tolist()]
        batch = keys
    else:
        keys = raw.tolist()  # Python ints, for one-by-one loops
        batch = raw
    gc.collect()
    base = rss_kib("VmRSS")
    reset_peak()
    keep = None
    if subject == "ddf-one":
        import ddf

        seen = ddf.Dedup(window=window, fpr=fpr, seed=1)
        obs = seen.observe
        t = time.perf_counter()
        for k in keys:
            obs(k)
        secs = time.perf_counter() - t
        keep = seen
    elif subject == "ddf-many":
        import ddf

        seen = ddf.Dedup(window=window, fpr=fpr, seed=1)
        t = time.perf_counter()
        seen.observe_many(batch)
        secs = time.perf_counter() - t
        keep = seen
    elif subject in COLUMNS:
        import ddf

        column = COLUMNS[subject](kind, raw, batch)
        seen = ddf.Dedup(window=window, fpr=fpr, seed=1)
        gc.collect()
        base = rss_kib("VmRSS")
        reset_peak()
        t = time.perf_counter()
        seen.observe_many(column)
        secs = time.perf_counter() - t
        keep = seen
    elif subject in ("rbloom-add", "rbloom-in-add", "rbloom-update"):
        from rbloom import Bloom

        b = Bloom(max(n, 1), fpr)
        t = time.perf_counter()
        if subject == "rbloom-add":
            add = b.add
            for k in keys:
                add(k)
        elif subject == "rbloom-in-add":
            add = b.add
            for k in keys:
                if k not in b:
                    add(k)
        else:
            b.update(keys)
        secs = time.perf_counter() - t
        keep = b
    elif subject == "rotating":
        from probables import RotatingBloomFilter

        # A count window of `window` keys: 10 filters of window/10 each.
        r = RotatingBloomFilter(est_elements=max(window // 10, 1), false_positive_rate=fpr, max_queue_size=10)
        skeys = [str(k) for k in keys]
        t = time.perf_counter()
        for k in skeys:
            if not r.check(k):
                r.add(k)
        secs = time.perf_counter() - t
        keep = r
    elif subject == "dict-deque":
        t = time.perf_counter()
        _, keep = dict_deque(keys, window)
        secs = time.perf_counter() - t
    elif subject == "set":
        t = time.perf_counter()
        _, keep = python_set(keys)
        secs = time.perf_counter() - t
    else:
        raise SystemExit(f"unknown subject {subject}")
    peak = rss_kib("VmHWM")
    del keep
    print(json.dumps({"seconds": secs, "peak_kib": max(peak - base, 0)}))


if __name__ == "__main__":
    main()
