//! Batsim's workload JSON read as a trace, so that a Batsim user's workloads run here as
//! they are.
//!
//! A Batsim workload holds `nb_res` (the machine's resources), `jobs` (each with `id`,
//! `subtime`, `res`, `profile` and an optional `walltime`) and `profiles`. Only `delay`
//! profiles carry a runtime without a platform (their `delay`, seconds); a job of any other
//! profile type is refused, naming it, since its runtime depends on the SimGrid platform
//! Batsim would simulate.
//!
//! Mapping (docs/semantics.md, "Batsim's formats"): the job number is the `id` if it is a
//! whole number (or a string ending in one, as Batsim's `workload!42`), else the job's
//! position in the file from 1; submit = `subtime`, runtime = the profile's `delay` and
//! estimate = `walltime` (a job runs at most its walltime, as Batsim kills it there; with
//! no walltime, or one of 0 or less such as Batsim's -1, the estimate is the runtime, as
//! SWF's rule for an unknown field 9).
//! Times are rounded to whole seconds, the walltime up so that rounding never kills a job.
//! Skip rules are the SWF reader's: `res` <= 0, a negative delay or subtime, more
//! resources than the machine (`nb_res`, or `procs` when given), each counted. A job's
//! `gpus` (not Batsim's: schedlab writes it for a trace whose jobs request GPUs, and
//! Batsim passes over fields it does not know) is the GPUs it requests (-1 or 0: none).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::swf::{SwfHeader, SwfOptions};
use super::{Columns, JobRecord, Jobs, MAX_GPUS, MAX_PROCS, MAX_TIME, SkipCounts, Workload, narrow};
use crate::Time;
use crate::error::{Error, FieldError, Result};

/// The largest Batsim file read: 1 GiB of JSON, tens of millions of jobs.
const MAX_BYTES: u64 = 1 << 30;

#[derive(Deserialize)]
struct File<'a> {
    nb_res: u64,
    #[serde(borrow)]
    jobs: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    profiles: HashMap<String, &'a RawValue>,
}

#[derive(Deserialize)]
struct Job {
    id: Id,
    subtime: f64,
    #[serde(default)]
    walltime: Option<f64>,
    res: i64,
    profile: String,
    #[serde(default)]
    gpus: Option<i64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Id {
    Number(u64),
    Text(String),
}

#[derive(Deserialize)]
struct Profile {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    delay: Option<f64>,
}

/// Whether `start` (the file's first bytes, inflated) opens a JSON object rather than SWF.
pub fn looks_like_json(start: &[u8]) -> bool {
    let start = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    start.trim_ascii_start().first() == Some(&b'{')
}

/// Reads a Batsim workload (plain or gzip) as a trace; errors name the file, the line
/// and the field.
pub fn read_batsim(path: &Path, options: &SwfOptions) -> Result<Workload> {
    options.check_selection()?;
    let mut text = String::new();
    super::open_text(path)?
        .take(MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    if text.len() as u64 > MAX_BYTES {
        return Err(workload_error(
            path,
            format!("more than {MAX_BYTES} bytes of JSON"),
        ));
    }
    parse(path, &text, options)
}

fn workload_error(path: &Path, message: String) -> Error {
    Error::Workload {
        path: path.to_path_buf(),
        message,
    }
}

/// Where each line of a text starts, to name the line a part of it starts on.
struct Lines<'t> {
    text: &'t str,
    /// The offset of every line break.
    breaks: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn of(text: &'t str) -> Self {
        Lines {
            text,
            breaks: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        }
    }

    /// The line (from 1) on which `part`, a slice of the text, starts.
    fn of_part(&self, part: &str) -> usize {
        let offset = part.as_ptr() as usize - self.text.as_ptr() as usize;
        1 + self.breaks.partition_point(|&b| b < offset)
    }
}

/// The machine's size: `--procs`, else the file's `nb_res`.
fn machine_size(path: &Path, options: &SwfOptions, nb_res: u64) -> Result<u32> {
    match options.procs {
        Some(p) if (1..=MAX_PROCS).contains(&p) => Ok(p),
        Some(p) => Err(workload_error(
            path,
            format!("--procs {p}: must be from 1 to {MAX_PROCS}"),
        )),
        None if (1..=MAX_PROCS as u64).contains(&nb_res) => Ok(nb_res as u32),
        None => Err(workload_error(
            path,
            format!("nb_res {nb_res}: must be from 1 to {MAX_PROCS}"),
        )),
    }
}

/// Each profile's delay, or why it has none; a profile is read when a job first names it.
struct Delays<'f> {
    profiles: &'f HashMap<String, &'f RawValue>,
    read: HashMap<&'f str, std::result::Result<f64, FieldError>>,
}

impl<'f> Delays<'f> {
    fn new(profiles: &'f HashMap<String, &'f RawValue>) -> Self {
        Delays {
            profiles,
            read: HashMap::new(),
        }
    }

    /// The delay of profile `name`; errors name the file and the profile's line.
    fn of(&mut self, name: &str, path: &Path, lines: &Lines) -> Result<f64> {
        let Some((key, raw)) = self.profiles.get_key_value(name) else {
            return Err(workload_error(
                path,
                format!("profile '{name}' is not in \"profiles\""),
            ));
        };
        let delay = self.read.entry(key.as_str()).or_insert_with(|| {
            let field = format!("profile '{key}'");
            let profile: Profile =
                serde_json::from_str(raw.get()).map_err(|e| FieldError::new(&field, e.to_string()))?;
            match (profile.kind.as_str(), profile.delay) {
                ("delay", Some(d)) => Ok(d),
                ("delay", None) => Err(FieldError::new(field, "a delay profile without \"delay\"")),
                (kind, _) => Err(FieldError::new(
                    field,
                    format!(
                        "of type '{kind}': only 'delay' profiles give a runtime without Batsim's platform"
                    ),
                )),
            }
        });
        delay.clone().map_err(|e| Error::Swf {
            path: path.to_path_buf(),
            line: lines.of_part(raw.get()),
            message: e.to_string(),
        })
    }
}

fn parse(path: &Path, text: &str, options: &SwfOptions) -> Result<Workload> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, message: String| Error::Swf {
        path: path.to_path_buf(),
        line,
        message,
    };
    let lines = Lines::of(text);
    let file: File =
        serde_json::from_str(text).map_err(|e| at(e.line(), format!("not a Batsim workload: {e}")))?;
    let procs = machine_size(path, options, file.nb_res)?;
    let mut delays = Delays::new(&file.profiles);
    let seconds = |value: f64, field: &str, line: usize, up: bool| -> Result<Time> {
        let rounded = if up { value.ceil() } else { value.round() };
        if rounded.abs() > MAX_TIME as f64 {
            return Err(at(
                line,
                format!("{field} {value:e} s: beyond the longest time schedlab accepts, 2^40 s ({MAX_TIME})"),
            ));
        }
        Ok(rounded as Time)
    };
    let mut jobs = Jobs::default();
    if options.columns == Columns::Every {
        jobs.reserve(file.jobs.len());
    }
    let mut skipped = SkipCounts::default();
    let mut not_selected = 0;
    let mut gpus = Vec::new();
    for (position, raw) in file.jobs.iter().enumerate() {
        let line = lines.of_part(raw.get());
        let job: Job = serde_json::from_str(raw.get())
            .map_err(|e| at(line + e.line() - 1, format!("jobs[{position}]: {e}")))?;
        let number = match &job.id {
            Id::Number(n) => Some(*n),
            Id::Text(s) => s.rsplit('!').next().and_then(|n| n.parse().ok()),
        }
        .unwrap_or(position as u64 + 1);
        if number > i64::MAX as u64 {
            return Err(at(
                line,
                format!("jobs[{position}]: id {number} is beyond the job numbers schedlab keeps (2^63 - 1)"),
            ));
        }
        if !options.selection.contains(number) {
            not_selected += 1;
            continue;
        }
        let delay = delays.of(&job.profile, path, &lines)?;
        let submit = seconds(job.subtime, "subtime", line, false)?;
        let runtime = seconds(delay, "delay", line, false)?;
        let walltime = match job.walltime {
            Some(w) if w > 0.0 => Some(seconds(w, "walltime", line, true)?),
            _ => None,
        };
        if job.res <= 0 {
            skipped.procs_not_positive += 1;
        } else if runtime < 0 {
            skipped.runtime_negative += 1;
        } else if submit < 0 {
            skipped.submit_negative += 1;
        } else if job.res > procs as i64 {
            skipped.procs_exceed_machine += 1;
        } else {
            let record = JobRecord {
                // What the job asked for, as SWF's fields 8 and 9 hold it.
                requested_procs: narrow(job.res),
                requested_time: walltime.map_or(-1, narrow),
                ..JobRecord::new(
                    number,
                    submit,
                    runtime,
                    job.res as u32,
                    walltime.unwrap_or(runtime),
                )
            };
            let requested = match job.gpus.unwrap_or(0) {
                -1 => 0,
                g if (0..=MAX_GPUS as i64).contains(&g) => g as u32,
                g => {
                    return Err(at(
                        line,
                        format!("jobs[{position}]: gpus {g}: expected a whole number from -1 to {MAX_GPUS}"),
                    ));
                }
            };
            jobs.push_columns(&record, options.columns);
            gpus.push(requested);
            if options.selection.first.is_some_and(|n| jobs.len() >= n) {
                break;
            }
        }
    }
    jobs.gpus = super::gpu_column(gpus);
    jobs.sort_by_submit();
    Ok(Workload {
        name: super::trace_name(path),
        jobs,
        procs,
        header: SwfHeader {
            max_procs: Some(file.nb_res.min(MAX_PROCS as u64) as u32),
            comments: vec![format!(
                "Converted from the Batsim workload {} (nb_res {})",
                path.display(),
                file.nb_res
            )],
            ..SwfHeader::default()
        },
        skipped,
        not_selected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Selection;

    fn read(text: &str, options: &SwfOptions) -> Result<Workload> {
        parse(Path::new("w.json"), text, options)
    }

    const SMALL: &str = r#"{
  "nb_res": 8,
  "jobs": [
    {"id": 1, "subtime": 0, "walltime": 100, "res": 4, "profile": "d60"},
    {"id": "w0!7", "subtime": 10.6, "res": 2, "profile": "d30.4"},
    {"id": "first", "subtime": 5, "walltime": 20.2, "res": 8, "profile": "d60"},
    {"id": 9, "subtime": 7, "res": 9, "profile": "d60"},
    {"id": 10, "subtime": 8, "res": 0, "profile": "d60"}
  ],
  "profiles": {
    "d60": {"type": "delay", "delay": 60},
    "d30.4": {"type": "delay", "delay": 30.4},
    "unused": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}
  }
}"#;

    #[test]
    fn a_small_workload_maps_as_documented() {
        let w = read(SMALL, &SwfOptions::default()).unwrap();
        assert_eq!(w.procs, 8);
        let j = &w.jobs;
        // In submit order: job 1 at 0, job "first" (position 3) at 5, job 7 at 11.
        assert_eq!(j.swf_id, vec![1, 3, 7]);
        assert_eq!(j.submit, vec![0, 5, 11]);
        // "first" is killed at its walltime, rounded up to 21 s.
        assert_eq!(j.runtime, vec![60, 21, 30]);
        assert_eq!(j.estimate, vec![100, 21, 30]);
        assert_eq!(j.procs, vec![4, 8, 2]);
        assert_eq!(w.skipped.procs_exceed_machine, 1);
        assert_eq!(w.skipped.procs_not_positive, 1);
        assert_eq!(w.skipped.total(), 2);
    }

    #[test]
    fn selection_and_procs_apply_as_to_swf() {
        let options = SwfOptions {
            procs: Some(16),
            selection: Selection {
                range: Some("7..=9".parse().unwrap()),
                first: None,
            },
            ..SwfOptions::default()
        };
        let w = read(SMALL, &options).unwrap();
        assert_eq!(w.procs, 16);
        assert_eq!(w.jobs.swf_id, vec![9, 7]);
        assert_eq!(w.not_selected, 3);
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let message = |text: &str| read(text, &SwfOptions::default()).unwrap_err().to_string();
        let missing = "{\"nb_res\": 4,\n\"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"profile\": \"p\"}\n]}";
        let m = message(missing);
        assert!(m.starts_with("w.json:3: jobs[0]: missing field `res`"), "{m}");
        let parallel = "{\"nb_res\": 4, \"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"}],\n\"profiles\": {\n\"p\": {\"type\": \"parallel\", \"cpu\": [1], \"com\": [0]}}}";
        let m = message(parallel);
        assert!(m.starts_with("w.json:3: profile 'p': of type 'parallel'"), "{m}");
        let absent =
            "{\"nb_res\": 4, \"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"q\"}]}";
        assert!(message(absent).contains("profile 'q' is not in \"profiles\""));
        let no_machine = "{\"nb_res\": 0, \"jobs\": []}";
        assert!(message(no_machine).contains("nb_res 0: must be from 1"));
        let not_json = "{\"nb_res\": 4,\n\"jobs\": [,]}";
        assert!(message(not_json).starts_with("w.json:2: not a Batsim workload"));
        let far = "{\"nb_res\": 4, \"jobs\": [{\"id\": 1, \"subtime\": 1e300, \"res\": 1, \"profile\": \"p\"}], \"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 1}}}";
        assert!(message(far).contains("subtime 1e300 s: beyond the longest time"));
    }

    #[test]
    fn json_is_told_from_swf_by_its_first_byte() {
        assert!(looks_like_json(b"\xEF\xBB\xBF  \n{\"nb_res\""));
        assert!(!looks_like_json(b"; MaxProcs: 8\n"));
        assert!(!looks_like_json(b"1 0 -1 100 4"));
    }
}
