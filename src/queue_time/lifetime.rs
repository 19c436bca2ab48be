//! The uniform-log lifetime distribution (Downey 1997, equations 4 and 5) and its online
//! fit from the durations of finished jobs.

use serde::{Deserialize, Serialize};

/// Lifetimes uniform in log space on [t_min, t_max]: cdf(t) = beta0 + beta1 ln t.
/// Stored by the logs of its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformLog {
    pub ln_min: f64,
    pub ln_max: f64,
}

impl UniformLog {
    /// The distribution on [t_min, t_max] seconds (0 < t_min < t_max).
    pub fn new(t_min: f64, t_max: f64) -> Self {
        assert!(0.0 < t_min && t_min < t_max, "need 0 < t_min < t_max");
        UniformLog {
            ln_min: t_min.ln(),
            ln_max: t_max.ln(),
        }
    }

    /// From the paper's intercept and slope: t_min = e^(-beta0/beta1), t_max =
    /// e^((1-beta0)/beta1).
    pub fn from_betas(beta0: f64, beta1: f64) -> Self {
        assert!(beta1 > 0.0, "beta1 must be positive");
        UniformLog {
            ln_min: -beta0 / beta1,
            ln_max: (1.0 - beta0) / beta1,
        }
    }

    /// (beta0, beta1).
    pub fn betas(&self) -> (f64, f64) {
        let beta1 = 1.0 / (self.ln_max - self.ln_min);
        (-self.ln_min * beta1, beta1)
    }

    /// Downey's sequential lifetimes: e^2 to e^12 seconds.
    pub fn downey_model() -> Self {
        UniformLog {
            ln_min: 2.0,
            ln_max: 12.0,
        }
    }

    pub fn t_min(&self) -> f64 {
        self.ln_min.exp()
    }

    pub fn t_max(&self) -> f64 {
        self.ln_max.exp()
    }

    /// Pr{L <= t}.
    pub fn cdf(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        ((t.ln() - self.ln_min) / (self.ln_max - self.ln_min)).clamp(0.0, 1.0)
    }

    /// The ln of an age as equation 5 takes it: ages below t_min are conditioned on
    /// nothing (the job could not have ended yet), so they count as t_min.
    pub fn ln_age(&self, age: f64) -> f64 {
        if age > 0.0 {
            age.ln().max(self.ln_min)
        } else {
            self.ln_min
        }
    }

    /// Pr{L > age + q | L > age} (equation 5). A job at or past t_max should have ended:
    /// it is taken to end at once (survival 0 for any q > 0), the limit of equation 5.
    pub fn survival(&self, age: f64, q: f64) -> f64 {
        let la = self.ln_age(age);
        if la >= self.ln_max {
            return if q > 0.0 { 0.0 } else { 1.0 };
        }
        let lt = self.ln_age(age + q);
        ((self.ln_max - lt) / (self.ln_max - la)).clamp(0.0, 1.0)
    }
}

/// How many finished jobs the online fit waits for before replacing its prior.
pub const FIT_MIN_SAMPLES: u64 = 30;

/// An online fit of a uniform-log distribution to observed durations, by the moments of
/// their logs: ln L uniform on [lo, hi] has mean (lo + hi) / 2 and standard deviation
/// (hi - lo) / sqrt(12); the bounds are widened to cover every duration seen, so no
/// finished job lies outside the fitted range. Until `FIT_MIN_SAMPLES` durations are seen,
/// or while they all agree, the prior (e.g. the model's distribution) stands. Durations
/// below 1 s count as 1 s. Constant work per observation.
#[derive(Clone, Copy, Debug)]
pub struct LifetimeFit {
    prior: UniformLog,
    n: u64,
    mean: f64,
    /// Sum of squared deviations from the mean (Welford).
    m2: f64,
    /// Smallest and largest ln duration seen.
    lowest: f64,
    highest: f64,
}

impl LifetimeFit {
    pub fn new(prior: UniformLog) -> Self {
        LifetimeFit {
            prior,
            n: 0,
            mean: 0.0,
            m2: 0.0,
            lowest: f64::INFINITY,
            highest: f64::NEG_INFINITY,
        }
    }

    /// Forgets every observation.
    pub fn reset(&mut self) {
        *self = LifetimeFit::new(self.prior);
    }

    pub fn observe(&mut self, duration: f64) {
        let x = duration.max(1.0).ln();
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
        self.lowest = self.lowest.min(x);
        self.highest = self.highest.max(x);
    }

    pub fn samples(&self) -> u64 {
        self.n
    }

    /// The current estimate.
    pub fn distribution(&self) -> UniformLog {
        if self.n < FIT_MIN_SAMPLES {
            return self.prior;
        }
        let sd = (self.m2 / (self.n - 1) as f64).sqrt();
        // All alike (or too few to tell): no spread to fit.
        if sd.is_nan() || sd <= 1e-9 {
            return self.prior;
        }
        let half = 3f64.sqrt() * sd;
        UniformLog {
            ln_min: (self.mean - half).min(self.lowest),
            ln_max: (self.mean + half).max(self.highest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn betas_round_trip_and_downey_median_is_18_minutes() {
        let d = UniformLog::downey_model();
        let (b0, b1) = d.betas();
        assert!((b1 - 0.1).abs() < 1e-12 && (b0 + 0.2).abs() < 1e-12);
        let back = UniformLog::from_betas(b0, b1);
        assert!((back.ln_min - 2.0).abs() < 1e-12 && (back.ln_max - 12.0).abs() < 1e-12);
        // cdf(e^7) = 0.5: e^7 s = 18.3 min.
        assert!((d.cdf(7f64.exp()) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn survival_follows_equation_5_and_its_edges() {
        let d = UniformLog::downey_model();
        // Age e^4, horizon e^8: (12 - 8) / (12 - 4) = 0.5.
        let (a, t) = (4f64.exp(), 8f64.exp());
        assert!((d.survival(a, t - a) - 0.5).abs() < 1e-12);
        assert_eq!(d.survival(a, 0.0), 1.0);
        // Younger than t_min: unconditioned, 1 - cdf.
        assert!((d.survival(1.0, 7f64.exp() - 1.0) - 0.5).abs() < 1e-12);
        // Past t_max: ends at once; horizon past t_max: ended.
        assert_eq!(d.survival(13f64.exp(), 1.0), 0.0);
        assert_eq!(d.survival(a, 13f64.exp()), 0.0);
    }

    #[test]
    fn the_fit_recovers_a_uniform_log_sample() {
        let mut fit = LifetimeFit::new(UniformLog::downey_model());
        assert_eq!(fit.distribution(), UniformLog::downey_model());
        // Evenly spaced logs on [3, 9].
        for i in 0..=600 {
            fit.observe((3.0 + 6.0 * i as f64 / 600.0).exp());
        }
        let d = fit.distribution();
        assert!(
            (d.ln_min - 3.0).abs() < 0.02 && (d.ln_max - 9.0).abs() < 0.02,
            "{d:?}"
        );
    }
}
