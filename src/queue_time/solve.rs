//! Root finding for the queue-time predictors: safeguarded Newton on a bracketed monotone
//! function, and bisection where no derivative exists.

/// Stop when a step moves the root by at most `ABS_TOL + REL_TOL * q` seconds.
pub const ABS_TOL: f64 = 1e-3;
pub const REL_TOL: f64 = 1e-6;
/// Iteration cap of both solvers (bisection halves a bracket of 10^9 s below the tolerance
/// in 40 steps).
pub const MAX_ITERATIONS: u32 = 100;

fn converged(step: f64, q: f64) -> bool {
    step.abs() <= ABS_TOL + REL_TOL * q.abs()
}

/// The midpoint of a bracket, geometric once it spans orders of magnitude, so roots that
/// lie anywhere from seconds to months are found in few steps.
fn midpoint(lo: f64, hi: f64) -> f64 {
    if lo > 1.0 && hi > 4.0 * lo {
        (lo * hi).sqrt()
    } else if lo <= 1.0 && hi > 4.0 {
        (lo.max(1e-3) * hi).sqrt().max(lo + (hi - lo) * 1e-6)
    } else {
        0.5 * (lo + hi)
    }
}

/// The root in [lo, hi] of `f`, which returns (value, derivative) and is decreasing with
/// f(lo) >= 0 >= f(hi) (`decreasing`), or increasing with f(lo) <= 0 <= f(hi). Newton
/// steps from `start`; a step leaving the bracket, or a zero derivative, bisects instead.
/// Returns the root and the number of evaluations.
pub fn newton(
    mut f: impl FnMut(f64) -> (f64, f64),
    decreasing: bool,
    mut lo: f64,
    mut hi: f64,
    start: f64,
) -> (f64, u32) {
    let sign = if decreasing { -1.0 } else { 1.0 };
    let mut q = start.clamp(lo, hi);
    for i in 1..=MAX_ITERATIONS {
        let (value, slope) = f(q);
        let value = sign * value;
        let slope = sign * slope;
        if value == 0.0 {
            return (q, i);
        }
        if value < 0.0 {
            lo = q;
        } else {
            hi = q;
        }
        let newton = q - value / slope;
        let next = if slope > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            midpoint(lo, hi)
        };
        if converged(next - q, q) || converged(hi - lo, lo) {
            return (next.clamp(lo, hi), i);
        }
        q = next;
    }
    (q, MAX_ITERATIONS)
}

/// The point in [lo, hi] where the increasing `f` crosses `level`, by bisection.
pub fn bisect(mut f: impl FnMut(f64) -> f64, level: f64, mut lo: f64, mut hi: f64) -> (f64, u32) {
    for i in 1..=MAX_ITERATIONS {
        let q = midpoint(lo, hi);
        if f(q) < level {
            lo = q;
        } else {
            hi = q;
        }
        if converged(hi - lo, lo) {
            return (0.5 * (lo + hi), i);
        }
    }
    (0.5 * (lo + hi), MAX_ITERATIONS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newton_meets_its_tolerance_on_either_monotone_direction() {
        // ln(1 + q) = 7 at q = e^7 - 1.
        let root = 7f64.exp() - 1.0;
        let (q, _) = newton(|q| ((1.0 + q).ln() - 7.0, 1.0 / (1.0 + q)), false, 0.0, 1e9, 0.0);
        assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{q}");
        let (q, _) = newton(|q| (7.0 - (1.0 + q).ln(), -1.0 / (1.0 + q)), true, 0.0, 1e9, 1e8);
        assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{q}");
        // A flat derivative falls back to bisection and still converges.
        let (q, n) = newton(
            |q| (if q < 500.0 { -1.0 } else { 1.0 }, 0.0),
            false,
            0.0,
            1e6,
            0.0,
        );
        assert!((q - 500.0).abs() <= 2.0 * (ABS_TOL + REL_TOL * 500.0), "{q}");
        assert!(n < MAX_ITERATIONS);
    }

    #[test]
    fn bisection_finds_a_level_across_orders_of_magnitude() {
        for root in [0.01, 3.0, 4_000.0, 2e7] {
            let (q, n) = bisect(|q| q, root, 0.0, 1e9);
            assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{root}: {q}");
            assert!(n < 80, "{root}: {n} steps");
        }
    }
}
