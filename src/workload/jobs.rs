//! The job table: a struct of arrays indexed by the dense [`JobId`].

use crate::Time;

/// Dense index of a job in a [`Jobs`] table, in arrival order (submit time, then trace order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId(pub u32);

impl JobId {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Parameters of a malleable job in Downey's model: sequential lifetime `L` (seconds),
/// average parallelism `A` and variance parameter `sigma`. Only synthetic models fill them.
#[derive(Clone, Debug, Default)]
pub struct MalleableColumns {
    pub lifetime: Vec<f64>,
    pub avg_parallelism: Vec<f64>,
    pub sigma: Vec<f64>,
}

/// All jobs of a workload, one column per field.
///
/// Invariant: jobs are sorted by `submit` (stable with respect to the trace), so `JobId`
/// order is arrival order. `runtime <= estimate` always holds: a job that ran longer than
/// its estimate was killed at the estimate (see `swf`).
///
/// Fields the simulation does not read (CPU time, memory, preceding job, think time) are
/// kept so that a schedule written back as SWF loses nothing; `-1` means unknown, as in SWF.
/// A table read for a simulation alone ([`Columns::Simulated`]) leaves them empty: only the
/// columns of [`Jobs::push_simulated`] have rows.
/// Which columns a trace is read into, in order of what they hold: each holds the one
/// before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Columns {
    /// Those a simulation on one pool reads ([`Jobs::push_simulated`]), about half the
    /// memory of every column.
    Simulated,
    /// Those and the ones a machine of nodes reads: the partition, and the memory per
    /// processor as `Machine::request` reads it, kept in `requested_memory`: field 10, or
    /// field 7 where 10 is absent (`used_memory` stays empty: one column, not two).
    Machine,
    /// Every field, so that the trace can be written back or other fields derived.
    #[default]
    Every,
}

#[derive(Clone, Debug, Default)]
pub struct Jobs {
    /// SWF job number (field 1).
    pub swf_id: Vec<u64>,
    pub submit: Vec<Time>,
    /// Simulated runtime in seconds, already capped at the estimate.
    pub runtime: Vec<Time>,
    /// Processors the job occupies (field 8 if positive, else field 5).
    pub procs: Vec<u32>,
    /// User estimate of the runtime (field 9 if positive, else the runtime).
    pub estimate: Vec<Time>,
    pub user: Vec<i32>,
    pub group: Vec<i32>,
    pub executable: Vec<i32>,
    pub queue: Vec<i32>,
    pub partition: Vec<i32>,
    pub status: Vec<i8>,
    /// Wait time the trace recorded (field 3, -1 unknown): not used by the simulation,
    /// which computes its own, but by models built on the original schedule (the utility
    /// deadlines of Lee & Snavely).
    pub recorded_wait: Vec<i32>,
    /// Raw SWF fields kept for round trips: 6, 7, 8, 9, 10, 17, 18. Narrow types keep a
    /// 250k-job log well under 64 MiB; values that do not fit are stored as -1 (unknown).
    pub avg_cpu: Vec<f32>,
    pub used_memory: Vec<i32>,
    pub requested_procs: Vec<i32>,
    pub requested_time: Vec<i32>,
    pub requested_memory: Vec<i32>,
    pub preceding_job: Vec<i32>,
    pub think_time: Vec<i32>,
    /// Model fields; empty for traces.
    pub malleable: Option<MalleableColumns>,
    /// Priority of each job, 0 the highest (from the queue field through a
    /// [`crate::utility::PriorityMap`]); `None` until a map is applied.
    pub priority: Option<Vec<u16>>,
    /// Utility of each job's turnaround (Lee & Snavely), from the SWF extension or the
    /// synthetic generator; `None` for plain traces.
    pub utility: Option<Vec<crate::workload::UtilityFunction>>,
    /// GPUs each job requests in all (0: none), from the SWF GPU extension, Slurm's
    /// `gres/gpu` or a drawn share of GPU jobs (`crate::machine::gpu_share`); `None` when the
    /// workload records none.
    pub gpus: Option<Vec<u32>>,
}

/// A raw SWF field in the table's narrow type: -1 (unknown) where it does not fit.
pub fn narrow(v: i64) -> i32 {
    i32::try_from(v).unwrap_or(-1)
}

/// One job as a plain record, used to build a [`Jobs`] table row by row.
#[derive(Clone, Debug)]
pub struct JobRecord {
    pub swf_id: u64,
    pub submit: Time,
    pub runtime: Time,
    pub procs: u32,
    pub estimate: Time,
    pub user: i32,
    pub group: i32,
    pub executable: i32,
    pub queue: i32,
    pub partition: i32,
    pub status: i8,
    pub recorded_wait: i32,
    pub avg_cpu: f32,
    pub used_memory: i32,
    pub requested_procs: i32,
    pub requested_time: i32,
    pub requested_memory: i32,
    pub preceding_job: i32,
    pub think_time: i32,
}

impl JobRecord {
    /// A job with only the fields a scheduler needs; every other field unknown (-1).
    pub fn new(swf_id: u64, submit: Time, runtime: Time, procs: u32, estimate: Time) -> Self {
        JobRecord {
            swf_id,
            submit,
            runtime: runtime.min(estimate),
            procs,
            estimate,
            user: -1,
            group: -1,
            executable: -1,
            queue: -1,
            partition: -1,
            status: -1,
            recorded_wait: -1,
            avg_cpu: -1.0,
            used_memory: -1,
            requested_procs: -1,
            requested_time: -1,
            requested_memory: -1,
            preceding_job: -1,
            think_time: -1,
        }
    }
}

impl Jobs {
    pub fn with_capacity(n: usize) -> Self {
        Jobs {
            swf_id: Vec::with_capacity(n),
            submit: Vec::with_capacity(n),
            runtime: Vec::with_capacity(n),
            procs: Vec::with_capacity(n),
            estimate: Vec::with_capacity(n),
            user: Vec::with_capacity(n),
            group: Vec::with_capacity(n),
            executable: Vec::with_capacity(n),
            queue: Vec::with_capacity(n),
            partition: Vec::with_capacity(n),
            status: Vec::with_capacity(n),
            recorded_wait: Vec::with_capacity(n),
            avg_cpu: Vec::with_capacity(n),
            used_memory: Vec::with_capacity(n),
            requested_procs: Vec::with_capacity(n),
            requested_time: Vec::with_capacity(n),
            requested_memory: Vec::with_capacity(n),
            preceding_job: Vec::with_capacity(n),
            think_time: Vec::with_capacity(n),
            malleable: None,
            priority: None,
            utility: None,
            gpus: None,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.submit.len()
    }

    /// Rows the table holds room for without reallocating.
    pub fn capacity(&self) -> usize {
        self.submit.capacity()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.submit.is_empty()
    }

    /// GPUs job `j` requests in all: 0 where the workload records none.
    #[inline]
    pub fn gpus_of(&self, j: usize) -> u32 {
        self.gpus.as_ref().map_or(0, |g| g[j])
    }

    pub fn ids(&self) -> impl ExactSizeIterator<Item = JobId> + use<> {
        (0..self.len() as u32).map(JobId)
    }

    /// Reserves room for `additional` more jobs in every column.
    pub fn reserve(&mut self, additional: usize) {
        self.reserve_columns(additional, Columns::Every);
    }

    /// Reserves room for `additional` more jobs in the columns of [`Jobs::push_simulated`].
    pub fn reserve_simulated(&mut self, additional: usize) {
        self.swf_id.reserve_exact(additional);
        self.submit.reserve_exact(additional);
        self.runtime.reserve_exact(additional);
        self.procs.reserve_exact(additional);
        self.estimate.reserve_exact(additional);
        self.user.reserve_exact(additional);
        self.executable.reserve_exact(additional);
        self.requested_time.reserve_exact(additional);
    }

    /// Appends `r`'s `columns`.
    pub fn push_columns(&mut self, r: &JobRecord, columns: Columns) {
        self.push_simulated(r);
        match columns {
            Columns::Simulated => {}
            Columns::Machine => {
                self.partition.push(r.partition);
                let memory = if r.requested_memory > 0 {
                    r.requested_memory
                } else {
                    r.used_memory
                };
                self.requested_memory.push(memory);
            }
            Columns::Every => {
                self.partition.push(r.partition);
                self.used_memory.push(r.used_memory);
                self.requested_memory.push(r.requested_memory);
            }
        }
        if columns == Columns::Every {
            self.group.push(r.group);
            self.queue.push(r.queue);
            self.status.push(r.status);
            self.recorded_wait.push(r.recorded_wait);
            self.avg_cpu.push(r.avg_cpu);
            self.requested_procs.push(r.requested_procs);
            self.preceding_job.push(r.preceding_job);
            self.think_time.push(r.think_time);
        }
    }

    /// Reserves room for `additional` more jobs in `columns`.
    pub fn reserve_columns(&mut self, additional: usize, columns: Columns) {
        self.reserve_simulated(additional);
        if columns >= Columns::Machine {
            self.partition.reserve_exact(additional);
            self.requested_memory.reserve_exact(additional);
        }
        if columns == Columns::Every {
            self.used_memory.reserve_exact(additional);
            self.group.reserve_exact(additional);
            self.queue.reserve_exact(additional);
            self.status.reserve_exact(additional);
            self.recorded_wait.reserve_exact(additional);
            self.avg_cpu.reserve_exact(additional);
            self.requested_procs.reserve_exact(additional);
            self.preceding_job.reserve_exact(additional);
            self.think_time.reserve_exact(additional);
        }
    }

    pub fn push(&mut self, r: &JobRecord) {
        self.push_columns(r, Columns::Every);
    }

    /// Appends the fields a simulation reads: the job number, submit, runtime, processors
    /// and estimate, the user (fairness, `--jobs-out`), the executable (the predictors that
    /// group by it) and the requested time (the trace's warnings).
    pub fn push_simulated(&mut self, r: &JobRecord) {
        self.swf_id.push(r.swf_id);
        self.submit.push(r.submit);
        self.runtime.push(r.runtime);
        self.procs.push(r.procs);
        self.estimate.push(r.estimate);
        self.user.push(r.user);
        self.executable.push(r.executable);
        self.requested_time.push(r.requested_time);
    }

    /// Builds a table from records, sorting them stably by submit time.
    pub fn from_records(records: &[JobRecord]) -> Self {
        let mut jobs = Jobs::with_capacity(records.len());
        for r in records {
            jobs.push(r);
        }
        jobs.sort_by_submit();
        jobs
    }

    /// A table of the rows `order` names, in that order; a row may be named more than once.
    pub fn gather(&self, order: &[u32]) -> Jobs {
        self.gather_columns(order, Columns::Every)
    }

    /// [`Jobs::gather`] of the columns a simulation reads: those of
    /// [`Jobs::push_simulated`] and the optional ones (priorities, utility functions, GPUs,
    /// malleable jobs); the others are left empty, as in a table read for a simulation
    /// alone.
    pub fn gather_simulated(&self, order: &[u32]) -> Jobs {
        self.gather_columns(order, Columns::Simulated)
    }

    fn gather_columns(&self, order: &[u32], columns: Columns) -> Jobs {
        fn pick<T: Clone>(column: &[T], order: &[u32]) -> Vec<T> {
            if column.is_empty() {
                return Vec::new();
            }
            order.iter().map(|&i| column[i as usize].clone()).collect()
        }
        fn pick_if<T: Clone>(kept: bool, column: &[T], order: &[u32]) -> Vec<T> {
            if kept { pick(column, order) } else { Vec::new() }
        }
        let (machine, every) = (columns >= Columns::Machine, columns == Columns::Every);
        Jobs {
            swf_id: pick(&self.swf_id, order),
            submit: pick(&self.submit, order),
            runtime: pick(&self.runtime, order),
            procs: pick(&self.procs, order),
            estimate: pick(&self.estimate, order),
            user: pick(&self.user, order),
            group: pick_if(every, &self.group, order),
            executable: pick(&self.executable, order),
            queue: pick_if(every, &self.queue, order),
            partition: pick_if(machine, &self.partition, order),
            status: pick_if(every, &self.status, order),
            recorded_wait: pick_if(every, &self.recorded_wait, order),
            avg_cpu: pick_if(every, &self.avg_cpu, order),
            used_memory: pick_if(machine, &self.used_memory, order),
            requested_procs: pick_if(every, &self.requested_procs, order),
            requested_time: pick(&self.requested_time, order),
            requested_memory: pick_if(machine, &self.requested_memory, order),
            preceding_job: pick_if(every, &self.preceding_job, order),
            think_time: pick_if(every, &self.think_time, order),
            malleable: self.malleable.as_ref().map(|m| MalleableColumns {
                lifetime: pick(&m.lifetime, order),
                avg_parallelism: pick(&m.avg_parallelism, order),
                sigma: pick(&m.sigma, order),
            }),
            priority: self.priority.as_ref().map(|p| pick(p, order)),
            utility: self.utility.as_ref().map(|u| pick(u, order)),
            gpus: self.gpus.as_ref().map(|g| pick(g, order)),
        }
    }

    /// Sorts every column stably by submit time, so `JobId` order becomes arrival order
    /// with ties kept in trace order. O(n) when already sorted, O(n log n) otherwise.
    pub fn sort_by_submit(&mut self) {
        if self.submit.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_by_key(|&i| self.submit[i as usize]);
        *self = self.gather(&order);
    }
}
