//! Standard Workload Format: reading `.swf` / `.swf.gz` traces and writing schedules back.
//!
//! Field mapping (fields numbered from 1, `-1` = unknown): job number = f1; submit = f2;
//! runtime = f4; procs = f8 if f8 > 0 else f5; estimate = f9 if f9 > 0 else runtime;
//! status f11, user f12, group f13, executable f14, queue f15, partition f16. A job that ran
//! longer than its estimate was killed there: runtime = min(f4, estimate).
//!
//! Skip rules, checked in this order and each counted in [`SkipCounts`]: procs <= 0,
//! runtime < 0, submit < 0, procs > machine size. Machine size = `--procs` if given, else the
//! header's MaxProcs, else MaxNodes. Field 6 (average CPU time) may be fractional; every
//! other field must be an integer.
//!
//! Utility extension (Lee & Snavely, section 4.1): a job line may carry its utility function
//! after the 18 fields as `time value time value ...` (see [`crate::utility`]). Either every
//! job line of a file has them or none does; a trace read with them writes them back, so an
//! augmented trace round-trips.
//!
//! GPU extension (schedlab's; SWF has no GPU field): a header comment `; Extension: GPUs`
//! before the first job line says that every job line carries a 19th field, the GPUs the
//! job requests in all (`-1` or `0`: none), before any utility tuples. A trace whose jobs
//! request GPUs is written back with it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::{
    Columns, JobRecord, Jobs, MAX_GPUS, MAX_PROCS, MAX_TIME, Selection, SkipCounts, Workload, narrow,
};
use crate::Time;
use crate::error::{Error, FieldError, Result};

/// Names of the 18 SWF fields, for error messages.
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user ID",
    "group ID",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// Field (1-based) that may hold a fraction: average CPU time. Every other field is an
/// integer in every archive log.
const FRACTIONAL_FIELD: usize = 6;

/// What the header comments say. Unknown keys are kept verbatim in `comments`. A value
/// is read as its leading number (`leading_number`), so annotated values such as
/// `MaxProcs: 1664 (72, 1368, 224)`, `MaxProcs: 9216 (8 cores x 1152 nodes)` or `MaxProcs:
/// 1,664` count, and the annotation stays in the comments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfHeader {
    /// MaxProcs and MaxNodes when usable: from 1 to [`MAX_PROCS`].
    pub max_procs: Option<u32>,
    pub max_nodes: Option<u32>,
    pub unix_start_time: Option<i64>,
    pub time_zone_string: Option<String>,
    /// `MaxRecords` (else `MaxJobs`): how many job lines the file holds.
    pub max_records: Option<usize>,
    /// `Extension: GPUs`: job lines carry the GPUs each job requests as field 19.
    pub gpu_field: bool,
    /// The comment lines (the first 10,000), without their leading `;`, in file order.
    pub comments: Vec<String>,
    /// MaxProcs and MaxNodes as written, for messages when they cannot be used.
    pub(crate) max_procs_text: Option<String>,
    pub(crate) max_nodes_text: Option<String>,
}

/// Comment lines kept in [`SwfHeader::comments`].
const MAX_COMMENTS: usize = 10_000;

/// The leading integer of a header value: its text up to the first space, `(` or `;`
/// (`1664 (72, 1368, 224)` -> 1664), with thousands separated by `,` or `_` in groups of
/// three (`1,664`, `1_664`). Anything else there (`1e30`, `1.5`, `12,34`) is no number, so
/// that a machine size is never read from the part of a value before an odd character.
fn leading_number<T: std::str::FromStr>(value: &str) -> Option<T> {
    let token = value.split([' ', '\t', '(', ';']).next().unwrap_or_default();
    let digits = token.strip_prefix('-').unwrap_or(token);
    let groups: Vec<&str> = digits.split([',', '_']).collect();
    let grouped = groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3);
    let plain = groups
        .iter()
        .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()));
    if !plain || (groups.len() > 1 && !grouped) {
        return None;
    }
    token.replace([',', '_'], "").parse().ok()
}

impl SwfHeader {
    fn absorb(&mut self, comment: &str) {
        // Archive logs have dozens of header lines; an endless stream of comments must not
        // fill memory, so only the first are kept (their keys are still read).
        if self.comments.len() < MAX_COMMENTS {
            self.comments.push(comment.to_string());
        }
        let Some((key, value)) = comment.split_once(':') else {
            return;
        };
        let value = value.trim();
        let processors = |v: &str| leading_number::<u64>(v).filter(|&p| (1..=MAX_PROCS as u64).contains(&p));
        match key.trim() {
            "MaxProcs" => {
                self.max_procs = processors(value).map(|p| p as u32);
                self.max_procs_text = Some(value.to_string());
            }
            "MaxNodes" => {
                self.max_nodes = processors(value).map(|p| p as u32);
                self.max_nodes_text = Some(value.to_string());
            }
            "UnixStartTime" => self.unix_start_time = leading_number(value),
            "TimeZoneString" => self.time_zone_string = Some(value.to_string()),
            "MaxRecords" => self.max_records = leading_number(value),
            "MaxJobs" => self.max_records = self.max_records.or(leading_number(value)),
            "Extension" if value.eq_ignore_ascii_case("GPUs") => self.gpu_field = true,
            _ => {}
        }
    }

    /// The machine size: `procs` if given, else MaxProcs, else MaxNodes; the error says
    /// what the header holds.
    fn machine(&self, procs: Option<u32>) -> std::result::Result<u32, FieldError> {
        if let Some(p) = procs {
            return match p {
                1..=MAX_PROCS => Ok(p),
                _ => Err(FieldError::new(
                    format!("--procs {p}"),
                    format!("must be from 1 to {MAX_PROCS}"),
                )),
            };
        }
        if let Some(p) = self.max_procs.or(self.max_nodes) {
            return Ok(p);
        }
        let said = |key: &str, text: &Option<String>| text.as_ref().map(|t| format!("{key}: {t}"));
        let found: Vec<String> = [
            said("MaxProcs", &self.max_procs_text),
            said("MaxNodes", &self.max_nodes_text),
        ]
        .into_iter()
        .flatten()
        .collect();
        let message = if found.is_empty() {
            "the header has no MaxProcs or MaxNodes; pass --procs".into()
        } else {
            format!(
                "the header says {}, not a number of processors from 1 to {MAX_PROCS}; pass --procs",
                found.join(" and ")
            )
        };
        Err(FieldError::new("machine size unknown", message))
    }
}

/// How to read a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SwfOptions {
    /// Machine size; overrides the header.
    pub procs: Option<u32>,
    pub selection: Selection,
    /// Skip malformed lines (counted) instead of failing on the first one.
    pub lenient: bool,
    /// The columns kept: fewer for runs that neither write the trace back nor derive
    /// anything from the other fields (`experiment::rigid::WorkloadSpec::columns_read`).
    pub columns: Columns,
}

impl SwfOptions {
    /// Refuses a selection that keeps no job (`--first 0`), for every trace reader.
    pub(crate) fn check_selection(&self) -> Result<()> {
        match self.selection.first {
            Some(0) => Err(Error::Param {
                key: "first".into(),
                value: "0".into(),
                message: "keep at least 1 job".into(),
            }),
            _ => Ok(()),
        }
    }
}

/// Reads a trace; gzip is recognised by its magic bytes, whatever the file name. A `.gz`
/// file is inflated on a second thread, a chunk ahead of the parser (`Inflated`), so
/// that reading costs about the longer of the two rather than their sum.
pub fn read_swf(path: &Path, options: &SwfOptions) -> Result<Workload> {
    options.check_selection()?;
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut magic = [0u8; 2];
    let n = file.read(&mut magic).map_err(|e| Error::io(path, e))?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let gzip = n == 2 && magic == [0x1f, 0x8b];
    let size = input_size(path, gzip);
    if gzip {
        std::thread::scope(|scope| {
            let (chunks, recycled) = Inflated::start(scope, file);
            // The reader is dropped when the parse ends, which stops the inflating thread
            // early if the parse ended first (an error, or --first).
            parse_sized(
                Inflated {
                    chunks,
                    recycled,
                    chunk: Vec::new(),
                    at: 0,
                    done: false,
                },
                path,
                options,
                size,
            )
        })
    } else {
        parse_sized(BufReader::with_capacity(1 << 16, file), path, options, size)
    }
}

/// The bytes of SWF text in a file, if known: its length, or for gzip the length the
/// trailer records (modulo 4 GiB, and of the last member only; a hint, checked as the
/// text is read).
fn input_size(path: &Path, gzip: bool) -> Option<u64> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if !gzip {
        return Some(len);
    }
    use std::io::Seek;
    file.seek(std::io::SeekFrom::End(-4)).ok()?;
    let mut trailer = [0u8; 4];
    file.read_exact(&mut trailer).ok()?;
    Some(u32::from_le_bytes(trailer) as u64).filter(|&n| n > 0)
}

/// Sizes the job table from the input's length, so that it is allocated once instead of
/// doubling as it grows: a doubled column keeps up to twice its rows, and the allocator
/// may keep the block it replaced, so that 10 million jobs took 1.5 GB instead of 1.1 GB.
struct Sizing {
    /// Bytes of text in the whole input, if known.
    size: Option<u64>,
    /// Bytes read so far.
    read: u64,
    /// The columns read ([`SwfOptions::columns`]).
    columns: Columns,
}

impl Sizing {
    /// The first room: the header's record count, if it gives one, but no more rows than
    /// the input could hold (a job line has at least 18 fields), or a million where its
    /// length is unknown: a wrong header costs address space, not resident memory.
    fn first(&self, jobs: &mut Jobs, records: Option<usize>) {
        let most = self.size.map_or(1 << 20, |size| (size / 36) as usize);
        if let Some(records) = records {
            self.reserve(jobs, records.min(most));
        }
    }

    fn reserve(&self, jobs: &mut Jobs, additional: usize) {
        jobs.reserve_columns(additional, self.columns);
    }

    /// Makes room for at least one more job: from 4,096 rows on (which set the rate), the
    /// rows that the input's length predicts at the rate of jobs per byte so far, plus 5%;
    /// before them, or where the length is unknown or has proved wrong, twice the rows.
    /// Room never touched costs no resident memory, so erring high is cheap.
    fn grow(&self, jobs: &mut Jobs) {
        let len = jobs.len();
        let rows = match self.size {
            Some(size) if size > self.read && len >= 1 << 12 => {
                (len as f64 * size as f64 / self.read as f64 * 1.05) as usize + 1024
            }
            _ => 2 * len,
        };
        self.reserve(jobs, rows.saturating_sub(len).max(len / 8).max(1024));
    }
}

/// Size of the chunks the inflating thread hands over.
const CHUNK: usize = 1 << 18;

/// Chunks the inflating thread may run ahead of the parser: 8 MiB, more than an archive log
/// such as CTC-SP2 inflates to, so that the thread (faster than the parser) seldom waits
/// for room. Each wait ends in a wake-up by the parser, after which the OS may run the two
/// on one CPU (pinning the thread to the other CPU gained more still, but fights the OS in
/// sweeps and containers). A whole run on CTC-SP2 took 35.5 ms with two chunks ahead and
/// 33.2 ms with these, for 1.5 to 2 MB more at the peak (docs/performance.md, round 3).
const AHEAD: usize = 32;

/// A `BufRead` over a gzip file inflated by another thread: chunks arrive on a bounded
/// channel (at most [`AHEAD`], so memory stays bounded) and go back on another to be
/// refilled; an inflating error arrives after the bytes that preceded it.
struct Inflated {
    chunks: crossbeam_channel::Receiver<std::io::Result<Vec<u8>>>,
    recycled: crossbeam_channel::Sender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
    done: bool,
}

impl Inflated {
    /// Starts inflating `file` on a thread of `scope`.
    fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        file: File,
    ) -> (
        crossbeam_channel::Receiver<std::io::Result<Vec<u8>>>,
        crossbeam_channel::Sender<Vec<u8>>,
    ) {
        let (send, chunks) = crossbeam_channel::bounded(AHEAD);
        let (recycled, spare) = crossbeam_channel::bounded::<Vec<u8>>(4);
        scope.spawn(move || {
            let mut gz = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, file));
            loop {
                let mut chunk = spare.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                chunk.resize(CHUNK, 0);
                let mut filled = 0;
                let mut failed = None;
                while filled < CHUNK {
                    match gz.read(&mut chunk[filled..]) {
                        Ok(0) => break,
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                chunk.truncate(filled);
                let end = filled == 0 || failed.is_some();
                if filled > 0 && send.send(Ok(chunk)).is_err() {
                    return;
                }
                if let Some(e) = failed {
                    let _ = send.send(Err(e));
                }
                if end {
                    return;
                }
            }
        });
        (chunks, recycled)
    }
}

impl Read for Inflated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Inflated {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.at == self.chunk.len() && !self.done {
            match self.chunks.recv() {
                Ok(Ok(next)) => {
                    let used = std::mem::replace(&mut self.chunk, next);
                    let _ = self.recycled.try_send(used);
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.chunk[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.chunk.len());
    }
}

/// The longest line read: no archive log comes near it, and an endless input without line
/// breaks (a device of zeros) is refused instead of filling memory.
pub const MAX_LINE: usize = 1 << 20;

/// Parses SWF text from any reader; `path` is used only in messages and the workload name.
/// Comment lines may hold any bytes (read as UTF-8, invalid bytes replaced); job lines
/// must be ASCII.
pub fn parse_swf<R: BufRead>(reader: R, path: &Path, options: &SwfOptions) -> Result<Workload> {
    parse_sized(reader, path, options, None)
}

/// [`parse_swf`] of an input of `size` bytes, if known ([`Sizing`]).
///
/// Lines are read where the reader holds them, found with `memchr`: only a line that runs
/// past the end of the reader's buffer is copied, so that a line costs no copy and no call
/// through the reader (the parse runs on the critical path of a whole run).
fn parse_sized<R: BufRead>(
    mut reader: R,
    path: &Path,
    options: &SwfOptions,
    size: Option<u64>,
) -> Result<Workload> {
    let mut reading = Reading::new(path, options, size);
    let read_error = |e: std::io::Error, line: usize| match e.kind() {
        std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => Error::Swf {
            path: path.to_path_buf(),
            line,
            message: format!("not valid gzip: {e}"),
        },
        _ => Error::io(path, e),
    };
    let mut spill: Vec<u8> = Vec::with_capacity(256);
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| read_error(e, reading.line_no + 1))?;
        if buf.is_empty() {
            break;
        }
        let whole = memchr::memrchr(b'\n', buf).map_or(0, |at| at + 1);
        if whole == 0 {
            // A line that runs past the buffer (or the last line, without a break): copied,
            // at most MAX_LINE + 1 bytes of it, so that an endless line cannot fill memory.
            spill.clear();
            std::io::Read::take(&mut reader, MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut spill)
                .map_err(|e| read_error(e, reading.line_no + 1))?;
            if !reading.line(&spill)? {
                break;
            }
            continue;
        }
        let more = reading.lines(&buf[..whole])?;
        reader.consume(whole);
        if !more {
            break;
        }
    }
    reading.finish()
}

/// A parse in progress: what the lines read so far have given.
struct Reading<'a> {
    path: &'a Path,
    options: &'a SwfOptions,
    sizing: Sizing,
    header: SwfHeader,
    skipped: SkipCounts,
    not_selected: u64,
    jobs: Jobs,
    /// The machine's size, fixed by the header comments before the first job line.
    machine: Option<u32>,
    utility: Vec<crate::workload::UtilityFunction>,
    /// GPUs per job (field 19), when the header declares the GPU extension.
    gpus: Vec<u32>,
    /// Whether job lines carry utility tuples, fixed by the first job line.
    augmented: Option<bool>,
    /// Lines read so far, the last one included.
    line_no: usize,
}

impl<'a> Reading<'a> {
    fn new(path: &'a Path, options: &'a SwfOptions, size: Option<u64>) -> Self {
        Reading {
            path,
            options,
            sizing: Sizing {
                size,
                read: 0,
                columns: options.columns,
            },
            header: SwfHeader::default(),
            skipped: SkipCounts::default(),
            not_selected: 0,
            jobs: Jobs::default(),
            machine: None,
            utility: Vec::new(),
            gpus: Vec::new(),
            augmented: None,
            line_no: 0,
        }
    }

    fn error(&self, message: String) -> Error {
        Error::Swf {
            path: self.path.to_path_buf(),
            line: self.line_no,
            message,
        }
    }

    /// Reads whole lines, each with its line break, in order: `Ok(false)` once the jobs
    /// asked for (`first`) are kept.
    fn lines(&mut self, text: &[u8]) -> Result<bool> {
        let mut from = 0;
        for end in memchr::memchr_iter(b'\n', text) {
            if !self.line(&text[from..=end])? {
                return Ok(false);
            }
            from = end + 1;
        }
        Ok(true)
    }

    /// Reads the next line, its line break (if any) included: `Ok(false)` once the jobs
    /// asked for (`first`) are kept.
    fn line(&mut self, line: &[u8]) -> Result<bool> {
        let options = self.options;
        self.line_no += 1;
        self.sizing.read += line.len() as u64;
        if line.strip_suffix(b"\n").unwrap_or(line).len() > MAX_LINE {
            return Err(self.error(format!("longer than {MAX_LINE} bytes: not an SWF trace")));
        }
        // A UTF-8 byte-order mark, as some editors write, opens the first line.
        let line = match self.line_no {
            1 => line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line),
            _ => line,
        };
        let text = line.trim_ascii();
        if text.is_empty() {
            return Ok(true);
        }
        if memchr::memchr(b'\r', text).is_some() {
            // Lines ending in CR alone would run together, comments swallowing job lines.
            return Err(self.error(
                "a carriage return inside the line: a file with CR line endings? convert them to LF".into(),
            ));
        }
        if let Some(comment) = text.strip_prefix(b";") {
            let gpu_field = self.header.gpu_field;
            self.header.absorb(String::from_utf8_lossy(comment).trim());
            if self.machine.is_some() && self.header.gpu_field != gpu_field {
                return Err(
                    self.error("'Extension: GPUs' after the first job line: it belongs in the header".into())
                );
            }
            return Ok(true);
        }
        let mut fields: Fields = [0; 18];
        let gpu_field = self.header.gpu_field;
        let parsed = job_line(text, &mut fields).and_then(|(cpu, tail)| {
            let (gpus, tail) = match gpu_field {
                true => parse_gpus(tail)?,
                false => (0, tail),
            };
            let function = parse_utility(tail, &mut self.augmented)?;
            Ok((cpu, gpus, function))
        });
        let (cpu, gpus, function) = match parsed {
            Ok(parsed) => parsed,
            Err(_) if options.lenient => {
                self.skipped.malformed += 1;
                return Ok(true);
            }
            Err(e) => return Err(self.error(e.to_string())),
        };
        let procs_limit = match self.machine {
            Some(m) => m,
            None => {
                let m = self
                    .header
                    .machine(options.procs)
                    .map_err(|e| self.error(e.to_string()))?;
                self.machine = Some(m);
                self.sizing.first(&mut self.jobs, self.header.max_records);
                m
            }
        };
        let swf_id = fields[0];
        if swf_id < 0 {
            self.skipped.job_number_negative += 1;
            return Ok(true);
        }
        if !options.selection.contains(swf_id as u64) {
            self.not_selected += 1;
            return Ok(true);
        }
        let record = match job_from_fields(&fields, cpu, procs_limit) {
            Ok(r) => r,
            Err(reason) => {
                let skipped = &mut self.skipped;
                match reason {
                    Skip::ProcsNotPositive => skipped.procs_not_positive += 1,
                    Skip::RuntimeNegative => skipped.runtime_negative += 1,
                    Skip::SubmitNegative => skipped.submit_negative += 1,
                    Skip::ProcsExceedMachine => skipped.procs_exceed_machine += 1,
                }
                return Ok(true);
            }
        };
        if self.jobs.len() == self.jobs.capacity() {
            self.sizing.grow(&mut self.jobs);
        }
        self.jobs.push_columns(&record, options.columns);
        self.utility.extend(function);
        if gpu_field {
            self.gpus.push(gpus);
        }
        Ok(options.selection.first.is_none_or(|n| self.jobs.len() < n))
    }

    fn finish(self) -> Result<Workload> {
        let Reading {
            path,
            options,
            header,
            skipped,
            not_selected,
            mut jobs,
            machine,
            utility,
            gpus,
            augmented,
            ..
        } = self;
        let procs = match machine {
            Some(m) => m,
            None => header.machine(options.procs).map_err(|e| Error::Workload {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?,
        };
        if augmented == Some(true) {
            jobs.utility = Some(utility);
        }
        jobs.gpus = super::gpu_column(gpus);
        jobs.sort_by_submit();
        Ok(Workload {
            name: super::trace_name(path),
            jobs,
            procs,
            header,
            skipped,
            not_selected,
        })
    }
}

/// The 18 fields of a job line as integers (fractional fields truncated toward zero; their
/// exact values travel beside them).
type Fields = [i64; 18];

/// An integer field: an optional sign and digits, as `i64::from_str` reads it.
#[inline]
fn integer(token: &[u8]) -> Option<i64> {
    let (negative, digits) = match token {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, token),
    };
    if digits.is_empty() {
        return None;
    }
    // Up to 18 digits cannot overflow an i64: no checks per digit (the common case).
    if digits.len() <= 18 {
        let mut v: i64 = 0;
        for &d in digits {
            let digit = d.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            v = v * 10 + digit as i64;
        }
        return Some(if negative { -v } else { v });
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        let digit = (d - b'0') as i64;
        v = v.checked_mul(10)?;
        v = if negative {
            v.checked_sub(digit)?
        } else {
            v.checked_add(digit)?
        };
    }
    Some(v)
}

/// Fields whose values enter time arithmetic, and those that hold processor counts.
const TIME_FIELDS: [usize; 4] = [2, 3, 4, 9];
const PROCS_FIELDS: [usize; 2] = [5, 8];
/// Identifiers kept as 32-bit numbers: user, group, executable, queue, partition,
/// preceding job, and the requested processors and think time.
const ID_FIELDS: [usize; 8] = [8, 12, 13, 14, 15, 16, 17, 18];

/// A job line (ASCII): its 18 fields into `fields`, and the exact average CPU time and the
/// text after field 18 (empty for a plain SWF line). Every value must be within the
/// documented bounds. (The fields are written in place: moving them costs a copy of 144
/// bytes per line, measurable in a whole run.)
fn job_line<'l>(line: &'l [u8], fields: &mut Fields) -> std::result::Result<(f64, &'l str), FieldError> {
    // Checked only when the line does not parse (a non-ASCII byte cannot make a field), so
    // that such a line is named by its first foreign byte, as before any field.
    let not_ascii = |line: &[u8]| {
        line.iter().position(|b| !b.is_ascii()).map(|at| {
            FieldError::new(
                format!("byte 0x{:02X} at column {}", line[at], at + 1),
                "job lines must be ASCII (comments may hold any text)",
            )
        })
    };
    let parsed = match whole_number_fields(line, fields) {
        Some(cpu) => Ok((cpu, "")),
        None => parse_fields(line, fields),
    };
    let (cpu, tail) = match parsed {
        Ok(parsed) if parsed.1.is_ascii() => parsed,
        Ok(_) => return Err(not_ascii(line).expect("a byte beyond ASCII")),
        Err(e) => return Err(not_ascii(line).unwrap_or(e)),
    };
    let name = |field: usize| FIELD_NAMES[field - 1];
    for field in TIME_FIELDS {
        if fields[field - 1].unsigned_abs() > MAX_TIME as u64 {
            return Err(FieldError::new(
                format!("field {field} ({})", name(field)),
                format!(
                    "{} s is beyond the longest time schedlab accepts, 2^40 s ({MAX_TIME})",
                    fields[field - 1]
                ),
            ));
        }
    }
    for field in PROCS_FIELDS {
        if fields[field - 1] > MAX_PROCS as i64 {
            return Err(FieldError::new(
                format!("field {field} ({})", name(field)),
                format!(
                    "{} exceeds the largest machine schedlab simulates, {MAX_PROCS} processors",
                    fields[field - 1]
                ),
            ));
        }
    }
    for field in ID_FIELDS {
        if i32::try_from(fields[field - 1]).is_err() {
            return Err(FieldError::new(
                format!("field {field} ({})", name(field)),
                format!("{} is outside the 32-bit range of identifiers", fields[field - 1]),
            ));
        }
    }
    Ok((cpu, tail))
}

/// The common line, fast: 18 whole numbers (an optional sign and at most 18 digits)
/// separated by spaces or tabs, field 6 (average CPU time) also as `digits.digits` with at
/// most 15 digits in all, and nothing after them. `None` for anything else, which
/// [`parse_fields`] then reads (or names the fault of); for the lines both accept they give
/// the same values: a decimal of at most 15 digits is its digits as an integer divided by a
/// power of ten, both exact in binary, and the division rounds correctly as the parse does.
#[inline]
fn whole_number_fields(line: &[u8], fields: &mut Fields) -> Option<f64> {
    const POWERS: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut cpu = 0f64;
    let (mut i, n) = (0usize, line.len());
    for (k, field) in fields.iter_mut().enumerate() {
        while i < n && blank(line[i]) {
            i += 1;
        }
        let negative = i < n && line[i] == b'-';
        if i < n && (negative || line[i] == b'+') {
            i += 1;
        }
        let start = i;
        let mut v: i64 = 0;
        let mut digits = 0usize;
        let mut decimals: Option<usize> = None;
        while i < n {
            let b = line[i];
            let digit = b.wrapping_sub(b'0');
            if digit <= 9 {
                // Past 18 digits an i64 could overflow: the general parser decides.
                if digits == 18 {
                    return None;
                }
                v = v * 10 + digit as i64;
                digits += 1;
                decimals = decimals.map(|d| d + 1);
            } else if b == b'.' && k + 1 == FRACTIONAL_FIELD && decimals.is_none() && digits > 0 {
                decimals = Some(0);
            } else {
                break;
            }
            i += 1;
        }
        if i == start || (i < n && !blank(line[i])) {
            return None;
        }
        let v = if negative { -v } else { v };
        if k + 1 == FRACTIONAL_FIELD {
            cpu = match decimals {
                None => v as f64,
                // The sign on the quotient: "-0.0" is -0.0 as the general parser reads it,
                // where the integer 0 has no sign.
                Some(d) if d > 0 && digits <= 15 => {
                    let magnitude = v.unsigned_abs() as f64 / POWERS[d];
                    if negative { -magnitude } else { magnitude }
                }
                Some(_) => return None,
            };
            *field = cpu as i64;
        } else {
            *field = v;
        }
    }
    if line[i..].iter().any(|&b| !blank(b)) {
        return None;
    }
    Some(cpu)
}

/// The 18 fields into `fields`, and the exact average CPU time and the text after field 18
/// (empty for a plain SWF line), from a line: one pass over its bytes.
fn parse_fields<'l>(line: &'l [u8], fields: &mut Fields) -> std::result::Result<(f64, &'l str), FieldError> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut fractional = 0f64;
    let (mut i, n) = (0usize, line.len());
    for field in 1..=18 {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == n {
            return Err(FieldError::new(
                "the line",
                format!("expected 18 fields, found {}", field - 1),
            ));
        }
        let start = i;
        while i < n && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        let token = &line[start..i];
        if field == FRACTIONAL_FIELD {
            // Mostly whole numbers (or -1): read as such, else as a decimal number.
            let v: f64 = match integer(token) {
                Some(whole) => whole as f64,
                None => std::str::from_utf8(token)
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .filter(|v: &f64| v.is_finite())
                    .ok_or_else(|| {
                        FieldError::new(
                            format!("field {field} ({})", FIELD_NAMES[field - 1]),
                            format!("expected a number, got '{}'", text(token)),
                        )
                    })?,
            };
            fractional = v;
            fields[field - 1] = v as i64;
        } else {
            fields[field - 1] = integer(token).ok_or_else(|| {
                FieldError::new(
                    format!("field {field} ({})", FIELD_NAMES[field - 1]),
                    format!("expected an integer, got '{}'", text(token)),
                )
            })?;
        }
    }
    let tail = line[i..].trim_ascii();
    let tail = if tail.is_empty() {
        ""
    } else {
        std::str::from_utf8(tail).map_err(|e| FieldError::new("after field 18", e.to_string()))?
    };
    Ok((fractional, tail))
}

/// Field 19 of the GPU extension, the GPUs a job requests (`-1`: none), and the text after
/// it.
fn parse_gpus(tail: &str) -> Result<(u32, &str), FieldError> {
    const FIELD: &str = "field 19 (GPUs)";
    let (token, rest) = tail
        .split_once(|c: char| c.is_ascii_whitespace())
        .unwrap_or((tail, ""));
    let expected = || {
        FieldError::new(
            FIELD,
            format!("expected a whole number from -1 to {MAX_PROCS}, got '{token}'"),
        )
    };
    if token.is_empty() {
        return Err(FieldError::new(
            FIELD,
            "missing, but the header declares 'Extension: GPUs'",
        ));
    }
    match token.parse::<i64>() {
        Ok(-1) => Ok((0, rest.trim_start())),
        Ok(g) if (0..=MAX_GPUS as i64).contains(&g) => Ok((g as u32, rest.trim_start())),
        _ => Err(expected()),
    }
}

/// The utility function after field 18, checking that job lines agree on having one.
fn parse_utility(
    tail: &str,
    augmented: &mut Option<bool>,
) -> Result<Option<crate::workload::UtilityFunction>, FieldError> {
    const FIELD: &str = "after field 18";
    let has = !tail.is_empty();
    match *augmented.get_or_insert(has) {
        true if !has => Err(FieldError::new(
            "no utility tuples after field 18",
            "the first job line has them (an augmented trace gives every job its function)",
        )),
        false if has => Err(FieldError::new(
            "fields after field 18",
            "the first job line has none (expected 18 fields, or utility tuples on every job line)",
        )),
        false => Ok(None),
        true => crate::workload::UtilityFunction::parse_tokens(tail.split_ascii_whitespace())
            .map(Some)
            .map_err(|e| FieldError::new(FIELD, format!("utility tuples: {e}"))),
    }
}

enum Skip {
    ProcsNotPositive,
    RuntimeNegative,
    SubmitNegative,
    ProcsExceedMachine,
}

fn job_from_fields(f: &Fields, cpu: f64, machine: u32) -> Result<JobRecord, Skip> {
    let procs = if f[7] > 0 { f[7] } else { f[4] };
    if procs <= 0 {
        return Err(Skip::ProcsNotPositive);
    }
    let runtime = f[3];
    if runtime < 0 {
        return Err(Skip::RuntimeNegative);
    }
    if f[1] < 0 {
        return Err(Skip::SubmitNegative);
    }
    if procs > machine as i64 {
        return Err(Skip::ProcsExceedMachine);
    }
    let estimate = if f[8] > 0 { f[8] } else { runtime };
    Ok(JobRecord {
        swf_id: f[0] as u64,
        submit: f[1] as Time,
        runtime: runtime.min(estimate),
        procs: procs as u32,
        estimate,
        user: narrow(f[11]),
        group: narrow(f[12]),
        executable: narrow(f[13]),
        queue: narrow(f[14]),
        partition: narrow(f[15]),
        status: f[10].clamp(-1, i8::MAX as i64) as i8,
        recorded_wait: narrow(f[2]),
        avg_cpu: cpu as f32,
        used_memory: narrow(f[6]),
        requested_procs: narrow(f[7]),
        requested_time: narrow(f[8]),
        requested_memory: narrow(f[9]),
        preceding_job: narrow(f[16]),
        think_time: narrow(f[17]),
    })
}

/// Writes a simulated schedule as SWF: every job with its simulated wait (f3) and runtime
/// (f4), the processors it used (f5) and every other field as read, then its utility
/// tuples if the jobs have them. Jobs are written in arrival order. `start[j]` is the
/// simulated start of job `j`; [`recorded_starts`] rewrites the trace's own schedule.
pub fn write_swf<W: Write>(
    mut out: W,
    workload: &Workload,
    start: &[Time],
    note: &str,
) -> std::io::Result<()> {
    let jobs = &workload.jobs;
    writeln!(out, "; Version: 2.2")?;
    writeln!(out, "; Note: written by schedlab {}", env!("CARGO_PKG_VERSION"))?;
    if !note.is_empty() {
        writeln!(out, "; Note: {note}")?;
    }
    writeln!(out, "; Note: source {}", workload.name)?;
    if let Some(t) = workload.header.unix_start_time {
        writeln!(out, "; UnixStartTime: {t}")?;
    }
    if let Some(tz) = &workload.header.time_zone_string {
        writeln!(out, "; TimeZoneString: {tz}")?;
    }
    writeln!(out, "; MaxJobs: {}", jobs.len())?;
    writeln!(out, "; MaxRecords: {}", jobs.len())?;
    writeln!(out, "; MaxProcs: {}", workload.procs)?;
    if jobs.gpus.is_some() {
        writeln!(out, "; Extension: GPUs")?;
    }
    for j in 0..jobs.len() {
        write!(
            out,
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            jobs.swf_id[j],
            jobs.submit[j],
            start[j] - jobs.submit[j],
            jobs.runtime[j],
            jobs.procs[j],
            jobs.avg_cpu[j],
            jobs.used_memory[j],
            jobs.requested_procs[j],
            jobs.requested_time[j],
            jobs.requested_memory[j],
            jobs.status[j],
            jobs.user[j],
            jobs.group[j],
            jobs.executable[j],
            jobs.queue[j],
            jobs.partition[j],
            jobs.preceding_job[j],
            jobs.think_time[j],
        )?;
        if let Some(g) = &jobs.gpus {
            write!(out, " {}", g[j])?;
        }
        match &jobs.utility {
            Some(u) => writeln!(out, " {}", u[j])?,
            None => writeln!(out)?,
        }
    }
    out.flush()
}

/// Start times that make [`write_swf`] reproduce the wait times the trace recorded (-1,
/// unknown, stays -1).
pub fn recorded_starts(jobs: &Jobs) -> Vec<Time> {
    jobs.submit
        .iter()
        .zip(&jobs.recorded_wait)
        .map(|(&s, &w)| s + w as Time)
        .collect()
}

/// Convenience for tests and examples: parse SWF text held in memory.
pub fn parse_swf_str(text: &str, name: &str, options: &SwfOptions) -> Result<Workload> {
    parse_swf(text.as_bytes(), &PathBuf::from(name), options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A field as text: whole numbers with or without a sign, of every width up to past an
    /// i64's, and for field 6 decimals too (some past the fast path's 15 digits).
    fn token(field: usize) -> impl Strategy<Value = String> {
        let whole = prop_oneof![
            (-1i64..100_000).prop_map(|v| v.to_string()),
            (0i64..i64::MAX).prop_map(|v| format!("+{v}")),
            "[+-]?[0-9]{1,18}",
            "[0-9]{19,21}",
            Just("-1".to_string()),
        ];
        if field == FRACTIONAL_FIELD {
            prop_oneof![
                whole.boxed(),
                (0u64..1_000_000_000_000, 1usize..12).prop_map(|(v, d)| {
                    let s = format!("{v:0>width$}", width = d + 1);
                    format!("{}.{}", &s[..s.len() - d], &s[s.len() - d..])
                }),
                "[0-9]{1,20}\\.[0-9]{1,20}",
            ]
            .boxed()
        } else {
            whole.boxed()
        }
    }

    /// A field the fast path must take: at most 18 digits, and for field 6 a decimal of at
    /// most 15.
    fn plain_token(field: usize) -> BoxedStrategy<String> {
        match field == FRACTIONAL_FIELD {
            true => prop_oneof!["[+-]?[0-9]{1,15}", "[+-]?[0-9]{1,8}\\.[0-9]{1,7}"].boxed(),
            false => prop_oneof![8 => "[+-]?[0-9]{1,6}", 1 => "[+-]?[0-9]{7,18}"].boxed(),
        }
    }

    /// 18 tokens, each after one to a dozen spaces and tabs, and a few blanks after them.
    fn joined(tokens: Vec<BoxedStrategy<String>>) -> impl Strategy<Value = String> {
        (tokens, prop::collection::vec("[ \t]{1,12}", 18), "[ \t]{0,3}").prop_map(|(t, gaps, end)| {
            t.iter()
                .zip(gaps)
                .map(|(t, g)| format!("{g}{t}"))
                .collect::<String>()
                + &end
        })
    }

    fn line() -> impl Strategy<Value = String> {
        joined((1..=18).map(|f| token(f).boxed()).collect())
    }

    fn plain_line() -> impl Strategy<Value = String> {
        joined((1..=18).map(plain_token).collect())
    }

    proptest! {
        /// The fast path reads what the general parser reads, bit for bit, or leaves the
        /// line to it.
        #[test]
        fn the_fast_path_agrees_with_the_parser(line in line()) {
            let (mut fast, mut slow) = ([0; 18], [0; 18]);
            if let Some(cpu) = whole_number_fields(line.as_bytes(), &mut fast) {
                let (slow_cpu, tail) = parse_fields(line.as_bytes(), &mut slow).unwrap();
                prop_assert_eq!(fast, slow);
                prop_assert_eq!(cpu.to_bits(), slow_cpu.to_bits(), "{}", line);
                prop_assert_eq!(tail, "");
            }
        }

        /// It takes every line of whole numbers and short decimals, whatever their widths
        /// and the blanks between them.
        #[test]
        fn the_fast_path_takes_plain_lines(line in plain_line()) {
            let (mut fast, mut slow) = ([0; 18], [0; 18]);
            let cpu = whole_number_fields(line.as_bytes(), &mut fast);
            prop_assert!(cpu.is_some(), "{}", line);
            let (slow_cpu, _) = parse_fields(line.as_bytes(), &mut slow).unwrap();
            prop_assert_eq!(fast, slow);
            prop_assert_eq!(cpu.unwrap().to_bits(), slow_cpu.to_bits(), "{}", line);
        }

        /// A line with one byte changed to any other is read as the parser reads it, or
        /// left to it.
        #[test]
        fn the_fast_path_refuses_what_the_parser_refuses(line in plain_line(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut bytes = line.into_bytes();
            let at = at.index(bytes.len());
            bytes[at] = byte;
            let (mut fast, mut slow) = ([0; 18], [0; 18]);
            if let Some(cpu) = whole_number_fields(&bytes, &mut fast) {
                let parsed = parse_fields(&bytes, &mut slow);
                prop_assert!(parsed.is_ok(), "{:?}", String::from_utf8_lossy(&bytes));
                let (slow_cpu, tail) = parsed.unwrap();
                prop_assert_eq!(fast, slow);
                prop_assert_eq!(cpu.to_bits(), slow_cpu.to_bits());
                prop_assert_eq!(tail, "");
            }
        }
    }

    /// A negative zero average CPU time keeps its sign on both paths (found by the
    /// property tests: the fast path once read "-0.0" as +0.0).
    #[test]
    fn header_numbers_are_read_whole_or_not_at_all() {
        let read = |v: &str| leading_number::<u64>(v);
        for (value, expected) in [
            ("1664 (72, 1368, 224)", Some(1664)),
            ("9216 (8 cores x 1152 nodes)", Some(9216)),
            ("1,664", Some(1664)),
            ("1_664", Some(1664)),
            ("1,234,567", Some(1_234_567)),
            ("338;", Some(338)),
            ("400(48 interactive)", Some(400)),
            // Once read as 1, a one-processor machine (issue 40).
            ("1e30", None),
            ("1.5", None),
            ("12,34", None),
            ("1,", None),
            ("1664x", None),
            ("", None),
        ] {
            assert_eq!(read(value), expected, "{value:?}");
        }
        assert_eq!(leading_number::<i64>("-25 (before 1970)"), Some(-25));
    }

    #[test]
    fn a_byte_order_mark_opens_the_first_line() {
        let job = "1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n";
        for options in [
            SwfOptions::default(),
            SwfOptions {
                lenient: true,
                ..SwfOptions::default()
            },
        ] {
            let w = parse_swf_str(&format!("\u{FEFF}; MaxProcs: 64\n{job}"), "bom.swf", &options).unwrap();
            assert_eq!((w.procs, w.jobs.len()), (64, 1));
        }
        let w = parse_swf_str(
            &format!("\u{FEFF}{job}"),
            "bom.swf",
            &SwfOptions {
                procs: Some(8),
                ..SwfOptions::default()
            },
        )
        .unwrap();
        assert_eq!(w.jobs.len(), 1);
        // Only the first line may open with one.
        let e = parse_swf_str(
            &format!("; MaxProcs: 64\n\u{FEFF}{job}"),
            "bom.swf",
            &SwfOptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("bom.swf:2"), "{e}");
    }

    #[test]
    fn the_gpu_extension_reads_field_19_and_writes_it_back() {
        let text = "; MaxProcs: 64\n; Extension: GPUs\n\
                    1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1 2\n\
                    2 5 10 100 8 -1 -1 8 100 -1 1 1 1 1 1 -1 -1 -1 -1\n\
                    3 9 10 100 1 -1 -1 1 100 -1 1 1 1 1 1 -1 -1 -1 0 10 1.0 20 0.5\n";
        // Utility tuples follow field 19, on every line or none.
        let e = parse_swf_str(text, "g.swf", &SwfOptions::default());
        assert!(e.is_err_and(|e| e.to_string().contains("g.swf:5:")));
        let text = text.replace(" 0 10 1.0 20 0.5", " 0");
        let w = parse_swf_str(&text, "g.swf", &SwfOptions::default()).unwrap();
        let mut written = Vec::new();
        write_swf(&mut written, &w, &recorded_starts(&w.jobs), "").unwrap();
        let again = parse_swf_str(
            std::str::from_utf8(&written).unwrap(),
            "again.swf",
            &SwfOptions::default(),
        )
        .unwrap();
        assert_eq!(again.jobs.gpus, Some(vec![2, 0, 0]));
        // Errors name the line and the field.
        let message = |text: &str| {
            parse_swf_str(text, "g.swf", &SwfOptions::default())
                .unwrap_err()
                .to_string()
        };
        let job = "1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1";
        let e = message(&format!("; MaxProcs: 64\n; Extension: GPUs\n{job} many\n"));
        assert!(
            e.contains("g.swf:3: field 19 (GPUs): expected a whole number"),
            "{e}"
        );
        let e = message(&format!("; MaxProcs: 64\n; Extension: GPUs\n{job}\n"));
        assert!(e.contains("g.swf:3: field 19 (GPUs): missing"), "{e}");
        let e = message(&format!("; MaxProcs: 64\n{job}\n; Extension: GPUs\n"));
        assert!(
            e.contains("g.swf:3: 'Extension: GPUs' after the first job line"),
            "{e}"
        );
        // Without the extension a 19th field is what it was: refused as unexpected.
        let e = message(&format!("; MaxProcs: 64\n{job} 2\n"));
        assert!(e.contains("g.swf:2:"), "{e}");
    }

    #[test]
    fn a_negative_zero_decimal_keeps_its_sign() {
        let line = "1 0 10 100 4 -0.0 -1 -1 100 -1 1 1 1 1 1 1 -1 -1";
        let (mut fast, mut slow) = ([0; 18], [0; 18]);
        let cpu = whole_number_fields(line.as_bytes(), &mut fast).unwrap();
        let (slow_cpu, _) = parse_fields(line.as_bytes(), &mut slow).unwrap();
        assert_eq!(cpu.to_bits(), (-0.0f64).to_bits());
        assert_eq!(slow_cpu.to_bits(), (-0.0f64).to_bits());
        assert_eq!(fast, slow);
    }

    #[test]
    fn the_fast_path_leaves_odd_lines_to_the_parser() {
        let ok = "1 0 10 100 4 1.5 -1 -1 100 -1 1 1 1 1 1 1 -1 -1";
        assert!(whole_number_fields(ok.as_bytes(), &mut [0; 18]).is_some());
        for odd in [
            "1 0 10 100 4 1.5 -1 -1 100 -1 1 1 1 1 1 1 -1", // 17 fields
            "1 0 10 100 4 1.5 -1 -1 100 -1 1 1 1 1 1 1 -1 -1 (3)", // a utility tuple
            "1 0 10 100 4 1e3 -1 -1 100 -1 1 1 1 1 1 1 -1 -1", // an exponent
            "1 0 10 100 4 5. -1 -1 100 -1 1 1 1 1 1 1 -1 -1", // no decimals
            "1 0 1.0 100 4 1 -1 -1 100 -1 1 1 1 1 1 1 -1 -1", // a decimal elsewhere
            "1 0 10 100 4 1 -1 -1 100 -1 1 1 1 1 1 1 -1 -", // a sign alone
        ] {
            assert!(
                whole_number_fields(odd.as_bytes(), &mut [0; 18]).is_none(),
                "{odd}"
            );
        }
    }
}

#[cfg(test)]
mod sizing_tests {
    use super::*;
    use std::io::Write;

    fn lines(n: usize) -> String {
        let mut text = String::from("; MaxProcs: 64\n");
        for i in 0..n {
            text += &format!(
                "{} {} -1 {} 4 -1 -1 4 100 -1 1 {} -1 -1 -1 -1 -1 -1\n",
                i + 1,
                i * 10,
                i % 90,
                i % 7
            );
        }
        text
    }

    /// The table is allocated once, to about the rows the file holds, plain or gzip, and
    /// a length hint that proves wrong loses no job.
    #[test]
    fn the_table_is_sized_from_the_input_length() {
        let n = 150_000;
        let text = lines(n);
        let dir = std::env::temp_dir().join(format!("schedlab-sizing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("t.swf");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.join("t.swf.gz");
        let mut enc = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap();
        for path in [&plain, &gz] {
            let jobs = read_swf(path, &SwfOptions::default()).unwrap().jobs;
            assert_eq!(jobs.len(), n);
            // Lines grow longer as job numbers and times gain digits, so the rate of the
            // first rows overestimates; doubling would have left room for 262,144.
            let room = jobs.capacity();
            assert!(room <= n + n / 4, "{}: room for {room}", path.display());
        }
        for wrong in [Some(100), Some(text.len() as u64 / 3), None] {
            let w = parse_sized(text.as_bytes(), &plain, &SwfOptions::default(), wrong).unwrap();
            assert_eq!(w.jobs.len(), n);
            assert_eq!(w.jobs.submit[n - 1], (n as i64 - 1) * 10);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
