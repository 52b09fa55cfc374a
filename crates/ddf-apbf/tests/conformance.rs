//! The shared contract for the plain and blocked filters, by count and by time.

use ddf_apbf::{Apbbf, Apbf, Atomic, AtomicApbbf, AtomicApbf, AtomicForm};
use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};

// g = ⌊2000·ln 2/4⌋ = 346, w = 6·346.
conformance!(
    apbf,
    Apbf::new(4, 6, 2_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(6 * 346))
        .budget_bits(20_000)
);
// Without timestamps every insertion happens at time 0: generations close by count.
conformance!(
    apbf_timed,
    Apbf::with_time_span(100, 4, 6, 2_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(6 * 346))
        .budget_bits(20_000)
);
// 40 blocks of 64 bits, b = 4: c = 10.74, g = ⌊40·10.74/2⌋ = 214.
conformance!(
    apbbf_word,
    Apbbf::new(2, 5, 40, 64, 4).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(5 * 214))
        .budget_bits(7 * 40 * 64)
);
conformance!(
    apbbf_line,
    Apbbf::with_time_span(1_000, 3, 5, 8, 512, 8).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(5 * 117))
        .budget_bits(8 * 8 * 512)
);
// With timestamps: generations close by time as well as by count.
ddf_core::timed_conformance!(
    apbf_timed_clock,
    Apbf::with_time_span(100, 4, 6, 2_000).unwrap(),
    20
);
ddf_core::timed_conformance!(
    apbbf_timed_clock,
    Apbbf::with_time_span(1_000, 3, 5, 8, 512, 8).unwrap(),
    200
);

// The lock-free APBF through `&mut`: g = 346 < 512, so it counts every
// insertion at once (c = 1) and keeps the APBF's window exactly.
conformance!(
    atomic_apbf,
    AtomicApbf::new(4, 6, 2_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(6 * 346))
        .budget_bits(20_000)
);
conformance!(
    atomic_apbf_timed,
    AtomicApbf::with_time_span(100, 4, 6, 2_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(6 * 346))
        .budget_bits(20_000)
);
// The lock-free APBBF, the same shapes as the APBBF's (g < 512: c = 1).
conformance!(
    atomic_apbbf_word,
    AtomicApbbf::new(2, 5, 40, 64, 4).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(5 * 214))
        .budget_bits(7 * 40 * 64)
);
conformance!(
    atomic_apbbf_line,
    AtomicApbbf::with_time_span(1_000, 3, 5, 8, 512, 8).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(5 * 117))
        .budget_bits(8 * 8 * 512)
);

/// `timed_conformance!` but its steps-back clause: with threads the filter
/// keeps no latest time (a word every timed insertion would write), so a
/// step back is clamped and counted only when it falls before the current
/// generation's opening (`Atomic`'s `clock_regressions`).
mod atomic_timed_clock {
    use super::*;
    use ddf_core::testing as t;

    /// The timed checks but steps back, for the filter `make` builds.
    fn timed_checks<F: AtomicForm>(make: fn() -> Atomic<F>, step: u64) {
        let c = Conformance::default();
        t::timed_observe_is_contains_then_insert(make, &c, step);
        t::timed_snapshot_round_trips(make, &c, step);
        t::timed_batches_are_one_by_one(make, &c, step);
        t::timed_burst_keeps_memory(make, &c);
    }

    #[test]
    fn atomic_apbf() {
        timed_checks(|| AtomicApbf::with_time_span(100, 4, 6, 2_000).unwrap(), 20);
    }

    #[test]
    fn atomic_apbbf() {
        timed_checks(
            || AtomicApbbf::with_time_span(1_000, 3, 5, 8, 512, 8).unwrap(),
            200,
        );
    }
}
