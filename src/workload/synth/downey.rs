//! Downey's 1997 workload model (section 2 of `downey1997-queue-time-prediction-allocation`).
//!
//! Each job has a sequential lifetime `L` (uniform-log on [e^2, e^12] s), an average
//! parallelism `A` (uniform-log on [1, 128]) and a variance parameter `sigma` (uniform on
//! [0, 2]); its speedup follows [`crate::speedup::downey_speedup`]. Each simulated day has a
//! 12-hour day-time phase with Poisson arrivals and a 12-hour night with none.
//!
//! Choices where the paper is silent, used everywhere:
//! - The arrival rate `lambda` is the day-time rate, chosen so that `rho = lambda E[L] / N`
//!   (the paper's definition, key `rho`); with 12 h of arrivals a day the 24-hour average
//!   offered load, key `load` as in every other model, is `rho / 2` (`rho x day_hours / 24`). This reproduces the paper's 160 jobs a day at rho = 0.5 (we get about 170)
//!   and its 30,421 jobs in 120 days at rho = 0.75 (we expect about 30,600).
//! - Arrival instants are floored to whole seconds (ties then keep generation order).
//! - Until malleable allocation exists, a job is rigid on `n = min(round(A), N)` processors
//!   (at least 1) with runtime `L / S(n)` rounded to the nearest second, at least 1 s; the
//!   estimate equals the runtime. `L`, `A` and `sigma` are kept in the job table.

use super::{ModelEntry, check_load, check_procs, parse_param, unknown_key};
use crate::error::{Error, Result};
use crate::random::{ModelRng, unit};
use crate::speedup::downey_speedup;
use crate::workload::{JobRecord, Jobs, MalleableColumns, Workload, narrow};
use rand_distr::{Distribution, Exp};
use rand_xoshiro::rand_core::SeedableRng;

/// Parameters of the Downey model; every one can be set with `--param key=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct DowneyParams {
    /// Processors N.
    pub procs: u32,
    /// The paper's rho = lambda E\[L\] / N, lambda the day-time arrival rate; `None`: from
    /// `load`, else 0.75.
    pub rho: Option<f64>,
    /// Offered load over whole days, `rho x day_hours / 24`; the other way to set rho.
    pub load: Option<f64>,
    /// Simulated days of arrivals.
    pub days: u32,
    /// If set, generate exactly this many jobs (as many days as it takes) instead of `days`.
    pub jobs: Option<usize>,
    /// Hours of the day-time (arrival) phase in each 24-hour day.
    pub day_hours: f64,
    pub lifetime_min: f64,
    pub lifetime_max: f64,
    pub parallelism_min: f64,
    pub parallelism_max: f64,
    pub sigma_min: f64,
    pub sigma_max: f64,
}

impl Default for DowneyParams {
    fn default() -> Self {
        DowneyParams {
            procs: 128,
            rho: None,
            load: None,
            days: 30,
            jobs: None,
            day_hours: 12.0,
            lifetime_min: 2f64.exp(),
            lifetime_max: 12f64.exp(),
            parallelism_min: 1.0,
            parallelism_max: 128.0,
            sigma_min: 0.0,
            sigma_max: 2.0,
        }
    }
}

/// Keys accepted by [`DowneyParams::set`].
pub const DOWNEY_KEYS: [&str; 12] = [
    "procs",
    "rho",
    "load",
    "days",
    "jobs",
    "day_hours",
    "lifetime_min",
    "lifetime_max",
    "parallelism_min",
    "parallelism_max",
    "sigma_min",
    "sigma_max",
];

impl DowneyParams {
    /// E\[L\] of the uniform-log lifetime distribution: (max - min) / ln(max / min).
    pub fn mean_lifetime(&self) -> f64 {
        (self.lifetime_max - self.lifetime_min) / (self.lifetime_max / self.lifetime_min).ln()
    }

    /// The paper's rho: given, from the offered load, or 0.75.
    pub fn rho(&self) -> f64 {
        match (self.rho, self.load) {
            (Some(rho), _) => rho,
            (None, Some(load)) => load * 24.0 / self.day_hours,
            (None, None) => 0.75,
        }
    }

    /// Day-time arrival rate in jobs per second.
    pub fn arrival_rate(&self) -> f64 {
        self.rho() * self.procs as f64 / self.mean_lifetime()
    }

    pub fn describe(&self) -> String {
        format!(
            "downey(procs={}, rho={}, days={})",
            self.procs,
            self.rho(),
            self.days
        )
    }
}

impl ModelEntry for DowneyParams {
    const NAME: &'static str = "downey";
    const KEYS: &'static [&'static str] = &DOWNEY_KEYS;

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "procs" => self.procs = parse_param(key, value)?,
            "rho" => self.rho = Some(parse_param(key, value)?),
            "load" => self.load = Some(parse_param(key, value)?),
            "days" => self.days = parse_param(key, value)?,
            "jobs" => self.jobs = Some(parse_param(key, value)?),
            "day_hours" => self.day_hours = parse_param(key, value)?,
            "lifetime_min" => self.lifetime_min = parse_param(key, value)?,
            "lifetime_max" => self.lifetime_max = parse_param(key, value)?,
            "parallelism_min" => self.parallelism_min = parse_param(key, value)?,
            "parallelism_max" => self.parallelism_max = parse_param(key, value)?,
            "sigma_min" => self.sigma_min = parse_param(key, value)?,
            "sigma_max" => self.sigma_max = parse_param(key, value)?,
            _ => return Err(unknown_key("downey", key, value, &DOWNEY_KEYS)),
        }
        Ok(())
    }

    fn validate(&self) -> Result<()> {
        let bad = |key: &str, value: String, message: &str| {
            Err(Error::Param {
                key: key.into(),
                value,
                message: message.into(),
            })
        };
        check_procs(self.procs)?;
        if self.days == 0 && self.jobs.is_none() {
            return bad("days", "0".into(), "must be at least 1 (or give jobs)");
        }
        if self.jobs == Some(0) {
            return bad("jobs", "0".into(), "must be at least 1");
        }
        if self.lifetime_max.is_nan() || self.lifetime_max > crate::workload::MAX_TIME as f64 {
            return bad(
                "lifetime_max",
                self.lifetime_max.to_string(),
                "must be at most 2^40 s",
            );
        }
        if self.rho.is_some() && self.load.is_some() {
            return bad(
                "load",
                self.load.unwrap_or_default().to_string(),
                "rho and load both set the arrival rate; choose one",
            );
        }
        for (key, value) in [("rho", self.rho), ("load", self.load)] {
            if let Some(v) = value {
                check_load(key, v)?;
            }
        }
        if !(self.day_hours > 0.0 && self.day_hours <= 24.0) {
            return bad("day_hours", self.day_hours.to_string(), "must be in (0, 24]");
        }
        if !(self.lifetime_min > 0.0 && self.lifetime_min < self.lifetime_max) {
            return bad(
                "lifetime_min",
                self.lifetime_min.to_string(),
                "need 0 < lifetime_min < lifetime_max",
            );
        }
        if !(self.parallelism_min >= 1.0 && self.parallelism_min <= self.parallelism_max) {
            return bad(
                "parallelism_min",
                self.parallelism_min.to_string(),
                "need 1 <= parallelism_min <= parallelism_max",
            );
        }
        if !(self.sigma_min >= 0.0 && self.sigma_min <= self.sigma_max) {
            return bad(
                "sigma_min",
                self.sigma_min.to_string(),
                "need 0 <= sigma_min <= sigma_max",
            );
        }
        Ok(())
    }

    /// Jobs a replication generates: `jobs`, or the expected arrivals over `days`.
    fn expected_jobs(&self) -> u64 {
        match self.jobs {
            Some(n) => n as u64,
            None => {
                (self.arrival_rate() * self.day_hours * 3600.0 * self.days as f64).min(u64::MAX as f64) as u64
            }
        }
    }

    /// Generates the workload. The draws for each job come in a fixed order (gap, L, A,
    /// sigma), so a seed always gives the same jobs.
    fn generate(&self, seed: u64) -> Workload {
        let mut rng = ModelRng::seed_from_u64(seed);
        let rate = self.arrival_rate();
        let gap = Exp::new(rate).expect("a positive, finite rate");
        let day_len = self.day_hours * 3600.0;
        let expected = match self.jobs {
            Some(n) => n,
            None => (rate * day_len * self.days as f64 * 1.1) as usize + 16,
        };
        let mut jobs = Jobs::with_capacity(expected);
        let mut model = MalleableColumns {
            lifetime: Vec::with_capacity(expected),
            avg_parallelism: Vec::with_capacity(expected),
            sigma: Vec::with_capacity(expected),
        };
        let log_uniform =
            |rng: &mut ModelRng, lo: f64, hi: f64| (lo.ln() + (hi.ln() - lo.ln()) * unit(rng)).exp();
        let mut id = 1u64;
        let days = if self.jobs.is_some() { u32::MAX } else { self.days };
        'days: for day in 0..days {
            let day_start = day as f64 * 86_400.0;
            let mut t = 0.0;
            loop {
                if self.jobs.is_some_and(|n| jobs.len() >= n) {
                    break 'days;
                }
                t += gap.sample(&mut rng);
                if t >= day_len {
                    break;
                }
                let lifetime = log_uniform(&mut rng, self.lifetime_min, self.lifetime_max);
                let a = log_uniform(&mut rng, self.parallelism_min, self.parallelism_max);
                let sigma = self.sigma_min + (self.sigma_max - self.sigma_min) * unit(&mut rng);
                let n = (a.round() as u32).clamp(1, self.procs);
                let runtime = (lifetime / downey_speedup(a, sigma, n as f64)).round().max(1.0) as i64;
                let mut record = JobRecord::new(id, (day_start + t).floor() as i64, runtime, n, runtime);
                record.requested_procs = n as i32;
                record.requested_time = narrow(runtime);
                record.status = 1;
                jobs.push(&record);
                model.lifetime.push(lifetime);
                model.avg_parallelism.push(a);
                model.sigma.push(sigma);
                id += 1;
            }
        }
        jobs.malleable = Some(model);
        let comments = vec![format!(
            "Note: synthetic workload {} seed {seed}",
            self.describe()
        )];
        Workload::synthetic(self.describe(), jobs, self.procs, comments)
    }

    fn load_target(&self) -> Option<f64> {
        self.load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_lifetime_is_271_minutes() {
        let m = DowneyParams::default().mean_lifetime() / 60.0;
        assert!((m - 271.2).abs() < 0.5, "{m}");
    }

    #[test]
    fn same_seed_same_jobs_and_jobs_per_day_match_the_paper() {
        let p = DowneyParams {
            rho: Some(0.5),
            days: 40,
            ..DowneyParams::default()
        };
        let a = p.generate(7);
        let b = p.generate(7);
        assert_eq!(a.jobs.submit, b.jobs.submit);
        assert_eq!(a.jobs.runtime, b.jobs.runtime);
        let c = p.generate(8);
        assert_ne!(a.jobs.submit, c.jobs.submit);
        // Expected 0.5 * 128 / 16274.7 * 43200 = 169.9 jobs a day; 40 days give 6796 +- 3 sd.
        let n = a.jobs.len() as f64;
        assert!((n - 6796.0).abs() < 3.0 * 6796f64.sqrt(), "{n}");
        // No arrivals at night.
        assert!(a.jobs.submit.iter().all(|&s| s % 86_400 < 43_200));
        assert!(a.jobs.submit.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn jobs_are_rigid_on_rounded_parallelism() {
        let w = DowneyParams::default().generate(1);
        let m = w.jobs.malleable.as_ref().unwrap();
        for j in 0..w.jobs.len() {
            let a = m.avg_parallelism[j];
            assert_eq!(w.jobs.procs[j], (a.round() as u32).clamp(1, 128));
            assert!(w.jobs.runtime[j] >= 1);
            assert_eq!(w.jobs.runtime[j], w.jobs.estimate[j]);
            assert!((2f64.exp()..=12f64.exp()).contains(&m.lifetime[j]));
            assert!((0.0..=2.0).contains(&m.sigma[j]));
        }
    }

    #[test]
    fn a_job_count_overrides_days() {
        let p = DowneyParams {
            jobs: Some(1234),
            ..DowneyParams::default()
        };
        let w = p.generate(2);
        assert_eq!(w.jobs.len(), 1234);
        // The first jobs are the same as with days: the count only truncates or extends.
        let by_days = DowneyParams::default().generate(2);
        assert_eq!(w.jobs.submit[..1000], by_days.jobs.submit[..1000]);
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let mut p = DowneyParams::default();
        let e = p.set("lod", "0.5").unwrap_err().to_string();
        assert!(e.contains("lod") && e.contains("load"), "{e}");
        let e = p.set("load", "high").unwrap_err().to_string();
        assert!(e.contains("load=high"), "{e}");
        p.load = Some(-1.0);
        assert!(p.validate().is_err());
        // rho and the offered load are two names for one rate: 12 h of arrivals a day.
        let by_load = DowneyParams {
            load: Some(0.375),
            ..DowneyParams::default()
        };
        assert_eq!(by_load.rho(), 0.75);
        let both = DowneyParams {
            rho: Some(0.5),
            ..by_load
        };
        assert!(both.validate().unwrap_err().to_string().contains("choose one"));
    }
}
