//! Users' sessions read from a log, for feedback (Zakay & Feitelson): a job waited for the
//! job of the same user that ended last before it was submitted, when the gap between them,
//! the think time, is short enough to belong to one session. SWF fields 17 and 18 (preceding
//! job, think time) record the result, which `crate::sim::feedback` replays.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::Jobs;
use crate::Time;

/// Think times of this length or more end a session: 20 minutes, Zakay & Feitelson's.
pub const SESSION_GAP: Time = 20 * 60;

/// Fills fields 17 and 18 of every job from the log's own times, replacing what they held:
/// a job's end in the log is its submit plus its recorded wait (0 where not recorded) plus
/// its runtime; a job depends on its user's latest such end at or before its submit when
/// the gap is under `gap` (ties to the later job in the table). Jobs of unknown users
/// (user -1) depend on none. Returns the number of dependent jobs. O(n log n).
pub fn infer_sessions(jobs: &mut Jobs, gap: Time) -> usize {
    struct User {
        /// Jobs not yet ended by the current submit time: (log end, index).
        running: BinaryHeap<Reverse<(Time, usize)>>,
        /// The latest end among the jobs ended so far.
        last: Option<(Time, usize)>,
    }
    let mut users: HashMap<i32, User> = HashMap::new();
    let mut dependent = 0;
    for j in 0..jobs.len() {
        jobs.preceding_job[j] = -1;
        jobs.think_time[j] = -1;
        let u = jobs.user[j];
        if u < 0 {
            continue;
        }
        let submit = jobs.submit[j];
        let user = users.entry(u).or_insert_with(|| User {
            running: BinaryHeap::new(),
            last: None,
        });
        while let Some(&Reverse((end, i))) = user.running.peek() {
            if end > submit {
                break;
            }
            user.running.pop();
            if user.last.is_none_or(|last| (end, i) > last) {
                user.last = Some((end, i));
            }
        }
        if let Some((end, i)) = user.last
            && submit - end < gap
            && let Ok(id) = i32::try_from(jobs.swf_id[i])
        {
            jobs.preceding_job[j] = id;
            jobs.think_time[j] = (submit - end) as i32;
            dependent += 1;
        }
        let end = submit + jobs.recorded_wait[j].max(0) as Time + jobs.runtime[j];
        user.running.push(Reverse((end, j)));
    }
    dependent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    /// User 7: job 1 ends at 0 + 10 + 100 = 110 in the log; job 2 is submitted at 200 (90 s
    /// of think time, one session); job 3 at 5000 (over 20 minutes after job 2's log end
    /// 200 + 0 + 50 = 250: a new session). User 8's job 4, submitted while job 5 of the same
    /// user still runs, waits for none; job 5's successor 6 follows its end at 400 + 30.
    #[test]
    fn sessions_by_hand() {
        let spec = [
            (1, 0, 10, 100, 7),
            (2, 200, 0, 50, 7),
            (4, 300, 0, 100, 8),
            (5, 350, 0, 50, 8),
            (6, 430, 0, 10, 8),
            (3, 5000, 0, 10, 7),
        ];
        let records: Vec<JobRecord> = spec
            .iter()
            .map(|&(id, submit, wait, runtime, user)| {
                let mut r = JobRecord::new(id, submit, runtime, 1, runtime);
                r.recorded_wait = wait;
                r.user = user;
                r
            })
            .collect();
        let mut jobs = Jobs::from_records(&records);
        assert_eq!(infer_sessions(&mut jobs, SESSION_GAP), 2);
        // Job 6 (submitted 430) follows job 4 (ended 400) and job 5 (ended 400): the later
        // in the table, job 5, with 30 s.
        assert_eq!(jobs.preceding_job, vec![-1, 1, -1, -1, 5, -1]);
        assert_eq!(jobs.think_time, vec![-1, 90, -1, -1, 30, -1]);
    }
}
