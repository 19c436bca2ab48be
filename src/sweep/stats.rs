//! Replication statistics: mean, sample standard deviation, the Student-t half-width that
//! sequential stopping reads, and a confidence interval that stays inside the metric's
//! range (log-scale for positive metrics), the estimators behind `summary.*`.
//!
//! Why the log scale: a positive metric's replications (waits near saturation, slowdowns)
//! are skewed to the right, and there the Student-t interval both undercovers and reaches
//! below zero. The modified Cox interval for the mean of a log-normal sample (Armstrong
//! 1992; Zhou & Gao 1997) keeps its level on such samples and is never negative; on samples
//! with little spread it comes close to the Student-t interval. `tests/it/intervals.rs` measures its
//! coverage, and docs/sweeps.md states the method.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::metrics::registry::Range;

/// Summary of one metric over a cell's replications. Undefined values are NaN: the
/// standard deviation and interval need two replications; any infinite sample (a
/// saturated run) makes the mean infinite and the interval undefined.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    /// The confidence interval at `level`, inside the metric's range ([`estimate`]).
    pub ci_low: f64,
    pub ci_high: f64,
    /// The Student-t half-width t sd / sqrt(n): the precision sequential stopping asks of
    /// the mean ([`Interval::meets`]). It is the interval's half-width only where the
    /// interval is the plain Student-t one.
    pub half_width: f64,
    pub level: f64,
}

/// The mean of `samples`, their standard deviation and a two-sided interval at `level` that
/// never leaves `range`:
///
/// - a metric that cannot be negative, every sample positive and not all equal: the
///   modified Cox interval, exp(ȳ + s²/2 ± t sqrt(s²/n + s⁴/(2(n-1)))) with ȳ and s² the
///   mean and variance of ln x, the mean of a log-normal sample. Where the sample mean falls
///   outside it, the samples contradict a log-normal and the next rule applies;
/// - otherwise (a signed metric, a zero among the samples): the Student-t interval,
///   mean ± t_{(1+level)/2, n-1} sd / sqrt(n);
///
/// either cut to `range` (a [0, 1] share above 1, a wait below 0), which loses no coverage
/// since the true mean lies in the range.
pub fn estimate(samples: &[f64], level: f64, range: Range) -> Interval {
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
    (e.ci_low, e.ci_high) = log_normal_interval(samples, t, range)
        .filter(|(low, high)| (*low..=*high).contains(&e.mean))
        .unwrap_or((e.mean - e.half_width, e.mean + e.half_width));
    let (low, high) = range.bounds();
    e.ci_low = e.ci_low.clamp(low, high);
    e.ci_high = e.ci_high.clamp(low, high);
    e
}

/// The modified Cox interval for the mean of a log-normal sample, with `t` the Student-t
/// quantile; `None` where it does not apply: a metric that may be negative, a sample that
/// is not positive, or samples all equal.
fn log_normal_interval(samples: &[f64], t: f64, range: Range) -> Option<(f64, f64)> {
    if !matches!(range, Range::NonNegative | Range::UnitInterval) || samples.iter().any(|&x| x <= 0.0) {
        return None;
    }
    let n = samples.len() as f64;
    let mean = samples.iter().map(|x| x.ln()).sum::<f64>() / n;
    let var = samples.iter().map(|x| (x.ln() - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if var == 0.0 {
        return None;
    }
    let centre = mean + var / 2.0;
    let half = t * (var / n + var * var / (2.0 * (n - 1.0))).sqrt();
    Some(((centre - half).exp(), (centre + half).exp()))
}

impl Interval {
    /// Whether the Student-t half-width is at most `target` times |mean| (a zero-width
    /// interval around 0 also counts): the stopping rule's precision, unchanged by the
    /// range the reported interval keeps to.
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
    fn a_signed_metric_gets_the_hand_computed_student_t_interval() {
        // Samples 1..=5: mean 3, sd sqrt(2.5); t(0.975, 4) = 2.776445.
        let e = estimate(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95, Range::Signed);
        assert_eq!(e.mean, 3.0);
        assert!((e.sd - 2.5f64.sqrt()).abs() < 1e-12);
        let half = 2.776_445 * 2.5f64.sqrt() / 5f64.sqrt();
        assert!((e.half_width - half).abs() < 1e-5, "{}", e.half_width);
        assert_eq!(
            (e.ci_low, e.ci_high),
            (e.mean - e.half_width, e.mean + e.half_width)
        );
        assert!(e.meets(0.66) && !e.meets(0.6));
    }

    #[test]
    fn a_positive_metric_gets_the_hand_computed_log_scale_interval() {
        // ln 1, ln 2, ln 4: mean ln 2, variance (ln 2)^2; t(0.975, 2) = 4.302653;
        // exp(ln 2 + s^2/2 -+ t sqrt(s^2/3 + s^4/4)), computed apart with numpy.
        let e = estimate(&[1.0, 2.0, 4.0], 0.95, Range::NonNegative);
        assert!((e.ci_low - 0.341_328_845_6).abs() < 1e-6, "{}", e.ci_low);
        assert!((e.ci_high - 18.947_202_30).abs() < 1e-4, "{}", e.ci_high);
        // The stopping rule's precision is still the Student-t half-width.
        let t = estimate(&[1.0, 2.0, 4.0], 0.95, Range::Signed);
        assert_eq!(e.half_width, t.half_width);
        assert!(t.ci_low < 0.0);
    }

    #[test]
    fn an_interval_never_leaves_the_range() {
        // A zero among the samples: Student-t (mean 1, low -1.484), cut at 0.
        let e = estimate(&[0.0, 1.0, 2.0], 0.95, Range::NonNegative);
        assert_eq!(e.ci_low, 0.0);
        assert_eq!(e.ci_high, e.mean + e.half_width);
        // A share near 1: cut at 1.
        let e = estimate(&[0.9, 0.99, 1.0], 0.95, Range::UnitInterval);
        assert!(e.ci_high == 1.0 && e.ci_low > 0.0 && e.ci_low < e.mean);
        // A relative change of a non-negative metric: never below -1.
        let e = estimate(&[-0.99, -0.2, 0.5], 0.95, Range::Change);
        assert_eq!(e.ci_low, -1.0);
    }

    #[test]
    fn samples_that_contradict_a_log_normal_get_the_student_t_interval() {
        // Nine 1s and nine 1e-6: the log-scale interval [0.767, 1.1e16] misses the sample
        // mean 0.5, so the Student-t one is reported.
        let samples: Vec<f64> = [1.0; 9].into_iter().chain([1e-6; 9]).collect();
        let e = estimate(&samples, 0.95, Range::NonNegative);
        assert_eq!(
            (e.ci_low, e.ci_high),
            (e.mean - e.half_width, e.mean + e.half_width)
        );
        assert!(e.ci_low > 0.24 && e.ci_high < 0.76, "{e:?}");
    }

    #[test]
    fn degenerate_cases_are_nan_not_wrong() {
        assert!(estimate(&[], 0.95, Range::NonNegative).mean.is_nan());
        let one = estimate(&[4.0], 0.95, Range::NonNegative);
        assert_eq!(one.mean, 4.0);
        assert!(one.half_width.is_nan() && one.ci_low.is_nan() && !one.meets(1.0));
        let sat = estimate(&[1.0, f64::INFINITY], 0.95, Range::NonNegative);
        assert!(sat.mean.is_infinite() && sat.half_width.is_nan() && sat.ci_high.is_nan());
        assert!(estimate(&[0.0, 0.0], 0.9, Range::NonNegative).meets(0.01));
        // Equal positive samples: the Student-t interval, as narrow as the rounding of
        // their sum, around the mean (not exp(ln x)'s rounding).
        let same = estimate(&[3.3, 3.3, 3.3], 0.95, Range::NonNegative);
        assert_eq!(
            (same.ci_low, same.ci_high),
            (same.mean - same.half_width, same.mean + same.half_width)
        );
        assert!(same.half_width < 1e-12);
    }
}
