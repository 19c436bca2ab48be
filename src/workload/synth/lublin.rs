//! The Lublin-Feitelson model of rigid jobs ("The workload on parallel supercomputers:
//! modeling the characteristics of rigid jobs", JPDC 2003), as its authors' generator
//! defines it, with user runtime estimates from [`crate::workload::estimates`].
//!
//! Each job class (batch and interactive, or one class for all jobs with
//! `job_types = false`) has its own parameters:
//! - size: serial with probability `serial_prob`; otherwise `2^x` rounded to an integer,
//!   where `x` is two-stage uniform (uniform on `[ulow, umed]` with probability `uprob`,
//!   else on `[umed, uhi]`) and is first rounded to an integer with probability
//!   `pow2_prob` (a power-of-two job);
//! - runtime: `e^h` seconds, floored, where `h` is hyper-Gamma: Gamma(`a1`, `b1`) with
//!   probability `p = pa * size + pb` (clamped to [0, 1]), else Gamma(`a2`, `b2`), redrawn
//!   while `h > 12` (runtimes up to e^12 s, 45 hours);
//! - arrivals: a log inter-arrival time Gamma(`aarr * arar`, `barr`) (redrawn while above
//!   13) gives `e^g` seconds of "points"; the day has 48 half-hour buckets weighted by a
//!   Gamma(`anum`, `bnum`) daily cycle (mean weight 1), and a bucket of weight `w` costs
//!   `1800 w` points, so arrivals are denser at busy hours and the long-run mean gap is
//!   `E[e^g]`. With two classes, each runs its own arrival process and the next job is the
//!   one of the class that arrives first.
//!
//! Choices where the generator leaves a value to the user (docs/semantics.md):
//! - Sizes (`sizes = "original"`, the default): each class's `umed` and `uhi` are the
//!   values compiled into the generator (`m_lublin99.c`, for 128 processors: batch 5 and 7,
//!   interactive 3 and 5.5, one class 4.5 and 7), shifted by `log2(procs / 128)` for other
//!   machine sizes, so an interactive job is at most 45 processors of 128, 90 of 256;
//!   `uhi` stays within `[0, log2(procs)]`. `sizes = "log2"` is the rule of the generator's
//!   comments for every class (`uhi = log2(procs)`, `umed = uhi - 2.5`), with which the
//!   generator wrote `../shared/traces/lublin_256_new2` (tests/it/lublin_model.rs). On
//!   machines so small that `umed` falls below `ulow`, `umed = ulow`, and `ulow` is at
//!   most `uhi`.
//! - `load`, when given, is the offered load `E[size * runtime] / (procs * E[gap])` summed
//!   over classes, reached by multiplying every gap by one factor (the daily cycle and the
//!   batch/interactive mix stay); without it the arrivals are the published ones.
//! - Times are kept in f64 and floored to whole seconds only when written.

use rand_distr::{Distribution, Gamma};
use rand_xoshiro::rand_core::SeedableRng;

use super::{ModelEntry, check_load, check_procs, parse_param, unknown_key};
use crate::error::{Error, Result};
use crate::random::{ModelRng, unit};
use crate::seed::mix64;
use crate::workload::estimates::EstimateModel;
use crate::workload::{JobRecord, Jobs, Workload};

/// Half-hour buckets in a day.
const BUCKETS: usize = 48;
const BUCKET_SECONDS: f64 = 1800.0;
/// The generator's caps on the log runtime and the log gap (seconds).
const MAX_LOG_RUNTIME: f64 = 12.0;
const MAX_LOG_GAP: f64 = 13.0;
/// The generator's shift of its daily-cycle curve: bucket `(i - 1) mod 48` gets the Gamma
/// mass of `[i - 0.5, i + 0.5]` for `i` from 11 to 58.
const CYCLE_START: usize = 11;

/// The parameters of one job class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassParams {
    pub serial_prob: f64,
    pub pow2_prob: f64,
    /// `None`: the published value (`published_ulow`), at most `uhi`.
    pub ulow: Option<f64>,
    /// The class's published `ulow`, used when `ulow` is not given.
    pub published_ulow: f64,
    /// `None`: `uhi` less the class's `uhi_at_128 - umed_at_128`, but at least `ulow`
    /// (small machines, where it would fall below).
    pub umed: Option<f64>,
    /// `None`: `uhi_at_128` shifted to the machine size, within `[0, log2(procs)]`.
    pub uhi: Option<f64>,
    /// The class's `umed` and `uhi` on 128 processors, the machine the generator's
    /// constants are for (see [`SizeRule`]).
    pub umed_at_128: f64,
    pub uhi_at_128: f64,
    pub uprob: f64,
    pub a1: f64,
    pub b1: f64,
    pub a2: f64,
    pub b2: f64,
    pub pa: f64,
    pub pb: f64,
    pub aarr: f64,
    pub barr: f64,
    pub anum: f64,
    pub bnum: f64,
    pub arar: f64,
}

impl ClassParams {
    /// Batch jobs, the generator's defaults.
    pub fn batch() -> Self {
        ClassParams {
            serial_prob: 0.2927,
            pow2_prob: 0.6686,
            ulow: None,
            published_ulow: 1.2,
            umed: None,
            uhi: None,
            umed_at_128: 5.0,
            uhi_at_128: 7.0,
            uprob: 0.875,
            a1: 6.57,
            b1: 0.823,
            a2: 639.1,
            b2: 0.0156,
            pa: -0.003,
            pb: 0.6986,
            aarr: 6.0415,
            barr: 0.8531,
            anum: 6.1271,
            bnum: 5.2740,
            arar: 1.0519,
        }
    }

    /// Interactive jobs, the generator's defaults.
    pub fn interactive() -> Self {
        ClassParams {
            serial_prob: 0.1541,
            pow2_prob: 0.625,
            ulow: None,
            published_ulow: 1.0,
            umed: None,
            uhi: None,
            umed_at_128: 3.0,
            uhi_at_128: 5.5,
            uprob: 0.705,
            a1: 3.8351,
            b1: 0.6605,
            a2: 7.073,
            b2: 0.6856,
            pa: -0.0118,
            pb: 0.9156,
            aarr: 6.5510,
            barr: 0.6621,
            anum: 8.9186,
            bnum: 3.6680,
            arar: 0.9797,
        }
    }

    /// All jobs as one class (`job_types = false`), the generator's defaults.
    pub fn all() -> Self {
        ClassParams {
            serial_prob: 0.244,
            pow2_prob: 0.576,
            ulow: None,
            published_ulow: 0.8,
            umed: None,
            uhi: None,
            umed_at_128: 4.5,
            uhi_at_128: 7.0,
            uprob: 0.86,
            a1: 4.2,
            b1: 0.94,
            a2: 312.0,
            b2: 0.03,
            pa: -0.0054,
            pb: 0.78,
            aarr: 10.2303,
            barr: 0.4871,
            anum: 8.1737,
            bnum: 3.9631,
            arar: 1.0225,
        }
    }

    fn set(&mut self, field: &str, key: &str, value: &str) -> Result<bool> {
        // Sizes whose default comes from `procs` are optional; the others are plain numbers.
        let optional = match field {
            "ulow" => Some(&mut self.ulow),
            "umed" => Some(&mut self.umed),
            "uhi" => Some(&mut self.uhi),
            _ => None,
        };
        if let Some(slot) = optional {
            *slot = Some(parse_param(key, value)?);
            return Ok(true);
        }
        let slot = match field {
            "serial_prob" => &mut self.serial_prob,
            "pow2_prob" => &mut self.pow2_prob,
            "uprob" => &mut self.uprob,
            "a1" => &mut self.a1,
            "b1" => &mut self.b1,
            "a2" => &mut self.a2,
            "b2" => &mut self.b2,
            "pa" => &mut self.pa,
            "pb" => &mut self.pb,
            "aarr" => &mut self.aarr,
            "barr" => &mut self.barr,
            "anum" => &mut self.anum,
            "bnum" => &mut self.bnum,
            "arar" => &mut self.arar,
            _ => return Ok(false),
        };
        *slot = parse_param(key, value)?;
        Ok(true)
    }

    /// `log2(procs) - log2(128)`, written so that the `log2` rule (`uhi_at_128 = 7`)
    /// gives exactly `log2(procs)`.
    fn shifted(at_128: f64, procs: u32) -> f64 {
        (procs as f64).log2() - (7.0 - at_128)
    }

    fn uhi(&self, procs: u32) -> f64 {
        let log2 = (procs as f64).log2();
        self.uhi
            .unwrap_or(Self::shifted(self.uhi_at_128, procs).clamp(0.0, log2))
    }

    fn ulow(&self, procs: u32) -> f64 {
        self.ulow.unwrap_or(self.published_ulow.min(self.uhi(procs)))
    }

    fn umed(&self, procs: u32) -> f64 {
        let (low, high) = (self.ulow(procs), self.uhi(procs));
        // The class's distance between `umed` and `uhi` is kept, wherever `uhi` comes from.
        let below = self.uhi_at_128 - self.umed_at_128;
        self.umed.unwrap_or((high - below).max(low))
    }

    fn validate(&self, class: &str, procs: u32) -> Result<()> {
        let bad = |field: &str, value: f64, message: &str| {
            Err(Error::Param {
                key: format!("{class}_{field}"),
                value: value.to_string(),
                message: message.into(),
            })
        };
        for (field, p) in [
            ("serial_prob", self.serial_prob),
            ("pow2_prob", self.pow2_prob),
            ("uprob", self.uprob),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return bad(field, p, "must be a probability in [0, 1]");
            }
        }
        if self.serial_prob + self.pow2_prob > 1.0 {
            return bad(
                "pow2_prob",
                self.pow2_prob,
                "serial_prob + pow2_prob must be at most 1",
            );
        }
        let (low, med, high) = (self.ulow(procs), self.umed(procs), self.uhi(procs));
        if !(0.0 <= low && low <= med && med <= high && high <= 40.0) {
            return bad(
                "umed",
                med,
                &format!("need 0 <= ulow ({low}) <= umed ({med}) <= uhi ({high}) <= 40"),
            );
        }
        for (field, v) in [
            ("a1", self.a1),
            ("b1", self.b1),
            ("a2", self.a2),
            ("b2", self.b2),
            ("aarr", self.aarr),
            ("barr", self.barr),
            ("anum", self.anum),
            ("bnum", self.bnum),
            ("arar", self.arar),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return bad(field, v, "must be a positive number");
            }
        }
        for (field, v) in [("pa", self.pa), ("pb", self.pb)] {
            if !v.is_finite() {
                return bad(field, v, "must be a finite number");
            }
        }
        // Every redraw loop must end: some mass below each cap.
        let arrivals = gamma_moments(self.aarr * self.arar, self.barr, MAX_LOG_GAP);
        if arrivals.mass < 1e-6 {
            return bad("aarr", self.aarr, "almost every log gap exceeds the cap of 13");
        }
        for (field, shape, scale) in [("a1", self.a1, self.b1), ("a2", self.a2, self.b2)] {
            if gamma_moments(shape, scale, MAX_LOG_RUNTIME).mass < 1e-6 {
                return bad(field, shape, "almost every log runtime exceeds the cap of 12");
            }
        }
        Ok(())
    }
}

/// Where each class's `umed` and `uhi` come from when they are not set (`sizes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeRule {
    /// The generator's compiled-in values for 128 processors, shifted by
    /// `log2(procs / 128)`.
    Original,
    /// `uhi = log2(procs)` and `umed = uhi - 2.5` for every class, as the generator's
    /// comments say (schedlab's rule until 2026-11-26).
    Log2,
}

impl SizeRule {
    pub const NAMES: [&'static str; 2] = ["original", "log2"];

    pub fn name(self) -> &'static str {
        match self {
            SizeRule::Original => "original",
            SizeRule::Log2 => "log2",
        }
    }

    /// `class` with its sizes at 128 processors as this rule gives them.
    fn apply(self, class: &ClassParams) -> ClassParams {
        let mut class = class.clone();
        if self == SizeRule::Log2 {
            let all = ClassParams::all();
            (class.umed_at_128, class.uhi_at_128) = (all.umed_at_128, all.uhi_at_128);
        }
        class
    }
}

/// Parameters of the Lublin model; every one can be set with `--param key=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct LublinParams {
    /// Processors; sets the largest job of each class (see [`SizeRule`]).
    pub procs: u32,
    /// Where each class's job sizes come from when not set one by one.
    pub sizes: SizeRule,
    /// Offered load to reach; `None` keeps the published arrival rates.
    pub load: Option<f64>,
    /// Jobs to generate.
    pub jobs: usize,
    /// Batch and interactive classes (`true`, the generator's default) or one class.
    pub job_types: bool,
    /// User estimates: exact (the generator has none) or Tsafrir's model.
    pub estimates: EstimateModel,
    pub batch: ClassParams,
    pub interactive: ClassParams,
    pub all: ClassParams,
}

impl Default for LublinParams {
    fn default() -> Self {
        LublinParams {
            procs: 128,
            sizes: SizeRule::Original,
            load: None,
            jobs: 10_000,
            job_types: true,
            estimates: EstimateModel::Exact,
            batch: ClassParams::batch(),
            interactive: ClassParams::interactive(),
            all: ClassParams::all(),
        }
    }
}

/// Keys accepted by [`LublinParams::set`]: the model's own, then each class's.
pub const LUBLIN_KEYS: [&str; 58] = [
    "procs",
    "sizes",
    "load",
    "jobs",
    "job_types",
    "estimates",
    "max_estimate",
    "batch_serial_prob",
    "batch_pow2_prob",
    "batch_ulow",
    "batch_umed",
    "batch_uhi",
    "batch_uprob",
    "batch_a1",
    "batch_b1",
    "batch_a2",
    "batch_b2",
    "batch_pa",
    "batch_pb",
    "batch_aarr",
    "batch_barr",
    "batch_anum",
    "batch_bnum",
    "batch_arar",
    "interactive_serial_prob",
    "interactive_pow2_prob",
    "interactive_ulow",
    "interactive_umed",
    "interactive_uhi",
    "interactive_uprob",
    "interactive_a1",
    "interactive_b1",
    "interactive_a2",
    "interactive_b2",
    "interactive_pa",
    "interactive_pb",
    "interactive_aarr",
    "interactive_barr",
    "interactive_anum",
    "interactive_bnum",
    "interactive_arar",
    "all_serial_prob",
    "all_pow2_prob",
    "all_ulow",
    "all_umed",
    "all_uhi",
    "all_uprob",
    "all_a1",
    "all_b1",
    "all_a2",
    "all_b2",
    "all_pa",
    "all_pb",
    "all_aarr",
    "all_barr",
    "all_anum",
    "all_bnum",
    "all_arar",
];

impl LublinParams {
    /// The classes in use, with their key prefixes, their sizes as `sizes` gives them.
    fn classes(&self) -> Vec<(&'static str, ClassParams)> {
        let classes = if self.job_types {
            vec![("batch", &self.batch), ("interactive", &self.interactive)]
        } else {
            vec![("all", &self.all)]
        };
        classes
            .into_iter()
            .map(|(name, c)| (name, self.sizes.apply(c)))
            .collect()
    }

    /// The offered load of the published arrival rates on `procs` processors:
    /// `sum over classes of E[size * runtime] / (procs * E[gap])`.
    pub fn natural_load(&self) -> f64 {
        self.classes()
            .iter()
            .map(|(_, c)| ClassModel::prepared(c, self.procs).natural_load)
            .sum()
    }

    pub fn describe(&self) -> String {
        let load = self.load.map_or("published".to_string(), |l| l.to_string());
        format!(
            "lublin(procs={}, sizes={}, load={load}, jobs={}, job_types={}, estimates={})",
            self.procs,
            self.sizes.name(),
            self.jobs,
            self.job_types,
            self.estimates
        )
    }
}

/// A class's parameters made ready to draw from: Gamma samplers, the daily-cycle weights,
/// and the offered load of its published arrival rate.
#[derive(Clone, Debug)]
struct ClassModel {
    serial_prob: f64,
    pow2_prob: f64,
    low: f64,
    med: f64,
    high: f64,
    uprob: f64,
    pa: f64,
    pb: f64,
    procs: u32,
    short: Gamma<f64>,
    long: Gamma<f64>,
    gap: Gamma<f64>,
    weights: [f64; BUCKETS],
    natural_load: f64,
}

/// Class models this thread prepared, newest last: preparing one integrates the runtime
/// and gap densities (about 0.4 ms), which a replication of a few hundred jobs (an episode
/// of the learning environment) would otherwise spend more on than on its jobs.
const PREPARED_KEPT: usize = 8;

thread_local! {
    static PREPARED: std::cell::RefCell<Vec<(ClassParams, u32, ClassModel)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl ClassModel {
    /// [`ClassModel::new`], remembered for the last few (class, machine size) pairs: a pure
    /// function of its arguments, so the memo changes no result.
    fn prepared(c: &ClassParams, procs: u32) -> Self {
        PREPARED.with_borrow_mut(|kept| {
            if let Some((_, _, model)) = kept.iter().find(|(k, p, _)| k == c && *p == procs) {
                return model.clone();
            }
            let model = ClassModel::new(c, procs);
            if kept.len() == PREPARED_KEPT {
                kept.remove(0);
            }
            kept.push((c.clone(), procs, model.clone()));
            model
        })
    }

    fn new(c: &ClassParams, procs: u32) -> Self {
        let gamma = |shape: f64, scale: f64| Gamma::new(shape, scale).expect("validated positive");
        let mut weights = [0.0; BUCKETS];
        for i in CYCLE_START..CYCLE_START + BUCKETS {
            let cdf = |x: f64| statrs::function::gamma::gamma_lr(c.anum, x / c.bnum);
            // A floor keeps an empty bucket from stopping the clock (a weight of 0 would
            // divide by zero); it moves no measurable mass.
            weights[(i - 1) % BUCKETS] = (cdf(i as f64 + 0.5) - cdf(i as f64 - 0.5)).max(1e-12);
        }
        let mean = weights.iter().sum::<f64>() / BUCKETS as f64;
        weights.iter_mut().for_each(|w| *w /= mean);
        let mut model = ClassModel {
            serial_prob: c.serial_prob,
            pow2_prob: c.pow2_prob,
            low: c.ulow(procs),
            med: c.umed(procs),
            high: c.uhi(procs),
            uprob: c.uprob,
            pa: c.pa,
            pb: c.pb,
            procs,
            short: gamma(c.a1, c.b1),
            long: gamma(c.a2, c.b2),
            gap: gamma(c.aarr * c.arar, c.barr),
            weights,
            natural_load: 0.0,
        };
        let short = gamma_moments(c.a1, c.b1, MAX_LOG_RUNTIME);
        let long = gamma_moments(c.a2, c.b2, MAX_LOG_RUNTIME);
        let area: f64 = model
            .size_distribution()
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let n = (i + 1) as f64;
                let q = model.short_probability(i as u32 + 1);
                let runtime = (q * short.exp_integral + (1.0 - q) * long.exp_integral)
                    / (q * short.mass + (1.0 - q) * long.mass);
                p * n * runtime
            })
            .sum();
        let gap = gamma_moments(c.aarr * c.arar, c.barr, MAX_LOG_GAP);
        model.natural_load = area / (procs as f64 * gap.exp_integral / gap.mass);
        model
    }

    /// Probability of the first (short) Gamma for a job of `size` processors.
    fn short_probability(&self, size: u32) -> f64 {
        (self.pa * size as f64 + self.pb).clamp(0.0, 1.0)
    }

    /// P(size = n) for n = 1..=procs, exactly, from the two-stage uniform's CDF.
    fn size_distribution(&self) -> Vec<f64> {
        let cdf = |x: f64| {
            let stage = |a: f64, b: f64| {
                if b > a {
                    ((x - a) / (b - a)).clamp(0.0, 1.0)
                } else {
                    f64::from(x >= a)
                }
            };
            self.uprob * stage(self.low, self.med) + (1.0 - self.uprob) * stage(self.med, self.high)
        };
        let mass = |lo: f64, hi: f64| cdf(hi) - cdf(lo);
        let procs = self.procs as usize;
        let mut p = vec![0.0; procs];
        p[0] += self.serial_prob;
        let other = 1.0 - self.serial_prob - self.pow2_prob;
        for m in 1..=procs {
            // A power-of-two job: x rounded to k gives 2^k.
            if m.is_power_of_two() {
                let k = m.trailing_zeros() as f64;
                p[m - 1] += self.pow2_prob * mass(k - 0.5, k + 0.5);
            }
            // Any other parallel job: round(2^x) = m; sizes past procs are cut to procs.
            let lo = (m as f64 - 0.5).log2();
            let hi = if m == procs {
                f64::INFINITY
            } else {
                (m as f64 + 0.5).log2()
            };
            p[m - 1] += other * mass(lo, hi);
        }
        // Power-of-two sizes past procs are cut to procs too.
        let beyond = (procs as f64).log2().floor() + 0.5;
        p[procs - 1] += self.pow2_prob * mass(beyond, f64::INFINITY);
        p
    }
}

/// Of a Gamma(shape, scale) variable X below `cap`: `mass = P(X <= cap)` and
/// `exp_integral = E[e^X; X <= cap]`, by the midpoint rule on 10,000 steps (relative error
/// below 1e-6 for the published parameters; tests check two against closed forms).
#[derive(Clone, Copy, Debug)]
struct GammaMoments {
    mass: f64,
    exp_integral: f64,
}

fn gamma_moments(shape: f64, scale: f64, cap: f64) -> GammaMoments {
    const STEPS: usize = 10_000;
    let h = cap / STEPS as f64;
    let norm = statrs::function::gamma::ln_gamma(shape) + shape * scale.ln();
    let (mut mass, mut exp_integral) = (0.0, 0.0);
    for i in 0..STEPS {
        let x = (i as f64 + 0.5) * h;
        let log_pdf = (shape - 1.0) * x.ln() - x / scale - norm;
        mass += log_pdf.exp();
        exp_integral += (log_pdf + x).exp();
    }
    GammaMoments {
        mass: (mass * h).min(1.0),
        exp_integral: exp_integral * h,
    }
}

/// A class's arrival process and draws.
struct ClassState {
    model: ClassModel,
    rng: ModelRng,
    /// Arrival time of the class's next job (seconds).
    time: f64,
    bucket: usize,
    points: f64,
    /// Fraction of the current bucket already used, in the generator's bookkeeping.
    remainder: f64,
}

impl ClassState {
    fn new(model: ClassModel, seed: u64) -> Self {
        ClassState {
            model,
            rng: ModelRng::seed_from_u64(seed),
            time: 0.0,
            bucket: 0,
            points: 0.0,
            remainder: 0.0,
        }
    }

    /// Moves `time` to the class's next arrival, every gap multiplied by `stretch`.
    fn advance(&mut self, stretch: f64) {
        let g = loop {
            let g = self.model.gap.sample(&mut self.rng);
            if g <= MAX_LOG_GAP {
                break g;
            }
        };
        self.points += g.exp() * stretch / BUCKET_SECONDS;
        let w = &self.model.weights;
        let mut elapsed = 0.0;
        while self.points > w[self.bucket] {
            self.points -= w[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            elapsed += BUCKET_SECONDS;
        }
        let remainder = self.points / w[self.bucket];
        elapsed += BUCKET_SECONDS * (remainder - self.remainder);
        self.remainder = remainder;
        self.time += elapsed;
    }

    fn size(&mut self) -> u32 {
        let m = &self.model;
        let u = unit(&mut self.rng);
        if u <= m.serial_prob {
            return 1;
        }
        let (a, b) = if unit(&mut self.rng) <= m.uprob {
            (m.low, m.med)
        } else {
            (m.med, m.high)
        };
        let mut x = a + (b - a) * unit(&mut self.rng);
        if u <= m.serial_prob + m.pow2_prob {
            x = x.round();
        }
        (x.exp2().round() as u32).clamp(1, m.procs)
    }

    fn runtime(&mut self, size: u32) -> i64 {
        let p = self.model.short_probability(size);
        loop {
            let gamma = if unit(&mut self.rng) <= p {
                &self.model.short
            } else {
                &self.model.long
            };
            let h = gamma.sample(&mut self.rng);
            if h <= MAX_LOG_RUNTIME {
                return (h.exp().floor() as i64).max(1);
            }
        }
    }
}

impl ModelEntry for LublinParams {
    const NAME: &'static str = "lublin";
    const KEYS: &'static [&'static str] = &LUBLIN_KEYS;

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "procs" => self.procs = parse_param(key, value)?,
            "sizes" => {
                self.sizes = match value {
                    "original" => SizeRule::Original,
                    "log2" => SizeRule::Log2,
                    _ => {
                        return Err(Error::Param {
                            key: key.into(),
                            value: value.into(),
                            message: format!("allowed: {}", SizeRule::NAMES.join(", ")),
                        });
                    }
                }
            }
            "load" => self.load = Some(parse_param(key, value)?),
            "jobs" => self.jobs = parse_param(key, value)?,
            "job_types" => self.job_types = parse_param(key, value)?,
            "estimates" => {
                let max = self.estimates.max_estimate();
                self.estimates = EstimateModel::parse(value)?;
                self.estimates.set_max_estimate(max);
            }
            "max_estimate" => {
                let max: i64 = parse_param(key, value)?;
                if !self.estimates.set_max_estimate(Some(max)) {
                    return Err(Error::Param {
                        key: key.into(),
                        value: value.into(),
                        message: "applies with estimates = tsafrir".into(),
                    });
                }
            }
            _ => {
                let class = key.split_once('_').and_then(|(prefix, field)| {
                    let class = match prefix {
                        "batch" => &mut self.batch,
                        "interactive" => &mut self.interactive,
                        "all" => &mut self.all,
                        _ => return None,
                    };
                    Some((class, field))
                });
                let known = match class {
                    Some((class, field)) => class.set(field, key, value)?,
                    None => false,
                };
                if !known {
                    return Err(unknown_key("lublin", key, value, &LUBLIN_KEYS));
                }
            }
        }
        Ok(())
    }

    fn validate(&self) -> Result<()> {
        check_procs(self.procs)?;
        if self.jobs == 0 {
            return Err(Error::Param {
                key: "jobs".into(),
                value: "0".into(),
                message: "must be at least 1".into(),
            });
        }
        if let Some(load) = self.load {
            check_load("load", load)?;
        }
        self.estimates.validate("max_estimate")?;
        for (name, class) in self.classes() {
            class.validate(name, self.procs)?;
        }
        Ok(())
    }

    /// Generates the workload. Each class draws from its own stream (arrivals, then size
    /// and runtime of the job that arrived), so a seed always gives the same jobs; the
    /// estimates draw from a third, so they never change the jobs.
    fn generate(&self, seed: u64) -> Workload {
        let models: Vec<ClassModel> = self
            .classes()
            .iter()
            .map(|(_, c)| ClassModel::prepared(c, self.procs))
            .collect();
        // One factor on every gap reaches the target load; queue numbers are the
        // generator's type field (0 interactive, 1 batch; 0 for one class).
        let natural: f64 = models.iter().map(|m| m.natural_load).sum();
        let stretch = self.load.map_or(1.0, |l| natural / l);
        let mut classes: Vec<ClassState> = models
            .into_iter()
            .enumerate()
            .map(|(i, m)| ClassState::new(m, mix64(seed ^ (i as u64 + 1))))
            .collect();
        let queue_of = |class: usize| if self.job_types && class == 0 { 1 } else { 0 };
        for c in &mut classes {
            c.advance(stretch);
        }
        let mut jobs = Jobs::with_capacity(self.jobs);
        for id in 1..=self.jobs as u64 {
            // Ties go to the interactive class, as in the generator.
            let class = if classes.len() == 2 && classes[0].time < classes[1].time {
                0
            } else {
                classes.len() - 1
            };
            let c = &mut classes[class];
            let submit = c.time.floor() as i64;
            c.advance(stretch);
            let size = c.size();
            let runtime = c.runtime(size);
            let mut record = JobRecord::new(id, submit, runtime, size, runtime);
            record.requested_procs = size as i32;
            record.status = 1;
            record.queue = queue_of(class);
            jobs.push(&record);
        }
        let mut comments = vec![format!(
            "Note: synthetic workload {} seed {seed}",
            self.describe()
        )];
        if let EstimateModel::Tsafrir(model) = &self.estimates {
            model.apply(&mut jobs, &mut comments, seed);
        }
        Workload::synthetic(self.describe(), jobs, self.procs, comments)
    }

    fn load_target(&self) -> Option<f64> {
        self.load
    }

    fn expected_jobs(&self) -> u64 {
        self.jobs as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_moments_match_closed_forms() {
        // Gamma(1, 1) is Exp(1): P(X <= 12) = 1 - e^-12; E[e^X; X <= 12] diverges
        // linearly: the integral of e^x e^-x over [0, 12] is 12.
        let m = gamma_moments(1.0, 1.0, 12.0);
        assert!((m.mass - (1.0 - (-12f64).exp())).abs() < 1e-6, "{m:?}");
        assert!((m.exp_integral - 12.0).abs() < 1e-6, "{m:?}");
        // Gamma(3, 0.5): e^x times the density is 4 x^2 e^-x, whose integral over [0, 12]
        // is 8 - 4 e^-12 (144 + 24 + 2).
        let m = gamma_moments(3.0, 0.5, 12.0);
        let exact = 8.0 - 680.0 * (-12f64).exp();
        assert!((m.exp_integral - exact).abs() < 1e-6, "{m:?} against {exact}");
    }

    #[test]
    fn size_distribution_sums_to_one_and_matches_draws() {
        for job_types in [true, false] {
            let p = LublinParams {
                job_types,
                ..LublinParams::default()
            };
            for (_, class) in p.classes() {
                let model = ClassModel::new(&class, p.procs);
                let dist = model.size_distribution();
                assert!((dist.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                let mut state = ClassState::new(model, 5);
                let n = 200_000;
                let mut counts = vec![0usize; 128];
                for _ in 0..n {
                    counts[state.size() as usize - 1] += 1;
                }
                for (size, (&c, &q)) in counts.iter().zip(&dist).enumerate() {
                    let sd = (q * (1.0 - q) / n as f64).sqrt();
                    assert!(
                        (c as f64 / n as f64 - q).abs() < 5.0 * sd + 1e-4,
                        "size {}: {c} of {n} against {q}",
                        size + 1
                    );
                }
            }
        }
    }

    #[test]
    fn same_seed_same_jobs_and_load_scales_only_the_arrivals() {
        let p = LublinParams::default();
        let a = p.generate(3);
        assert_eq!(a.jobs.len(), 10_000);
        assert!(a.jobs.submit == p.generate(3).jobs.submit);
        assert!(a.jobs.submit != p.generate(4).jobs.submit);
        assert!(a.jobs.submit.windows(2).all(|w| w[0] <= w[1]));
        let half = LublinParams {
            load: Some(p.natural_load() / 2.0),
            ..p.clone()
        }
        .generate(3);
        // Each class keeps its jobs; only how the two classes interleave may change, and
        // with it how many of each class the first 10,000 jobs hold.
        for queue in [0, 1] {
            let of = |w: &Workload| -> Vec<(i64, u32)> {
                (0..w.jobs.len())
                    .filter(|&j| w.jobs.queue[j] == queue)
                    .map(|j| (w.jobs.runtime[j], w.jobs.procs[j]))
                    .collect()
            };
            let (a, half) = (of(&a), of(&half));
            let common = a.len().min(half.len());
            assert!(common > 1000 && a[..common] == half[..common], "queue {queue}");
        }
        // Twice the gaps: about twice the span (exactly so only in the long run, as the
        // daily cycle bends the mapping of points to seconds).
        let span = |w: &Workload| (w.jobs.submit[w.jobs.len() - 1] - w.jobs.submit[0]) as f64;
        assert!(
            (span(&half) / span(&a) - 2.0).abs() < 0.05,
            "{}",
            span(&half) / span(&a)
        );
    }

    #[test]
    fn offered_load_of_a_long_sample_is_the_computed_one() {
        for (procs, job_types) in [(128, true), (256, false)] {
            let p = LublinParams {
                procs,
                job_types,
                jobs: 200_000,
                load: Some(0.7),
                ..LublinParams::default()
            };
            let w = p.generate(11);
            let area: f64 = (0..w.jobs.len())
                .map(|j| w.jobs.runtime[j] as f64 * w.jobs.procs[j] as f64)
                .sum();
            let span = (w.jobs.submit[w.jobs.len() - 1] - w.jobs.submit[0]) as f64;
            let offered = area / (procs as f64 * span);
            assert!((offered - 0.7).abs() < 0.03, "procs {procs}: offered {offered}");
        }
    }

    #[test]
    fn small_machines_get_valid_defaults() {
        for procs in [1, 2, 3, 4, 8, 15, 16] {
            let p = LublinParams {
                procs,
                jobs: 2000,
                load: Some(0.5),
                ..LublinParams::default()
            };
            p.validate().unwrap_or_else(|e| panic!("procs {procs}: {e}"));
            let w = p.generate(1);
            assert!(
                w.jobs.procs.iter().all(|&n| (1..=procs).contains(&n)),
                "procs {procs}"
            );
        }
        // The compiled-in sizes at 128 processors, shifted elsewhere; small machines keep
        // 0 <= ulow <= umed <= uhi <= log2(procs).
        let sizes = |c: &ClassParams, procs| (c.ulow(procs), c.umed(procs), c.uhi(procs));
        let (batch, interactive) = (ClassParams::batch(), ClassParams::interactive());
        assert_eq!(sizes(&batch, 128), (1.2, 5.0, 7.0));
        assert_eq!(sizes(&interactive, 128), (1.0, 3.0, 5.5));
        assert_eq!(sizes(&ClassParams::all(), 128), (0.8, 4.5, 7.0));
        assert_eq!(sizes(&batch, 256), (1.2, 6.0, 8.0));
        assert_eq!(sizes(&interactive, 256), (1.0, 4.0, 6.5));
        assert_eq!(sizes(&batch, 64), (1.2, 4.0, 6.0));
        assert_eq!(sizes(&batch, 4), (1.2, 1.2, 2.0));
        assert_eq!(sizes(&interactive, 4), (0.5, 0.5, 0.5));
        assert_eq!(sizes(&interactive, 2), (0.0, 0.0, 0.0));
        assert_eq!(sizes(&batch, 1), (0.0, 0.0, 0.0));
        // The log2 rule: every class up to the whole machine, umed 2.5 below.
        let log2 = SizeRule::Log2.apply(&interactive);
        assert_eq!(sizes(&log2, 128), (1.0, 4.5, 7.0));
        assert_eq!(sizes(&SizeRule::Log2.apply(&batch), 64), (1.2, 3.5, 6.0));
        assert_eq!(sizes(&log2, 100), (1.0, 100f64.log2() - 2.5, 100f64.log2()));
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let mut p = LublinParams::default();
        let e = p.set("batch_a9", "1").unwrap_err().to_string();
        assert!(e.contains("batch_a9") && e.contains("batch_a1"), "{e}");
        let e = p.set("interactive_uprob", "x").unwrap_err().to_string();
        assert!(e.contains("interactive_uprob=x"), "{e}");
        p.set("batch_serial_prob", "0.9").unwrap();
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("batch_pow2_prob"), "{e}");
        let mut p = LublinParams::default();
        p.set("interactive_umed", "9").unwrap();
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("interactive_umed") && e.contains("uhi (5.5)"), "{e}");
        let e = LublinParams::default()
            .set("sizes", "log")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sizes=log") && e.contains("original, log2"), "{e}");
        let e = LublinParams::default()
            .set("max_estimate", "3600")
            .unwrap_err()
            .to_string();
        assert!(e.contains("estimates = tsafrir"), "{e}");
    }
}
