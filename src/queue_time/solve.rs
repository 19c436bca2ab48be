//! Root finding for the queue-time predictors: safeguarded Halley on a bracketed monotone
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

/// A root found by [`halley`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Root {
    pub q: f64,
    pub evaluations: u32,
    /// The function's derivative at the last point evaluated, within the tolerance of the
    /// root: how fast the root moves when the level changes.
    pub slope: f64,
}

/// The root in [lo, hi] of `f`, which returns (value, first derivative, second
/// derivative) and is decreasing with f(lo) >= 0 >= f(hi) (`decreasing`), or increasing
/// with f(lo) <= 0 <= f(hi). Halley steps from `start` (Newton's step scaled by the
/// curvature: cubic convergence, so one evaluation fewer than Newton from a rough start); a
/// step leaving the bracket takes Newton's step instead, and where that leaves it too, or
/// the derivative is zero, the bracket is bisected.
pub fn halley(
    mut f: impl FnMut(f64) -> (f64, f64, f64),
    decreasing: bool,
    mut lo: f64,
    mut hi: f64,
    start: f64,
) -> Root {
    let sign = if decreasing { -1.0 } else { 1.0 };
    let mut q = start.clamp(lo, hi);
    let mut last_slope = f64::NAN;
    for i in 1..=MAX_ITERATIONS {
        let (value, slope, curvature) = f(q);
        last_slope = slope;
        let (value, slope, curvature) = (sign * value, sign * slope, sign * curvature);
        if value == 0.0 {
            return Root {
                q,
                evaluations: i,
                slope: last_slope,
            };
        }
        if value < 0.0 {
            lo = q;
        } else {
            hi = q;
        }
        let inside = |x: f64| x > lo && x < hi;
        let newton_step = value / slope;
        let halley = q - newton_step / (1.0 - 0.5 * newton_step * curvature / slope);
        let next = if slope > 0.0 && inside(halley) {
            halley
        } else if slope > 0.0 && inside(q - newton_step) {
            q - newton_step
        } else {
            midpoint(lo, hi)
        };
        if converged(next - q, q) || converged(hi - lo, lo) {
            return Root {
                q: next.clamp(lo, hi),
                evaluations: i,
                slope: last_slope,
            };
        }
        q = next;
    }
    Root {
        q,
        evaluations: MAX_ITERATIONS,
        slope: last_slope,
    }
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
    fn halley_meets_its_tolerance_on_either_monotone_direction() {
        // ln(1 + q) = 7 at q = e^7 - 1.
        let root = 7f64.exp() - 1.0;
        let up = |q: f64| {
            (
                (1.0 + q).ln() - 7.0,
                1.0 / (1.0 + q),
                -1.0 / ((1.0 + q) * (1.0 + q)),
            )
        };
        let Root {
            q,
            evaluations: with_curvature,
            slope,
        } = halley(up, false, 0.0, 1e9, 0.0);
        assert!((slope - 1.0 / (1.0 + root)).abs() < 1e-6 / root, "{slope}");
        assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{q}");
        let down = |q: f64| {
            let (v, d, c) = up(q);
            (-v, -d, -c)
        };
        let q = halley(down, true, 0.0, 1e9, 1e8).q;
        assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{q}");
        // The curvature is what saves evaluations over Newton's method (curvature 0).
        let Root {
            q,
            evaluations: newton,
            ..
        } = halley(|q| (up(q).0, up(q).1, 0.0), false, 0.0, 1e9, 0.0);
        assert!((q - root).abs() <= ABS_TOL + REL_TOL * root, "{q}");
        assert!(
            with_curvature < newton,
            "Halley {with_curvature}, Newton {newton} evaluations"
        );
        // A flat derivative falls back to bisection and still converges.
        let Root {
            q, evaluations: n, ..
        } = halley(
            |q| (if q < 500.0 { -1.0 } else { 1.0 }, 0.0, 0.0),
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
