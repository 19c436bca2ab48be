//! Synthetic utility functions for a trace (Lee & Snavely, section 4).
//!
//! For job j with priority p of N levels (0 the highest), requested time E_j (its estimate)
//! and processors P_j:
//!
//! - Start value: a per-processor-minute value x drawn from Normal(mean, sd), redrawn while
//!   negative, times P_j x E_j / 60. The paper centres the draw on bin
//!   `(p + 0.5) / N x globmax`, but also numbers 0 as the *highest* priority and wants
//!   "higher priority jobs \[to\] have higher start values"; taken literally the formula gives
//!   the highest priority the lowest values. schedlab follows the stated intent by default:
//!   the mean is `(N - 1 - p + 0.5) / N x globmax`, the top bin for the top priority
//!   (`start_bin = "intent"`); `start_bin = "literal"` uses the formula as printed. The paper gives
//!   no standard deviation; schedlab's default is half a bin width, `0.5 x globmax / N`, so
//!   about 68% of start values fall in their priority's bin ("most, but not all"). Nor
//!   does it give globmax; the default, 60 per processor-minute (1 per processor-second),
//!   puts aggregate utilities at the paper's magnitude: 8.7e8 for conservative backfilling
//!   on SDSC-BLUE jobs 5000-10000, where the paper reports 8.77e8.
//! - Deadline D (where the value reaches 0): `max(factor x basis, 10 s)`, factor 2 by
//!   default (1 and 3 in Figure 8). The paper's basis is the wait the trace recorded; with
//!   utility a function of *turnaround*, that makes every job whose runtime exceeds twice
//!   its recorded wait worthless under any schedule (3,610 of the 4,809 jobs 5000-10000 of
//!   SDSC-BLUE that run) and cannot produce the paper's own Table 1, where half the jobs
//!   earn 41-59% of their start value. schedlab offers both bases: `wait` (the text) and `turnaround` (recorded
//!   wait plus runtime, the time the user originally waited for the result); see
//!   results/lee-snavely/README.md for what each gives.
//! - Decay: expected linear, expected exponential or step, drawn by the mix weights (one
//!   third each by default). Linear and exponential take `points` distinct intermediate
//!   times uniform in (0, D), sorted; linear values are uniform in [0, start] sorted
//!   decreasing, exponential values each uniform in [0, previous]. Both end at (D, 0).
//!   Step keeps the start value until a time t1 uniform in (0, D - 2 eps), drops within
//!   eps = 1 ms to a value uniform in [0, start], and keeps it until D, after which the
//!   function (past its last point) is 0. The paper does not say the step's lower value;
//!   uniform matches its "expected" patterns.
//!
//! A job whose recorded wait is unknown (-1) counts as having waited 0.

use crate::params::ParamError;
use std::fmt;
use std::str::FromStr;

use rand_xoshiro::rand_core::SeedableRng;

use crate::random::{ModelRng, unit};
use crate::workload::Jobs;
use crate::workload::UtilityFunction;
use rand_distr::{Distribution, StandardNormal};

/// Smallest deadline, seconds.
pub const MIN_DEADLINE: f64 = 10.0;

/// Width of an approximated jump discontinuity, seconds.
pub const STEP_EPSILON: f64 = 1e-3;

/// The three decay patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecayType {
    Linear,
    Exponential,
    Step,
}

impl DecayType {
    pub const ALL: [DecayType; 3] = [DecayType::Linear, DecayType::Exponential, DecayType::Step];

    pub fn name(self) -> &'static str {
        match self {
            DecayType::Linear => "linear",
            DecayType::Exponential => "exponential",
            DecayType::Step => "step",
        }
    }
}

/// Weights of the decay types (linear, exponential, step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecayMix(pub [f64; 3]);

impl DecayMix {
    /// The decay type a uniform draw `u` in [0, 1) falls on.
    pub fn pick(&self, u: f64) -> DecayType {
        let mut x = u * self.0.iter().sum::<f64>();
        let mut last = DecayType::Linear;
        for (d, w) in DecayType::ALL.into_iter().zip(self.0) {
            if w > 0.0 {
                if x < w {
                    return d;
                }
                x -= w;
                last = d;
            }
        }
        last
    }
}

impl Default for DecayMix {
    fn default() -> Self {
        DecayMix([1.0; 3])
    }
}

/// `mixed` (one third each), `linear`, `exponential`, `step`, or weights `l:e:s`.
impl FromStr for DecayMix {
    type Err = ParamError;
    fn from_str(s: &str) -> Result<Self, ParamError> {
        let s = s.trim();
        if s == "mixed" {
            return Ok(DecayMix::default());
        }
        if let Some(i) = DecayType::ALL.iter().position(|d| d.name() == s) {
            let mut w = [0.0; 3];
            w[i] = 1.0;
            return Ok(DecayMix(w));
        }
        let bad = || ParamError::BadValue {
            key: "decay".into(),
            value: s.into(),
            expected: "mixed, linear, exponential, step, or weights linear:exponential:step such as 2:1:1"
                .into(),
        };
        let w: Vec<f64> = s
            .split(':')
            .map(|x| x.trim().parse::<f64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        match w[..] {
            [a, b, c] if w.iter().all(|x| x.is_finite() && *x >= 0.0) && a + b + c > 0.0 => {
                Ok(DecayMix([a, b, c]))
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for DecayMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.0;
        if w[0] == w[1] && w[1] == w[2] {
            return f.write_str("mixed");
        }
        if let [Some(i)] = [w.iter().position(|&x| x > 0.0)]
            && w.iter().filter(|&&x| x > 0.0).count() == 1
        {
            return f.write_str(DecayType::ALL[i].name());
        }
        write!(f, "{}:{}:{}", w[0], w[1], w[2])
    }
}

/// What the deadline multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadlineBasis {
    /// The recorded wait (the paper's text).
    Wait,
    /// The recorded wait plus the runtime.
    Turnaround,
}

impl FromStr for DeadlineBasis {
    type Err = ParamError;
    fn from_str(s: &str) -> Result<Self, ParamError> {
        match s.trim() {
            "wait" => Ok(DeadlineBasis::Wait),
            "turnaround" => Ok(DeadlineBasis::Turnaround),
            other => Err(ParamError::BadValue {
                key: "deadline_from".into(),
                value: other.into(),
                expected: "wait or turnaround".into(),
            }),
        }
    }
}

impl fmt::Display for DeadlineBasis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeadlineBasis::Wait => "wait",
            DeadlineBasis::Turnaround => "turnaround",
        })
    }
}

/// Which bin centres a job's start value (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartBin {
    /// The top bin for the top priority, as the paper's text intends.
    Intent,
    /// `(p + 0.5) / N x globmax`, the formula as printed: the top priority gets the bottom bin.
    Literal,
}

impl FromStr for StartBin {
    type Err = ParamError;
    fn from_str(s: &str) -> Result<Self, ParamError> {
        match s.trim() {
            "intent" => Ok(StartBin::Intent),
            "literal" => Ok(StartBin::Literal),
            other => Err(ParamError::BadValue {
                key: "start_bin".into(),
                value: other.into(),
                expected: "intent or literal".into(),
            }),
        }
    }
}

impl fmt::Display for StartBin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StartBin::Intent => "intent",
            StartBin::Literal => "literal",
        })
    }
}

/// Parameters of the generator (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct UtilityModel {
    /// Top of the start-value range, per processor-minute requested.
    pub globmax: f64,
    /// Standard deviation of the start value per processor-minute, in bin widths.
    pub sd: f64,
    pub start_bin: StartBin,
    pub decay: DecayMix,
    pub deadline_factor: f64,
    pub deadline_from: DeadlineBasis,
    /// Intermediate points of linear and exponential functions.
    pub points: usize,
}

impl Default for UtilityModel {
    fn default() -> Self {
        UtilityModel {
            globmax: 60.0,
            sd: 0.5,
            start_bin: StartBin::Intent,
            decay: DecayMix::default(),
            deadline_factor: 2.0,
            deadline_from: DeadlineBasis::Turnaround,
            points: 4,
        }
    }
}

impl UtilityModel {
    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let bad = |key: &str, value: String, expected: &str| {
            Err(ParamError::BadValue {
                key: key.into(),
                value,
                expected: expected.into(),
            })
        };
        for (key, x) in [
            ("globmax", self.globmax),
            ("deadline_factor", self.deadline_factor),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return bad(key, x.to_string(), "a positive number");
            }
        }
        if !(self.sd.is_finite() && self.sd >= 0.0) {
            return bad("utility_sd", self.sd.to_string(), "a number >= 0");
        }
        if self.points > 1000 {
            return bad("utility_points", self.points.to_string(), "at most 1000");
        }
        Ok(())
    }

    /// The deadline of job `j`.
    pub fn deadline(&self, jobs: &Jobs, j: usize) -> f64 {
        let wait = jobs.recorded_wait[j].max(0) as f64;
        let basis = match self.deadline_from {
            DeadlineBasis::Wait => wait,
            DeadlineBasis::Turnaround => wait + jobs.runtime[j] as f64,
        };
        (self.deadline_factor * basis).max(MIN_DEADLINE)
    }

    /// A utility function for every job, given their priorities (0 highest, `levels` in
    /// all). Deterministic for a seed; the decay types drawn come back beside the functions.
    pub fn generate(
        &self,
        jobs: &Jobs,
        priority: &[u16],
        levels: u16,
        seed: u64,
    ) -> (Vec<UtilityFunction>, Vec<DecayType>) {
        assert_eq!(priority.len(), jobs.len());
        let mut rng = ModelRng::seed_from_u64(seed);
        let n = levels.max(1) as f64;
        let bin = self.globmax / n;
        let mut functions = Vec::with_capacity(jobs.len());
        let mut types = Vec::with_capacity(jobs.len());
        let mut times = Vec::with_capacity(self.points);
        let mut values = Vec::with_capacity(self.points);
        for j in 0..jobs.len() {
            let rank = match self.start_bin {
                StartBin::Intent => n - 1.0 - priority[j] as f64,
                StartBin::Literal => priority[j] as f64,
            };
            let mean = (rank + 0.5) * bin;
            let per_proc_minute = loop {
                let z: f64 = StandardNormal.sample(&mut rng);
                let x = mean + self.sd * bin * z;
                if x >= 0.0 {
                    break x;
                }
            };
            let start = per_proc_minute * jobs.procs[j] as f64 * jobs.estimate[j] as f64 / 60.0;
            let deadline = self.deadline(jobs, j);
            let decay = self.decay.pick(unit(&mut rng));
            let mut points = Vec::with_capacity(self.points + 2);
            points.push((0.0, start));
            match decay {
                DecayType::Step => {
                    let t1 = loop {
                        let t = unit(&mut rng) * (deadline - 2.0 * STEP_EPSILON);
                        if t > 0.0 {
                            break t;
                        }
                    };
                    let low = unit_inclusive(&mut rng) * start;
                    points.extend([(t1, start), (t1 + STEP_EPSILON, low), (deadline, low)]);
                }
                DecayType::Linear | DecayType::Exponential => {
                    times.clear();
                    while times.len() < self.points {
                        let t = unit(&mut rng) * deadline;
                        if t > 0.0 && !times.contains(&t) {
                            times.push(t);
                        }
                    }
                    times.sort_by(f64::total_cmp);
                    values.clear();
                    let mut last = start;
                    for _ in 0..self.points {
                        let v =
                            unit_inclusive(&mut rng) * if decay == DecayType::Linear { start } else { last };
                        values.push(v);
                        last = v;
                    }
                    values.sort_by(|a, b| b.total_cmp(a));
                    points.extend(times.iter().copied().zip(values.iter().copied()));
                    points.push((deadline, 0.0));
                }
            }
            functions.push(UtilityFunction::new(points).expect("generated points follow the rules"));
            types.push(decay);
        }
        (functions, types)
    }
}

/// Uniform in [0, 1], both ends included.
fn unit_inclusive(rng: &mut ModelRng) -> f64 {
    use rand_xoshiro::rand_core::Rng;
    (rng.next_u64() >> 11) as f64 / ((1u64 << 53) - 1) as f64
}
