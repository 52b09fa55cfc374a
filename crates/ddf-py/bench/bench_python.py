"""One timed run of one subject, for `cargo xtask bench-python`.

    python bench_python.py KEYS_FILE N KIND SUBJECT WINDOW FPR

KEYS_FILE holds little-endian uint64 keys written by xtask; KIND is `str`
(each key's decimal text, the bytes ddf hashes for an int too) or `u64`
(a numpy uint64 array for batch calls, Python ints one by one). Prints one
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
