//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, size};
use ddf_core::{Digest, Window};
use ddf_exact::ExactWindow;
use ddf_hash::MixState;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn constructors(window in size(), span in size(), capacity in size()) {
        check(ExactWindow::new(window), &["window"])?;
        check(ExactWindow::with_time_span(span, capacity), &["time_span", "capacity"])?;
        check(Ok(ExactWindow::unbounded()), &[])?;
        for w in [Window::Count(window), Window::Time(span), Window::Unbounded] {
            check(
                ExactWindow::<Digest, MixState>::with_hasher(w, MixState),
                &["window", "time_span"],
            )?;
        }
    }
}
