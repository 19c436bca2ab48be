//! Whether a schedule of real-valued intervals ever holds more processors than a machine
//! has: the check the simulators on continuous time (malleable, moldable) run over their
//! own schedules in debug builds and tests, as the engine's validator does on integer time.

/// An instant at which the running jobs hold more than there is (processors, a node's
/// task slots or memory).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overbooked {
    pub at: f64,
    pub held: f64,
    pub capacity: f64,
}

/// Checks that at no instant the intervals `[start, end)` running hold more than
/// `capacity`, each holding its amount (within a relative 1e-9, for amounts that are sums
/// of real numbers); an interval that ends where another starts frees its amount first.
/// Intervals with a NaN bound (a job a cut-short run never started or ended) hold nothing.
pub fn check(intervals: impl Iterator<Item = (f64, f64, f64)>, capacity: f64) -> Result<(), Overbooked> {
    let mut changes: Vec<(f64, f64)> = Vec::new();
    for (start, end, amount) in intervals.filter(|(s, e, _)| !s.is_nan() && !e.is_nan()) {
        changes.push((start, amount));
        changes.push((end, -amount));
    }
    // Ends (negative changes) before starts at the same instant.
    changes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut held = 0.0;
    for (at, change) in changes {
        held += change;
        if held > capacity * (1.0 + 1e-9) {
            return Err(Overbooked { at, held, capacity });
        }
    }
    Ok(())
}

/// A fault planted in a schedule, for the simulators' validator tests.
#[cfg(test)]
pub(crate) type Plant<'a, S> = Box<dyn Fn(&mut S) + 'a>;

/// Plants each fault in a copy of `schedule` and checks that `validate` panics with a
/// message that names it (the text paired with the fault).
#[cfg(test)]
pub(crate) fn assert_faults_named<S: Clone>(
    schedule: &S,
    faults: Vec<(&str, Plant<'_, S>)>,
    validate: impl Fn(&S),
) {
    for (said, plant) in faults {
        let mut planted = schedule.clone();
        plant(&mut planted);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| validate(&planted)));
        let message = caught.expect_err(said);
        let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains(said), "{said}: {text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand, on 4 processors: 2 + 2 fit, a third job of 1 over [5, 6) does not; a job
    /// that starts where another ends takes its processors.
    #[test]
    fn overbooking_is_found_at_its_instant() {
        let fits = [
            (0.0, 10.0, 2.0),
            (0.0, 5.0, 2.0),
            (5.0, 8.0, 2.0),
            (f64::NAN, f64::NAN, 9.0),
        ];
        assert_eq!(check(fits.into_iter(), 4.0), Ok(()));
        let over = [(0.0, 10.0, 2.0), (0.0, 6.0, 2.0), (5.0, 8.0, 1.0)];
        let found = check(over.into_iter(), 4.0);
        assert_eq!(
            found,
            Err(Overbooked {
                at: 5.0,
                held: 5.0,
                capacity: 4.0
            })
        );
    }
}
