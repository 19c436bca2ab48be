//! The workload of Anastasiadis & Sevcik (section 5, Table 3): moldable jobs with Sevcik's
//! execution-time function T(p) = phi W / p + alpha + beta p, phi = 1, arriving in a
//! Poisson stream. Times in thousands of seconds, as in the paper.

use std::fmt;
use std::str::FromStr;

use crate::call::{Call, CallError};

use rand_distr::{Distribution, Exp1};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;

use crate::random::unit;

/// The two stages of the hyper-exponential essential work W: (probability, mean).
pub const WORK_STAGES: [(f64, f64); 2] = [(0.125, 101.0), (0.875, 1.3)];

/// The maximum parallelisms, drawn with equal probability.
pub const P_MAX: [u32; 3] = [4, 16, 64];

/// Speedup shape: mu in alpha = W (1 / p_max^2)^mu (+inf: alpha = 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Good,
    Mu(f64),
}

/// The paper's four workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoldableWorkload {
    /// mu = +inf (good speedup).
    Wk1,
    /// mu = 0.4.
    Wk2,
    /// mu = 0.2 (poor speedup).
    Wk3,
    /// Each of the three with equal frequency.
    Wk4,
}

impl MoldableWorkload {
    pub const NAMES: [&'static str; 4] = ["wk1", "wk2", "wk3", "wk4"];

    /// E[T(1)] as Table 3 gives it (thousands of seconds): what sets the arrival rate.
    pub fn mean_sequential_time(self) -> f64 {
        match self {
            MoldableWorkload::Wk1 => 14.06,
            MoldableWorkload::Wk2 => 16.06,
            MoldableWorkload::Wk3 => 19.06,
            MoldableWorkload::Wk4 => 16.40,
        }
    }

    fn shapes(self) -> &'static [Shape] {
        match self {
            MoldableWorkload::Wk1 => &[Shape::Good],
            MoldableWorkload::Wk2 => &[Shape::Mu(0.4)],
            MoldableWorkload::Wk3 => &[Shape::Mu(0.2)],
            MoldableWorkload::Wk4 => &[Shape::Good, Shape::Mu(0.4), Shape::Mu(0.2)],
        }
    }

    /// E\[T(1)\] = E\[W\] + E\[beta\] + E\[alpha\] computed exactly from the model (W independent of
    /// p_max and the shape). Table 3 rounds some of these differently; see docs/semantics.md.
    pub fn exact_mean_sequential_time(self) -> f64 {
        let w: f64 = WORK_STAGES.iter().map(|(p, m)| p * m).sum();
        let mut factor = 0.0;
        let shapes = self.shapes();
        for shape in shapes {
            for &p in &P_MAX {
                let inv2 = 1.0 / (p as f64 * p as f64);
                let alpha = match shape {
                    Shape::Good => 0.0,
                    Shape::Mu(mu) => inv2.powf(*mu),
                };
                factor += (1.0 + inv2 + alpha) / (P_MAX.len() * shapes.len()) as f64;
            }
        }
        w * factor
    }
}

impl FromStr for MoldableWorkload {
    type Err = CallError;
    fn from_str(s: &str) -> Result<Self, CallError> {
        let call = Call::parse("workload", s)?;
        let workload = match call.name() {
            "wk1" => MoldableWorkload::Wk1,
            "wk2" => MoldableWorkload::Wk2,
            "wk3" => MoldableWorkload::Wk3,
            "wk4" => MoldableWorkload::Wk4,
            _ => return Err(call.unknown_name(&Self::NAMES)),
        };
        call.finish(workload)
    }
}

impl fmt::Display for MoldableWorkload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = *self as usize;
        f.write_str(Self::NAMES[i])
    }
}

/// A moldable job: it may run on 1..=p_max processors, taking T(p).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoldableJob {
    pub arrival: f64,
    pub work: f64,
    pub p_max: u32,
    pub alpha: f64,
    pub beta: f64,
}

impl MoldableJob {
    /// A job of essential work `work` with maximum parallelism `p_max` and speedup `shape`:
    /// beta = W / p_max^2, alpha = W (1 / p_max^2)^mu.
    pub fn new(arrival: f64, work: f64, p_max: u32, shape: Shape) -> Self {
        let inv2 = 1.0 / (p_max as f64 * p_max as f64);
        MoldableJob {
            arrival,
            work,
            p_max,
            alpha: match shape {
                Shape::Good => 0.0,
                Shape::Mu(mu) => work * inv2.powf(mu),
            },
            beta: work * inv2,
        }
    }

    /// T(p) = W / p + alpha + beta p (equation 5 with phi = 1).
    pub fn time(&self, p: u32) -> f64 {
        debug_assert!(p >= 1);
        self.work / p as f64 + self.alpha + self.beta * p as f64
    }
}

/// Draws W from the two-stage hyper-exponential.
pub fn sample_work(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let stage = if unit(rng) < WORK_STAGES[0].0 { 0 } else { 1 };
    let e: f64 = Exp1.sample(rng);
    WORK_STAGES[stage].1 * e
}

/// `jobs` jobs of `workload` arriving at offered `load` on `procs` processors: mean
/// inter-arrival E[T(1)] / (procs x load), E[T(1)] from Table 3. Each job draws, in this
/// order, its inter-arrival gap, W, p_max and (WK4) its shape.
pub fn generate(
    workload: MoldableWorkload,
    procs: u32,
    load: f64,
    jobs: usize,
    seed: u64,
) -> Vec<MoldableJob> {
    assert!(load > 0.0 && procs >= 1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mean_gap = workload.mean_sequential_time() / (procs as f64 * load);
    let shapes = workload.shapes();
    let mut t = 0.0;
    (0..jobs)
        .map(|_| {
            let e: f64 = Exp1.sample(&mut rng);
            t += mean_gap * e;
            let work = sample_work(&mut rng);
            let p_max = P_MAX[((unit(&mut rng) * 3.0) as usize).min(2)];
            let shape = shapes[((unit(&mut rng) * shapes.len() as f64) as usize).min(shapes.len() - 1)];
            MoldableJob::new(t, work, p_max, shape)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_time_follows_table_3() {
        // W = 16, p_max = 4: beta = 1; mu = 0.2: alpha = 16 (1/16)^0.2 = 16 / 2^0.8.
        let j = MoldableJob::new(0.0, 16.0, 4, Shape::Mu(0.2));
        let alpha = 16.0 / 2f64.powf(0.8);
        assert!((j.alpha - alpha).abs() < 1e-12 && j.beta == 1.0);
        assert!((j.time(1) - (16.0 + alpha + 1.0)).abs() < 1e-12);
        assert!((j.time(4) - (4.0 + alpha + 4.0)).abs() < 1e-12);
        // Good speedup: S(p_max) = (1 + p_max^2) / (2 p_max) (section 5.2).
        let g = MoldableJob::new(0.0, 10.0, 16, Shape::Good);
        assert!((g.time(1) / g.time(16) - 257.0 / 32.0).abs() < 1e-12);
        // T is smallest at p = sqrt(W / beta) = p_max (equation 6).
        assert!(g.time(16) < g.time(15) && g.time(16) < g.time(17));
    }

    #[test]
    fn the_work_sampler_has_the_papers_mean_and_cov() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let n = 2_000_000;
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let w = sample_work(&mut rng);
            s += w;
            s2 += w * w;
        }
        let mean = s / n as f64;
        let cov = (s2 / n as f64 - mean * mean).sqrt() / mean;
        assert!((mean - 13.76).abs() < 0.2, "mean {mean}");
        assert!((cov - 3.53).abs() < 0.05, "CoV {cov}");
    }

    #[test]
    fn mean_sequential_times_match_table_3_within_its_rounding() {
        // Exact: WK1 14.07, WK2 16.24, WK3 19.08, WK4 16.46 (the table: 14.06, 16.06, 19.06,
        // 16.40; its E[alpha] = 2.0 for mu = 0.4 is 2.18 exactly).
        let expect = [
            (MoldableWorkload::Wk1, 14.07),
            (MoldableWorkload::Wk2, 16.24),
            (MoldableWorkload::Wk3, 19.08),
            (MoldableWorkload::Wk4, 16.46),
        ];
        for (w, e) in expect {
            let exact = w.exact_mean_sequential_time();
            assert!((exact - e).abs() < 0.01, "{w}: {exact}");
            assert!((exact - w.mean_sequential_time()).abs() < 0.2, "{w}");
        }
        // The generator reaches the offered load: sum T(1) / (P x span) near the target.
        let jobs = generate(MoldableWorkload::Wk4, 32, 0.5, 200_000, 3);
        let demand: f64 = jobs.iter().map(|j| j.time(1)).sum();
        let load = demand / (32.0 * jobs.last().unwrap().arrival);
        assert!((load - 0.5 * 16.46 / 16.40).abs() < 0.02, "load {load}");
    }
}
