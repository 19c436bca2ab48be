//! The nodes of one partition during a run: each node's free cores, memory and GPUs, and
//! the requests jobs make of them. A request is a number of units, each a bundle of cores,
//! memory and GPUs that must sit on one node, with at most so many units per node: a
//! processor count from SWF is that many one-core tasks packed onto as few nodes as fit
//! (Slurm's `--ntasks`), each with its memory per processor. docs/semantics.md, "The
//! machine", states the choices.

use super::NodeGroup;

/// Memory of a node that describes none: it constrains nothing.
const UNLIMITED: u64 = u64::MAX;

/// KB in a GB: SWF counts memory in KB (1,024 bytes), machine files in GB (1,024^3 bytes).
pub const KB_PER_GB: f64 = 1024.0 * 1024.0;

/// What a job asks of a partition's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRequest {
    /// Units to place (tasks, or nodes).
    pub units: u32,
    /// Per unit.
    pub cores: u32,
    pub memory_kb: u64,
    pub gpus: u32,
    /// Most units one node may take: unbounded for packed tasks, 1 for whole-node units.
    pub per_node: u32,
}

impl NodeRequest {
    /// `tasks` one-core tasks of `memory_kb` each, packed onto as few nodes as fit.
    pub fn tasks(tasks: u32, memory_kb: u64) -> NodeRequest {
        NodeRequest {
            units: tasks,
            cores: 1,
            memory_kb,
            gpus: 0,
            per_node: u32::MAX,
        }
    }
}

impl NodeRequest {
    /// Whether this request asks at least as much of every node as `other`: as many units
    /// or more, each of as many cores, as much memory and as many GPUs or more, at most as
    /// many per node. Then on any nodes it has at most `other`'s room, node by node, so it
    /// fits nowhere `other` does not.
    pub fn asks_at_least(&self, other: &NodeRequest) -> bool {
        self.units >= other.units
            && self.cores >= other.cores
            && self.memory_kb >= other.memory_kb
            && self.gpus >= other.gpus
            && self.per_node <= other.per_node
    }
}

/// Requests that did not fit the nodes since what is free last grew: while it only
/// shrinks (jobs start, nothing ends), a request that asks at least as much of every node
/// as one of them cannot fit either, and is passed over without a scan of the nodes. The
/// last few are kept.
#[derive(Clone, Copy, Debug)]
pub struct Unfit {
    kept: [NodeRequest; Unfit::KEPT],
    len: usize,
}

impl Default for Unfit {
    fn default() -> Self {
        Unfit {
            kept: [NodeRequest::tasks(u32::MAX, u64::MAX); Unfit::KEPT],
            len: 0,
        }
    }
}

impl Unfit {
    const KEPT: usize = 4;

    /// Whether `r` cannot fit, by the requests kept.
    pub fn rules_out(&self, r: &NodeRequest) -> bool {
        self.kept[..self.len].iter().any(|f| r.asks_at_least(f))
    }

    /// `r` did not fit; once four are kept it replaces the last.
    pub fn add(&mut self, r: NodeRequest) {
        if self.len < Unfit::KEPT {
            self.len += 1;
        }
        self.kept[self.len - 1] = r;
    }
}

/// Where a job holds a partition's resources: (node, units) pairs.
pub type Placement = Vec<(u32, u32)>;

/// A partition's nodes, struct of arrays: capacities and what is free now.
#[derive(Clone, Debug, Default)]
pub struct NodePool {
    cores: Vec<u32>,
    memory_kb: Vec<u64>,
    gpus: Vec<u32>,
    free_cores: Vec<u32>,
    free_memory_kb: Vec<u64>,
    free_gpus: Vec<u32>,
    /// Jobs holding resources on each node (node-exclusive partitions run at most one).
    jobs_on: Vec<u32>,
    exclusive: bool,
    /// Free cores over all nodes: a request for more is refused without looking at nodes,
    /// and one bound by cores alone is decided by it.
    free_total: u64,
    /// The nodes that may take something (a free core and, node-exclusive, no job), bit
    /// `n % 64` of word `n / 64`: a scan for room passes over the others, which are most
    /// nodes when jobs wait, 64 at a time.
    open: Vec<u64>,
    /// Nodes by room, for [`NodePool::choose`].
    by_room: Vec<(u32, u32)>,
    /// Whether some node describes its memory.
    memory_described: bool,
    /// Whether every node has one core.
    one_core: bool,
    /// The least memory and GPUs of a node ([`UNLIMITED`] memory where none is described).
    least_memory_kb: u64,
    least_gpus: u32,
}

impl NodePool {
    /// The nodes of `groups`, all free, in the groups' order; with `exclusive`, a job holds
    /// whole nodes and shares none.
    pub fn new(groups: &[NodeGroup], exclusive: bool) -> NodePool {
        let mut pool = NodePool {
            exclusive,
            ..NodePool::default()
        };
        for g in groups {
            for _ in 0..g.count {
                pool.cores.push(g.cores);
                pool.memory_kb.push(match g.memory_gb {
                    m if m > 0.0 => (m * KB_PER_GB) as u64,
                    _ => UNLIMITED,
                });
                pool.gpus.push(g.gpus);
            }
        }
        pool.memory_described = pool.memory_kb.iter().any(|&m| m != UNLIMITED);
        pool.one_core = pool.cores.iter().all(|&c| c == 1);
        pool.least_memory_kb = pool.memory_kb.iter().copied().min().unwrap_or(UNLIMITED);
        pool.least_gpus = pool.gpus.iter().copied().min().unwrap_or(0);
        pool.reset();
        pool
    }

    /// Every node free again.
    pub fn reset(&mut self) {
        self.free_cores.clone_from(&self.cores);
        self.free_memory_kb.clone_from(&self.memory_kb);
        self.free_gpus.clone_from(&self.gpus);
        self.jobs_on.clear();
        self.jobs_on.resize(self.cores.len(), 0);
        self.free_total = self.cores.iter().map(|&c| c as u64).sum();
        self.reopen();
    }

    /// What is free on `other`, a pool of the same nodes (a copy of this one, as a
    /// reservation's pools are), without allocating: what `clone_from` does, for the state
    /// alone.
    pub fn copy_free_from(&mut self, other: &NodePool) {
        debug_assert!(self.cores == other.cores && self.exclusive == other.exclusive);
        self.free_cores.copy_from_slice(&other.free_cores);
        self.free_memory_kb.copy_from_slice(&other.free_memory_kb);
        self.free_gpus.copy_from_slice(&other.free_gpus);
        self.jobs_on.copy_from_slice(&other.jobs_on);
        self.open.copy_from_slice(&other.open);
        self.free_total = other.free_total;
    }

    /// [`NodePool::open`] from each node's state.
    fn reopen(&mut self) {
        self.open.clear();
        self.open.resize(self.cores.len().div_ceil(64), 0);
        for n in 0..self.cores.len() {
            self.set_open(n);
        }
    }

    /// Whether node `n` may take something, into [`NodePool::open`].
    #[inline]
    fn set_open(&mut self, n: usize) {
        let open = self.free_cores[n] > 0 && !(self.exclusive && self.jobs_on[n] > 0);
        let (word, bit) = (n / 64, n % 64);
        self.open[word] = (self.open[word] & !(1 << bit)) | ((open as u64) << bit);
    }

    /// The nodes that may take something, in order ([`NodePool::open`]); every other
    /// node has no room for any request (each asks at least one core).
    fn open_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.open.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let n = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    n
                })
            })
        })
    }

    /// Whether `r` fits exactly when enough cores are free, wherever they are: one-core
    /// tasks that nothing else bounds (no memory, GPUs or whole nodes in the way), or, on
    /// one-core nodes, units of one core that every node holds when free (a node with a
    /// free core is then a free node, and takes one unit whatever the others hold).
    #[inline]
    pub fn counts_cores(&self, r: &NodeRequest) -> bool {
        if self.one_core {
            return r.cores == 1 && r.memory_kb <= self.least_memory_kb && r.gpus <= self.least_gpus;
        }
        !self.exclusive
            && r.cores == 1
            && r.gpus == 0
            && r.per_node == u32::MAX
            && (r.memory_kb == 0 || !self.memory_described)
    }

    pub fn nodes(&self) -> usize {
        self.cores.len()
    }

    /// Units of `r` node `n` can take now.
    #[inline]
    fn room(&self, n: usize, r: &NodeRequest) -> u32 {
        if self.exclusive && self.jobs_on[n] > 0 {
            return 0;
        }
        let free = self.free_cores[n];
        let mut k = r.per_node.min(if r.cores == 1 {
            free
        } else {
            free.checked_div(r.cores).unwrap_or(u32::MAX)
        });
        // Divide only where memory or GPUs bind: most often they do not, or leave no room.
        if r.memory_kb > 0
            && self.memory_kb[n] != UNLIMITED
            && self.free_memory_kb[n] < (k as u64).saturating_mul(r.memory_kb)
        {
            k = (self.free_memory_kb[n] / r.memory_kb) as u32;
        }
        if r.gpus > 0 && self.free_gpus[n] < k.saturating_mul(r.gpus) {
            k = self.free_gpus[n] / r.gpus;
        }
        k
    }

    /// Whether `r` fits on the free resources now.
    pub fn fits(&self, r: &NodeRequest) -> bool {
        let cores = r.units as u64 * r.cores as u64;
        if cores > self.free_total {
            return false;
        }
        if self.counts_cores(r) {
            return true;
        }
        let mut placed: u64 = 0;
        for n in self.open_nodes() {
            placed += self.room(n, r) as u64;
            if placed >= r.units as u64 {
                return true;
            }
        }
        r.units == 0
    }

    /// Where `r` goes now, best fit: while units remain, the node that takes them all with
    /// the least room to spare, else the node with the most room (ties: the lowest
    /// number), so a job spreads over as few nodes as fit. `false` (and `into` empty) if it
    /// does not fit. O(open nodes log open nodes).
    pub fn choose(&mut self, r: &NodeRequest, into: &mut Placement) -> bool {
        into.clear();
        if r.units as u64 * r.cores as u64 > self.free_total {
            return false;
        }
        if self.one_core && self.counts_cores(r) {
            // Every open node has room for one unit: best fit takes the lowest numbered.
            into.extend(self.open_nodes().take(r.units as usize).map(|n| (n as u32, 1)));
            return true;
        }
        // Nodes with room, the most first, ties by number: the widest is the first left,
        // and the tightest that takes all `left` units the last with room >= left (the
        // first of its ties).
        let mut by_room = std::mem::take(&mut self.by_room);
        by_room.clear();
        // One node takes it all, most often: the tightest such, found in the same pass
        // that counts the room (whether it fits at all).
        let mut tight: Option<(u32, u32)> = None;
        let mut placed: u64 = 0;
        for n in self.open_nodes() {
            let room = self.room(n, r);
            if room > 0 {
                placed += room as u64;
                by_room.push((room, n as u32));
                if room >= r.units && tight.is_none_or(|(t, _)| room < t) {
                    tight = Some((room, n as u32));
                }
            }
        }
        if placed < r.units as u64 {
            self.by_room = by_room;
            return false;
        }
        if let Some((_, n)) = tight {
            into.push((n, r.units));
            self.by_room = by_room;
            return true;
        }
        // Pushed in node order: already in order where every room is the same (one-core
        // nodes, most often).
        if !by_room.is_sorted_by_key(|&(room, n)| (std::cmp::Reverse(room), n)) {
            by_room.sort_unstable_by_key(|&(room, n)| (std::cmp::Reverse(room), n));
        }
        let mut left = r.units;
        let mut first = 0;
        while left > 0 {
            let rest = &by_room[first..];
            let enough = rest.partition_point(|&(room, _)| room >= left);
            if enough > 0 {
                let tightest = rest[enough - 1].0;
                let k = rest.partition_point(|&(room, _)| room > tightest);
                into.push((rest[k].1, left));
                left = 0;
            } else {
                let (room, n) = rest[0];
                into.push((n, room));
                left -= room;
                first += 1;
            }
        }
        self.by_room = by_room;
        true
    }

    /// Holds `units` of `r` on node `n`.
    fn hold(&mut self, n: usize, units: u32, r: &NodeRequest) {
        self.free_cores[n] -= units * r.cores;
        if self.memory_kb[n] != UNLIMITED {
            self.free_memory_kb[n] -= units as u64 * r.memory_kb;
        }
        self.free_gpus[n] -= units * r.gpus;
        self.jobs_on[n] += 1;
        self.free_total -= (units * r.cores) as u64;
        if self.free_cores[n] == 0 || self.exclusive {
            self.open[n / 64] &= !(1 << (n % 64));
        }
    }

    /// Takes what `r` holds at `a` (from [`NodePool::choose`] on this pool, or on one with
    /// no more free anywhere).
    ///
    /// # Panics
    /// In debug builds (the tests'), if a node would go over its capacity: a scheduler bug.
    /// Release builds do not check: conservative backfilling takes every reservation for
    /// every instant it tries, and the check cost a quarter of its time.
    pub fn take(&mut self, r: &NodeRequest, a: &Placement) {
        for &(n, units) in a {
            let n = n as usize;
            debug_assert!(
                self.room(
                    n,
                    &NodeRequest {
                        per_node: u32::MAX,
                        ..*r
                    }
                ) >= units,
                "node {n} cannot take {units} units of {r:?}"
            );
            self.hold(n, units, r);
        }
    }

    /// [`NodePool::take`] on the pool of the jobs that run (not a reservation's), returning
    /// the change in cores idle on partly used nodes ([`NodePool::stranded_cores`]).
    pub fn take_counting(&mut self, r: &NodeRequest, a: &Placement) -> i64 {
        let before = self.stranded_on(a);
        self.take(r, a);
        self.stranded_on(a) - before
    }

    /// Frees what `r` held at `a`.
    pub fn give_back(&mut self, r: &NodeRequest, a: &Placement) {
        for &(n, units) in a {
            let n = n as usize;
            self.free_cores[n] += units * r.cores;
            if self.memory_kb[n] != UNLIMITED {
                self.free_memory_kb[n] += units as u64 * r.memory_kb;
            }
            self.free_gpus[n] += units * r.gpus;
            self.jobs_on[n] -= 1;
            self.free_total += (units * r.cores) as u64;
            self.set_open(n);
            debug_assert!(
                self.free_cores[n] <= self.cores[n]
                    && self.free_gpus[n] <= self.gpus[n]
                    && self.free_memory_kb[n] <= self.memory_kb[n],
                "node {n} freed beyond its capacity"
            );
        }
    }

    /// [`NodePool::give_back`], returning the change in stranded cores as
    /// [`NodePool::take_counting`] does.
    pub fn give_back_counting(&mut self, r: &NodeRequest, a: &Placement) -> i64 {
        let before = self.stranded_on(a);
        self.give_back(r, a);
        self.stranded_on(a) - before
    }

    /// Keeps, node by node, the least of each resource free here and in `other` (a pool of
    /// the same nodes), and the most jobs holding the node: what is free throughout two
    /// instants, for reservations over a window of time.
    pub fn narrow_to(&mut self, other: &NodePool) {
        for n in 0..self.nodes() {
            self.free_cores[n] = self.free_cores[n].min(other.free_cores[n]);
            self.free_memory_kb[n] = self.free_memory_kb[n].min(other.free_memory_kb[n]);
            self.free_gpus[n] = self.free_gpus[n].min(other.free_gpus[n]);
            self.jobs_on[n] = self.jobs_on[n].max(other.jobs_on[n]);
        }
        self.free_total = self.free_cores.iter().map(|&c| c as u64).sum();
        // The least of two free counts is above 0 where both are, and the most jobs on a
        // node is 0 where both are: a node is open where it is open in both.
        for (word, other) in self.open.iter_mut().zip(&other.open) {
            *word &= other;
        }
    }

    /// Cores idle on node `n` while some job holds part of it (0 on an empty or full node).
    pub fn stranded_cores(&self, n: usize) -> u64 {
        let free = self.free_cores[n];
        if free < self.cores[n] { free as u64 } else { 0 }
    }

    /// [`NodePool::stranded_cores`] over `a`'s nodes; 0 without looking where every node has
    /// one core (it is empty or full, so it never strands one).
    fn stranded_on(&self, a: &Placement) -> i64 {
        if self.one_core {
            return 0;
        }
        a.iter()
            .map(|&(n, _)| self.stranded_cores(n as usize) as i64)
            .sum()
    }

    /// Memory free and in all, KB, over the nodes that describe theirs (0 and 0 where none
    /// does).
    pub fn memory_kb(&self) -> (u64, u64) {
        let described = |n: &usize| self.memory_kb[*n] != UNLIMITED;
        let sum = |column: &[u64]| (0..self.nodes()).filter(described).map(|n| column[n]).sum();
        (sum(&self.free_memory_kb), sum(&self.memory_kb))
    }

    /// GPUs free and in all.
    pub fn gpus(&self) -> (u64, u64) {
        let sum = |column: &[u32]| column.iter().map(|&g| g as u64).sum();
        (sum(&self.free_gpus), sum(&self.gpus))
    }

    /// Free cores over all nodes.
    pub fn free_cores(&self) -> u64 {
        debug_assert_eq!(
            self.free_total,
            self.free_cores.iter().map(|&c| c as u64).sum::<u64>()
        );
        self.free_total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(count: u32, cores: u32, memory_gb: f64, gpus: u32) -> NodeGroup {
        NodeGroup {
            name: "g".into(),
            count,
            cores,
            memory_gb,
            gpus,
            power: None,
            switching: None,
        }
    }

    #[test]
    fn tasks_pack_onto_the_tightest_node_else_the_widest() {
        let mut pool = NodePool::new(
            &[group(1, 8, 0.0, 0), group(1, 4, 0.0, 0), group(1, 2, 0.0, 0)],
            false,
        );
        let mut a = Placement::new();
        // 3 tasks: node 1 (4 cores) takes them all with the least to spare.
        assert!(pool.choose(&NodeRequest::tasks(3, 0), &mut a));
        assert_eq!(a, vec![(1, 3)]);
        // 11 tasks: the widest first (8), then the tightest for the 3 left (4).
        assert!(pool.choose(&NodeRequest::tasks(11, 0), &mut a));
        assert_eq!(a, vec![(0, 8), (1, 3)]);
        assert!(!pool.choose(&NodeRequest::tasks(15, 0), &mut a));
        assert!(a.is_empty());
    }

    #[test]
    fn memory_and_gpus_bound_what_a_node_takes() {
        // Two nodes of 4 cores, 8 GB and 2 GPUs.
        let mut pool = NodePool::new(&[group(2, 4, 8.0, 2)], false);
        let gb = KB_PER_GB as u64;
        // 4 tasks of 3 GB: 2 per node by memory, though 4 cores are free on each.
        let heavy = NodeRequest::tasks(4, 3 * gb);
        let mut a = Placement::new();
        assert!(pool.choose(&heavy, &mut a));
        assert_eq!(a, vec![(0, 2), (1, 2)]);
        pool.take(&heavy, &a);
        assert_eq!(pool.free_cores(), 4);
        // Cores are free, memory is not: one more 3 GB task does not fit.
        assert!(!pool.fits(&NodeRequest::tasks(1, 3 * gb)));
        assert!(pool.fits(&NodeRequest::tasks(2, gb)));
        // A whole-node unit of 1 core and 2 GPUs: one per node.
        let gpu = NodeRequest {
            units: 2,
            cores: 1,
            memory_kb: 0,
            gpus: 2,
            per_node: 1,
        };
        assert!(pool.fits(&gpu));
        assert!(!pool.fits(&NodeRequest { units: 3, ..gpu }));
        pool.give_back(&heavy, &a);
        assert_eq!(pool.free_cores(), 8);
        assert!(pool.fits(&NodeRequest::tasks(4, 4 * gb)));
        assert!(!pool.fits(&NodeRequest::tasks(1, 9 * gb)));
    }

    /// Best fit as the plain scan of every node computes it: the tightest node that takes
    /// all the units, else the widest first (ties: the lowest number), until the rest fits
    /// on one node.
    fn plain_choose(pool: &NodePool, r: &NodeRequest) -> Option<Placement> {
        let mut rooms: Vec<(u32, u32)> = (0..pool.nodes())
            .map(|n| (pool.room(n, r), n as u32))
            .filter(|&(room, _)| room > 0)
            .collect();
        if rooms.iter().map(|&(room, _)| room as u64).sum::<u64>() < r.units as u64 {
            return None;
        }
        rooms.sort_by_key(|&(room, n)| (std::cmp::Reverse(room), n));
        let mut placement = Placement::new();
        let mut left = r.units;
        let mut rest = &rooms[..];
        while left > 0 {
            // The tightest node that takes all that is left, the lowest numbered of its ties.
            let tightest = rest
                .iter()
                .filter(|&&(room, _)| room >= left)
                .map(|&(room, _)| room)
                .min();
            if let Some(t) = tightest {
                let n = rest
                    .iter()
                    .filter(|&&(room, _)| room == t)
                    .map(|&(_, n)| n)
                    .min()
                    .unwrap();
                placement.push((n, left));
                left = 0;
            } else {
                placement.push((rest[0].1, rest[0].0));
                left -= rest[0].0;
                rest = &rest[1..];
            }
        }
        Some(placement)
    }

    /// On pools of 130 to 200 nodes (three words of the open-node bitset and more), one-core
    /// or of several cores, with memory and GPUs or not, exclusive or not, thousands of
    /// random placements, starts and ends: `choose` places every request as the plain scan
    /// of every node does, and `fits` agrees.
    #[test]
    fn choose_places_as_the_plain_scan_over_many_nodes() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let gb = KB_PER_GB as u64;
        for case in 0..24 {
            let cores = [1, 1, 4, 8][case % 4];
            let memory = [0.0, 2.0][case / 4 % 2];
            let gpus = [0, 2][case / 8 % 2];
            let exclusive = case >= 16 && case % 2 == 0;
            let mut pool = NodePool::new(
                &[
                    group(70 + next(60) as u32, cores, memory, gpus),
                    group(60, 1, 4.0, 0),
                ],
                exclusive,
            );
            let mut held: Vec<(NodeRequest, Placement)> = Vec::new();
            let mut into = Placement::new();
            for _ in 0..600 {
                if !held.is_empty() && next(3) == 0 {
                    let (r, a) = held.swap_remove(next(held.len() as u64) as usize);
                    pool.give_back(&r, &a);
                    continue;
                }
                let r = NodeRequest {
                    units: 1 + next(40) as u32,
                    cores: 1 + next(2) as u32 * (next(cores as u64) as u32),
                    memory_kb: [0, gb / 2, gb][next(3) as usize],
                    gpus: [0, 0, 1][next(3) as usize],
                    per_node: [u32::MAX, 1][next(2) as usize],
                };
                let plain = plain_choose(&pool, &r);
                assert_eq!(pool.fits(&r), plain.is_some(), "case {case}: {r:?}");
                assert_eq!(pool.choose(&r, &mut into), plain.is_some(), "case {case}: {r:?}");
                if let Some(a) = plain {
                    assert_eq!(into, a, "case {case}: {r:?}");
                    pool.take(&r, &a);
                    held.push((r, a));
                }
            }
        }
    }

    #[test]
    fn an_exclusive_node_runs_one_job() {
        let mut pool = NodePool::new(&[group(2, 4, 0.0, 0)], true);
        let one = NodeRequest::tasks(1, 0);
        let mut a = Placement::new();
        assert!(pool.choose(&one, &mut a));
        pool.take(&one, &a);
        // Node 0 holds one task; its 3 free cores are not anyone else's.
        assert!(pool.fits(&NodeRequest::tasks(4, 0)));
        assert!(!pool.fits(&NodeRequest::tasks(5, 0)));
        pool.give_back(&one, &a);
        assert!(pool.fits(&NodeRequest::tasks(8, 0)));
    }
}
