//! Filtering on several threads: the exact filter split into shards by
//! digest, each shard's keys filtered in input order by one worker.
//!
//! # What is sharded, and why only that
//!
//! A key and all its repeats land in one shard ([`ddf::Shared::shard_of`]),
//! so each shard answers for its keys as one filter would for its
//! sub-stream. For the **exact** filter, that answer is the same as one
//! filter's for the merged stream:
//!
//! - over the whole stream, a set of digests is the union of the shards'
//!   sets;
//! - over a time window, "seen within the last `t`" depends only on the
//!   key's own times, once every record's time is clamped to the largest
//!   time before it in input order (what one filter does with a time that
//!   runs backwards, see [`Pool::submit`]);
//! - over a count window `w`, each keyed record gets its *position* (its
//!   index among the keyed records of the run) as its time, and each shard
//!   is a time window of `w + 1` positions: a repeat at distance `d` is
//!   within the window exactly when `d ≤ w`, as in one count window, and
//!   a duplicate refreshes the key in both. The shards together hold at
//!   most `w + 1` keys (positions are distinct), so the memory reported is
//!   that of one such window of `w + 1` items (each item carries its
//!   position, 64 bits more than in the count window), not the sum of the
//!   shards' caps.
//!
//! So the output is byte for byte that of one thread.
//!
//! Filtered on one thread instead:
//!
//! - every planned filter, whose promises (no missed duplicate within a
//!   count window, the false-positive bound) are proved for one filter
//!   over the merged stream and a planned number of items per generation;
//!   a shard of a count window sees a random share of it, which a planned
//!   shard could only bound with a probability;
//! - a run with `--state`: a state file holds one filter (the layout of
//!   `ddf::state`), and keeps that layout.
//!
//! The layout thus follows the flags and `--threads`, and never shows in
//! the output or in a state file.
//!
//! # Order
//!
//! Each worker owns the shards `j` with `j mod T = t` and takes its jobs
//! from its own FIFO channel, so each shard sees its keys in block order,
//! and in input order inside a block. Results come back per worker in
//! block order; the caller writes a block once every worker has answered
//! for it, so the output stays in input order.

use crate::input::{Block, Keys};
use ddf::{Digest, DuplicateFilter, Filter, KeyedSipHasher, Shared, Verdict, Window, Windowed};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{self, JoinHandle};

/// The shard count: enough that 8 workers each own two shards, so the
/// load of a worker is a sum of binomial shares, balanced to a few percent.
pub(crate) const SHARDS: usize = 16;

/// Blocks sent to the workers and not yet written: enough to keep every
/// worker busy while the caller writes the oldest.
const DEPTH: usize = 3;

/// The keys of one block that one worker filters, and their verdicts.
/// Jobs travel back and forth, so their buffers are reused (a block's
/// keys are large enough that a fresh buffer would be mapped and faulted
/// in each time).
#[derive(Default)]
struct Job {
    /// `(shard, digest, time)` in input order, the time unused without a
    /// time window.
    keys: Vec<(u32, Digest, u64)>,
    /// One verdict per key, filled by the worker.
    answers: Vec<Verdict>,
}

/// The exact filter as [`SHARDS`] shards filtered by worker threads.
pub(crate) struct Pool {
    shared: Arc<Shared<Filter, KeyedSipHasher>>,
    to: Vec<SyncSender<Job>>,
    from: Vec<Receiver<Job>>,
    workers: Vec<JoinHandle<()>>,
    /// Blocks sent and not yet collected, with each worker's key indices.
    pending: VecDeque<(Block, Vec<Vec<u32>>)>,
    /// Used jobs of each worker, and index lists, for reuse.
    spare_jobs: Vec<Vec<Job>>,
    spare_idx: Vec<Vec<Vec<u32>>>,
    /// The largest time given so far: later times are clamped up to it.
    latest: Option<u64>,
    /// The next keyed record's position, for a count window.
    position: Option<u64>,
    /// The bound on the shards' state for a count window (module docs).
    positions_bound: u64,
}

impl Pool {
    /// [`SHARDS`] exact filters over `window`, filtered by `threads`
    /// workers.
    pub(crate) fn start(
        window: Window,
        threads: usize,
        hasher: KeyedSipHasher,
    ) -> Result<Pool, String> {
        let shard = || match window {
            Window::Count(w) => crate::engine::exact_over_positions(w),
            _ => ddf::Filter::exact(window)
                .map_err(|e| format!("cannot build the exact filter: {e}")),
        };
        let filters = (0..SHARDS)
            .map(|_| shard())
            .collect::<Result<Vec<_>, _>>()?;
        let (position, positions_bound) = match window {
            Window::Count(_) => (Some(0), shard()?.memory_bits()),
            _ => (None, 0),
        };
        let shared = Arc::new(
            Shared::from_parts(filters, hasher).map_err(|e| format!("cannot shard: {e}"))?,
        );
        let timed = !matches!(window, Window::Unbounded);
        let (mut to, mut from, mut workers) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..threads.clamp(1, SHARDS) {
            let (job_tx, job_rx) = sync_channel::<Job>(DEPTH + 1);
            let (res_tx, res_rx) = sync_channel::<Job>(DEPTH + 1);
            let shared = Arc::clone(&shared);
            workers.push(thread::spawn(move || {
                work(&shared, timed, &job_rx, &res_tx);
            }));
            to.push(job_tx);
            from.push(res_rx);
        }
        let spare_jobs = (0..workers.len()).map(|_| Vec::new()).collect();
        Ok(Pool {
            shared,
            to,
            from,
            workers,
            pending: VecDeque::new(),
            spare_jobs,
            spare_idx: Vec::new(),
            latest: None,
            position,
            positions_bound,
        })
    }

    /// Sends a block's keys to the workers; the block and its verdicts come
    /// back from [`next`](Self::next), in block order.
    pub(crate) fn submit(&mut self, b: Block) {
        let t = self.to.len();
        let mut jobs: Vec<Job> = self
            .spare_jobs
            .iter_mut()
            .map(|spare| spare.pop().unwrap_or_default())
            .collect();
        let mut idx = self.spare_idx.pop().unwrap_or_else(|| vec![Vec::new(); t]);
        for (job, idx) in jobs.iter_mut().zip(&mut idx) {
            job.keys.clear();
            idx.clear();
        }
        let shared = &self.shared;
        let mut put = |i: usize, d: Digest, time: u64| {
            let j = shared.shard_of(d);
            jobs[j % t].keys.push((j as u32, d, time));
            idx[j % t].push(i as u32);
        };
        match (&b.keys, self.position.as_mut()) {
            (Keys::Digests(digests), Some(position)) => {
                for (i, &d) in digests.iter().enumerate() {
                    put(i, d, *position);
                    *position += 1;
                }
            }
            (Keys::Digests(digests), None) => {
                for (i, &d) in digests.iter().enumerate() {
                    put(i, d, 0);
                }
            }
            (Keys::Stamped(stamped), _) => {
                // One filter takes a time earlier than the latest it saw as
                // the latest; a shard only sees its own keys' times, so the
                // clamp to the merged stream's latest time is made here.
                let mut latest = self.latest;
                for (i, &(d, time)) in stamped.iter().enumerate() {
                    let time = latest.map_or(time, |l| l.max(time));
                    latest = Some(time);
                    put(i, d, time);
                }
                self.latest = latest;
            }
        }
        for (tx, job) in self.to.iter().zip(jobs) {
            // A worker stops only when its channel closes (in `drop`); a
            // panicked one is reported by `next`.
            let _ = tx.send(job);
        }
        self.pending.push_back((b, idx));
    }

    /// The oldest block sent, with its verdicts (one per key, in the
    /// block's key order) in `verdicts`: when there is one, and `wait` is
    /// set or enough blocks are in flight to keep the workers busy.
    pub(crate) fn next(
        &mut self,
        wait: bool,
        verdicts: &mut Vec<Verdict>,
    ) -> Result<Option<Block>, String> {
        if self.pending.is_empty() || (!wait && self.pending.len() < DEPTH) {
            return Ok(None);
        }
        let Some((b, idx)) = self.pending.pop_front() else {
            return Ok(None);
        };
        verdicts.clear();
        verdicts.resize(b.keys.len(), Verdict::Unseen);
        for ((rx, idx), spare) in self.from.iter().zip(&idx).zip(&mut self.spare_jobs) {
            let job = rx
                .recv()
                .map_err(|_| "a filtering thread stopped".to_string())?;
            for (&i, &v) in idx.iter().zip(&job.answers) {
                verdicts[i as usize] = v;
            }
            spare.push(job);
        }
        self.spare_idx.push(idx);
        Ok(Some(b))
    }

    /// The shards' state bits: summed, or for a count window the bound on
    /// all of them (module docs).
    pub(crate) fn memory_bits(&self) -> u64 {
        match self.position {
            Some(_) => self.positions_bound,
            None => self.shared.memory_bits(),
        }
    }

    /// The slack, the same in every shard (each has the merged window).
    pub(crate) fn slack(&self) -> u64 {
        self.shared
            .each_shard(|_, f| f.slack())
            .into_iter()
            .max()
            .unwrap_or(0)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the job channels ends the workers.
        self.to.clear();
        self.from.clear();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: each job's keys grouped by shard, each group through its
/// shard's batch path, the verdicts sent back in the job's order.
fn work(
    shared: &Shared<Filter, KeyedSipHasher>,
    timed: bool,
    jobs: &Receiver<Job>,
    results: &SyncSender<Job>,
) {
    let mut groups: Vec<Vec<u32>> = vec![Vec::new(); SHARDS];
    let (mut keys, mut out) = (Keys::new(timed), Vec::new());
    while let Ok(mut job) = jobs.recv() {
        for g in &mut groups {
            g.clear();
        }
        for (k, &(j, _, _)) in job.keys.iter().enumerate() {
            groups[j as usize].push(k as u32);
        }
        job.answers.clear();
        job.answers.resize(job.keys.len(), Verdict::Unseen);
        for g in groups.iter().filter(|g| !g.is_empty()) {
            keys.clear();
            for &k in g {
                let (_, d, time) = job.keys[k as usize];
                keys.push(d, time);
            }
            // The group's shard, through any of its digests; only this
            // worker takes it, so the lock is never contended.
            let mut f = shared.lock(job.keys[g[0] as usize].1);
            out.clear();
            crate::engine::observe(&mut f, &keys, &mut out);
            drop(f);
            for (&k, &v) in g.iter().zip(&out) {
                job.answers[k as usize] = v;
            }
        }
        if results.send(job).is_err() {
            return;
        }
    }
}

/// Whether the flags' filter is filtered by a [`Pool`] (module docs).
pub(crate) fn sharded(choice: &ddf::Choice, threads: usize, state: bool) -> bool {
    threads > 1 && !state && choice.candidate.is_none()
}
