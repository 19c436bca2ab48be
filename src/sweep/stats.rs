//! Replication statistics: mean, sample standard deviation and a Student-t confidence
//! interval, the estimator behind `summary.*` and sequential stopping.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Summary of one metric over a cell's replications. Undefined values are NaN: the
/// standard deviation and interval need two replications; any infinite sample (a
/// saturated run) makes the mean infinite and the interval undefined.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub half_width: f64,
    pub level: f64,
}

/// Two-sided Student-t interval at `level`: mean +- t_{(1+level)/2, n-1} sd / sqrt(n).
pub fn estimate(samples: &[f64], level: f64) -> Interval {
    let n = samples.len();
    let nan = f64::NAN;
    let mut e = Interval {
        n,
        mean: nan,
        sd: nan,
        ci_low: nan,
        ci_high: nan,
        half_width: nan,
        level,
    };
    if n == 0 {
        return e;
    }
    e.mean = samples.iter().sum::<f64>() / n as f64;
    if n < 2 || !e.mean.is_finite() {
        return e;
    }
    let var = samples.iter().map(|x| (x - e.mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    e.sd = var.sqrt();
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("n >= 2 gives positive degrees of freedom")
        .inverse_cdf((1.0 + level) / 2.0);
    e.half_width = t * e.sd / (n as f64).sqrt();
    e.ci_low = e.mean - e.half_width;
    e.ci_high = e.mean + e.half_width;
    e
}

impl Interval {
    /// Whether the interval's half-width is at most `target` times |mean| (a zero-width
    /// interval around 0 also counts).
    pub fn meets(&self, target: f64) -> bool {
        if !self.half_width.is_finite() {
            return false;
        }
        if self.mean == 0.0 {
            return self.half_width == 0.0;
        }
        self.half_width <= target * self.mean.abs()
    }
}

/// Per-cell estimates, one per metric, and whether the stopping target was met.
pub type CellEstimates = (usize, Vec<Interval>, Option<bool>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_hand_computed_interval() {
        // Samples 1..=5: mean 3, sd sqrt(2.5); t(0.975, 4) = 2.776445.
        let e = estimate(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!(e.mean, 3.0);
        assert!((e.sd - 2.5f64.sqrt()).abs() < 1e-12);
        let half = 2.776_445 * 2.5f64.sqrt() / 5f64.sqrt();
        assert!((e.half_width - half).abs() < 1e-5, "{}", e.half_width);
        assert!(e.meets(0.66) && !e.meets(0.6));
    }

    #[test]
    fn degenerate_cases_are_nan_not_wrong() {
        assert!(estimate(&[], 0.95).mean.is_nan());
        let one = estimate(&[4.0], 0.95);
        assert_eq!(one.mean, 4.0);
        assert!(one.half_width.is_nan() && !one.meets(1.0));
        let sat = estimate(&[1.0, f64::INFINITY], 0.95);
        assert!(sat.mean.is_infinite() && sat.half_width.is_nan());
        assert!(estimate(&[0.0, 0.0], 0.9).meets(0.01));
    }
}
