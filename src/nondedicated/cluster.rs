//! Nodes of a non-dedicated cluster: what each carries (a local user, parallel tasks), the
//! social contract that decides whether a node may take one more task, the node selection
//! policies, and the CPU model that sets each job's progress rate.
//!
//! CPU model (Hanzich et al., equations 6-8): the demand on node n is
//! D(n) = CPU_local(n) + sum of CPU(J) over the parallel tasks on n. A job's tasks advance in
//! lock step at its feasible share, limited by its most loaded node: its progress rate (the
//! fraction of its dedicated speed) is 1 / max(1, max over its nodes of D(n)).
//!
//! Social contract (the paper cites it without numbers; both limits are parameters): a
//! node takes a parallel task only below the multiprogramming level MPL_paral and if the
//! memory of its local user and all its tasks fits in the node (no swapping); on a node with
//! a local user, the parallel tasks together may also ask for at most `contract.cpu` of the
//! CPU (default 1.0: one task of any NAS benchmark always fits, so a fully loaded cluster
//! still progresses) and `contract.memory` of the memory with the local user's (default 1.0).
//!
//! Node selection, among the nodes that may take a task of the job:
//! - Normal: the least loaded nodes (lowest demand D(n), then lowest index).
//! - Uniform: first nodes with no task of the job's own kind (communication- or
//!   computation-bound), preferring those running more tasks of the other kind, so the two
//!   kinds share nodes and each kind is spread evenly; then by demand and index.

use super::model::ParallelApp;

/// Limits the local users grant the parallel tasks on their node (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SocialContract {
    pub cpu: f64,
    pub memory: f64,
}

impl Default for SocialContract {
    fn default() -> Self {
        SocialContract {
            cpu: 1.0,
            memory: 1.0,
        }
    }
}

/// One node's load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    pub has_local: bool,
    /// Local user's CPU share and memory (MB).
    pub local_cpu: f64,
    pub local_memory: f64,
    /// Sum of CPU(J) and memory of the parallel tasks here.
    pub paral_cpu: f64,
    pub paral_memory: f64,
    pub tasks: u32,
    /// Tasks of communication-bound jobs among them.
    pub comm_tasks: u32,
}

impl Node {
    /// D(n): CPU demanded of the node.
    pub fn demand(&self) -> f64 {
        self.local_cpu + self.paral_cpu
    }

    /// MPL_local(n) + MPL_paral(n).
    pub fn mpl(&self) -> u32 {
        self.tasks + self.has_local as u32
    }

    pub fn add_task(&mut self, app: &ParallelApp) {
        self.paral_cpu += app.cpu;
        self.paral_memory += app.memory_mb;
        self.tasks += 1;
        self.comm_tasks += app.communication_bound() as u32;
    }

    pub fn remove_task(&mut self, app: &ParallelApp) {
        self.tasks -= 1;
        self.comm_tasks -= app.communication_bound() as u32;
        if self.tasks == 0 {
            // No drift from repeated float additions and subtractions.
            self.paral_cpu = 0.0;
            self.paral_memory = 0.0;
        } else {
            self.paral_cpu -= app.cpu;
            self.paral_memory -= app.memory_mb;
        }
    }
}

/// The cluster's fixed parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hardware {
    pub nodes: u32,
    pub memory_mb: f64,
    /// MPL_paral: most parallel tasks on a node.
    pub mpl: u32,
    pub contract: SocialContract,
}

impl Default for Hardware {
    fn default() -> Self {
        Hardware {
            nodes: 64,
            memory_mb: 1024.0,
            mpl: 4,
            contract: SocialContract::default(),
        }
    }
}

/// Slack for float sums in the limits.
const EPS: f64 = 1e-9;

impl Hardware {
    /// Whether `node` may take one more task of `app` under the social contract.
    pub fn admits(&self, node: &Node, app: &ParallelApp) -> bool {
        if node.tasks >= self.mpl {
            return false;
        }
        let memory = node.local_memory + node.paral_memory + app.memory_mb;
        if memory > self.memory_mb + EPS {
            return false;
        }
        !node.has_local
            || (node.paral_cpu + app.cpu <= self.contract.cpu + EPS
                && memory <= self.contract.memory * self.memory_mb + EPS)
    }
}

/// Progress rate of a job on `nodes`: 1 / max(1, the largest demand among them).
pub fn rate(nodes: &[Node], on: &[u32]) -> f64 {
    let worst = on.iter().map(|&n| nodes[n as usize].demand()).fold(1.0, f64::max);
    1.0 / worst
}

/// How the simulated "real" cluster departs from the CPU model that the simulation
/// kernels and the schedulers compute, so that those kernels do not predict their own
/// ground truth (Hanzich et al. measured a real cluster). Both default to 0: the cluster
/// then follows the model exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Truth {
    /// Each node's speed is exp(N(0, speed_noise^2)) times the nominal one, drawn once per
    /// replication and unknown to the estimators (hardware and OS differences).
    pub speed_noise: f64,
    /// Co-scheduling slowdown: on a node with k parallel tasks each runs 1 + interference
    /// x (k - 1) times slower than its CPU share alone gives (cache, memory bandwidth and
    /// network contention).
    pub interference: f64,
    /// Seed of the node speeds (set per replication by the experiment).
    pub seed: u64,
}

impl Truth {
    /// Whether the cluster follows the model exactly.
    #[inline]
    pub fn exact(&self) -> bool {
        self.speed_noise == 0.0 && self.interference == 0.0
    }

    /// The speed of each of `nodes` nodes (all 1 without noise).
    pub fn speeds(&self, nodes: u32) -> Vec<f64> {
        let mut speeds = Vec::new();
        self.speeds_into(nodes, &mut speeds);
        speeds
    }

    /// [`Truth::speeds`], in `out`.
    pub fn speeds_into(&self, nodes: u32, out: &mut Vec<f64>) {
        use crate::random::ModelRng;
        use rand_distr::{Distribution, StandardNormal};
        use rand_xoshiro::rand_core::SeedableRng;
        out.clear();
        if self.speed_noise == 0.0 {
            out.resize(nodes as usize, 1.0);
            return;
        }
        let mut rng = ModelRng::seed_from_u64(self.seed);
        out.extend((0..nodes).map(|_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            (self.speed_noise * z).exp()
        }));
    }

    /// The progress rate a job really gets on `on`: on each node its speed over its demand
    /// (at least 1) times the co-scheduling slowdown, the slowest node setting the pace.
    /// Equal to [`rate`] when [`Truth::exact`].
    #[inline]
    pub fn rate(&self, nodes: &[Node], speeds: &[f64], on: &[u32]) -> f64 {
        if self.exact() {
            return rate(nodes, on);
        }
        on.iter()
            .map(|&n| {
                let node = &nodes[n as usize];
                let slowdown = 1.0 + self.interference * node.tasks.saturating_sub(1) as f64;
                speeds[n as usize] / (node.demand().max(1.0) * slowdown)
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// Chooses `app.tasks` nodes for a job under `policy`, into `out` (cleared first); false if
/// too few nodes admit it. `keys` is scratch.
pub fn select(
    hw: &Hardware,
    nodes: &[Node],
    app: &ParallelApp,
    policy: super::NodeSelection,
    keys: &mut Vec<(u32, u32, f64, u32)>,
    out: &mut Vec<u32>,
) -> bool {
    out.clear();
    keys.clear();
    let comm = app.communication_bound();
    for (i, n) in nodes.iter().enumerate() {
        if !hw.admits(n, app) {
            continue;
        }
        let key = match policy {
            super::NodeSelection::Normal => (0, 0, n.demand(), i as u32),
            super::NodeSelection::Uniform => {
                let (same, other) = if comm {
                    (n.comm_tasks, n.tasks - n.comm_tasks)
                } else {
                    (n.tasks - n.comm_tasks, n.comm_tasks)
                };
                (same, u32::MAX - other, n.demand(), i as u32)
            }
        };
        keys.push(key);
    }
    let k = app.tasks as usize;
    if keys.len() < k {
        return false;
    }
    let cmp = |a: &(u32, u32, f64, u32), b: &(u32, u32, f64, u32)| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.cmp(&b.3))
    };
    if keys.len() > k {
        keys.select_nth_unstable_by(k - 1, cmp);
        keys.truncate(k);
    }
    keys.sort_by(cmp);
    out.extend(keys.iter().map(|key| key.3));
    true
}

#[cfg(test)]
mod tests {
    use super::super::NodeSelection;
    use super::super::model::Benchmark;
    use super::*;

    #[test]
    fn the_contract_limits_cpu_and_memory_only_beside_a_local_user() {
        let hw = Hardware::default();
        let is4 = Benchmark::Is.application(4); // 0.58 CPU, 380 MB
        let bt4 = Benchmark::Bt.application(4); // 0.96 CPU, 22 MB
        let mut local = Node {
            has_local: true,
            local_cpu: 0.4,
            local_memory: 700.0,
            ..Node::default()
        };
        // 700 + 380 MB > 1024: no room without swapping.
        assert!(!hw.admits(&local, &is4));
        assert!(hw.admits(&local, &bt4));
        local.add_task(&bt4);
        // Parallel CPU 0.96 + 0.96 > 1.0 beside a local user...
        assert!(!hw.admits(&local, &bt4));
        // ...but not on a node of its own, where only MPL and memory bound it.
        let mut free = Node::default();
        for _ in 0..4 {
            assert!(hw.admits(&free, &bt4));
            free.add_task(&bt4);
        }
        assert!(!hw.admits(&free, &bt4), "MPL 4 reached");
        assert!((free.demand() - 3.84).abs() < 1e-12);
    }

    #[test]
    fn the_ground_truth_departs_from_the_model_only_when_asked() {
        let mut nodes = vec![Node::default(); 3];
        nodes[0].paral_cpu = 1.5; // demand 1.5, one task
        nodes[0].tasks = 1;
        nodes[1].paral_cpu = 0.8; // demand 0.8, three tasks
        nodes[1].tasks = 3;
        let exact = Truth::default();
        let speeds = exact.speeds(3);
        assert_eq!(speeds, [1.0; 3]);
        for on in [&[0u32, 1][..], &[1], &[2]] {
            assert_eq!(exact.rate(&nodes, &speeds, on), rate(&nodes, on));
        }
        // Interference 0.25: node 1's three tasks run 1.5 times slower: 1 / (1 x 1.5).
        let shared = Truth {
            interference: 0.25,
            ..Truth::default()
        };
        assert!((shared.rate(&nodes, &speeds, &[1]) - 1.0 / 1.5).abs() < 1e-12);
        // On nodes 0 and 1 both give 1 / 1.5: the slower sets the pace.
        assert!((shared.rate(&nodes, &speeds, &[0, 1]) - 1.0 / 1.5).abs() < 1e-12);
        assert_eq!(shared.rate(&nodes, &speeds, &[2]), 1.0);
        // Speed noise: lognormal with median 1, the same for a seed, divided into the rate.
        let noisy = Truth {
            speed_noise: 0.3,
            seed: 5,
            ..Truth::default()
        };
        let speeds = noisy.speeds(4001);
        assert_eq!(speeds, noisy.speeds(4001));
        assert_ne!(speeds, Truth { seed: 6, ..noisy }.speeds(4001));
        let mut logs: Vec<f64> = speeds.iter().map(|s| s.ln()).collect();
        logs.sort_by(f64::total_cmp);
        let sd = (logs.iter().map(|x| x * x).sum::<f64>() / logs.len() as f64).sqrt();
        assert!(
            logs[2000].abs() < 0.03 && (sd - 0.3).abs() < 0.02,
            "median {} sd {sd}",
            logs[2000]
        );
        let on_2 = noisy.rate(&nodes, &speeds, &[2]);
        assert_eq!(on_2, speeds[2]);
    }

    #[test]
    fn a_job_follows_its_most_loaded_node() {
        let mut nodes = vec![Node::default(); 3];
        nodes[0].local_cpu = 0.5;
        nodes[1].paral_cpu = 1.5;
        nodes[2].paral_cpu = 0.3;
        assert_eq!(rate(&nodes, &[0, 2]), 1.0);
        assert!((rate(&nodes, &[0, 1, 2]) - 1.0 / 1.5).abs() < 1e-12);
        nodes[0].local_cpu = 1.5;
        nodes[0].paral_cpu = 1.0;
        assert!((rate(&nodes, &[0, 2]) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn normal_takes_the_least_loaded_and_uniform_mixes_kinds() {
        let hw = Hardware::default();
        let mg4 = Benchmark::Mg.application(4); // computation-bound
        let is8 = Benchmark::Is.application(8); // communication-bound
        let mut nodes = vec![Node::default(); 8];
        // Nodes 0-3 run an IS.8 task each (0.25 CPU); nodes 4-7 an MG.4 task (0.90).
        for n in &mut nodes[..4] {
            n.add_task(&is8);
        }
        for n in &mut nodes[4..] {
            n.add_task(&mg4);
        }
        nodes[1].local_cpu = 0.2;
        nodes[1].has_local = true;
        let (mut keys, mut out) = (Vec::new(), Vec::new());
        // Another MG.4: node 1 refuses it (its local user caps parallel CPU at 1.0, and
        // 0.25 + 0.90 exceeds it); Normal goes by demand: 0.25 on nodes 0, 2, 3, then 0.90.
        assert!(select(
            &hw,
            &nodes,
            &mg4,
            NodeSelection::Normal,
            &mut keys,
            &mut out
        ));
        assert_eq!(out, [0, 2, 3, 4]);
        // Uniform too here (the IS nodes hold the other kind), but an IS.8 job goes to the
        // MG nodes first under Uniform and to the lighter IS nodes under Normal.
        assert!(select(
            &hw,
            &nodes,
            &mg4,
            NodeSelection::Uniform,
            &mut keys,
            &mut out
        ));
        assert_eq!(out, [0, 2, 3, 4]);
        let is4 = Benchmark::Is.application(4); // 0.58 CPU vs 0.42 network: computation-bound
        assert!(!is4.communication_bound() && is8.communication_bound());
        let mut is8_small = is8;
        is8_small.tasks = 4;
        assert!(select(
            &hw,
            &nodes,
            &is8_small,
            NodeSelection::Uniform,
            &mut keys,
            &mut out
        ));
        assert_eq!(out, [4, 5, 6, 7]);
        assert!(select(
            &hw,
            &nodes,
            &is8_small,
            NodeSelection::Normal,
            &mut keys,
            &mut out
        ));
        assert_eq!(out, [0, 2, 3, 1]);
        // Too few admitting nodes.
        let mut big = is8;
        big.tasks = 9;
        assert!(!select(
            &hw,
            &nodes,
            &big,
            NodeSelection::Normal,
            &mut keys,
            &mut out
        ));
    }
}
