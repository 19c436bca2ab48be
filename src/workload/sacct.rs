//! Slurm accounting read as a trace: the output of
//! `sacct --allusers --parsable2 --format=JobID,User,Partition,Submit,Start,End,Timelimit,NCPUS,NNodes,ReqMem,AllocTRES,State`
//! (any order, more fields allowed), so that a centre's own jobs replay here as an
//! archive log does. docs/semantics.md, "Slurm accounting", states the mapping.
//!
//! The first line names the fields, separated by `|`; JobID, Submit, Start, End and one of
//! NCPUS, AllocCPUS or ReqCPUS are required. Job steps (`123.batch`, `123.0`,
//! `123.extern`) are the job's own parts and are passed over; every other row is a job.
//! Times are Slurm's `YYYY-MM-DDTHH:MM:SS` and are read as UTC (sacct prints the local
//! time of the cluster, without a zone: only differences matter to a simulation), from
//! the first submit on, which the header keeps as `UnixStartTime`.
//!
//! Per job: the job number is its row's position among the jobs, from 1 (array and
//! heterogeneous jobs' ids, `123_4` and `123+0`, are not numbers); submit; runtime End -
//! Start (a job that never started, or had not ended, has none and is skipped as
//! `runtime_negative`: Start `Unknown`, or a CANCELLED job whose Start is its End and whose
//! AllocTRES, where exported, is empty, as Slurm records a job cancelled while waiting); processors NCPUS; estimate Timelimit (`[D-]HH:MM:SS`, `MM:SS` or
//! minutes; `UNLIMITED` and `Partition_Limit` unknown, so the runtime); the recorded wait
//! Start - Submit; users and partitions numbered from 1 in order of first appearance, the
//! partitions' names kept in the header (`Partition: 1 batch`) for a machine file's
//! `swf` lists; memory per processor (SWF field 10, KB) from ReqMem (`c`: per core; `n`
//! or none: per node, over the job's processors per node); GPUs from the row's AllocTRES
//! (else, where that is empty or absent, its ReqTRES) `gres/gpu=N` (or the sum of its
//! typed `gres/gpu:TYPE=N` when no untyped count is given); status 1 for COMPLETED, 5 for CANCELLED, 0 otherwise.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use super::swf::{SwfHeader, SwfOptions};
use super::{JobRecord, Jobs, MAX_GPUS, MAX_PROCS, MAX_TIME, SkipCounts, Workload, narrow};
use crate::error::{Error, FieldError, Result};

/// Whether `start` (a file's first bytes, inflated) opens sacct's parsable output: a
/// header line of `|`-separated names that holds `JobID`.
pub fn looks_like_sacct(start: &[u8]) -> bool {
    let start = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    let first = start.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    first.contains('|') && first.trim_end().split('|').any(|f| f == "JobID")
}

/// The columns read, by position in the header.
struct Columns {
    job_id: usize,
    submit: usize,
    start: usize,
    end: usize,
    cpus: usize,
    nodes: Option<usize>,
    timelimit: Option<usize>,
    user: Option<usize>,
    partition: Option<usize>,
    req_mem: Option<usize>,
    alloc_tres: Option<usize>,
    req_tres: Option<usize>,
    state: Option<usize>,
}

impl Columns {
    fn of(header: &str) -> std::result::Result<Columns, FieldError> {
        let names: Vec<&str> = header.trim_end().split('|').collect();
        let find = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
        let need = |name: &str| find(name).ok_or_else(|| FieldError::new(name, "not in the header"));
        Ok(Columns {
            job_id: need("JobID")?,
            submit: need("Submit")?,
            start: need("Start")?,
            end: need("End")?,
            cpus: find("NCPUS")
                .or_else(|| find("AllocCPUS"))
                .or_else(|| find("ReqCPUS"))
                .ok_or_else(|| FieldError::new("NCPUS (or AllocCPUS, ReqCPUS)", "not in the header"))?,
            nodes: find("NNodes"),
            timelimit: find("Timelimit"),
            user: find("User"),
            partition: find("Partition"),
            req_mem: find("ReqMem"),
            alloc_tres: find("AllocTRES"),
            req_tres: find("ReqTRES"),
            state: find("State"),
        })
    }
}

/// Seconds since 1970 of Slurm's `YYYY-MM-DDTHH:MM:SS`, read as UTC; `None` for
/// `Unknown`, `None` and anything else.
fn timestamp(text: &str) -> Option<i64> {
    let (date, time) = text.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next()??);
    if d.next().is_some() || t.next().is_some() || !(1..=9999).contains(&y) {
        return None;
    }
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    if !(0..24).contains(&hh) || !(0..60).contains(&mm) || !(0..=60).contains(&ss) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), proleptic Gregorian.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Seconds of a Slurm duration: `[D-]HH:MM:SS`, `MM:SS` or whole minutes; `None` for
/// `UNLIMITED`, `Partition_Limit` and the rest.
fn duration(text: &str) -> Option<i64> {
    let (days, clock) = match text.split_once('-') {
        Some((d, rest)) => (d.parse::<i64>().ok()?, rest),
        None => (0, text),
    };
    let parts: Vec<i64> = clock.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    // Each part within the longest time schedlab accepts, so that no product overflows.
    if !(0..=MAX_TIME / 86_400).contains(&days) || parts.iter().any(|&p| !(0..=MAX_TIME / 3600).contains(&p))
    {
        return None;
    }
    let seconds = match (parts.as_slice(), days) {
        ([m], 0) => m * 60,
        ([h], _) => h * 3600,
        ([m, s], 0) => m * 60 + s,
        ([h, m], _) => h * 3600 + m * 60,
        ([h, m, s], _) => h * 3600 + m * 60 + s,
        _ => return None,
    };
    Some(days * 86_400 + seconds)
}

/// KB of memory per processor from ReqMem (`4000M`, `4Gn`, `2Gc`, `512K`).
fn memory_per_processor(text: &str, cpus: i64, nodes: i64) -> Option<i64> {
    let (amount, per_core) = match text.strip_suffix('c') {
        Some(rest) => (rest, true),
        None => (text.strip_suffix('n').unwrap_or(text), false),
    };
    let (digits, unit) = amount.split_at(amount.find(|c: char| !c.is_ascii_digit() && c != '.')?);
    let kb = digits.parse::<f64>().ok()?
        * match unit {
            "K" => 1.0,
            "M" => 1024.0,
            "G" => 1024.0 * 1024.0,
            "T" => 1024.0 * 1024.0 * 1024.0,
            _ => return None,
        };
    let per = if per_core {
        kb
    } else {
        kb * nodes.max(1) as f64 / cpus.max(1) as f64
    };
    Some(per.round() as i64)
}

/// GPUs in a TRES list (`cpu=4,mem=8G,node=1,gres/gpu=2`): the untyped `gres/gpu` count,
/// else the sum of the typed ones (`gres/gpu:v100=2`), else 0; the error says what is
/// wrong with a count.
fn tres_gpus(text: &str) -> std::result::Result<u32, FieldError> {
    let count = |value: &str| {
        value
            .parse::<u64>()
            .map_err(|_| FieldError::new("gres/gpu", format!("count '{value}' is not a whole number")))
    };
    let (mut untyped, mut typed) = (None, 0u64);
    for item in text.split(',').filter(|i| !i.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            continue;
        };
        if key == "gres/gpu" {
            untyped = Some(count(value)?);
        } else if key.starts_with("gres/gpu:") {
            typed = typed.saturating_add(count(value)?);
        }
    }
    let gpus = untyped.unwrap_or(typed);
    u32::try_from(gpus)
        .ok()
        .filter(|&g| g <= MAX_GPUS)
        .ok_or_else(|| {
            FieldError::new(
                "gres/gpu",
                format!("{gpus} GPUs, more than the {MAX_GPUS} a job may request"),
            )
        })
}

/// Reads sacct's parsable output (plain or gzip) as a trace; errors name the file, the
/// line and the field.
pub fn read_sacct(path: &Path, options: &SwfOptions) -> Result<Workload> {
    parse(path, super::open_text(path)?, options)
}

/// A job row as read, before the times are made relative to the first submit.
struct Row {
    line: usize,
    submit: i64,
    start: Option<i64>,
    end: Option<i64>,
    gpus: u32,
    record: JobRecord,
}

fn parse(path: &Path, reader: impl BufRead, options: &SwfOptions) -> Result<Workload> {
    options.check_selection()?;
    let at = |line: usize, message: String| Error::Swf {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut lines = reader.lines().enumerate();
    let header = match lines.next() {
        Some((_, line)) => line.map_err(|e| Error::io(path, e))?,
        None => return Err(at(1, "empty: expected sacct's header line".into())),
    };
    let header = header.strip_prefix('\u{feff}').unwrap_or(&header).to_string();
    let columns = Columns::of(&header).map_err(|e| at(1, e.to_string()))?;
    let width = header.trim_end().split('|').count();
    let mut names = Names::default();
    let mut rows: Vec<Row> = Vec::new();
    let mut skipped = SkipCounts::default();
    let mut not_selected = 0;
    let mut jobs_seen = 0u64;
    for (i, line) in lines {
        let line_no = i + 1;
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('|').collect();
        if fields.len() != width {
            if options.lenient {
                skipped.malformed += 1;
                continue;
            }
            return Err(at(
                line_no,
                format!("{} fields where the header names {width}", fields.len()),
            ));
        }
        let id = fields[columns.job_id];
        if id.contains('.') {
            continue; // a step of the job above
        }
        jobs_seen += 1;
        let number = jobs_seen;
        if !options.selection.contains(number) {
            not_selected += 1;
            continue;
        }
        let Some(row) = read_row(&at, line_no, &fields, &columns, number, &mut names)? else {
            skipped.submit_negative += 1;
            continue;
        };
        rows.push(row);
    }
    let Some(first) = rows.iter().map(|r| r.submit).min() else {
        return Err(Error::Workload {
            path: path.to_path_buf(),
            message: "no job rows after the header".into(),
        });
    };
    if let Some(p) = options.procs.filter(|p| !(1..=MAX_PROCS).contains(p)) {
        return Err(Error::Workload {
            path: path.to_path_buf(),
            message: format!("--procs {p}: must be from 1 to {MAX_PROCS}"),
        });
    }
    let jobs = into_jobs(&at, rows, first, options, &mut skipped)?;
    let partitions = names.partitions;
    let mut comments = vec![format!(
        "Converted from Slurm accounting (sacct) {}",
        path.display()
    )];
    comments.extend(
        partitions
            .iter()
            .enumerate()
            .map(|(i, name)| format!("Partition: {} {name}", i + 1)),
    );
    let largest = jobs.procs.iter().copied().max().unwrap_or(1);
    Ok(Workload {
        name: super::trace_name(path),
        jobs,
        // The accounting does not say the machine's size: --procs or a machine file does;
        // without, the widest job's.
        procs: options.procs.unwrap_or(largest),
        header: SwfHeader {
            unix_start_time: Some(first),
            comments,
            ..SwfHeader::default()
        },
        skipped,
        not_selected,
    })
}

/// Users and partitions by name, numbered from 1 in order of appearance (SWF's fields 12
/// and 16).
#[derive(Default)]
struct Names {
    users: HashMap<String, i32>,
    partitions: Vec<String>,
}

/// Job row `number` on line `line_no`, read from its `fields`; `None` without a submit time.
fn read_row(
    at: &impl Fn(usize, String) -> Error,
    line_no: usize,
    fields: &[&str],
    columns: &Columns,
    number: u64,
    names: &mut Names,
) -> Result<Option<Row>> {
    let field = |c: usize, name: &str| -> std::result::Result<&str, Error> {
        fields
            .get(c)
            .copied()
            .ok_or_else(|| at(line_no, format!("no {name}")))
    };
    let time = |c: usize, name: &str| -> std::result::Result<Option<i64>, Error> {
        let text = field(c, name)?;
        match (timestamp(text), text) {
            (Some(t), _) => Ok(Some(t)),
            (None, "Unknown" | "None" | "") => Ok(None),
            (None, other) => Err(at(
                line_no,
                format!("{name} '{other}': expected YYYY-MM-DDTHH:MM:SS"),
            )),
        }
    };
    let Some(submit) = time(columns.submit, "Submit")? else {
        return Ok(None);
    };
    let (start, end) = (time(columns.start, "Start")?, time(columns.end, "End")?);
    let cpus_text = field(columns.cpus, "NCPUS")?;
    let cpus: i64 = cpus_text
        .parse()
        .map_err(|_| at(line_no, format!("NCPUS '{cpus_text}': expected a whole number")))?;
    let nodes = columns
        .nodes
        .and_then(|c| fields[c].parse::<i64>().ok())
        .unwrap_or(1);
    let limit = columns.timelimit.and_then(|c| duration(fields[c]));
    let dense = |value: &str, names: &mut Vec<String>| -> i32 {
        match names.iter().position(|n| n == value) {
            Some(p) => p as i32 + 1,
            None => {
                names.push(value.to_string());
                names.len() as i32
            }
        }
    };
    let user = columns.user.map_or(-1, |c| {
        let next = names.users.len() as i32 + 1;
        *names.users.entry(fields[c].to_string()).or_insert(next)
    });
    let partition = columns
        .partition
        .filter(|&c| !fields[c].is_empty())
        .map_or(-1, |c| dense(fields[c], &mut names.partitions));
    let memory = columns
        .req_mem
        .and_then(|c| memory_per_processor(fields[c], cpus, nodes))
        .map_or(-1, narrow);
    // What the job held, else (a row that never ran, or sacct's older output) what it
    // asked for.
    let tres = [("AllocTRES", columns.alloc_tres), ("ReqTRES", columns.req_tres)]
        .into_iter()
        .filter_map(|(name, c)| Some((name, fields[c?])))
        .find(|(_, text)| !text.is_empty());
    let gpus = match tres {
        None => 0,
        Some((name, text)) => tres_gpus(text).map_err(|e| at(line_no, format!("{name} '{text}': {e}")))?,
    };
    let status = columns.state.map_or(-1, |c| match fields[c] {
        "COMPLETED" => 1,
        s if s.starts_with("CANCELLED") => 5,
        _ => 0,
    });
    // Slurm records a job cancelled while it waited with Start = End = the cancel time and
    // no allocation (real sacct output, Slurm 22.05): it never ran.
    let never_ran = status == 5
        && start.is_some()
        && start == end
        && columns.alloc_tres.is_none_or(|c| fields[c].is_empty());
    let start = if never_ran { None } else { start };
    let record = JobRecord {
        user,
        partition,
        status,
        requested_procs: narrow(cpus),
        requested_time: limit.map_or(-1, narrow),
        requested_memory: memory,
        ..JobRecord::new(
            number,
            0,
            0,
            cpus.clamp(0, u32::MAX as i64) as u32,
            limit.unwrap_or(0),
        )
    };
    Ok(Some(Row {
        line: line_no,
        submit,
        start,
        end,
        gpus,
        record,
    }))
}

/// The rows as jobs, their times from the `first` submit: rows that never ran, ask for no
/// processor or for more than the machine are counted in `skipped`.
fn into_jobs(
    at: &impl Fn(usize, String) -> Error,
    rows: Vec<Row>,
    first: i64,
    options: &SwfOptions,
    skipped: &mut SkipCounts,
) -> Result<Jobs> {
    let procs = options.procs.unwrap_or(MAX_PROCS);
    let mut jobs = Jobs::default();
    let mut gpus = Vec::new();
    for row in rows {
        let mut r = row.record;
        let runtime = match (row.start, row.end) {
            (Some(s), Some(e)) if e >= s => e - s,
            _ => {
                skipped.runtime_negative += 1;
                continue;
            }
        };
        if r.procs == 0 {
            skipped.procs_not_positive += 1;
            continue;
        }
        if r.procs > procs {
            skipped.procs_exceed_machine += 1;
            continue;
        }
        let submit = row.submit - first;
        if submit > MAX_TIME || runtime > MAX_TIME {
            return Err(at(
                row.line,
                format!("Submit to End: beyond the longest time schedlab accepts, 2^40 s ({MAX_TIME})"),
            ));
        }
        let estimate = if r.requested_time > 0 { r.estimate } else { runtime };
        r.submit = submit;
        r.runtime = runtime.min(estimate);
        r.estimate = estimate;
        r.recorded_wait = row.start.map_or(-1, |s| narrow(s - row.submit));
        jobs.push_columns(&r, options.columns);
        gpus.push(row.gpus);
        if options.selection.first.is_some_and(|n| jobs.len() >= n) {
            break;
        }
    }
    jobs.gpus = super::gpu_column(gpus);
    jobs.sort_by_submit();
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, options: &SwfOptions) -> Result<Workload> {
        parse(Path::new("s.txt"), text.as_bytes(), options)
    }

    const SMALL: &str = "JobID|User|Partition|Submit|Start|End|Timelimit|NCPUS|NNodes|ReqMem|State
10|ann|batch|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|02:00:00|8|2|16Gn|COMPLETED
10.batch||||2024-03-01T10:00:05|2024-03-01T11:00:05||8|2||COMPLETED
11_3|bob|gpu|2024-03-01T10:01:00|2024-03-01T10:30:00|2024-03-01T10:31:00|1-00:00:00|4|1|1000Mc|FAILED
12|ann|batch|2024-03-01T10:02:00|Unknown|Unknown|10|2|1|4G|CANCELLED by 42
13|cat|batch|2024-03-01T09:59:00|2024-03-01T09:59:00|2024-03-01T09:59:30|UNLIMITED|1|1|2G|COMPLETED
14|ann|batch|2024-03-01T10:02:00|2024-03-01T10:03:00|2024-03-01T10:03:00|10|2|1|4G|CANCELLED by 42
";

    /// Real output: `scripts/slurm/accounting-test.sh`'s jobs on a one-node Slurm 22.05
    /// cluster of 2 CPUs with slurmdbd, as `sacct` wrote it (job steps, ReqMem per node, a
    /// job cancelled while it waited: Start = End, no AllocTRES).
    #[test]
    fn real_slurm_accounting_reads_as_slurm_ran_it() {
        let w = read(
            include_str!("../../tests/data/sacct-slurm-22.05.txt"),
            &SwfOptions::default(),
        )
        .unwrap();
        let j = &w.jobs;
        assert_eq!(j.swf_id, vec![1, 2, 3]);
        assert_eq!(j.submit, vec![0, 0, 0]);
        assert_eq!(j.runtime, vec![3, 2, 2]);
        assert_eq!(j.recorded_wait, vec![3, 7, 10]);
        assert_eq!(j.procs, vec![2, 2, 1]);
        assert_eq!(j.estimate, vec![60, 120, 60]);
        // --mem-per-cpu=100M, 200M and 300M, which sacct prints per node (200M, 400M, 300M).
        assert_eq!(j.requested_memory, vec![100 << 10, 200 << 10, 300 << 10]);
        assert_eq!(j.status, vec![1, 1, 1]);
        assert_eq!(w.skipped.runtime_negative, 1);
        assert_eq!(w.procs, 2);
    }

    #[test]
    fn a_small_accounting_maps_as_documented() {
        let w = read(SMALL, &SwfOptions::default()).unwrap();
        let j = &w.jobs;
        // Jobs 1 (id 10), 2 (11_3), 4 (13); 3 and 5 (14, cancelled while it waited, as
        // Slurm records it: Start = End) never started. Times from the first submit (job
        // 13's, 09:59:00).
        assert_eq!(j.swf_id, vec![4, 1, 2]);
        assert_eq!(j.submit, vec![0, 60, 120]);
        assert_eq!(j.runtime, vec![30, 3600, 60]);
        assert_eq!(j.estimate, vec![30, 7200, 86_400]);
        assert_eq!(j.procs, vec![1, 8, 4]);
        assert_eq!(j.recorded_wait, vec![0, 5, 1740]);
        assert_eq!(j.user, vec![3, 1, 2]);
        assert_eq!(j.partition, vec![1, 1, 2]);
        assert_eq!(j.status, vec![1, 1, 0]);
        // 16 GB a node over 4 processors a node: 4 GB each; 1000 MB a core; 2 GB a node of 1.
        assert_eq!(j.requested_memory, vec![2 << 20, 4 << 20, 1000 << 10]);
        assert_eq!(w.skipped.runtime_negative, 2);
        assert_eq!(w.procs, 8);
        assert_eq!(
            w.header.unix_start_time,
            Some(timestamp("2024-03-01T09:59:00").unwrap())
        );
        assert!(w.header.comments.iter().any(|c| c == "Partition: 2 gpu"));
    }

    #[test]
    fn gpus_are_read_from_the_allocated_tres() {
        assert_eq!(tres_gpus("billing=8,cpu=8,gres/gpu=2,mem=16G,node=1"), Ok(2));
        assert_eq!(tres_gpus("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1"), Ok(3));
        // sacct lists the untyped total beside the typed counts: the total is not summed in.
        assert_eq!(tres_gpus("gres/gpu=4,gres/gpu:a100=4"), Ok(4));
        assert_eq!(tres_gpus("cpu=1,mem=1G"), Ok(0));
        assert_eq!(tres_gpus(""), Ok(0));
        assert!(
            tres_gpus("gres/gpu=two")
                .unwrap_err()
                .message
                .contains("'two' is not a whole number")
        );
        assert!(
            tres_gpus("gres/gpu=99999999999")
                .unwrap_err()
                .message
                .contains("more than the 67108864")
        );
        // A row's AllocTRES, else (empty: the job never ran) its ReqTRES.
        let text = "JobID|Submit|Start|End|NCPUS|ReqTRES|AllocTRES
1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|8|cpu=8,gres/gpu=4|cpu=8,gres/gpu=2,node=1
2|2024-01-01T00:00:10|2024-01-01T00:00:10|2024-01-01T00:01:00|4|cpu=4,gres/gpu=1|
3|2024-01-01T00:00:20|2024-01-01T00:00:20|2024-01-01T00:01:00|4|cpu=4|cpu=4,node=1
";
        let w = read(text, &SwfOptions::default()).unwrap();
        assert_eq!(w.jobs.gpus, Some(vec![2, 1, 0]));
        let bad = text.replace("gres/gpu=2", "gres/gpu=x");
        let e = read(&bad, &SwfOptions::default()).unwrap_err().to_string();
        assert!(
            e.contains("s.txt:2: AllocTRES 'cpu=8,gres/gpu=x,node=1': gres/gpu: count 'x'"),
            "{e}"
        );
        // Without GPUs anywhere, no GPU column: outputs stay as they were.
        assert_eq!(read(SMALL, &SwfOptions::default()).unwrap().jobs.gpus, None);
    }

    #[test]
    fn times_and_durations_read_as_slurm_writes_them() {
        assert_eq!(timestamp("1970-01-01T00:00:00"), Some(0));
        assert_eq!(timestamp("2000-03-01T00:00:01"), Some(951_868_801));
        // Days are checked against 31, not the month: sacct writes only real dates.
        assert!(timestamp("2024-02-30T00:00:00").is_some());
        assert_eq!(timestamp("Unknown"), None);
        assert_eq!(timestamp("2024-13-01T00:00:00"), None);
        assert_eq!(duration("1-02:03:04"), Some(93_784));
        assert_eq!(duration("02:03:04"), Some(7_384));
        assert_eq!(duration("03:04"), Some(184));
        assert_eq!(duration("45"), Some(2_700));
        assert_eq!(duration("2-05"), Some(2 * 86_400 + 5 * 3600));
        assert_eq!(duration("UNLIMITED"), None);
        assert_eq!(duration("Partition_Limit"), None);
        assert_eq!(duration("999999999999999999"), None);
        assert_eq!(timestamp("1000000000000-01-01T00:00:00"), None);
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let message = |text: &str| read(text, &SwfOptions::default()).unwrap_err().to_string();
        assert!(message("JobID|Submit|Start\n").contains("s.txt:1: End: not in the header"));
        let short = "JobID|Submit|Start|End|NCPUS\n1|2024-01-01T00:00:00|x\n";
        assert!(message(short).contains("s.txt:2: 3 fields where the header names 5"));
        let bad = "JobID|Submit|Start|End|NCPUS\n1|yesterday|Unknown|Unknown|1\n";
        assert!(message(bad).contains("s.txt:2: Submit 'yesterday': expected YYYY-MM-DDTHH:MM:SS"));
        let cpus = "JobID|Submit|Start|End|NCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:01|four\n";
        assert!(message(cpus).contains("NCPUS 'four'"));
        let zero = SwfOptions {
            procs: Some(0),
            ..SwfOptions::default()
        };
        assert!(
            read(SMALL, &zero)
                .unwrap_err()
                .to_string()
                .contains("--procs 0: must be from 1")
        );
    }

    #[test]
    fn sacct_is_told_by_its_header() {
        assert!(looks_like_sacct(b"JobID|JobName|Submit\n1|a|b\n"));
        assert!(looks_like_sacct(b"\xEF\xBB\xBFJobID|Submit\n"));
        assert!(!looks_like_sacct(b"; MaxProcs: 8\n"));
        assert!(!looks_like_sacct(b"{\"nb_res\": 1}"));
    }
}
