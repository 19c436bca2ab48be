//! Speedup models: Downey's low- and high-variance parallelism profiles (Downey 1997,
//! equations 1 and 2).
//!
//! A job has average parallelism `A >= 1` and variance parameter `sigma >= 0`. For
//! `sigma <= 1` the low-variance profile applies, for `sigma >= 1` the high-variance one;
//! the two agree at `sigma = 1`, so the choice is continuous in sigma.

/// Speedup `S(n)` of a job with average parallelism `a` and variance parameter `sigma` on `n`
/// processors (`n >= 1`).
pub fn downey_speedup(a: f64, sigma: f64, n: f64) -> f64 {
    debug_assert!(a >= 1.0 && sigma >= 0.0 && n >= 1.0);
    if sigma <= 1.0 {
        // Equation 1.
        if n <= a {
            a * n / (a + sigma * (n - 1.0) / 2.0)
        } else if n <= 2.0 * a - 1.0 {
            a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0))
        } else {
            a
        }
    } else {
        // Equation 2.
        let knee = a + a * sigma - sigma;
        if n <= knee {
            n * a * (sigma + 1.0) / (knee + n * sigma)
        } else {
            a
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() < 1e-9 * y.abs().max(1.0)
    }

    #[test]
    fn one_processor_has_unit_speedup() {
        for &sigma in &[0.0, 0.5, 1.0, 1.5, 2.0] {
            for &a in &[1.0, 3.7, 64.0, 128.0] {
                assert!(close(downey_speedup(a, sigma, 1.0), 1.0), "a={a} sigma={sigma}");
            }
        }
    }

    #[test]
    fn sigma_zero_is_linear_then_flat() {
        assert!(close(downey_speedup(64.0, 0.0, 32.0), 32.0));
        assert!(close(downey_speedup(64.0, 0.0, 64.0), 64.0));
        assert!(close(downey_speedup(64.0, 0.0, 500.0), 64.0));
    }

    #[test]
    fn models_agree_at_sigma_one_and_approach_eager_bound() {
        // At sigma = 1 the two profiles give the same curve; as sigma grows the curve tends
        // to the lower bound of Eager et al., A n / (A + n - 1) (equation 3).
        for n in 1..200 {
            let n = n as f64;
            let a = 64.0;
            let low = downey_speedup(a, 1.0, n);
            let high = {
                let knee = a + a - 1.0;
                if n <= knee { n * a * 2.0 / (knee + n) } else { a }
            };
            assert!(close(low, high), "n={n}: {low} vs {high}");
            let eager = a * n / (a + n - 1.0);
            assert!((downey_speedup(a, 1e6, n) - eager).abs() < 1e-3 * eager, "n={n}");
        }
    }

    #[test]
    fn continuous_across_pieces_and_monotone() {
        for &sigma in &[0.0, 0.3, 0.9, 1.0, 1.2, 2.0] {
            let a = 20.0;
            let mut prev = 0.0;
            let mut n = 1.0;
            while n < 100.0 {
                let s = downey_speedup(a, sigma, n);
                assert!(s + 1e-9 >= prev, "sigma={sigma} n={n}");
                assert!(s <= a + 1e-9 && s <= n + 1e-9);
                prev = s;
                n += 0.25;
            }
        }
    }
}
