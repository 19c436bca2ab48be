//! A picture of the schedule: each job a box over the processors it held while it ran,
//! within a window of time. The simulator counts processors without naming them, so the
//! picture names them: at each instant, ends first, then each starting job (in start
//! order, ties by arrival) takes the lowest-numbered free processors. A job may then hold
//! several runs of processors, drawn as one box each; the boxes show the schedule's
//! shape, not an allocation the machine made.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use plotters::prelude::*;

use crate::Time;
use crate::atomic::write_atomically;
use crate::error::{Error, Result};
use crate::workload::Jobs;

/// The most jobs one picture draws: beyond, the boxes are too thin to see.
pub const MAX_JOBS: usize = 20_000;

/// Why a schedule cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GanttError {
    #[error("{jobs} jobs ran in the window, more than the {MAX_JOBS} a picture can show; narrow --window")]
    TooMany { jobs: usize },
    #[error("job {job} starts at {at} on {procs} processors, but only {free} are free: not a valid schedule")]
    Overfull {
        job: u64,
        at: Time,
        procs: usize,
        free: usize,
    },
}

/// One box: a job on processors `first..=last` from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Box {
    pub job: usize,
    pub first: u32,
    pub last: u32,
    pub from: Time,
    pub to: Time,
}

/// The boxes of the jobs that ran during `window` (start before its end, end after its
/// start), cut to it. Jobs that never started are left out; one still running at the end
/// of the run runs to the window's end. Errs beyond [`MAX_JOBS`] jobs.
pub fn boxes(
    jobs: &Jobs,
    procs: u32,
    start: &[Time],
    end: &[Time],
    window: (Time, Time),
) -> std::result::Result<Vec<Box>, GanttError> {
    let unset = crate::sim::state::UNSET;
    let (a, b) = window;
    let shown = |j: usize| start[j] != unset && start[j] < b && (end[j] == unset || end[j] > a);
    let in_window = (0..jobs.len()).filter(|&j| shown(j)).count();
    if in_window > MAX_JOBS {
        return Err(GanttError::TooMany { jobs: in_window });
    }
    let named = processors(jobs, procs, start, end, b)?;
    let mut order: Vec<usize> = (0..jobs.len()).filter(|&j| shown(j)).collect();
    order.sort_unstable_by_key(|&j| (start[j], j));
    let mut out = Vec::new();
    for j in order {
        let to = if end[j] == unset { b } else { end[j].min(b) };
        let from = start[j].max(a);
        if to <= from {
            continue;
        }
        for (first, last) in runs(&named[j]) {
            out.push(Box {
                job: j,
                first,
                last,
                from,
                to,
            });
        }
    }
    Ok(out)
}

/// The processors each job held, named as the module docs say: at each instant, ends
/// first, then jobs that end as they start (which the engine started and ended before
/// the instant's last pass) take the lowest-numbered free ones for that instant only,
/// then each other starting job (by arrival) takes the lowest-numbered free ones. Jobs
/// that never started, or start at `until` or later, hold none. Errs if a start finds too
/// few free: not a schedule of `procs` processors.
pub fn processors(
    jobs: &Jobs,
    procs: u32,
    start: &[Time],
    end: &[Time],
    until: Time,
) -> std::result::Result<Vec<Vec<u32>>, GanttError> {
    let unset = crate::sim::state::UNSET;
    // (time, what, job): at one instant ends (0), then instant jobs (1), then starts (2).
    let mut events: Vec<(Time, u8, usize)> = Vec::new();
    for j in 0..jobs.len() {
        if start[j] == unset || start[j] >= until {
            continue;
        }
        if end[j] == start[j] {
            events.push((start[j], 1, j));
            continue;
        }
        events.push((start[j], 2, j));
        if end[j] != unset {
            events.push((end[j], 0, j));
        }
    }
    events.sort_unstable();
    let mut free: BTreeSet<u32> = (0..procs).collect();
    let mut held: Vec<Vec<u32>> = vec![Vec::new(); jobs.len()];
    for (t, what, j) in events {
        if what == 0 {
            free.extend(held[j].iter().copied());
            continue;
        }
        let p = jobs.procs[j] as usize;
        let taken: Vec<u32> = free.iter().take(p).copied().collect();
        if taken.len() < p {
            return Err(GanttError::Overfull {
                job: jobs.swf_id[j],
                at: t,
                procs: p,
                free: taken.len(),
            });
        }
        if what == 2 {
            for q in &taken {
                free.remove(q);
            }
        }
        held[j] = taken;
    }
    Ok(held)
}

/// Runs of consecutive numbers in `sorted`, as (first, last).
pub fn runs(sorted: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &q in sorted {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == q => *last = q,
            _ => out.push((q, q)),
        }
    }
    out
}

/// Colours of the boxes, by user (by job for unknown users): light, so the outlines show.
const FILLS: [RGBColor; 8] = [
    RGBColor(128, 184, 216),
    RGBColor(234, 174, 128),
    RGBColor(128, 206, 185),
    RGBColor(229, 188, 211),
    RGBColor(242, 207, 128),
    RGBColor(170, 217, 244),
    RGBColor(180, 180, 180),
    RGBColor(212, 170, 128),
];

/// Draws the boxes of `window` as an SVG file: time in hours on x, processors on y.
pub fn write_gantt_svg(
    path: &Path,
    title: &str,
    jobs: &Jobs,
    procs: u32,
    boxes: &[Box],
    window: (Time, Time),
) -> Result<()> {
    let err = |e: String| Error::Output {
        path: path.to_path_buf(),
        error: std::io::Error::other(e),
    };
    let (a, b) = (window.0 as f64 / 3600.0, window.1 as f64 / 3600.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(a..b, 0f64..procs as f64)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("Time (hours since the workload's start)")
            .y_desc("Processors")
            .x_label_formatter(&|x| super::plot::number(*x, if (x.fract()).abs() < 1e-9 { 0 } else { 1 }))
            .y_label_formatter(&|y| super::plot::number(*y, 0))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(boxes.iter().map(|x| {
                let user = jobs.user[x.job];
                let key = if user >= 0 { user as usize } else { x.job };
                Rectangle::new(
                    [
                        (x.from as f64 / 3600.0, x.first as f64),
                        (x.to as f64 / 3600.0, x.last as f64 + 1.0),
                    ],
                    FILLS[key % FILLS.len()].filled(),
                )
            }))
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(boxes.iter().map(|x| {
                Rectangle::new(
                    [
                        (x.from as f64 / 3600.0, x.first as f64),
                        (x.to as f64 / 3600.0, x.last as f64 + 1.0),
                    ],
                    RGBColor(60, 60, 60).stroke_width(1),
                )
            }))
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    write_atomically(path, |w| w.write_all(svg.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    #[test]
    fn boxes_take_the_lowest_free_processors_and_split_into_runs() {
        // 4 processors. A: 2 procs 0..10 takes 0-1; B: 1 proc 0..5 takes 2; C: 1 proc
        // 5..20 takes B's 2 (freed at 5, ends first); D: 2 procs 10..30 takes A's 0-1; E: 3
        // procs 30..40, everything free, takes 0-2.
        let records = [
            JobRecord::new(1, 0, 10, 2, 10),
            JobRecord::new(2, 0, 5, 1, 5),
            JobRecord::new(3, 0, 15, 1, 15),
            JobRecord::new(4, 0, 20, 2, 20),
            JobRecord::new(5, 0, 10, 3, 10),
        ];
        let jobs = Jobs::from_records(&records);
        let start = [0, 0, 5, 10, 30];
        let end = [10, 5, 20, 30, 40];
        let got = boxes(&jobs, 4, &start, &end, (0, 100)).unwrap();
        let b = |job, first, last, from, to| Box {
            job,
            first,
            last,
            from,
            to,
        };
        assert_eq!(
            got,
            [
                b(0, 0, 1, 0, 10),
                b(1, 2, 2, 0, 5),
                b(2, 2, 2, 5, 20),
                b(3, 0, 1, 10, 30),
                b(4, 0, 2, 30, 40)
            ]
        );
        // A window cuts the boxes and leaves out jobs outside it.
        let got = boxes(&jobs, 4, &start, &end, (8, 12)).unwrap();
        assert_eq!(got, [b(0, 0, 1, 8, 10), b(2, 2, 2, 8, 12), b(3, 0, 1, 10, 12)]);
        // Processors split into runs: with 0 and 2 free, a 2-processor job gets two boxes.
        let records = [
            JobRecord::new(1, 0, 10, 1, 10),
            JobRecord::new(2, 0, 10, 1, 10),
            JobRecord::new(3, 0, 10, 2, 10),
        ];
        let jobs = Jobs::from_records(&records);
        let got = boxes(&jobs, 3, &[0, 0, 5], &[5, 10, 15], (0, 20)).unwrap();
        assert_eq!(got[2..], [b(2, 0, 0, 5, 15), b(2, 2, 2, 5, 15)]);
        // An invalid schedule is named, not drawn.
        let e = boxes(&jobs, 3, &[0, 0, 0], &[5, 10, 15], (0, 20))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a valid schedule"), "{e}");
    }
}
