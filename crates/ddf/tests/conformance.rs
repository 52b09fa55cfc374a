//! `ddf::Filter` keeps the `DuplicateFilter` contract of the variant it
//! holds: the shared conformance suite (contract clauses, snapshot round
//! trips, hostile bytes through the any-kind decoder) on several variants.

use ddf::{Apbf, ExactWindow, Filter, PartitionedBloom, Qht, Queue, SlidingBloom};
use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};

// g = ⌊2000·ln 2/4⌋ = 346, w = 6·346 (as in ddf-apbf's own suite).
conformance!(
    filter_apbf,
    Filter::from(Apbf::new(4, 6, 2_000).unwrap()),
    Conformance::default()
        .promise(Promise::LastInsertions(6 * 346))
        .budget_bits(20_000)
);

/// QHT, QHTD and QQHTD share one body layout, so a QHT body resealed under
/// QHTD's kind is a valid QHTD snapshot: the concrete `Qht` refuses it as
/// another kind, but the any-kind reader rightly loads it as a `Qhtd`. The
/// suite's hostile-bytes clause expects a refusal there, so this variant
/// runs every other clause (the hostile-bytes clause runs through the
/// any-kind decoder on the other variants of this file).
mod filter_qht {
    use super::*;
    use ddf::Snapshot;
    use ddf_core::testing;

    fn make() -> Filter {
        Filter::from(Qht::new(256, 4, 8).unwrap().with_seed(3))
    }

    fn config() -> Conformance {
        Conformance::default().budget_bits(256 * 4 * 8)
    }

    #[test]
    fn contract_clauses() {
        let c = config();
        testing::observe_is_contains_then_insert(make, &c);
        testing::batch_matches_one_by_one(make, &c);
        testing::clear_restores_fresh_state(make, &c);
        testing::promise_holds(make, &c);
        testing::memory_within_budget(make, &c);
        testing::snapshot_round_trips(make, &c);
    }

    #[test]
    fn a_qht_body_under_the_qhtd_kind_loads_as_a_qhtd() {
        let f = make();
        let env = ddf::snapshot::open(&f.to_bytes()).unwrap().body.to_vec();
        let as_qhtd = ddf::snapshot::seal(ddf::snapshot::kind::QHTD, 1, 0, &[], &env);
        assert!(matches!(Filter::from_bytes(&as_qhtd), Ok(Filter::Qhtd(_))));
        assert!(Qht::from_bytes(&as_qhtd).is_err());
    }
}
conformance!(
    filter_exact,
    Filter::from(ExactWindow::new(500).unwrap()),
    Conformance::default().promise(Promise::LastInsertions(500))
);
conformance!(
    filter_sliding,
    Filter::from(
        SlidingBloom::new(500, ddf::sliding::Slack::AtMost(250), 0.01)
            .unwrap()
            .with_seed(5)
    ),
    Conformance::default().promise(Promise::LastInsertions(500))
);
conformance!(
    filter_queued_bloom,
    Filter::from(Queue::new(4, 200, |_| PartitionedBloom::new(3, 512)).unwrap()),
    Conformance::default()
        .promise(Promise::LastInsertions(3 * 200))
        .budget_bits(4 * 3 * 512)
);
ddf_core::timed_conformance!(
    filter_apbf_timed_clock,
    Filter::from(Apbf::with_time_span(100, 4, 6, 2_000).unwrap()),
    20
);
ddf_core::timed_conformance!(
    filter_sliding_timed_clock,
    Filter::from(
        SlidingBloom::with_time_span(100, ddf::sliding::Slack::AtMost(50), 4_000, 0.01)
            .unwrap()
            .with_seed(5)
    ),
    20
);
