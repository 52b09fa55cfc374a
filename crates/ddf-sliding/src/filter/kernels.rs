//! The hot paths of tables of lines as [`Kernel`]s, run through the
//! filter's [`Isa`]: compiled for the baseline and for the instructions
//! found at run time, so a machine with bit counts and wide compares uses
//! them (a line probe counts and finds bits at every step: 310 instructions
//! per observe at x86-64-v3 against 374 at the baseline, hashing included,
//! callgrind on `observe_loop default 16384 0.9 line`). Each `run` inlines the whole
//! path down to the table (`LINES = true`); what stays out of line (closing
//! a generation, relocation) is rare and runs at the baseline. The other
//! layouts gain little there and keep their one path.

use super::*;
use ddf_bits::isa::Kernel;

/// [`SlidingBloom::observe_now`] of one item.
pub(super) struct ObserveNow<'a> {
    pub(super) filter: &'a mut SlidingBloom,
    pub(super) digest: Digest,
}

impl Kernel for ObserveNow<'_> {
    type Output = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.filter.observe_now::<true>(self.digest)
    }
}

/// [`SlidingBloom::contains_ahead`] of one item.
pub(super) struct ContainsAhead<'a> {
    pub(super) filter: &'a SlidingBloom,
    pub(super) digest: Digest,
    pub(super) ahead: u64,
}

impl Kernel for ContainsAhead<'_> {
    type Output = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.filter.contains_ahead::<true>(self.digest, self.ahead)
    }
}

/// [`SlidingBloom::observe_hinted`] of a batch: one dispatch for the block.
pub(super) struct ObserveHinted<'a> {
    pub(super) filter: &'a mut SlidingBloom,
    pub(super) digests: &'a [Digest],
    pub(super) verdicts: &'a mut Vec<Verdict>,
}

impl Kernel for ObserveHinted<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.filter
            .observe_hinted::<true>(self.digests, self.verdicts);
    }
}
