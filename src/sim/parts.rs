//! A run made of independent parts (the partitions of a machine, each its own pool with its
//! own queue): each part is simulated on its own jobs, and its outcome copied back into the
//! whole workload's job order, so that metrics, per-job outputs and figures read one run.

use super::engine::{Outcome, Window};
use super::power_states::NodeSwitch;
use super::state::{PredictionChange, UNSET};
use crate::Time;
use crate::workload::JobId;

/// The outcome of a run assembled from parts, owned; [`Parts::outcome`] reads it as one
/// run. Buffers are kept across runs.
#[derive(Debug, Default)]
pub struct Parts {
    start: Vec<Time>,
    end: Vec<Time>,
    prediction: Vec<Time>,
    /// When each job's last prediction was made, where it was not at the job's arrival
    /// ([`Outcome::accuracy`]): empty while no part changed a prediction, and `UNSET` for
    /// the jobs of parts that changed none (their `since` is their arrival). At 10 million
    /// jobs the column is 80 MB that a run of user estimates never reads.
    since: Vec<Time>,
    /// Empty while no part wrote its own (as in [`Outcome`]: empty stands for zeros).
    inaccuracy: Vec<f64>,
    accuracy: Vec<f64>,
    misses: Vec<u32>,
    history: Vec<PredictionChange>,
    /// Every part's switch-offs and boots, each marked with its part's partition.
    switches: Vec<NodeSwitch>,
    /// When each job reached the scheduler, where jobs were held ([`Parts::hold`]); empty
    /// otherwise.
    released: Vec<Time>,
    passes: u64,
    events: u64,
    saturated: bool,
    stopped_at: Time,
    backfilled: u64,
    stranded_core_seconds: u64,
    /// Each partition's [`Outcome::stranded_core_seconds`], by partition.
    stranded_by_partition: Vec<u64>,
}

impl Parts {
    /// Starts a run of `jobs` jobs, none of them simulated yet.
    pub fn begin(&mut self, jobs: usize) {
        for column in [&mut self.start, &mut self.end, &mut self.prediction] {
            column.clear();
            column.resize(jobs, UNSET);
        }
        self.since.clear();
        self.inaccuracy.clear();
        self.accuracy.clear();
        self.misses.clear();
        self.history.clear();
        self.switches.clear();
        self.released.clear();
        self.stranded_by_partition.clear();
        (
            self.passes,
            self.events,
            self.backfilled,
            self.stranded_core_seconds,
        ) = (0, 0, 0, 0);
        self.saturated = false;
        self.stopped_at = Time::MIN;
    }

    /// Copies the outcome of partition `partition` in: its job `i` is the whole's job
    /// `rows[i]`, and its nodes' switches are that partition's.
    pub fn absorb_partition(&mut self, part: &Outcome, rows: &[u32], partition: usize) {
        let from = self.switches.len();
        self.absorb(part, rows);
        for s in &mut self.switches[from..] {
            s.partition = partition as u32;
        }
        if self.stranded_by_partition.len() <= partition {
            self.stranded_by_partition.resize(partition + 1, 0);
        }
        self.stranded_by_partition[partition] += part.stranded_core_seconds;
    }

    /// Copies a part's outcome in: its job `i` is the whole's job `rows[i]`.
    pub fn absorb(&mut self, part: &Outcome, rows: &[u32]) {
        debug_assert_eq!(part.start.len(), rows.len());
        assert!(
            part.arrivals.is_none(),
            "parts are simulated without dependencies between their jobs"
        );
        let n = self.start.len();
        for (i, &row) in rows.iter().enumerate() {
            let r = row as usize;
            self.start[r] = part.start[i];
            self.end[r] = part.end[i];
            self.prediction[r] = part.prediction[i];
        }
        // Columns a part left empty (no prediction changed in it) stand for zeros, and its
        // jobs' predictions were all made at their arrival.
        if !part.inaccuracy.is_empty() {
            self.inaccuracy.resize(n, 0.0);
            self.accuracy.resize(n, 0.0);
            self.since.resize(n, UNSET);
            for (i, &row) in rows.iter().enumerate() {
                self.inaccuracy[row as usize] = part.inaccuracy[i];
                self.accuracy[row as usize] = part.accuracy[i];
                self.since[row as usize] = part.since[i];
            }
        }
        if !part.misses.is_empty() {
            self.misses.resize(n, 0);
            for (i, &row) in rows.iter().enumerate() {
                self.misses[row as usize] = part.misses[i];
            }
        }
        self.history.extend(part.history.iter().map(|c| PredictionChange {
            job: JobId(rows[c.job.index()]),
            ..*c
        }));
        self.switches.extend_from_slice(part.switches);
        self.passes += part.passes;
        self.events += part.events;
        self.backfilled += part.backfilled;
        self.stranded_core_seconds += part.stranded_core_seconds;
        self.saturated |= part.saturated;
        self.stopped_at = self.stopped_at.max(part.stopped_at);
    }

    /// Records that the jobs were held back: job `j` reached the scheduler at `released[j]`
    /// ([`Outcome::released`]).
    pub fn hold(&mut self, released: impl Iterator<Item = Time>) {
        self.released.clear();
        self.released.extend(released);
    }

    /// The whole run as one outcome. Its prediction history is in time order (each part's
    /// in its own order, parts interleaved by time, ties in part order).
    pub fn outcome(&mut self) -> Outcome<'_> {
        self.history.sort_by_key(|c| c.at);
        Outcome {
            start: &self.start,
            end: &self.end,
            passes: self.passes,
            events: self.events,
            saturated: self.saturated,
            stopped_at: self.stopped_at,
            prediction: &self.prediction,
            since: &self.since,
            inaccuracy: &self.inaccuracy,
            accuracy: &self.accuracy,
            misses: &self.misses,
            backfilled: self.backfilled,
            stranded_core_seconds: self.stranded_core_seconds,
            stranded_by_partition: &self.stranded_by_partition,
            history: &self.history,
            arrivals: None,
            switches: &self.switches,
            released: (!self.released.is_empty()).then_some(self.released.as_slice()),
        }
    }
}

impl Window {
    /// The window of a part whose jobs are the whole's rows `rows` (ascending): it measures
    /// the part's jobs the whole's window measures (a contiguous run of them, since the
    /// rows keep arrival order), and saturates at the same backlog bound.
    pub fn of_part(&self, rows: &[u32]) -> Window {
        let position = |i: usize| rows.partition_point(|&r| (r as usize) < i);
        Window {
            measured: position(self.measured.start)..position(self.measured.end),
            saturation: self.saturation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parts_window_measures_the_parts_jobs_in_the_wholes_window() {
        let whole = Window {
            measured: 3..8,
            saturation: Some(5),
        };
        let part = whole.of_part(&[0, 2, 3, 5, 7, 8, 9]);
        assert_eq!(part.measured, 2..5);
        assert_eq!(part.saturation, Some(5));
        assert_eq!(whole.of_part(&[0, 1]).measured, 2..2);
    }
}
