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

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use crossbeam_utils::{Backoff, CachePadded};

use super::{Scratch, Snapshot, zipper};

/// How one child of a generation is bred, drawn by the leader.
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
}

/// What the team shares across decisions; buffers grow to the largest decision seen and
/// are then reused, so a warm decision allocates nothing.
#[derive(Debug, Default)]
pub(super) struct Team {
    /// Two sets of `population` rows of queue indices (the module docs).
    rows: [Vec<RwLock<Vec<u32>>>; 2],
    /// Fitness of the rows of the generation being computed, as `f64` bits.
    fitness: Vec<AtomicU64>,
    /// Breeding of rows `1..` of the published generation (row 0 is the elite).
    plan: RwLock<Vec<Breeding>>,
    members: Vec<Mutex<MemberScratch>>,
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
    pub population: usize,
    pub queue: usize,
    /// Generations after the seeds (0 when the population is 1: nothing to breed).
    pub generations: usize,
}

impl Shape {
    /// Generation 0 evaluates the `population` seeds; each later one breeds rows
    /// `1..population`.
    fn end_of(&self, generation: usize) -> usize {
        self.population + generation * (self.population - 1)
    }

    /// The (generation, row) of a ticket; the generation is past the last for tickets
    /// beyond the decision.
    fn locate(&self, ticket: usize) -> (usize, usize) {
        if ticket < self.population {
            (0, ticket)
        } else if self.population == 1 {
            (usize::MAX, 0)
        } else {
            let later = ticket - self.population;
            (
                1 + later / (self.population - 1),
                1 + later % (self.population - 1),
            )
        }
    }
}

impl Team {
    /// Sizes the buffers for a decision of `shape` on up to `members` threads.
    pub fn prepare(&mut self, shape: Shape, members: usize) {
        for set in &mut self.rows {
            if set.len() < shape.population {
                set.resize_with(shape.population, RwLock::default);
            }
        }
        if self.fitness.len() < shape.population {
            self.fitness.resize_with(shape.population, AtomicU64::default);
        }
        let plan = self.plan.get_mut().unwrap();
        plan.clear();
        plan.resize(shape.population.saturating_sub(1), Breeding::default());
        if self.members.len() < members {
            self.members.resize_with(members, Mutex::default);
        }
        for member in &mut self.members {
            let taken = &mut member.get_mut().unwrap().taken;
            taken.clear();
            taken.resize(shape.queue, false);
        }
    }

    /// Row `row` of the seed generation, to be filled before `evolve`.
    pub fn seed_row(&mut self, row: usize) -> &mut Vec<u32> {
        self.rows[0][row].get_mut().unwrap()
    }

    /// Row `row` of the last generation of a decision of `shape`, after `evolve`.
    pub fn final_row(&mut self, shape: Shape, row: usize) -> &[u32] {
        self.rows[shape.generations % 2][row].get_mut().unwrap()
    }

    /// Evolves the seeds through `shape.generations` generations on `members` threads
    /// (1: this one alone) and leaves the last generation's fitness in `fitness`.
    /// `breed(fitness, plan)` draws the next generation's plan from the current fitness:
    /// it runs on this thread only, once per generation, in order.
    pub fn evolve(
        &mut self,
        snapshot: &Snapshot,
        shape: Shape,
        members: usize,
        fitness: &mut Vec<f64>,
        mut breed: impl FnMut(&[f64], &mut [Breeding]) + Send,
    ) {
        let progress = Progress::default();
        let team = &*self;
        let mut lead = || {
            let _flag = PanicFlag(&progress);
            let mut member = team.members[0].lock().unwrap();
            let publish = |generation: usize| progress.published.store(generation + 1, Ordering::Release);
            publish(0);
            team.help(snapshot, shape, &progress, &mut member, shape.end_of(0));
            for generation in 1..=shape.generations {
                team.read_fitness(shape, fitness);
                let best = super::argmax(fitness);
                let (from, to) = (&team.rows[(generation - 1) % 2], &team.rows[generation % 2]);
                {
                    let mut elite = to[0].write().unwrap();
                    elite.clear();
                    elite.extend_from_slice(&from[best].read().unwrap());
                }
                team.fitness[0].store(fitness[best].to_bits(), Ordering::Relaxed);
                breed(fitness, &mut team.plan.write().unwrap());
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
        self.read_fitness(shape, fitness);
    }

    /// The fitness of the rows of the generation last computed, into `out`.
    fn read_fitness(&self, shape: Shape, out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.fitness[..shape.population]
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
            self.compute(snapshot, generation, row, &mut member);
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
                self.compute(snapshot, generation, row, member);
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
    fn compute(&self, snapshot: &Snapshot, generation: usize, row: usize, member: &mut MemberScratch) {
        let to = &self.rows[generation % 2][row];
        let fitness = if generation == 0 {
            snapshot.project(&to.read().unwrap(), &mut member.projection, None)
        } else {
            let breeding = self.plan.read().unwrap()[row - 1];
            let from = &self.rows[(generation - 1) % 2];
            let mut child = to.write().unwrap();
            child.clear();
            let a = from[breeding.a as usize].read().unwrap();
            if breeding.a == breeding.b {
                zipper(&a, &a, &mut member.taken, &mut child);
            } else {
                zipper(
                    &a,
                    &from[breeding.b as usize].read().unwrap(),
                    &mut member.taken,
                    &mut child,
                );
            }
            if let Some((i, j)) = breeding.swap {
                child.swap(i as usize, j as usize);
            }
            snapshot.project(&child, &mut member.projection, None)
        };
        self.fitness[row].store(fitness.to_bits(), Ordering::Relaxed);
    }
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
            queue: 3,
            generations: 0,
        };
        assert_eq!(single.end_of(0), 1);
        assert_eq!(single.locate(1).0, usize::MAX);
    }
}
