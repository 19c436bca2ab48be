//! Prediction quality and bias correction in log space (Downey 1997, section 5.4): the
//! least-squares line of ln outcome on ln prediction, and the correction
//! ln p_corr = beta0 + beta1 ln p it implies.

use serde::Serialize;

/// Pairs needed before the correction replaces raw predictions.
pub const BIAS_MIN_PAIRS: u64 = 30;

/// Running sums of (x, y) = (ln prediction, ln outcome), times below 1 s counted as 1 s.
#[derive(Clone, Copy, Debug, Default)]
pub struct BiasFit {
    n: u64,
    sx: f64,
    sy: f64,
    sxx: f64,
    syy: f64,
    sxy: f64,
}

/// Correlation and least-squares line of ln outcome on ln prediction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PredictionQuality {
    pub pairs: u64,
    pub correlation: f64,
    pub slope: f64,
    pub intercept: f64,
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
