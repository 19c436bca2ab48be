//! Two runs side by side (`schedlab compare A B`): their summaries (`run --json`) metric by
//! metric, or their schedules (`run --jobs-out`) job by job.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::metrics::jobs_csv::{JOB_COLUMNS, OPTIONAL_COLUMNS, jobs_csv_header};

/// A metric in both summaries: its name (nested keys joined by '.', e.g. `wait.p50`) and
/// the two values.
#[derive(Clone, Debug, PartialEq)]
pub struct Delta {
    pub metric: String,
    pub a: f64,
    pub b: f64,
}

impl Delta {
    /// B - A relative to A, or NaN when A is 0.
    pub fn relative(&self) -> f64 {
        if self.a == 0.0 {
            f64::NAN
        } else {
            (self.b - self.a) / self.a.abs()
        }
    }
}

/// Two `--json` summaries side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryComparison {
    /// The numeric fields in both, in A's order.
    pub deltas: Vec<Delta>,
    /// Text fields that differ (workload, scheduler, ...): (key, A, B).
    pub labels: Vec<(String, String, String)>,
    /// Fields in one summary only, named as such: listed, not dropped.
    pub unmatched: Vec<String>,
}

/// Compares two `--json` summaries field by field.
pub fn compare_summaries(a: &serde_json::Value, b: &serde_json::Value) -> SummaryComparison {
    let (fa, fb) = (flatten(a), flatten(b));
    let mut deltas = Vec::new();
    let mut labels = Vec::new();
    let mut unmatched = Vec::new();
    for (key, va) in &fa {
        match fb.iter().find(|(k, _)| k == key) {
            Some((_, vb)) => match (va.as_f64(), vb.as_f64()) {
                (Some(x), Some(y)) => deltas.push(Delta {
                    metric: key.clone(),
                    a: x,
                    b: y,
                }),
                _ if va != vb => labels.push((key.clone(), text(va), text(vb))),
                _ => {}
            },
            None => unmatched.push(format!("{key} (only in A)")),
        }
    }
    for (key, _) in &fb {
        if !fa.iter().any(|(k, _)| k == key) {
            unmatched.push(format!("{key} (only in B)"));
        }
    }
    SummaryComparison {
        deltas,
        labels,
        unmatched,
    }
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Leaf values by dotted key, in document order.
fn flatten(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, x, out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(&format!("{prefix}.{i}"), x, out);
                }
            }
            other => out.push((prefix.to_string(), other.clone())),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

/// One job of a `--jobs-out` file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobRow {
    pub job_id: u64,
    pub submit: i64,
    pub start: i64,
    pub wait: i64,
    pub bsld: f64,
    pub procs: u32,
    pub runtime: i64,
}

/// Whether `header` is one that `--jobs-out` writes: the fixed columns, some of the
/// optional ones in their order, then `predictions`.
fn is_jobs_out_header(header: &str) -> bool {
    let mut optional = OPTIONAL_COLUMNS.iter();
    let Some(names) = header.strip_suffix(",predictions") else {
        return false;
    };
    let mut names = names.split(',');
    JOB_COLUMNS.iter().all(|c| names.next() == Some(c.name)) && names.all(|name| optional.any(|o| *o == name))
}

/// Reads a `--jobs-out` file; a bad row is named by file, line and field.
pub fn read_jobs_csv(path: &Path) -> Result<Vec<JobRow>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |line: usize, message: String| Error::Swf {
        path: PathBuf::from(path),
        line,
        message,
    };
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let expected = jobs_csv_header(&[]);
    if !is_jobs_out_header(header) {
        return Err(bad(
            1,
            format!("not a --jobs-out file: expected the header {expected}"),
        ));
    }
    let names: Vec<&str> = expected.split(',').collect();
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < names.len() {
            return Err(bad(n, format!("{} fields, expected {}", f.len(), names.len())));
        }
        let int = |k: usize| -> Result<i64> {
            f[k].parse().map_err(|_| {
                bad(
                    n,
                    format!("field {} ({}) = '{}': not a whole number", k + 1, names[k], f[k]),
                )
            })
        };
        let bsld = f[6]
            .parse::<f64>()
            .ok()
            .filter(|b| b.is_finite())
            .ok_or_else(|| bad(n, format!("field 7 (bsld) = '{}': not a number", f[6])))?;
        let (job_id, procs) = (int(0)?, int(7)?);
        if job_id < 0 || procs < 1 || procs > u32::MAX as i64 {
            return Err(bad(n, format!("job_id {job_id}, procs {procs}: out of range")));
        }
        rows.push(JobRow {
            job_id: job_id as u64,
            submit: int(1)?,
            start: int(2)?,
            wait: int(4)?,
            bsld,
            procs: procs as u32,
            runtime: int(8)?,
        });
    }
    Ok(rows)
}

/// A job in schedule A and in schedule B.
pub type Pair = (JobRow, JobRow);

/// Two schedules of the same jobs, matched by job number.
#[derive(Clone, Debug, PartialEq)]
pub struct JobComparison {
    /// Matched jobs: (A's row, B's row), in A's order.
    pub pairs: Vec<Pair>,
    /// Job numbers in A only, and in B only.
    pub only_a: Vec<u64>,
    pub only_b: Vec<u64>,
}

/// Why two schedules cannot be matched job by job.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unmatched {
    #[error("job {job} appears twice in {which}")]
    Repeated { job: u64, which: &'static str },
    #[error(
        "no job number is in both schedules (A has {a} jobs, B {b}): compare schedules of the same workload"
    )]
    Disjoint { a: usize, b: usize },
}

impl JobComparison {
    /// Matches `a` and `b` by job number; a number repeated within one file is an error,
    /// and so are schedules with no job in common, whose means would be of nothing.
    pub fn of(a: &[JobRow], b: &[JobRow]) -> std::result::Result<Self, Unmatched> {
        let index = |rows: &[JobRow],
                     which: &'static str|
         -> std::result::Result<std::collections::HashMap<u64, usize>, Unmatched> {
            let mut m = std::collections::HashMap::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                if m.insert(r.job_id, i).is_some() {
                    return Err(Unmatched::Repeated { job: r.job_id, which });
                }
            }
            Ok(m)
        };
        let (ia, ib) = (index(a, "A")?, index(b, "B")?);
        let pairs = a
            .iter()
            .filter_map(|r| ib.get(&r.job_id).map(|&j| (*r, b[j])))
            .collect::<Vec<Pair>>();
        if pairs.is_empty() {
            return Err(Unmatched::Disjoint {
                a: a.len(),
                b: b.len(),
            });
        }
        let only_a = a
            .iter()
            .filter(|r| !ib.contains_key(&r.job_id))
            .map(|r| r.job_id)
            .collect();
        let only_b = b
            .iter()
            .filter(|r| !ia.contains_key(&r.job_id))
            .map(|r| r.job_id)
            .collect();
        Ok(JobComparison {
            pairs,
            only_a,
            only_b,
        })
    }

    /// Means over the matched jobs: (wait A, wait B, bsld A, bsld B).
    pub fn means(&self) -> (f64, f64, f64, f64) {
        let n = self.pairs.len().max(1) as f64;
        let sum = |f: &dyn Fn(&Pair) -> f64| self.pairs.iter().map(f).sum::<f64>() / n;
        (
            sum(&|p| p.0.wait as f64),
            sum(&|p| p.1.wait as f64),
            sum(&|p| p.0.bsld),
            sum(&|p| p.1.bsld),
        )
    }

    /// Jobs started earlier in B, later, and at the same time; and the mean |start B - start A|.
    pub fn start_shifts(&self) -> (usize, usize, usize, f64) {
        let (mut earlier, mut later, mut same, mut moved) = (0, 0, 0, 0.0);
        for (a, b) in &self.pairs {
            match b.start.cmp(&a.start) {
                std::cmp::Ordering::Less => earlier += 1,
                std::cmp::Ordering::Greater => later += 1,
                std::cmp::Ordering::Equal => same += 1,
            }
            moved += (b.start - a.start).abs() as f64;
        }
        (earlier, later, same, moved / self.pairs.len().max(1) as f64)
    }

    /// The `k` jobs whose wait fell most from A to B (gained), and the `k` whose wait rose
    /// most (lost), ties by job number.
    pub fn extremes(&self, k: usize) -> (Vec<Pair>, Vec<Pair>) {
        let mut by_change: Vec<&Pair> = self.pairs.iter().collect();
        by_change.sort_by_key(|(a, b)| (b.wait - a.wait, a.job_id));
        let gained = by_change
            .iter()
            .take(k)
            .filter(|(a, b)| b.wait < a.wait)
            .map(|p| **p)
            .collect();
        by_change.sort_by_key(|(a, b)| (std::cmp::Reverse(b.wait - a.wait), a.job_id));
        let lost = by_change
            .iter()
            .take(k)
            .filter(|(a, b)| b.wait > a.wait)
            .map(|p| **p)
            .collect();
        (gained, lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(job_id: u64, start: i64, wait: i64) -> JobRow {
        JobRow {
            job_id,
            submit: start - wait,
            start,
            wait,
            bsld: 1.0 + wait as f64 / 100.0,
            procs: 1,
            runtime: 100,
        }
    }

    #[test]
    fn jobs_are_matched_by_number_and_ranked_by_the_change_of_their_wait() {
        let a = [row(1, 10, 10), row(2, 50, 40), row(3, 100, 0), row(4, 5, 5)];
        let b = [row(2, 20, 10), row(1, 40, 40), row(3, 100, 0), row(5, 0, 0)];
        let c = JobComparison::of(&a, &b).unwrap();
        assert_eq!(c.pairs.len(), 3);
        assert_eq!((c.only_a.clone(), c.only_b.clone()), (vec![4], vec![5]));
        assert_eq!(c.start_shifts(), (1, 1, 1, 20.0));
        let (wa, wb, _, _) = c.means();
        assert!((wa - 50.0 / 3.0).abs() < 1e-12 && (wb - 50.0 / 3.0).abs() < 1e-12);
        let (gained, lost) = c.extremes(5);
        assert_eq!(gained.iter().map(|p| p.0.job_id).collect::<Vec<_>>(), [2]);
        assert_eq!(lost.iter().map(|p| p.0.job_id).collect::<Vec<_>>(), [1]);
        assert!(
            JobComparison::of(&[row(1, 0, 0), row(1, 0, 0)], &b)
                .unwrap_err()
                .to_string()
                .contains("twice in A")
        );
        for (a, b) in [(&[][..], &[][..]), (&[row(1, 0, 0)][..], &[row(2, 0, 0)][..])] {
            let err = JobComparison::of(a, b).unwrap_err().to_string();
            assert!(err.starts_with("no job number is in both schedules"), "{err}");
        }
    }

    #[test]
    fn summaries_compare_leaf_by_leaf() {
        let a = serde_json::json!({"scheduler": "easy", "mean_wait": 100.0, "wait": {"p50": 10}, "x": 1});
        let b = serde_json::json!({"scheduler": "sjbf", "mean_wait": 80.0, "wait": {"p50": 10}, "y": 2});
        let SummaryComparison {
            deltas,
            labels,
            unmatched,
        } = compare_summaries(&a, &b);
        assert_eq!(deltas.len(), 2);
        assert_eq!(deltas[0].metric, "mean_wait");
        assert!((deltas[0].relative() + 0.2).abs() < 1e-12);
        assert_eq!(deltas[1].metric, "wait.p50");
        assert_eq!(
            labels,
            [("scheduler".to_string(), "easy".to_string(), "sjbf".to_string())]
        );
        assert_eq!(unmatched, ["x (only in A)", "y (only in B)"]);
    }
}
