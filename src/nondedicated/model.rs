//! The workloads of Hanzich et al. (section 6): NAS parallel jobs (Table 3) arriving with
//! gamma inter-arrival times, and local users (Table 2) whose sessions come and go.
//!
//! Choices where the paper is silent, each a parameter:
//! - Inter-arrival times are Gamma(alpha = 12, beta = 2.55) *seconds* (mean 30.6 s), times
//!   `arrival_scale` (default 1). The paper takes the parameters from Lublin & Feitelson
//!   without units; in minutes the cluster would stay nearly idle. In seconds the jobs ask
//!   for 56 CPUs on average (1,726 CPU-seconds each, Table 3) while the 64 nodes minus
//!   their local users offer about 54, and the lock-step CPU model wastes more: with the
//!   defaults the queue averages 249 jobs under FCFS + Normal at MPL 4 (`schedlab cluster
//!   --seed 1`), where the paper reports 4. Scaling inter-arrival times by 2.1 to 2.2
//!   brings the mean queue to 0-15 jobs (seeds 1-3; the transition is sharp).
//! - A job is communication-bound when its network rate exceeds its CPU share (Table 3:
//!   IS on 8 and 16 tasks), else computation-bound; the Uniform node selection mixes them.
//! - A local session draws its profile by the Distribution column, then its CPU load and
//!   memory from Normal(mean, sd) clipped to [0, 1] of the node, for its whole length;
//!   lengths are hyper-exponential (means 60 and 120 min, weights 0.4 and 0.6). A share s
//!   of the nodes carries a session at any time: round(s x nodes) sessions start at time 0
//!   on random nodes, and each that ends is replaced at once by one on a random node
//!   without a session (possibly the same node).

use std::fmt;
use std::str::FromStr;

use crate::call::{Call, CallError};

use rand_xoshiro::rand_core::SeedableRng;

use crate::random::{ModelRng, unit};
use rand_distr::{Distribution, Exp1, Gamma, StandardNormal};

/// A NAS benchmark of Table 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Benchmark {
    Is,
    Mg,
    Cg,
    Bt,
}

impl Benchmark {
    pub const ALL: [Benchmark; 4] = [Benchmark::Is, Benchmark::Mg, Benchmark::Cg, Benchmark::Bt];

    pub fn name(self) -> &'static str {
        match self {
            Benchmark::Is => "IS",
            Benchmark::Mg => "MG",
            Benchmark::Cg => "CG",
            Benchmark::Bt => "BT",
        }
    }

    /// Table 3 for 4, 8 and 16 tasks: (CPU share, memory MB, network rate share,
    /// dedicated execution time s) per task.
    fn table(self) -> [(f64, f64, f64, f64); 3] {
        match self {
            Benchmark::Is => [
                (0.58, 380.0, 0.42, 280.0),
                (0.25, 260.0, 0.75, 240.0),
                (0.24, 150.0, 0.76, 179.0),
            ],
            Benchmark::Mg => [
                (0.90, 220.0, 0.10, 209.0),
                (0.78, 113.0, 0.22, 119.0),
                (0.70, 60.0, 0.30, 75.0),
            ],
            Benchmark::Cg => [
                (0.72, 112.0, 0.28, 465.0),
                (0.61, 112.0, 0.39, 395.0),
                (0.52, 112.0, 0.48, 375.0),
            ],
            Benchmark::Bt => [
                (0.96, 22.0, 0.04, 775.0),
                (0.92, 14.0, 0.08, 512.0),
                (0.87, 8.0, 0.13, 246.0),
            ],
        }
    }

    /// The application on `tasks` tasks (4, 8 or 16).
    pub fn application(self, tasks: u32) -> ParallelApp {
        let i = match tasks {
            4 => 0,
            8 => 1,
            16 => 2,
            _ => panic!("NAS jobs run on 4, 8 or 16 tasks, not {tasks}"),
        };
        let (cpu, memory_mb, network, exec) = self.table()[i];
        ParallelApp {
            benchmark: Some(self),
            tasks,
            cpu,
            memory_mb,
            network,
            exec,
        }
    }
}

/// What a parallel application needs per task, and how long it runs alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParallelApp {
    pub benchmark: Option<Benchmark>,
    pub tasks: u32,
    /// CPU share each task uses when alone (CPU(J) of the paper), in (0, 1].
    pub cpu: f64,
    pub memory_mb: f64,
    /// Share of time spent communicating.
    pub network: f64,
    /// Dedicated execution time, seconds (ExecTime_total in isolation).
    pub exec: f64,
}

impl ParallelApp {
    /// Communication-bound: more time communicating than computing.
    pub fn communication_bound(&self) -> bool {
        self.network > self.cpu
    }

    /// CPU time of the whole job alone: tasks x CPU share x execution time.
    pub fn cpu_time(&self) -> f64 {
        self.tasks as f64 * self.cpu * self.exec
    }

    /// Identity for historical matching: benchmark and size.
    pub fn key(&self) -> (Option<Benchmark>, u32) {
        (self.benchmark, self.tasks)
    }
}

impl fmt::Display for ParallelApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.benchmark {
            Some(b) => write!(f, "{}.{}", b.name(), self.tasks),
            None => write!(f, "custom.{}", self.tasks),
        }
    }
}

/// A parallel job of the workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParallelJob {
    pub arrival: f64,
    pub app: ParallelApp,
}

/// Parameters of the parallel workload.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelWorkload {
    pub jobs: usize,
    pub gamma_alpha: f64,
    /// Scale of the inter-arrival gamma, seconds.
    pub gamma_beta: f64,
    /// Multiplies every inter-arrival time (below 1: more load).
    pub arrival_scale: f64,
}

impl Default for ParallelWorkload {
    fn default() -> Self {
        ParallelWorkload {
            jobs: 1000,
            gamma_alpha: 12.0,
            gamma_beta: 2.55,
            arrival_scale: 1.0,
        }
    }
}

impl ParallelWorkload {
    /// The jobs, in arrival order: benchmark and size uniform, the first arriving at 0.
    pub fn generate(&self, seed: u64) -> Vec<ParallelJob> {
        let mut rng = ModelRng::seed_from_u64(seed);
        let gaps = Gamma::new(self.gamma_alpha, self.gamma_beta).expect("a positive shape and scale");
        let mut t = 0.0;
        (0..self.jobs)
            .map(|i| {
                if i > 0 {
                    t += gaps.sample(&mut rng) * self.arrival_scale;
                }
                let b = Benchmark::ALL[(unit(&mut rng) * 4.0) as usize];
                let tasks = [4, 8, 16][(unit(&mut rng) * 3.0) as usize];
                ParallelJob {
                    arrival: t,
                    app: b.application(tasks),
                }
            })
            .collect()
    }
}

/// A local user's profile (Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UserProfile {
    Shell,
    Xwin,
    Internet,
}

impl UserProfile {
    pub const ALL: [UserProfile; 3] = [UserProfile::Shell, UserProfile::Xwin, UserProfile::Internet];

    /// (share of sessions, CPU mean, CPU sd, memory mean, memory sd), shares of a node.
    fn table(self) -> (f64, f64, f64, f64, f64) {
        match self {
            UserProfile::Shell => (0.15, 0.40, 0.20, 0.20, 0.15),
            UserProfile::Xwin => (0.62, 0.15, 0.10, 0.35, 0.55),
            UserProfile::Internet => (0.23, 0.20, 0.10, 0.60, 0.75),
        }
    }
}

/// A local user's session on a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalSession {
    pub node: u32,
    pub start: f64,
    pub end: f64,
    /// CPU load, share of the node.
    pub cpu: f64,
    /// Memory, share of the node.
    pub memory: f64,
}

/// Hyper-exponential session lengths: (weight, mean seconds) per stage.
pub const SESSION_STAGES: [(f64, f64); 2] = [(0.4, 3600.0), (0.6, 7200.0)];

/// The local users of a cluster: a fixed list of sessions, or the paper's process.
#[derive(Clone, Debug, PartialEq)]
pub enum LocalLoad {
    /// Sessions given in full (tests, replays).
    Fixed(Vec<LocalSession>),
    /// A share of the nodes carries a session at any time (module docs).
    Generated { share: f64, seed: u64 },
}

/// Produces local sessions in order of start, lazily for the generated process.
#[derive(Debug, Default)]
pub struct LocalProcess {
    rng: Option<ModelRng>,
    nodes: u32,
    /// Nodes without a session, for the generated process.
    idle: Vec<u32>,
    /// Sessions not yet handed out, by start time (reversed: next at the end).
    pending: Vec<LocalSession>,
}

impl LocalProcess {
    pub fn new(load: &LocalLoad, nodes: u32) -> Self {
        let mut process = LocalProcess {
            rng: None,
            nodes,
            idle: Vec::new(),
            pending: Vec::new(),
        };
        process.reset(load, nodes);
        process
    }

    /// The process of `load` on `nodes` nodes anew, in this one's buffers.
    pub fn reset(&mut self, load: &LocalLoad, nodes: u32) {
        self.nodes = nodes;
        self.idle.clear();
        self.pending.clear();
        match load {
            LocalLoad::Fixed(sessions) => {
                self.rng = None;
                self.pending.extend_from_slice(sessions);
            }
            LocalLoad::Generated { share, seed } => {
                self.rng = Some(ModelRng::seed_from_u64(*seed));
                self.idle.extend(0..nodes);
                let count = (share.clamp(0.0, 1.0) * nodes as f64).round() as u32;
                for _ in 0..count {
                    self.start_session(0.0);
                }
            }
        }
        self.pending.sort_by(|a, b| b.start.total_cmp(&a.start));
    }

    /// Starts a generated session at `t` on a random node without one.
    fn start_session(&mut self, t: f64) {
        let rng = self.rng.as_mut().expect("generated process");
        if self.idle.is_empty() {
            return;
        }
        let k = (unit(rng) * self.idle.len() as f64) as usize;
        let node = self.idle.swap_remove(k.min(self.idle.len() - 1));
        let pick = unit(rng);
        let mut acc = 0.0;
        let mut profile = UserProfile::Internet;
        for p in UserProfile::ALL {
            acc += p.table().0;
            if pick < acc {
                profile = p;
                break;
            }
        }
        let (_, cpu_mean, cpu_sd, mem_mean, mem_sd) = profile.table();
        let (z_cpu, z_memory): (f64, f64) = (StandardNormal.sample(rng), StandardNormal.sample(rng));
        let cpu = (cpu_mean + cpu_sd * z_cpu).clamp(0.0, 1.0);
        let memory = (mem_mean + mem_sd * z_memory).clamp(0.0, 1.0);
        let stage = if unit(rng) < SESSION_STAGES[0].0 { 0 } else { 1 };
        let e: f64 = Exp1.sample(rng);
        let length = SESSION_STAGES[stage].1 * e;
        self.pending.push(LocalSession {
            node,
            start: t,
            end: t + length,
            cpu,
            memory,
        });
    }

    /// Start time of the next session, if any.
    pub fn next_start(&self) -> Option<f64> {
        self.pending.last().map(|s| s.start)
    }

    /// Takes the next session.
    pub fn pop(&mut self) -> Option<LocalSession> {
        self.pending.pop()
    }

    /// A session ended at `t`: the generated process replaces it on a node without one.
    pub fn ended(&mut self, session: &LocalSession, t: f64) {
        if self.rng.is_some() {
            self.idle.push(session.node);
            self.start_session(t);
            // The new session starts now: keep `pending` ordered (it is the earliest).
            let s = self.pending.pop().expect("a session was started");
            let at = self.pending.partition_point(|p| p.start > s.start);
            self.pending.insert(at, s);
        }
        debug_assert!(session.node < self.nodes);
    }
}

/// Job selection policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobSelection {
    Fcfs,
    Backfilling,
}

/// Node selection policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeSelection {
    Normal,
    Uniform,
}

/// `fcfs` or `backfilling` (also written `easy`); takes no parameters.
impl FromStr for JobSelection {
    type Err = CallError;
    fn from_str(s: &str) -> Result<Self, CallError> {
        let call = Call::parse("job selection", s)?;
        let jsp = match call.name() {
            "fcfs" => JobSelection::Fcfs,
            "backfilling" | "easy" => JobSelection::Backfilling,
            _ => return Err(call.unknown_name(&["fcfs", "backfilling"])),
        };
        call.finish(jsp)
    }
}

/// `normal` or `uniform`; takes no parameters.
impl FromStr for NodeSelection {
    type Err = CallError;
    fn from_str(s: &str) -> Result<Self, CallError> {
        let call = Call::parse("node selection", s)?;
        let nsp = match call.name() {
            "normal" => NodeSelection::Normal,
            "uniform" => NodeSelection::Uniform,
            _ => return Err(call.unknown_name(&["normal", "uniform"])),
        };
        call.finish(nsp)
    }
}

impl fmt::Display for JobSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JobSelection::Fcfs => "fcfs",
            JobSelection::Backfilling => "backfilling",
        })
    }
}

impl fmt::Display for NodeSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeSelection::Normal => "normal",
            NodeSelection::Uniform => "uniform",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_inter_arrivals_have_the_model_mean() {
        let w = ParallelWorkload {
            jobs: 40_000,
            ..ParallelWorkload::default()
        };
        let jobs = w.generate(3);
        let mean = jobs.last().unwrap().arrival / (jobs.len() - 1) as f64;
        assert!((mean - 12.0 * 2.55).abs() < 0.3, "{mean}");
        let bt16 = jobs
            .iter()
            .filter(|j| j.app.benchmark == Some(Benchmark::Bt) && j.app.tasks == 16)
            .count() as f64;
        assert!((bt16 / jobs.len() as f64 - 1.0 / 12.0).abs() < 0.01);
    }

    #[test]
    fn the_generated_process_keeps_the_share_of_loaded_nodes() {
        let mut p = LocalProcess::new(&LocalLoad::Generated { share: 0.75, seed: 1 }, 64);
        let mut active: Vec<LocalSession> = Vec::new();
        let mut t = 0.0;
        let mut started = 0;
        // Replay 2,000 session starts and ends in time order.
        while started < 2000 {
            let next_end = active.iter().map(|s| s.end).fold(f64::INFINITY, f64::min);
            match p.next_start() {
                Some(s) if s <= next_end => {
                    let session = p.pop().unwrap();
                    assert!(
                        !active.iter().any(|a| a.node == session.node),
                        "two sessions on a node"
                    );
                    assert!(session.start >= t);
                    t = session.start;
                    active.push(session);
                    started += 1;
                }
                _ => {
                    let i = active.iter().position(|s| s.end == next_end).unwrap();
                    let s = active.swap_remove(i);
                    t = s.end;
                    p.ended(&s, t);
                }
            }
            if t > 0.0 {
                assert!(active.len() >= 47 && active.len() <= 48, "{}", active.len());
            }
        }
    }
}
