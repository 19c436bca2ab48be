//! Whether a schedule of real-valued intervals ever holds more processors than a machine
//! has: the check the simulators on continuous time (malleable, moldable) run over their
//! own schedules in debug builds and tests, as the engine's validator does on integer time.

/// An instant at which the running jobs hold more processors than exist.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overbooked {
    pub at: f64,
    pub held: u64,
    pub procs: u32,
}

/// Checks that at no instant the intervals `[start, end)` running hold more than `procs`
/// processors, each holding its size; an interval that ends where another starts frees
/// its processors first. Intervals with a NaN bound (a job a cut-short run never started
/// or ended) hold nothing.
pub fn check(intervals: impl Iterator<Item = (f64, f64, u32)>, procs: u32) -> Result<(), Overbooked> {
    let mut changes: Vec<(f64, i64)> = Vec::new();
    for (start, end, size) in intervals.filter(|(s, e, _)| !s.is_nan() && !e.is_nan()) {
        changes.push((start, size as i64));
        changes.push((end, -(size as i64)));
    }
    // Ends (negative changes) before starts at the same instant.
    changes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut held = 0i64;
    for (at, change) in changes {
        held += change;
        if held > procs as i64 {
            return Err(Overbooked {
                at,
                held: held as u64,
                procs,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand, on 4 processors: 2 + 2 fit, a third job of 1 over [5, 6) does not; a job
    /// that starts where another ends takes its processors.
    #[test]
    fn overbooking_is_found_at_its_instant() {
        let fits = [
            (0.0, 10.0, 2),
            (0.0, 5.0, 2),
            (5.0, 8.0, 2),
            (f64::NAN, f64::NAN, 9),
        ];
        assert_eq!(check(fits.into_iter(), 4), Ok(()));
        let over = [(0.0, 10.0, 2), (0.0, 6.0, 2), (5.0, 8.0, 1)];
        assert_eq!(
            check(over.into_iter(), 4),
            Err(Overbooked {
                at: 5.0,
                held: 5,
                procs: 4
            })
        );
    }
}
