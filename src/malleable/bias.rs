//! Prediction quality and bias correction in log space (Downey 1997, section 5.4): the
//! least-squares line of ln outcome on ln prediction, and the correction
//! ln p_corr = beta0 + beta1 ln p it implies.

use serde::Serialize;

/// Pairs needed before the correction replaces raw predictions.
pub const BIAS_MIN_PAIRS: u64 = 30;

/// Predictions below this are "short" (seconds): Downey's Figure 5 finds them unbiased,
/// longer ones too high.
pub const SHORT_PREDICTION: f64 = 600.0;

/// Running sums of (x, y) = (ln prediction, ln outcome), times below 1 s counted as 1 s,
/// and of y - x for short predictions and for the others.
#[derive(Clone, Copy, Debug, Default)]
pub struct BiasFit {
    n: u64,
    sx: f64,
    sy: f64,
    sxx: f64,
    syy: f64,
    sxy: f64,
    /// (count, sum of y - x) for predictions below [`SHORT_PREDICTION`], and at or above.
    short: (u64, f64),
    long: (u64, f64),
}

/// Correlation and least-squares line of ln outcome on ln prediction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PredictionQuality {
    pub pairs: u64,
    pub correlation: f64,
    pub slope: f64,
    pub intercept: f64,
    /// Mean ln(outcome / prediction) of the predictions below 10 minutes (0: unbiased;
    /// below 0: too high), and of the others; NaN without such predictions.
    pub short_bias: f64,
    pub long_bias: f64,
}

impl BiasFit {
    pub fn record(&mut self, prediction: f64, outcome: f64) {
        let (x, y) = (prediction.max(1.0).ln(), outcome.max(1.0).ln());
        self.n += 1;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.syy += y * y;
        self.sxy += x * y;
        let side = if prediction < SHORT_PREDICTION {
            &mut self.short
        } else {
            &mut self.long
        };
        side.0 += 1;
        side.1 += y - x;
    }

    pub fn quality(&self) -> PredictionQuality {
        let n = self.n as f64;
        let vx = self.sxx - self.sx * self.sx / n;
        let vy = self.syy - self.sy * self.sy / n;
        let cxy = self.sxy - self.sx * self.sy / n;
        let slope = cxy / vx;
        PredictionQuality {
            pairs: self.n,
            correlation: cxy / (vx * vy).sqrt(),
            slope,
            intercept: (self.sy - slope * self.sx) / n,
            short_bias: self.short.1 / self.short.0 as f64,
            long_bias: self.long.1 / self.long.0 as f64,
        }
    }

    /// The bias-corrected prediction; `p` itself until `BIAS_MIN_PAIRS` pairs with spread
    /// in the predictions exist.
    pub fn correct(&self, p: f64) -> f64 {
        if self.n < BIAS_MIN_PAIRS || !p.is_finite() {
            return p;
        }
        let q = self.quality();
        if !q.slope.is_finite() || !q.intercept.is_finite() {
            return p;
        }
        (q.intercept + q.slope * p.max(1.0).ln()).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bias_by_prediction_length_by_hand() {
        let mut fit = BiasFit::default();
        // Short: outcome e times the prediction, then equal to it: mean ln ratio 0.5.
        fit.record(100.0, 100.0 * 1f64.exp());
        fit.record(300.0, 300.0);
        // Long: outcome half the prediction: ln 0.5.
        fit.record(3_600.0, 1_800.0);
        let q = fit.quality();
        assert!((q.short_bias - 0.5).abs() < 1e-12, "{q:?}");
        assert!((q.long_bias - 0.5f64.ln()).abs() < 1e-12, "{q:?}");
        assert!(BiasFit::default().quality().short_bias.is_nan());
    }

    #[test]
    fn recovers_a_power_law_bias() {
        // Outcomes e^1.7 p^0.6, as Downey's raw predictors showed: the fit finds the line
        // and the correction maps each prediction onto its outcome.
        let mut fit = BiasFit::default();
        for i in 0..100 {
            let p = (1.0 + i as f64 * 0.1).exp();
            fit.record(p, (1.7 + 0.6 * p.ln()).exp());
        }
        let q = fit.quality();
        assert!(
            (q.slope - 0.6).abs() < 1e-9 && (q.intercept - 1.7).abs() < 1e-9,
            "{q:?}"
        );
        assert!((q.correlation - 1.0).abs() < 1e-9);
        let p = 5f64.exp();
        assert!((fit.correct(p) - (1.7 + 0.6 * 5.0f64).exp()).abs() < 1e-6);
        assert_eq!(BiasFit::default().correct(42.0), 42.0);
    }
}
