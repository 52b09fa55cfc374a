//! Numerical building blocks shared by every formula module.
//!
//! - [`pow1m`] and [`one_minus_pow1m`]: `(1 − x)^n` and `1 − (1 − x)^n` without
//!   the cancellation of the naive forms. Almost every closed form in the
//!   papers is built from these two, usually with `x = 1/U` for a large
//!   alphabet `U` or `x = 1/m` for a large table.
//! - [`find_root`]: Brent's bracketed root finder (inverse quadratic
//!   interpolation with a bisection safeguard), for equations such as
//!   "the window at which the false-positive probability reaches 1/2".
//! - [`minimize`], [`argmin_int`] and [`minimize_int_unimodal`]: bracketed
//!   minimisers over reals and integers, for optimal parameters such as the
//!   number of subfilters of the queuing construction.
//! - [`ln_gamma`], [`ln_beta`], [`ln_binomial`], [`log2_binomial`],
//!   [`binomial`] and [`regularized_beta`]: special functions in log space.
//!
//! The power, root and minimiser helpers are generic over
//! [`num_traits::Float`]; the special functions work in `f64`, the precision
//! their accuracy statements are made for.

mod minimize;
mod pow;
mod roots;
mod special;

pub use minimize::{MinimizeError, Minimum, argmin_int, minimize, minimize_int_unimodal};
pub use pow::{one_minus_pow1m, pow1m};
pub use roots::{RootError, find_root};
pub use special::{binomial, ln_beta, ln_binomial, ln_gamma, log2_binomial, regularized_beta};

pub(crate) use special::{ln_factorial_correction, regularized_beta_with_complement};

/// Converts an `f64` constant into `T`; every `Float` type represents `f64` constants.
pub(crate) fn lit<T: num_traits::Float>(v: f64) -> T {
    T::from(v).expect("every Float type can represent an f64 constant")
}
