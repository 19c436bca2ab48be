//! Queue-time predictors (Downey 1997, section 3): how long until `n` processors are free,
//! given the running jobs' ages and sizes and the conditional lifetime distribution.
//!
//! Q(n) is the time until the free processors reach n, that is until the running jobs
//! that end free n' = n - n_free more (Q = 0 when n' <= 0; infinite when all running jobs
//! together hold fewer than n'). Jobs end independently, each by equation 5.
//!
//! - Predictor A (median): Pr{Q > q} is approximated by the chance that no benefactor (a
//!   job of n_i >= n') has ended (equation 9); A is the q where that is 0.5. None without
//!   benefactors. O(p) per evaluation.
//! - Predictor B (mean, fluid): each job releases n_i cdf_{L|a_i}(a_i + q) processors by
//!   q (equation 10); B is the q where the released total reaches n'. O(p).
//! - Combined: A with 2 or more benefactors, else B.
//! - Simulation (Hanzich et al.'s Algorithm 3 on Downey's dedicated machine, beyond both
//!   papers): each running job is projected to end at its conditional median lifetime
//!   (sqrt(a_i t_max) for ages in the model's range), and the jobs release their
//!   processors in that order; Q(n) is the projected time at which n' are free. O(p log p)
//!   once per machine state, then O(log p) per size.
//! - Exact median: Pr{Q <= q} = Pr{freed >= n'} summed over every outcome (equations 6-8),
//!   by enumeration (2^p outcomes, the paper's method, kept as a reference for small p) or
//!   by dynamic programming over the processors freed so far, capped at n' (O(p n')).
//!
//! Roots: A and B by safeguarded Halley (a handful of O(p) evaluations, one `ln` per job
//! each, vectorised in [`super::kernel`]), the exact median by bisection of O(p n')
//! evaluations; tolerances in [`super::solve`].

use super::kernel::{Benefactors, Horizon, Running, Scratch, benefactor_sums, released_sums};
use super::lifetime::UniformLog;
use super::solve::{bisect, halley};

/// The running jobs and free processors a prediction starts from, with the logs of the
/// ages precomputed once for every request size. Buffers are reused between loads.
#[derive(Clone, Debug, Default)]
pub struct RunningAges {
    dist: Option<UniformLog>,
    free: u32,
    ages: Vec<f64>,
    sizes: Vec<u32>,
    /// Predictor B's kernel: the sizes as floats and size / room, both 0 for jobs past
    /// t_max, whose processors are counted in `held_past_t_max`.
    kernel_sizes: Vec<f64>,
    weights: Vec<f64>,
    held_past_t_max: f64,
    /// Per job: ln of its age as equation 5 takes it, and ln t_max minus that.
    ln_age: Vec<f64>,
    room: Vec<f64>,
    inv_room: Vec<f64>,
    dp: Vec<f64>,
    /// Predictor A's scratch: the benefactors' ages, `inv_room` and `ln_age`, in job order,
    /// so that its iterations run over dense arrays without a size test per job (a branch
    /// the CPU mispredicts about once in two jobs).
    benefactor_ages: Vec<f64>,
    benefactor_inv_room: Vec<f64>,
    benefactor_ln_age: Vec<f64>,
    scratch: Scratch,
    /// The simulation kernel's projected ends, ascending, with the processors freed by
    /// each and all before it; built on first use after a load.
    projected: Vec<(f64, u64)>,
    projected_ready: bool,
}

/// Every predictor's answer for one request, in seconds (infinite: never).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueuePrediction {
    /// Processors asked for, and how many more than are free.
    pub n: u32,
    pub needed: u32,
    pub benefactors: usize,
    pub a: Option<f64>,
    pub b: f64,
    pub combined: f64,
}

impl RunningAges {
    /// Loads a machine state: `free` processors and running jobs of `ages` (seconds run so
    /// far) and `sizes` (processors held).
    pub fn load(&mut self, dist: UniformLog, free: u32, ages: &[f64], sizes: &[u32]) {
        assert_eq!(ages.len(), sizes.len(), "one size per age");
        self.dist = Some(dist);
        self.free = free;
        self.ages.clear();
        self.ages.extend_from_slice(ages);
        self.sizes.clear();
        self.sizes.extend_from_slice(sizes);
        self.ln_age.clear();
        self.ln_age.extend(ages.iter().map(|&a| dist.ln_age(a)));
        self.room.clear();
        self.room
            .extend(self.ln_age.iter().map(|&la| (dist.ln_max - la).max(0.0)));
        self.inv_room.clear();
        self.inv_room.extend(self.room.iter().map(|&r| 1.0 / r));
        self.kernel_sizes.clear();
        self.weights.clear();
        self.held_past_t_max = 0.0;
        for ((&size, &room), &inv_room) in sizes.iter().zip(&self.room).zip(&self.inv_room) {
            let size = size as f64;
            if room <= 0.0 {
                self.held_past_t_max += size;
                self.kernel_sizes.push(0.0);
                self.weights.push(0.0);
            } else {
                self.kernel_sizes.push(size);
                self.weights.push(size * inv_room);
            }
        }
        self.projected_ready = false;
    }

    /// The simulation kernel (module docs): the projected time until `n` processors are
    /// free (infinite if the running jobs hold too few).
    pub fn simulation(&mut self, n: u32) -> f64 {
        let needed = self.needed(n) as u64;
        if needed == 0 {
            return 0.0;
        }
        if !self.projected_ready {
            let ln_max = self.dist().ln_max;
            self.projected.clear();
            for i in 0..self.sizes.len() {
                // The median of ln L given L > a is halfway between ln a and ln t_max.
                let median = (0.5 * (self.ln_age[i] + ln_max)).exp();
                let remaining = (median - self.ages[i]).max(0.0);
                self.projected.push((remaining, self.sizes[i] as u64));
            }
            self.projected.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut freed = 0;
            for p in &mut self.projected {
                freed += p.1;
                p.1 = freed;
            }
            self.projected_ready = true;
        }
        let i = self.projected.partition_point(|p| p.1 < needed);
        self.projected.get(i).map_or(f64::INFINITY, |p| p.0)
    }

    fn dist(&self) -> UniformLog {
        self.dist.expect("a machine state is loaded")
    }

    /// Processors beyond the free ones a request of `n` needs (0: it fits now).
    pub fn needed(&self, n: u32) -> u32 {
        n.saturating_sub(self.free)
    }

    /// Running jobs that could satisfy a request of `n` alone.
    pub fn benefactors(&self, n: u32) -> usize {
        let needed = self.needed(n);
        self.sizes.iter().filter(|&&s| s >= needed).count()
    }

    /// The `k`-th largest running job's size (`k` >= 1), or 0 with fewer than `k` jobs: a
    /// request has at least `k` benefactors exactly when it needs at most that many more
    /// processors than are free.
    pub fn kth_largest_size(&self, k: usize) -> u32 {
        let mut top = [0u32; 2];
        assert!((1..=top.len()).contains(&k), "k = {k}");
        for &s in &self.sizes {
            if s > top[0] {
                top = [s, top[0]];
            } else if s > top[1] {
                top[1] = s;
            }
        }
        top[k - 1]
    }

    fn held(&self) -> u64 {
        self.sizes.iter().map(|&s| s as u64).sum()
    }

    /// The latest q at which some job may still run: past it, every job has ended.
    fn horizon(&self) -> f64 {
        let t_max = self.dist().t_max();
        self.ages
            .iter()
            .map(|&a| (t_max - a).max(0.0))
            .fold(0.0, f64::max)
    }

    /// Predictor A, the median by benefactors (equation 9). None without benefactors.
    pub fn a(&mut self, n: u32) -> Option<f64> {
        let needed = self.needed(n);
        if needed == 0 {
            return Some(0.0);
        }
        let dist = self.dist();
        let (ln_min, ln_max, t_max) = (dist.ln_min, dist.ln_max, dist.t_max());
        // The benefactors, compacted without a branch per job (the size test goes either
        // way about as often): every job is written, and the write position advances past
        // benefactors only.
        let p = self.sizes.len();
        let (mut count, mut oldest, mut past_t_max) = (0, 0.0f64, false);
        for v in [
            &mut self.benefactor_ages,
            &mut self.benefactor_inv_room,
            &mut self.benefactor_ln_age,
        ] {
            v.resize(p + 1, 0.0);
        }
        let (to_ages, to_inv_room, to_ln_age) = (
            &mut self.benefactor_ages[..=p],
            &mut self.benefactor_inv_room[..=p],
            &mut self.benefactor_ln_age[..=p],
        );
        let jobs = (self.sizes.iter().zip(&self.ages))
            .zip(self.inv_room.iter().zip(&self.ln_age))
            .zip(&self.room);
        for (((&size, &age), (&inv_room, &ln_age)), &room) in jobs {
            let benefactor = size >= needed;
            // `count` <= jobs seen so far < p + 1; `min` lets the compiler see it.
            let at = count.min(p);
            to_ages[at] = age;
            to_inv_room[at] = inv_room;
            to_ln_age[at] = ln_age;
            past_t_max |= benefactor & (room <= 0.0);
            oldest = if benefactor && age > oldest { age } else { oldest };
            count += usize::from(benefactor);
        }
        self.benefactor_ages.truncate(count);
        self.benefactor_inv_room.truncate(count);
        self.benefactor_ln_age.truncate(count);
        if past_t_max {
            // A benefactor past t_max ends at once.
            return Some(0.0);
        }
        // Past the oldest benefactor's horizon, all have ended.
        let hi = t_max - oldest;
        if self.benefactor_ages.is_empty() {
            return None;
        }
        // G(q) = ln of the benefactors' joint survival + ln 2, decreasing from ln 2 to -inf
        // at `hi`: one `ln` per job, of its horizon; the survivals (each <= 1) multiply and
        // their product's log is taken once. Per job, with t = age + q and left =
        // ln t_max - ln t, the slope is -1 / (t left) and its derivative (left - 1) times
        // the slope squared. At q = 0 every survival is 1 and ln t is the age's, known.
        let (benefactors, scratch) = (
            Benefactors {
                ages: &self.benefactor_ages,
                inv_room: &self.benefactor_inv_room,
                ln_ages: &self.benefactor_ln_age,
            },
            &mut self.scratch,
        );
        let horizon = Horizon { ln_min, ln_max };
        let g = |q: f64| {
            let (survival, slope, curvature) = benefactor_sums(benefactors, q, horizon, scratch);
            // At q = 0 the survival is 1 (up to the rounding of left / room).
            let value = if q == 0.0 {
                std::f64::consts::LN_2
            } else {
                survival.ln() + std::f64::consts::LN_2
            };
            (value, slope, curvature)
        };
        Some(halley(g, true, 0.0, hi, 0.0).q)
    }

    /// Predictor B, the fluid mean (equation 10); infinite if the request can never be met.
    pub fn b(&mut self, n: u32) -> f64 {
        self.b_between(n, 0.0, f64::INFINITY, 0.0).0
    }

    /// Predictor B when its answer is known to lie in [`lower`, `upper`] (B for a smaller
    /// and a larger request), searched from `start` (clamped into the bracket). Returns B
    /// and how fast it grows per processor asked for (1 / F'(B), NaN where B is 0 or
    /// infinite), for the next size's first guess.
    pub fn b_between(&mut self, n: u32, lower: f64, upper: f64, start: f64) -> (f64, f64) {
        let needed = self.needed(n);
        if needed == 0 {
            return (0.0, f64::NAN);
        }
        if self.held() < needed as u64 {
            return (f64::INFINITY, f64::NAN);
        }
        let hi = self.horizon().min(upper);
        let lo = lower.clamp(0.0, hi);
        let h = |q: f64| {
            let (released, slope, curvature) = self.released(q);
            (released - needed as f64, slope, curvature)
        };
        let root = halley(h, false, lo, hi, start.clamp(lo, hi));
        (root.q, 1.0 / root.slope)
    }

    /// Predictor B's fluid model: the processors released by q (equation 10), and its first
    /// and second derivatives. Nondecreasing in q, and concave between the instants at which
    /// a job's age reaches t_min. Per job, with t = age + q, the slope is n_i / (t room_i)
    /// and its derivative minus that over t.
    pub fn released(&mut self, q: f64) -> (f64, f64, f64) {
        let dist = self.dist();
        let h = Horizon {
            ln_min: dist.ln_min,
            ln_max: dist.ln_max,
        };
        let jobs = Running {
            sizes: &self.kernel_sizes,
            ages: &self.ages,
            ln_ages: &self.ln_age,
            weights: &self.weights,
        };
        let (released, slope, curvature) = released_sums(jobs, q, h, &mut self.scratch);
        // Jobs past t_max end at once.
        let past = if q > 0.0 { self.held_past_t_max } else { 0.0 };
        (released + past, slope, curvature)
    }

    /// Predictor A with 2 or more benefactors, else B.
    pub fn combined(&mut self, n: u32) -> f64 {
        match self.a(n) {
            Some(a) if self.benefactors(n) >= 2 => a,
            _ => self.b(n),
        }
    }

    /// Every predictor for a request of `n`.
    pub fn predict(&mut self, n: u32) -> QueuePrediction {
        QueuePrediction {
            n,
            needed: self.needed(n),
            benefactors: self.benefactors(n),
            a: self.a(n),
            b: self.b(n),
            combined: self.combined(n),
        }
    }

    /// Pr{Q(n) <= q}: the chance that the jobs ending by q free `needed` processors, by
    /// dynamic programming over the processors freed so far (capped at `needed`).
    pub fn chance_met_by(&mut self, needed: u32, q: f64) -> f64 {
        let dist = self.dist();
        let cap = needed as usize;
        self.dp.clear();
        self.dp.resize(cap + 1, 0.0);
        self.dp[0] = 1.0;
        for i in 0..self.sizes.len() {
            let stays = dist.survival(self.ages[i], q);
            let ends = 1.0 - stays;
            let size = self.sizes[i] as usize;
            // From the top down, so each job moves probability only once; the capped
            // top bucket keeps all it has.
            for k in (0..cap).rev() {
                let v = self.dp[k];
                if v != 0.0 {
                    self.dp[k] = v * stays;
                    self.dp[(k + size).min(cap)] += v * ends;
                }
            }
        }
        self.dp[cap]
    }

    /// The exact median of Q(n) (equations 6-8) by [`RunningAges::chance_met_by`]; infinite
    /// if the request can never be met.
    pub fn exact(&mut self, n: u32) -> f64 {
        let needed = self.needed(n);
        if needed == 0 {
            return 0.0;
        }
        if self.held() < needed as u64 {
            return f64::INFINITY;
        }
        let horizon = self.horizon();
        bisect(|q| self.chance_met_by(needed, q), 0.5, 0.0, horizon).0
    }

    /// Pr{Q(n) <= q} by enumerating all 2^p outcomes (equations 6-8): the paper's method,
    /// for tests. At most 24 running jobs.
    pub fn chance_met_by_enumeration(&self, needed: u32, q: f64) -> f64 {
        let p = self.sizes.len();
        assert!(p <= 24, "enumeration of 2^{p} outcomes");
        let dist = self.dist();
        let stays: Vec<f64> = self.ages.iter().map(|&a| dist.survival(a, q)).collect();
        let mut total = 0.0;
        for outcome in 0u32..(1 << p) {
            let mut probability = 1.0;
            let mut freed = 0u64;
            for i in 0..p {
                if outcome >> i & 1 == 1 {
                    probability *= 1.0 - stays[i];
                    freed += self.sizes[i] as u64;
                } else {
                    probability *= stays[i];
                }
            }
            if freed >= needed as u64 {
                total += probability;
            }
        }
        total
    }

    /// The exact median by enumeration (at most 24 running jobs).
    pub fn exact_by_enumeration(&self, n: u32) -> f64 {
        let needed = self.needed(n);
        if needed == 0 {
            return 0.0;
        }
        if self.held() < needed as u64 {
            return f64::INFINITY;
        }
        bisect(
            |q| self.chance_met_by_enumeration(needed, q),
            0.5,
            0.0,
            self.horizon(),
        )
        .0
    }
}
