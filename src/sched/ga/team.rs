//! One decision's evolution on a team of threads that stays hot from the first generation
//! to the last, so that a generation costs one hand-over instead of one fork and join.
//!
//! The calling thread leads: it draws every random choice of a generation (parents by
//! tournament, mutation swaps) in the order the serial GA drew them, publishes that plan,
//! and then works beside the others. Every member (the leader included) claims rows of the
//! published generation from one shared ticket counter, breeds each claimed row (zipper
//! crossover of its two parents, then its swap) and projects it. A row's child and fitness
//! depend on the plan and the parents alone, never on who computed them, so the schedule
//! is the same on any number of threads.
//!
//! Members are rayon jobs (`rayon::join`, which allocates nothing), so the team composes
//! with a sweep's other tasks: a member no idle thread picks up simply never takes a row,
//! and the leader computes what nobody claimed. Members that wait for the next generation
//! spin, then yield (`crossbeam_utils::Backoff`).
//!
//! Generations alternate between two sets of rows: generation g reads its parents from set
//! (g - 1) mod 2 and writes its children into set g mod 2, so no row is copied or swapped
//! between generations.
//!
//! Rows, fitness and the plan are atomics read and written with relaxed order, not locks: a
//! row of generation g is written by the one member holding its ticket and read only after
//! g's hand-over, which the `done` and `published` counters order (release, then acquire).
//! A read lock writes its count, so with locks every member copying a popular parent (the
//! elite, a tournament's winner) wrote the same cache line, about once a microsecond on
//! each of 16 cores.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::{Backoff, CachePadded};

use super::{Scratch, Snapshot, zipper};

/// How one child of a generation is bred, drawn by the leader. With `a == b` and no swap
/// the child is row `a` itself (the zipper of a row with itself): how a migrant moves.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Breeding {
    pub a: u32,
    pub b: u32,
    /// Positions swapped by mutation, if the child mutates.
    pub swap: Option<(u32, u32)>,
}

/// A member's buffers: the projection's and the crossover's.
#[derive(Debug, Default)]
pub(super) struct MemberScratch {
    pub projection: Scratch,
    /// Which queue indices the child holds (all false between rows).
    taken: Vec<bool>,
    /// The parents, copied out of the shared rows, and the child bred from them.
    a: Vec<u32>,
    b: Vec<u32>,
    child: Vec<u32>,
}

/// What the team shares across decisions; buffers grow to the largest decision seen and
/// are then reused, so a warm decision allocates nothing.
#[derive(Debug, Default)]
pub(super) struct Team {
    /// Two sets of [`Shape::rows`] rows of `queue` indices, row r at `r * stride(queue)..`
    /// (the module docs).
    rows: [Vec<AtomicU32>; 2],
    /// Fitness of the rows of the generation being computed, as `f64` bits.
    fitness: Vec<CachePadded<AtomicU64>>,
    /// Breedings of the published generation's bred rows (all but the islands' elites), in
    /// [`Shape::bred_row`] order, packed by [`Breeding::pack`].
    plan: Vec<[AtomicU64; 2]>,
    /// The leader's draw of the next plan, before it is published.
    drawn: Vec<Breeding>,
    members: Vec<Mutex<MemberScratch>>,
}

impl Breeding {
    /// No swap: positions are below the queue's length, itself below `u32::MAX`.
    const NO_SWAP: u64 = u64::MAX;

    fn pack(&self) -> [u64; 2] {
        let pair = |i: u32, j: u32| u64::from(i) | u64::from(j) << 32;
        [
            pair(self.a, self.b),
            self.swap.map_or(Self::NO_SWAP, |(i, j)| pair(i, j)),
        ]
    }

    fn unpack([parents, swap]: [u64; 2]) -> Breeding {
        let split = |v: u64| (v as u32, (v >> 32) as u32);
        let (a, b) = split(parents);
        Breeding {
            a,
            b,
            swap: (swap != Self::NO_SWAP).then(|| split(swap)),
        }
    }
}

/// Where one decision stands; the counters every member reads, on separate cache lines.
#[derive(Default)]
struct Progress {
    /// Rows claimed so far, counted over all generations (`Shape::locate`).
    ticket: CachePadded<AtomicUsize>,
    /// Rows finished so far.
    done: CachePadded<AtomicUsize>,
    /// Generations published (generation g may be computed once this exceeds g).
    published: CachePadded<AtomicUsize>,
    /// Set when the decision is over, or when a member panicked.
    finished: CachePadded<AtomicBool>,
    panicked: AtomicBool,
}

/// The sizes of one decision.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// Rows of one island; island i holds rows `i * population..(i + 1) * population`, its
    /// elite first.
    pub population: usize,
    pub islands: usize,
    pub queue: usize,
    /// Generations after the seeds (0 when the population is 1: nothing to breed).
    pub generations: usize,
}

impl Shape {
    /// Rows of a generation, over all islands.
    pub fn rows(&self) -> usize {
        self.islands * self.population
    }

    /// Rows bred in each generation after the seeds (every row but the islands' elites).
    fn bred(&self) -> usize {
        self.islands * (self.population - 1)
    }

    /// Generation 0 evaluates every island's seeds; each later one breeds the rows of
    /// [`Shape::bred`].
    fn end_of(&self, generation: usize) -> usize {
        self.rows() + generation * self.bred()
    }

    /// The (generation, row) of a ticket; the generation is past the last for tickets
    /// beyond the decision.
    fn locate(&self, ticket: usize) -> (usize, usize) {
        if ticket < self.rows() {
            (0, ticket)
        } else if self.population == 1 {
            (usize::MAX, 0)
        } else {
            let later = ticket - self.rows();
            let k = later % self.bred();
            (1 + later / self.bred(), self.bred_row(k))
        }
    }

    /// The row of the k-th breeding of a generation: island by island, each island's rows
    /// after its elite.
    fn bred_row(&self, k: usize) -> usize {
        let per_island = self.population - 1;
        k / per_island * self.population + 1 + k % per_island
    }

    /// The breeding that fills bred row `row` (inverse of [`Shape::bred_row`]).
    fn breeding_of(&self, row: usize) -> usize {
        row / self.population * (self.population - 1) + row % self.population - 1
    }
}

impl Team {
    /// Sizes the buffers for a decision of `shape` on up to `members` threads.
    pub fn prepare(&mut self, shape: Shape, members: usize) {
        let cells = shape.rows() * stride(shape.queue);
        for set in &mut self.rows {
            if set.len() < cells {
                set.resize_with(cells, AtomicU32::default);
            }
        }
        if self.fitness.len() < shape.rows() {
            self.fitness.resize_with(shape.rows(), Default::default);
        }
        let breedings = shape.bred();
        if self.plan.len() < breedings {
            self.plan.resize_with(breedings, Default::default);
        }
        self.drawn.clear();
        self.drawn.resize(breedings, Breeding::default());
        if self.members.len() < members {
            self.members.resize_with(members, Mutex::default);
        }
        for member in &mut self.members {
            let taken = &mut member.get_mut().unwrap().taken;
            taken.clear();
            taken.resize(shape.queue, false);
        }
    }

    /// Row `row` of the seed generation, to be set before `evolve`.
    pub fn set_seed_row(&mut self, shape: Shape, row: usize, order: &[u32]) {
        let start = row * stride(shape.queue);
        let cells = &mut self.rows[0][start..start + shape.queue];
        for (cell, &job) in cells.iter_mut().zip(order) {
            *cell.get_mut() = job;
        }
    }

    /// Row `row` of the last generation of a decision of `shape`, after `evolve`, into
    /// `out`.
    pub fn final_row(&self, shape: Shape, row: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend(
            self.row(shape.generations, shape, row)
                .iter()
                .map(|c| c.load(Ordering::Relaxed)),
        );
    }

    /// Row `row` of generation `generation`'s set.
    fn row(&self, generation: usize, shape: Shape, row: usize) -> &[AtomicU32] {
        let start = row * stride(shape.queue);
        &self.rows[generation % 2][start..start + shape.queue]
    }

    /// Evolves the seeds through `shape.generations` generations on `members` threads
    /// (1: this one alone) and leaves the last generation's fitness in `fitness`. Each
    /// island's fittest row passes to the next generation as its elite.
    /// `breed(generation, fitness, plan)` draws the plan of `generation` (the breedings of
    /// its bred rows, in [`Shape::bred_row`] order; parents are rows of the whole previous
    /// generation) from the previous generation's fitness: it runs on this thread only, once
    /// per generation, in order.
    pub fn evolve(
        &mut self,
        snapshot: &Snapshot,
        shape: Shape,
        members: usize,
        fitness: &mut Vec<f64>,
        mut breed: impl FnMut(usize, &[f64], &mut [Breeding]) + Send,
    ) {
        let progress = Progress::default();
        // Taken out so that the leader draws into it while the members share `self`.
        let mut drawn = std::mem::take(&mut self.drawn);
        let team = &*self;
        let mut lead = || {
            let _flag = PanicFlag(&progress);
            let mut member = team.members[0].lock().unwrap();
            let publish = |generation: usize| progress.published.store(generation + 1, Ordering::Release);
            publish(0);
            team.help(snapshot, shape, &progress, &mut member, shape.end_of(0));
            for generation in 1..=shape.generations {
                team.read_fitness(shape, fitness);
                for first in (0..shape.rows()).step_by(shape.population) {
                    let best = first + super::argmax(&fitness[first..first + shape.population]);
                    let elite = team.row(generation - 1, shape, best).iter();
                    for (to, from) in team.row(generation, shape, first).iter().zip(elite) {
                        to.store(from.load(Ordering::Relaxed), Ordering::Relaxed);
                    }
                    team.fitness[first].store(fitness[best].to_bits(), Ordering::Relaxed);
                }
                breed(generation, fitness, &mut drawn);
                for (to, breeding) in team.plan.iter().zip(&drawn) {
                    let packed = breeding.pack();
                    to[0].store(packed[0], Ordering::Relaxed);
                    to[1].store(packed[1], Ordering::Relaxed);
                }
                publish(generation);
                team.help(snapshot, shape, &progress, &mut member, shape.end_of(generation));
            }
            progress.finished.store(true, Ordering::Release);
        };
        if members <= 1 {
            lead();
        } else {
            rayon::join(lead, || team.spawn(snapshot, shape, &progress, 1..members));
        }
        self.drawn = drawn;
        self.read_fitness(shape, fitness);
    }

    /// The fitness of the rows of the generation last computed, into `out`.
    fn read_fitness(&self, shape: Shape, out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.fitness[..shape.rows()]
                .iter()
                .map(|f| f64::from_bits(f.load(Ordering::Relaxed))),
        );
    }

    /// Starts members `ids` as rayon jobs, halving the range so that idle threads pick
    /// them up in a logarithmic number of steals.
    fn spawn(&self, snapshot: &Snapshot, shape: Shape, progress: &Progress, ids: std::ops::Range<usize>) {
        if ids.len() == 1 {
            self.member(snapshot, shape, progress, ids.start);
        } else {
            let middle = ids.start + ids.len() / 2;
            rayon::join(
                || self.spawn(snapshot, shape, progress, ids.start..middle),
                || self.spawn(snapshot, shape, progress, middle..ids.end),
            );
        }
    }

    /// A member other than the leader: takes rows, waiting for each one's generation to be
    /// published, until the decision is over.
    fn member(&self, snapshot: &Snapshot, shape: Shape, progress: &Progress, id: usize) {
        let _flag = PanicFlag(progress);
        let mut member = self.members[id].lock().unwrap();
        loop {
            if progress.finished.load(Ordering::Acquire) {
                return;
            }
            let ticket = progress.ticket.fetch_add(1, Ordering::AcqRel);
            let (generation, row) = shape.locate(ticket);
            if generation > shape.generations {
                return;
            }
            let backoff = Backoff::new();
            while progress.published.load(Ordering::Acquire) <= generation {
                if progress.finished.load(Ordering::Acquire) {
                    return;
                }
                backoff.snooze();
            }
            self.compute(snapshot, shape, generation, row, &mut member);
            progress.done.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The leader's share of a generation ending at ticket `end`: takes rows nobody has
    /// claimed (never one of a later generation), then waits for the others' rows.
    fn help(
        &self,
        snapshot: &Snapshot,
        shape: Shape,
        progress: &Progress,
        member: &mut MemberScratch,
        end: usize,
    ) {
        loop {
            let ticket = progress.ticket.load(Ordering::Acquire);
            if ticket >= end {
                break;
            }
            if progress
                .ticket
                .compare_exchange_weak(ticket, ticket + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                let (generation, row) = shape.locate(ticket);
                self.compute(snapshot, shape, generation, row, member);
                progress.done.fetch_add(1, Ordering::AcqRel);
            }
        }
        let backoff = Backoff::new();
        while progress.done.load(Ordering::Acquire) < end {
            assert!(
                !progress.panicked.load(Ordering::Acquire),
                "a GA team member panicked"
            );
            backoff.snooze();
        }
    }

    /// Breeds (after the seeds) and projects one row.
    fn compute(
        &self,
        snapshot: &Snapshot,
        shape: Shape,
        generation: usize,
        row: usize,
        member: &mut MemberScratch,
    ) {
        let read = |cells: &[AtomicU32], out: &mut Vec<u32>| {
            out.clear();
            out.extend(cells.iter().map(|c| c.load(Ordering::Relaxed)));
        };
        let to = self.row(generation, shape, row);
        if generation == 0 {
            read(to, &mut member.child);
        } else {
            let plan = &self.plan[shape.breeding_of(row)];
            let breeding =
                Breeding::unpack([plan[0].load(Ordering::Relaxed), plan[1].load(Ordering::Relaxed)]);
            let parents = generation - 1;
            read(self.row(parents, shape, breeding.a as usize), &mut member.a);
            let b = if breeding.a == breeding.b {
                &member.a
            } else {
                read(self.row(parents, shape, breeding.b as usize), &mut member.b);
                &member.b
            };
            member.child.clear();
            zipper(&member.a, b, &mut member.taken, &mut member.child);
            if let Some((i, j)) = breeding.swap {
                member.child.swap(i as usize, j as usize);
            }
            for (cell, &job) in to.iter().zip(&member.child) {
                cell.store(job, Ordering::Relaxed);
            }
        }
        let fitness = snapshot.project(&member.child, &mut member.projection, None);
        self.fitness[row].store(fitness.to_bits(), Ordering::Relaxed);
    }
}

/// Cells from one row's start to the next: whole cache lines (16 indices of 4 bytes), so
/// that members writing neighbouring rows never write the same line.
fn stride(queue: usize) -> usize {
    queue.next_multiple_of(16)
}

/// Marks the decision as failed if its member unwinds, so that the leader stops waiting.
struct PanicFlag<'a>(&'a Progress);

impl Drop for PanicFlag<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.panicked.store(true, Ordering::Release);
            self.0.finished.store(true, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_cover_every_row_of_every_generation_once() {
        let shape = Shape {
            population: 4,
            islands: 1,
            queue: 3,
            generations: 2,
        };
        let rows: Vec<(usize, usize)> = (0..shape.end_of(2) + 1).map(|t| shape.locate(t)).collect();
        assert_eq!(
            rows,
            [
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 1),
                (1, 2),
                (1, 3),
                (2, 1),
                (2, 2),
                (2, 3),
                (3, 1)
            ]
        );
        let single = Shape {
            population: 1,
            islands: 1,
            queue: 3,
            generations: 0,
        };
        assert_eq!(single.end_of(0), 1);
        assert_eq!(single.locate(1).0, usize::MAX);
        // Two islands of 3: rows 0 and 3 are the elites, bred island by island.
        let islands = Shape {
            population: 3,
            islands: 2,
            queue: 3,
            generations: 2,
        };
        let rows: Vec<(usize, usize)> = (4..islands.end_of(2) + 1).map(|t| islands.locate(t)).collect();
        assert_eq!(
            rows,
            [
                (0, 4),
                (0, 5),
                (1, 1),
                (1, 2),
                (1, 4),
                (1, 5),
                (2, 1),
                (2, 2),
                (2, 4),
                (2, 5),
                (3, 1)
            ]
        );
        for k in 0..islands.bred() {
            assert_eq!(islands.breeding_of(islands.bred_row(k)), k);
        }
    }
}
