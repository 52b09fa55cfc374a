//! Bracketed minimisers over the reals (Brent) and over integer ranges.

use std::fmt;
use std::ops::RangeInclusive;

use num_traits::Float;

use super::lit;

/// Iteration cap of [`minimize`]; golden-section steps alone shrink the
/// bracket by 0.618 each, so this covers any `f64` bracket.
const MAX_ITERATIONS: usize = 2000;

/// A minimum found by one of the minimisers: the argument and the value there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Minimum<X, V> {
    /// Where the minimum is.
    pub arg: X,
    /// The function's value at `arg`.
    pub value: V,
}

/// Why [`minimize`] could not search a bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinimizeError {
    /// A bound or the tolerance was NaN or infinite, the tolerance was
    /// negative, or `lo > hi`.
    InvalidBracket,
}

impl fmt::Display for MinimizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("minimiser bracket must be finite with lo <= hi and tolerance >= 0")
    }
}

impl std::error::Error for MinimizeError {}

/// A minimum of `f` on `[lo, hi]` by Brent's method (golden section with
/// parabolic interpolation).
///
/// For a unimodal `f` this is the global minimum on the bracket; otherwise it
/// is a local one. The search stops when the estimate is known to within
/// `√ε·|x| + tol` (`ε` the machine epsilon of `T`: a smooth minimum cannot be
/// located more finely than `√ε` from function values). Both ends of the
/// bracket are evaluated too and win if they are lower, so a function
/// monotone on the bracket yields the right end exactly. NaN values count as
/// `+∞`. The number of iterations is bounded.
///
/// ```
/// use ddf_theory::numerics::minimize;
/// let m = minimize(|x: f64| (x - 0.3).powi(2) + 1.0, -1.0, 2.0, 1e-10)?;
/// assert!((m.arg - 0.3).abs() < 1e-7);
/// assert!((m.value - 1.0).abs() < 1e-14);
/// // Monotone on the bracket: the end wins.
/// assert_eq!(minimize(|x: f64| x, 2.0, 5.0, 0.0)?.arg, 2.0);
/// # Ok::<(), ddf_theory::numerics::MinimizeError>(())
/// ```
pub fn minimize<T, F>(mut f: F, lo: T, hi: T, tol: T) -> Result<Minimum<T, T>, MinimizeError>
where
    T: Float,
    F: FnMut(T) -> T,
{
    if !lo.is_finite() || !hi.is_finite() || !tol.is_finite() || tol < T::zero() || lo > hi {
        return Err(MinimizeError::InvalidBracket);
    }
    let mut eval = |x: T| {
        let v = f(x);
        if v.is_nan() { T::infinity() } else { v }
    };
    if lo == hi {
        return Ok(Minimum {
            arg: lo,
            value: eval(lo),
        });
    }

    let zero = T::zero();
    let half: T = lit(0.5);
    let two: T = lit(2.0);
    // (3 − √5)/2: the golden-section fraction.
    let golden: T = lit(0.381_966_011_250_105_1);
    let sqrt_eps = T::epsilon().sqrt();

    let (mut a, mut b) = (lo, hi);
    let mut x = a + golden * (b - a);
    let (mut w, mut v) = (x, x);
    let mut fx = eval(x);
    let (mut fw, mut fv) = (fx, fx);
    let mut d = zero;
    let mut e = zero;
    for _ in 0..MAX_ITERATIONS {
        let xm = half * (a + b);
        let tol1 = sqrt_eps * x.abs() + tol / lit(3.0);
        let tol2 = two * tol1;
        if (x - xm).abs() <= tol2 - half * (b - a) {
            break;
        }
        let mut golden_step = true;
        if e.abs() > tol1 {
            // Parabola through (v, fv), (w, fw), (x, fx).
            let r = (x - w) * (fx - fv);
            let mut q = (x - v) * (fx - fw);
            let mut p = (x - v) * q - (x - w) * r;
            q = two * (q - r);
            if q > zero {
                p = -p;
            } else {
                q = -q;
            }
            let e_prev = e;
            e = d;
            // Accept the parabolic step only if it falls inside the bracket
            // and is less than half the step before last.
            if p.abs() < (half * q * e_prev).abs() && p > q * (a - x) && p < q * (b - x) {
                d = p / q;
                let u = x + d;
                if u - a < tol2 || b - u < tol2 {
                    d = tol1 * (xm - x).signum();
                }
                golden_step = false;
            }
        }
        if golden_step {
            e = if x >= xm { a - x } else { b - x };
            d = golden * e;
        }
        let u = if d.abs() >= tol1 {
            x + d
        } else {
            x + tol1 * d.signum()
        };
        let fu = eval(u);
        if fu <= fx {
            if u >= x {
                a = x;
            } else {
                b = x;
            }
            v = w;
            fv = fw;
            w = x;
            fw = fx;
            x = u;
            fx = fu;
        } else {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                v = w;
                fv = fw;
                w = u;
                fw = fu;
            } else if fu <= fv || v == x || v == w {
                v = u;
                fv = fu;
            }
        }
    }

    let mut best = Minimum { arg: x, value: fx };
    for end in [lo, hi] {
        let value = eval(end);
        if value < best.value {
            best = Minimum { arg: end, value };
        }
    }
    Ok(best)
}

/// The exact minimum of `f` over an integer range, by evaluating every point.
///
/// Works for any function, unimodal or not; costs one evaluation per integer,
/// so use it for small ranges (the number of subfilters `L` of a queuing
/// filter, a fingerprint width) and [`minimize_int_unimodal`] for large ones.
/// Ties go to the smallest argument; NaN values are skipped. Returns `None`
/// for an empty range or when every value is NaN.
///
/// ```
/// use ddf_theory::numerics::argmin_int;
/// let m = argmin_int(1..=20, |l| (l as f64 - 7.2).abs()).unwrap();
/// assert_eq!(m.arg, 7);
/// ```
pub fn argmin_int<T, F>(range: RangeInclusive<u64>, mut f: F) -> Option<Minimum<u64, T>>
where
    T: PartialOrd,
    F: FnMut(u64) -> T,
{
    let mut best: Option<Minimum<u64, T>> = None;
    for arg in range {
        let value = f(arg);
        // A NaN is unordered even with itself; skipping it keeps the ordering total.
        if value.partial_cmp(&value).is_none() {
            continue;
        }
        if best.as_ref().is_none_or(|b| value < b.value) {
            best = Some(Minimum { arg, value });
        }
    }
    best
}

/// The minimum of a unimodal `f` over an integer range, by binary search on
/// the sign of `f(x + 1) − f(x)`.
///
/// `f` must decrease (weakly) and then increase (weakly) on the range, with no
/// flat stretch away from the minimum; then this returns the smallest
/// minimiser using about `2·log2(len)` evaluations. For other functions it
/// returns some local minimum. Returns `None` for an empty range.
///
/// ```
/// use ddf_theory::numerics::minimize_int_unimodal;
/// let m = minimize_int_unimodal(0..=u64::MAX / 2, |x| (x as f64 - 1e15).abs()).unwrap();
/// assert_eq!(m.arg, 1_000_000_000_000_000);
/// ```
pub fn minimize_int_unimodal<T, F>(range: RangeInclusive<u64>, mut f: F) -> Option<Minimum<u64, T>>
where
    T: PartialOrd,
    F: FnMut(u64) -> T,
{
    let (mut lo, mut hi) = range.into_inner();
    if lo > hi {
        return None;
    }
    // Invariant: a minimiser lies in [lo, hi].
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if f(mid) <= f(mid + 1) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(Minimum {
        arg: lo,
        value: f(lo),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn brent_finds_smooth_minima() {
        // x ln x is minimal at 1/e with value -1/e.
        let m = minimize(|x: f64| x * x.ln(), 0.01, 3.0, 0.0).unwrap();
        assert_relative_eq!(m.arg, (-1f64).exp(), max_relative = 1e-7);
        assert_relative_eq!(m.value, -(-1f64).exp(), max_relative = 1e-14);
        // cos on [2, 4] is minimal at pi.
        let m = minimize(|x: f64| x.cos(), 2.0, 4.0, 1e-12).unwrap();
        assert_relative_eq!(m.arg, std::f64::consts::PI, max_relative = 1e-7);
    }

    #[test]
    fn brent_handles_degenerate_brackets() {
        assert_eq!(minimize(|x: f64| x * x, 1.0, 1.0, 0.0).unwrap().arg, 1.0);
        assert_eq!(minimize(|x: f64| -x, 0.0, 1.0, 0.0).unwrap().arg, 1.0);
        assert_eq!(
            minimize(|x: f64| x, 0.0, 1.0, -1.0),
            Err(MinimizeError::InvalidBracket)
        );
        assert_eq!(
            minimize(|x: f64| x, 2.0, 1.0, 0.0),
            Err(MinimizeError::InvalidBracket)
        );
        assert_eq!(
            minimize(|x: f64| x, 0.0, f64::NAN, 0.0),
            Err(MinimizeError::InvalidBracket)
        );
        // NaN regions are avoided.
        let m = minimize(
            |x: f64| if x < 0.5 { f64::NAN } else { (x - 0.7).powi(2) },
            0.0,
            1.0,
            0.0,
        )
        .unwrap();
        assert_relative_eq!(m.arg, 0.7, max_relative = 1e-7);
    }

    #[test]
    fn integer_minimisers_agree_on_unimodal_functions() {
        let f = |l: u64| {
            let l = l as f64;
            l + 100.0 / l
        };
        let exhaustive = argmin_int(1..=1000, f).unwrap();
        let unimodal = minimize_int_unimodal(1..=1000, f).unwrap();
        assert_eq!(exhaustive.arg, 10);
        assert_eq!(unimodal, exhaustive);
    }

    #[test]
    fn integer_minimisers_handle_edges() {
        let empty = || RangeInclusive::new(5, 4);
        assert_eq!(argmin_int(empty(), |x| x as f64), None);
        assert_eq!(minimize_int_unimodal(empty(), |x| x as f64), None);
        assert_eq!(argmin_int(0..=3, |_| f64::NAN), None);
        // Ties go to the smallest argument; NaN is skipped.
        let m = argmin_int(0..=5, |x| if x == 0 { f64::NAN } else { (x / 2) as f64 }).unwrap();
        assert_eq!(m.arg, 1);
        // Non-unimodal: exhaustive search finds the global minimum.
        let wavy = |x: u64| ((x as f64) * 0.9).sin() + (x as f64) * 0.01;
        let m = argmin_int(0..=30, wavy).unwrap();
        assert!((0..=30).all(|x| wavy(x) >= m.value));
        assert_eq!(minimize_int_unimodal(7..=7, |x| x).unwrap().arg, 7);
        assert_eq!(
            minimize_int_unimodal(0..=u64::MAX, |x| u64::MAX - x)
                .unwrap()
                .arg,
            u64::MAX
        );
    }
}
