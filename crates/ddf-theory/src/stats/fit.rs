//! Least-squares straight lines, for the paper's empirical fits.

/// A least-squares line `y ≈ slope·x + intercept` and its coefficient of determination.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    /// The slope.
    pub slope: f64,
    /// The intercept.
    pub intercept: f64,
    /// `r² = 1 − SS_res / SS_tot`.
    pub r_squared: f64,
}

/// The ordinary least-squares line through the points `(xs[i], ys[i])`.
/// `None` with fewer than two points, unequal lengths, or all `x` equal.
///
/// ```
/// use ddf_theory::stats::linear_fit;
/// let fit = linear_fit(&[0.0, 1.0, 2.0], &[1.0, 3.0, 5.0]).unwrap();
/// assert!((fit.slope - 2.0).abs() < 1e-12 && (fit.intercept - 1.0).abs() < 1e-12);
/// assert!((fit.r_squared - 1.0).abs() < 1e-12);
/// ```
pub fn linear_fit(xs: &[f64], ys: &[f64]) -> Option<LineFit> {
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    // Centred sums, so large x (memory sizes up to 10^6) do not cancel.
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - slope * x - intercept).powi(2))
        .sum();
    let r_squared = if syy == 0.0 { 1.0 } else { 1.0 - ss_res / syy };
    Some(LineFit {
        slope,
        intercept,
        r_squared,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_inputs() {
        assert!(linear_fit(&[1.0], &[2.0]).is_none());
        assert!(linear_fit(&[1.0, 1.0], &[2.0, 3.0]).is_none());
        assert!(linear_fit(&[1.0, 2.0], &[2.0]).is_none());
    }

    #[test]
    fn noisy_line() {
        let xs: Vec<f64> = (0..100).map(f64::from).collect();
        let ys: Vec<f64> = xs
            .iter()
            .map(|x| 0.5 * x + 3.0 + if (*x as i32) % 2 == 0 { 0.1 } else { -0.1 })
            .collect();
        let fit = linear_fit(&xs, &ys).unwrap();
        assert!((fit.slope - 0.5).abs() < 1e-3);
        assert!(fit.r_squared > 0.999);
    }
}
