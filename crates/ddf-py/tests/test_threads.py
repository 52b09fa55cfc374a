"""One Dedup shared between threads: batch calls release the GIL, and the
mutex inside keeps every answer that of some serial order."""

import threading

import numpy as np

import ddf


def test_threads_share_one_filter() -> None:
    seen = ddf.Dedup(window=1_000_000, exact=True, seed=1)
    threads, results = 4, {}
    per = 50_000

    def work(t: int) -> None:
        keys = np.arange(t * per, (t + 1) * per, dtype=np.uint64)
        first = seen.observe_many(keys)
        # One by one too, interleaved with the other threads' batches.
        again = [seen.observe(int(k)) for k in keys[:2000]]
        results[t] = (first, again)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    for t in range(threads):
        first, again = results[t]
        # Disjoint keys: nothing new is a duplicate, every repeat is.
        assert not first.any()
        assert all(again)
    s = seen.stats()
    assert s["observed"] == threads * (per + 2000)
    assert s["duplicates"] == threads * 2000
    assert seen.contains_many(np.arange(threads * per, dtype=np.uint64)).all()
