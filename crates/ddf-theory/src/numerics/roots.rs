//! Brent's bracketed root finder.

use std::fmt;

use num_traits::Float;

use super::lit;

/// Iteration cap of [`find_root`]. Brent's method halves the bracket at least
/// every few steps, so even a bracket spanning the whole `f64` exponent range
/// (about 2100 halvings) converges well within it.
const MAX_ITERATIONS: usize = 5000;

/// Why [`find_root`] found no root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootError {
    /// A bound or the tolerance was NaN or infinite, or the tolerance was negative.
    NonFiniteInput,
    /// `f(lo)` or `f(hi)` was not finite, or `f` returned NaN inside the bracket.
    NonFiniteValue,
    /// `f(lo)` and `f(hi)` have the same sign, so the bracket holds no guaranteed root.
    NoSignChange,
    /// The iteration cap was reached before the bracket shrank to the tolerance.
    NoConvergence,
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = match self {
            RootError::NonFiniteInput => {
                "bracket bounds and tolerance must be finite, tolerance >= 0"
            }
            RootError::NonFiniteValue => "the function was not finite on the bracket",
            RootError::NoSignChange => "the function has the same sign at both ends of the bracket",
            RootError::NoConvergence => "the root finder hit its iteration cap",
        };
        f.write_str(msg)
    }
}

impl std::error::Error for RootError {}

/// A root of `f` in `[lo, hi]` by Brent's method.
///
/// `f(lo)` and `f(hi)` must be finite and of opposite signs (or one of them
/// zero). The method interpolates (secant or inverse quadratic) while that
/// shrinks the bracket fast enough and falls back to bisection otherwise, so
/// it never does worse than bisection by more than a small factor.
///
/// It stops when the bracket is narrower than `2·ε·|x| + tol/2` around the
/// estimate `x` (`ε` the machine epsilon of `T`): `tol = 0` asks for full
/// machine precision relative to the root, which suits roots of very
/// different magnitudes such as tail probabilities. The number of iterations
/// is bounded; hitting the bound returns [`RootError::NoConvergence`].
///
/// The bounds may come in either order.
///
/// ```
/// use ddf_theory::numerics::{RootError, find_root};
/// let sqrt2 = find_root(|x: f64| x * x - 2.0, 0.0, 2.0, 0.0)?;
/// assert!((sqrt2 - 2f64.sqrt()).abs() < 1e-15);
/// assert_eq!(find_root(|x: f64| x * x + 1.0, -1.0, 1.0, 0.0), Err(RootError::NoSignChange));
/// # Ok::<(), RootError>(())
/// ```
pub fn find_root<T, F>(mut f: F, lo: T, hi: T, tol: T) -> Result<T, RootError>
where
    T: Float,
    F: FnMut(T) -> T,
{
    if !lo.is_finite() || !hi.is_finite() || !tol.is_finite() || tol < T::zero() {
        return Err(RootError::NonFiniteInput);
    }
    let zero = T::zero();
    let half: T = lit(0.5);
    let two: T = lit(2.0);
    let three: T = lit(3.0);

    let (mut a, mut b) = (lo, hi);
    let (mut fa, mut fb) = (f(a), f(b));
    if !fa.is_finite() || !fb.is_finite() {
        return Err(RootError::NonFiniteValue);
    }
    if fa == zero {
        return Ok(a);
    }
    if fb == zero {
        return Ok(b);
    }
    if (fa > zero) == (fb > zero) {
        return Err(RootError::NoSignChange);
    }

    // Invariant: the root lies between b (best estimate) and c; a is the previous b.
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    for _ in 0..MAX_ITERATIONS {
        if (fb > zero) == (fc > zero) {
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol1 = two * T::epsilon() * b.abs() + half * tol;
        let xm = half * (c - b);
        if xm.abs() <= tol1 || fb == zero {
            return Ok(b);
        }
        if e.abs() >= tol1 && fa.abs() > fb.abs() {
            // Try interpolation: secant when only two points are distinct, else inverse quadratic.
            let s = fb / fa;
            let (mut p, mut q);
            if a == c {
                p = two * xm * s;
                q = T::one() - s;
            } else {
                let qa = fa / fc;
                let r = fb / fc;
                p = s * (two * xm * qa * (qa - r) - (b - a) * (r - T::one()));
                q = (qa - T::one()) * (r - T::one()) * (s - T::one());
            }
            if p > zero {
                q = -q;
            } else {
                p = -p;
            }
            let min1 = three * xm * q - (tol1 * q).abs();
            let min2 = (e * q).abs();
            // Accept the interpolation only if it lands inside the bracket and
            // shrinks faster than the step before last; otherwise bisect.
            if two * p < min1.min(min2) {
                e = d;
                d = p / q;
            } else {
                d = xm;
                e = d;
            }
        } else {
            d = xm;
            e = d;
        }
        a = b;
        fa = fb;
        b = if d.abs() > tol1 {
            b + d
        } else {
            b + tol1.abs() * xm.signum()
        };
        fb = f(b);
        if fb.is_nan() {
            return Err(RootError::NonFiniteValue);
        }
    }
    Err(RootError::NoConvergence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn finds_known_roots() {
        // cos x = x at the Dottie number.
        let x = find_root(|x: f64| x.cos() - x, 0.0, 1.0, 0.0).unwrap();
        assert_relative_eq!(x, 0.739_085_133_215_160_6, max_relative = 1e-15);
        // A cubic with a root at exactly 1.5.
        let x = find_root(|x: f64| (x - 1.5) * (x * x + 1.0), -10.0, 10.0, 0.0).unwrap();
        assert_relative_eq!(x, 1.5, max_relative = 1e-15);
        // ln x = -40 far from the bracket's scale: the relative stop criterion finds it.
        let x = find_root(|x: f64| x.ln() + 40.0, 1e-300, 1.0, 0.0).unwrap();
        assert_relative_eq!(x, (-40f64).exp(), max_relative = 1e-13);
        // Reversed bounds and f32.
        let x = find_root(|x: f32| x * x - 9.0, 10.0, 0.0, 0.0).unwrap();
        assert_relative_eq!(x, 3.0, max_relative = 1e-6);
    }

    #[test]
    fn honours_an_absolute_tolerance() {
        let x = find_root(|x: f64| x - 0.123_456_789, 0.0, 1.0, 1e-3).unwrap();
        assert!((x - 0.123_456_789).abs() <= 1e-3);
    }

    #[test]
    fn a_discontinuous_sign_change_is_bracketed_to_precision() {
        // No root, but a sign change at 0.3: bisection semantics locate the jump.
        let x = find_root(|x: f64| if x < 0.3 { -1.0 } else { 1.0 }, 0.0, 1.0, 0.0).unwrap();
        assert_relative_eq!(x, 0.3, max_relative = 1e-14);
    }

    #[test]
    fn reports_bad_input() {
        assert_eq!(
            find_root(|x: f64| x, f64::NAN, 1.0, 0.0),
            Err(RootError::NonFiniteInput)
        );
        assert_eq!(
            find_root(|x: f64| x, -1.0, f64::INFINITY, 0.0),
            Err(RootError::NonFiniteInput)
        );
        assert_eq!(
            find_root(|x: f64| x, -1.0, 1.0, -1.0),
            Err(RootError::NonFiniteInput)
        );
        assert_eq!(
            find_root(|x: f64| 1.0 / x, 0.0, 1.0, 0.0),
            Err(RootError::NonFiniteValue)
        );
        assert_eq!(
            find_root(|x: f64| x * x, 1.0, 2.0, 0.0),
            Err(RootError::NoSignChange)
        );
        assert_eq!(find_root(|x: f64| x - 1.0, 1.0, 2.0, 0.0), Ok(1.0));
    }
}
