//! Each user's jobs that have arrived and not ended, as intrusive lists threaded through
//! per-job links: what predictors with propagation walk at a termination, with no
//! allocation per event.

pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub(crate) struct LiveJobs {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl LiveJobs {
    /// Empties the lists for `users` users and `jobs` jobs, keeping the buffers.
    pub(crate) fn reset(&mut self, users: usize, jobs: usize) {
        self.head.clear();
        self.head.resize(users, NONE);
        for v in [&mut self.next, &mut self.prev] {
            v.clear();
            v.resize(jobs, NONE);
        }
    }

    /// Job `j` of user `u` arrived.
    pub(crate) fn join(&mut self, u: usize, j: usize) {
        self.next[j] = self.head[u];
        self.prev[j] = NONE;
        if self.head[u] != NONE {
            self.prev[self.head[u] as usize] = j as u32;
        }
        self.head[u] = j as u32;
    }

    /// Job `j` of user `u` ended.
    pub(crate) fn leave(&mut self, u: usize, j: usize) {
        let (p, n) = (self.prev[j], self.next[j]);
        if p == NONE {
            self.head[u] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// The first of user `u`'s live jobs (`NONE` if none); `next` walks on.
    pub(crate) fn first(&self, u: usize) -> u32 {
        self.head[u]
    }

    pub(crate) fn next(&self, j: u32) -> u32 {
        self.next[j as usize]
    }
}
