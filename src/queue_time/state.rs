//! A machine state as `schedlab predict` reads it (JSON), and the table of predictions it
//! prints.
//!
//! ```json
//! {"total": 128, "free": 12,
//!  "running": [{"age": 1200, "size": 32}, {"age": 45, "size": 64}],
//!  "distribution": {"t_min": 7.389, "t_max": 162754.8},
//!  "request": 64}
//! ```
//!
//! `distribution` may instead give `{"beta0": -0.2, "beta1": 0.1}` (equation 4), or be left
//! out for Downey's e^2 to e^12 s; `request` is a processor count or `"all"` (1 to total).

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{RunningAges, UniformLog};
use crate::error::{Error, FieldError, Result};

#[derive(Clone, Debug)]
pub struct MachineState {
    pub total: u32,
    pub free: u32,
    pub running: Vec<AgedJob>,
    pub distribution: Option<Distribution>,
    pub request: Request,
}

#[derive(Clone, Copy, Debug)]
pub struct AgedJob {
    pub age: f64,
    pub size: u32,
}

#[derive(Clone, Copy, Debug)]
pub enum Distribution {
    Bounds { t_min: f64, t_max: f64 },
    Betas { beta0: f64, beta1: f64 },
}

/// The sizes to predict for: one, or every size from 1 to the machine's.
#[derive(Clone, Copy, Debug)]
pub enum Request {
    Size(u32),
    All,
}

/// One row of `schedlab predict`: seconds, `None` where a predictor has no answer (A
/// without benefactors) or the request can never be met (JSON null).
#[derive(Clone, Debug, Serialize)]
pub struct PredictionRow {
    pub n: u32,
    pub needed: u32,
    pub benefactors: usize,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub combined: Option<f64>,
    pub exact: Option<f64>,
}

/// The largest machine and running set `schedlab predict` answers for.
pub const MAX_TOTAL: u32 = 65_536;
pub const MAX_RUNNING: usize = 4_096;
/// With `"request": "all"`, the most rows times running jobs (about a second here).
pub const MAX_ALL_WORK: usize = 250_000;

impl MachineState {
    /// Reads and checks a state file; errors name the file and the field at fault.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let bad = |message: String| Error::Workload {
            path: path.to_path_buf(),
            message,
        };
        let json: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        let state = MachineState::from_json(&json).map_err(|e| bad(e.to_string()))?;
        state.check().map_err(|e| bad(e.to_string()))?;
        Ok(state)
    }

    /// The state a JSON object describes (the module's format), each field read in the
    /// user's words: a refusal names the field and what it takes.
    fn from_json(json: &Value) -> std::result::Result<Self, FieldError> {
        let object = json.as_object().ok_or_else(|| {
            FieldError::new(
                "the state",
                "expected a JSON object: {\"total\": ..., \"free\": ..., ...}",
            )
        })?;
        only(
            object,
            "",
            &["total", "free", "running", "distribution", "request"],
        )?;
        let field = |key: &str| object.get(key).ok_or_else(|| FieldError::new(key, "missing"));
        let running = field("running")?
            .as_array()
            .ok_or_else(|| {
                FieldError::new(
                    "running",
                    "expected a list of {\"age\": seconds, \"size\": processors}",
                )
            })?
            .iter()
            .enumerate()
            .map(|(i, job)| {
                let at = format!("running[{i}]");
                let job = job.as_object().ok_or_else(|| {
                    FieldError::new(&at, "expected {\"age\": seconds, \"size\": processors}")
                })?;
                only(job, &format!("{at}."), &["age", "size"])?;
                let get = |k: &str| {
                    job.get(k)
                        .ok_or_else(|| FieldError::new(format!("{at}.{k}"), "missing"))
                };
                Ok(AgedJob {
                    age: number(get("age")?, &format!("{at}.age"))?,
                    size: whole(get("size")?, &format!("{at}.size"))?,
                })
            })
            .collect::<std::result::Result<Vec<_>, FieldError>>()?;
        let distribution = match object.get("distribution") {
            None | Some(Value::Null) => None,
            Some(Value::Object(d)) => {
                only(d, "distribution.", &["t_min", "t_max", "beta0", "beta1"])?;
                let get = |k: &str| {
                    d.get(k)
                        .map(|v| number(v, &format!("distribution.{k}")))
                        .transpose()
                };
                match (get("t_min")?, get("t_max")?, get("beta0")?, get("beta1")?) {
                    (Some(t_min), Some(t_max), None, None) => Some(Distribution::Bounds { t_min, t_max }),
                    (None, None, Some(beta0), Some(beta1)) => Some(Distribution::Betas { beta0, beta1 }),
                    _ => {
                        return Err(FieldError::new(
                            "distribution",
                            "give t_min and t_max, or beta0 and beta1",
                        ));
                    }
                }
            }
            Some(other) => {
                return Err(FieldError::new(
                    "distribution",
                    format!("{other} is not an object with t_min and t_max, or beta0 and beta1"),
                ));
            }
        };
        let request = match field("request")? {
            Value::String(s) if s == "all" => Request::All,
            v => Request::Size(whole(v, "request").map_err(|_| {
                FieldError::new("request", format!("{v} is not a processor count or \"all\""))
            })?),
        };
        Ok(MachineState {
            total: whole(field("total")?, "total")?,
            free: whole(field("free")?, "free")?,
            running,
            distribution,
            request,
        })
    }

    fn check(&self) -> std::result::Result<(), FieldError> {
        // The exact median's dynamic programme is quadratic in the running jobs, and
        // `"request": "all"` asks for a row per size: both bounded so an answer comes soon.
        if self.total > MAX_TOTAL {
            return Err(FieldError::new(
                "total",
                format!(
                    "{} processors; predictions are offered for machines of up to {MAX_TOTAL}",
                    self.total
                ),
            ));
        }
        if self.running.len() > MAX_RUNNING {
            return Err(FieldError::new(
                "running",
                format!(
                    "{} jobs; predictions are offered for up to {MAX_RUNNING} running jobs",
                    self.running.len()
                ),
            ));
        }
        let work = self.total as usize * self.running.len();
        if matches!(self.request, Request::All) && work > MAX_ALL_WORK {
            return Err(FieldError::new(
                "request",
                format!(
                    "\"all\" asks for {} rows over {} running jobs; the product may be at most \
                     {MAX_ALL_WORK} (a few seconds): ask for one size",
                    self.total,
                    self.running.len()
                ),
            ));
        }
        for (i, job) in self.running.iter().enumerate() {
            if !(job.age.is_finite() && job.age >= 0.0) {
                return Err(FieldError::new(
                    format!("running[{i}].age"),
                    format!("{} is not a time >= 0", job.age),
                ));
            }
            if job.size == 0 {
                return Err(FieldError::new(
                    format!("running[{i}].size"),
                    "must be at least 1",
                ));
            }
        }
        let held: u64 = self.running.iter().map(|j| j.size as u64).sum();
        if self.free as u64 + held > self.total as u64 {
            return Err(FieldError::new(
                "free",
                format!(
                    "{} plus the running jobs' sizes ({held}) exceed total ({})",
                    self.free, self.total
                ),
            ));
        }
        if let Request::Size(n) = self.request
            && !(1..=self.total).contains(&n)
        {
            return Err(FieldError::new(
                "request",
                format!("{n} is not between 1 and total ({})", self.total),
            ));
        }
        match self.distribution {
            Some(Distribution::Bounds { t_min, t_max }) if !(0.0 < t_min && t_min < t_max) => {
                Err(FieldError::new(
                    "distribution",
                    format!("need 0 < t_min < t_max, got {t_min} and {t_max}"),
                ))
            }
            Some(Distribution::Betas { beta1, .. }) if !(beta1 > 0.0 && beta1.is_finite()) => Err(
                FieldError::new("distribution.beta1", format!("{beta1} is not positive")),
            ),
            _ => Ok(()),
        }
    }

    pub fn distribution(&self) -> UniformLog {
        match self.distribution {
            None => UniformLog::downey_model(),
            Some(Distribution::Bounds { t_min, t_max }) => UniformLog::new(t_min, t_max),
            Some(Distribution::Betas { beta0, beta1 }) => UniformLog::from_betas(beta0, beta1),
        }
    }

    /// Every predictor for each requested size.
    pub fn predict(&self) -> Vec<PredictionRow> {
        let ages: Vec<f64> = self.running.iter().map(|j| j.age).collect();
        let sizes: Vec<u32> = self.running.iter().map(|j| j.size).collect();
        let mut set = RunningAges::default();
        set.load(self.distribution(), self.free, &ages, &sizes);
        let sizes = match self.request {
            Request::Size(n) => n..=n,
            Request::All => 1..=self.total,
        };
        let finite = |x: f64| x.is_finite().then_some(x);
        sizes
            .map(|n| {
                let p = set.predict(n);
                PredictionRow {
                    n,
                    needed: p.needed,
                    benefactors: p.benefactors,
                    a: p.a,
                    b: finite(p.b),
                    combined: finite(p.combined),
                    exact: finite(set.exact(n)),
                }
            })
            .collect()
    }
}

/// Prediction rows as the table `schedlab predict` prints.
pub fn write_prediction_table(out: &mut dyn std::io::Write, rows: &[PredictionRow]) -> std::io::Result<()> {
    let seconds = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
    writeln!(
        out,
        "{:>6} {:>6} {:>11} {:>12} {:>12} {:>12} {:>12}",
        "n", "needed", "benefactors", "A", "B", "combined", "exact"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:>6} {:>6} {:>11} {:>12} {:>12} {:>12} {:>12}",
            r.n,
            r.needed,
            r.benefactors,
            seconds(r.a),
            seconds(r.b),
            seconds(r.combined),
            seconds(r.exact)
        )?;
    }
    writeln!(out, "queue times in seconds; '-': no benefactor (A) or never met")
}

/// Refuses a key of `object` outside `keys`, naming it (after `prefix`) and those allowed.
fn only(object: &Map<String, Value>, prefix: &str, keys: &[&str]) -> std::result::Result<(), FieldError> {
    match object.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(FieldError::new(
            format!("{prefix}{k}"),
            format!("unknown; allowed: {}", keys.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A whole number from 0 to 2^32 - 1.
fn whole(v: &Value, key: &str) -> std::result::Result<u32, FieldError> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| FieldError::new(key, format!("{v} is not a whole number from 0 to {}", u32::MAX)))
}

/// A finite number.
fn number(v: &Value, key: &str) -> std::result::Result<f64, FieldError> {
    v.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| FieldError::new(key, format!("{v} is not a number")))
}
