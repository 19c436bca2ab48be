//! The predictors' per-job sums (A's joint survival, B's released processors, each with its
//! first two derivatives), written so the compiler vectorises them, and run with AVX2 where
//! the CPU has it.
//!
//! Every `ln` of a root search goes through [`ln`], a branch-free logarithm made of IEEE
//! additions, multiplications and one division (no fused multiply-add), and the sums are
//! split over a fixed number of lanes (`LANES`) combined in a fixed order. So the SSE2 and
//! AVX2 builds of a kernel, and its scalar tail, compute the same bits: results do not
//! depend on the machine a sweep's shard ran on.

/// Partial sums per kernel: job i goes to lane i % LANES.
const LANES: usize = 4;

/// ln 2 = LN2_HI + LN2_LO, the high part with 21 trailing zero bits so that its product
/// with any exponent is exact.
const LN2_HI: f64 = 0.6931471803691238;
const LN2_LO: f64 = 1.9082149292705877e-10;

/// Natural logarithm of a positive normal `t` within 2 ulp of the correctly rounded value.
/// Zero and subnormal inputs give a finite value below -708 (callers clamp at ln t_min);
/// negative, infinite and NaN inputs are not expected.
///
/// t = 2^e m with m in [sqrt(1/2), sqrt(2)); ln m = 2 s g(s^2) with s = (m - 1) / (m + 1),
/// |s| <= 0.1716, and g(z) = atanh(sqrt z) / sqrt z = sum of z^k / (2k + 1), replaced on
/// [0, 0.02944] by its Chebyshev fit of degree 7 (`SERIES`, within 1.2e-18 of g).
#[inline(always)]
pub fn ln(t: f64) -> f64 {
    let bits = t.to_bits();
    // The biased exponent as a float without an integer conversion (which SSE2 cannot do
    // on packed 64-bit lanes): the float 2^52 + e_biased, minus 2^52 + 1023.
    let exponent = f64::from_bits(0x4330_0000_0000_0000 | (bits >> 52)) - 4_503_599_627_371_519.0;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let high = m > std::f64::consts::SQRT_2;
    let m = if high { 0.5 * m } else { m };
    let exponent = if high { exponent + 1.0 } else { exponent };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut series = SERIES[0];
    for c in &SERIES[1..] {
        series = series * z + c;
    }
    exponent * LN2_HI + (2.0 * s * series + exponent * LN2_LO)
}

/// The coefficients of [`ln`]'s g(z), highest degree first: a Chebyshev fit on [0, ((sqrt 2
/// - 1) / (sqrt 2 + 1))^2] computed with 50-digit arithmetic (mpmath's `chebyfit`, degree 7).
const SERIES: [f64; 8] = [
    0.07404855180327638,
    0.07656264074182095,
    0.09091815840114664,
    0.11111098528363024,
    0.1428571438032084,
    0.1999999999965117,
    0.33333333333333826,
    1.0,
];

/// Larger of two numbers that are not NaN, as one instruction.
#[inline(always)]
fn max(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// Three per-job arrays reduced at once over [`LANES`] partial results (job i in lane
/// i % LANES, lanes combined pairwise): the first multiplied if `PRODUCT`, else summed; the
/// other two summed.
#[inline(always)]
fn lane_reduce<const PRODUCT: bool>(first: &[f64], second: &[f64], third: &[f64]) -> (f64, f64, f64) {
    let n = first.len();
    let (second, third) = (&second[..n], &third[..n]);
    let mut lanes = [
        [if PRODUCT { 1.0 } else { 0.0 }; LANES],
        [0.0; LANES],
        [0.0; LANES],
    ];
    let whole = n - n % LANES;
    for i in (0..whole).step_by(LANES) {
        for l in 0..LANES {
            lanes[0][l] = if PRODUCT {
                lanes[0][l] * first[i + l]
            } else {
                lanes[0][l] + first[i + l]
            };
            lanes[1][l] += second[i + l];
            lanes[2][l] += third[i + l];
        }
    }
    for i in whole..n {
        let l = i - whole;
        lanes[0][l] = if PRODUCT {
            lanes[0][l] * first[i]
        } else {
            lanes[0][l] + first[i]
        };
        lanes[1][l] += second[i];
        lanes[2][l] += third[i];
    }
    let [f, s, t] = lanes;
    (
        if PRODUCT {
            (f[0] * f[1]) * (f[2] * f[3])
        } else {
            (f[0] + f[1]) + (f[2] + f[3])
        },
        (s[0] + s[1]) + (s[2] + s[3]),
        (t[0] + t[1]) + (t[2] + t[3]),
    )
}

/// The constants of one root search.
#[derive(Clone, Copy, Debug)]
pub struct Horizon {
    /// ln t_min, ln t_max of the lifetime distribution.
    pub ln_min: f64,
    pub ln_max: f64,
}

/// Per-job terms of a kernel, reused between evaluations.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    first: Vec<f64>,
    slope: Vec<f64>,
    curvature: Vec<f64>,
}

impl Scratch {
    /// The three buffers, each of exactly `n` elements. Not inlined: inlined, the resizing
    /// code kept the kernels' loops from vectorising.
    #[inline(never)]
    fn sized(&mut self, n: usize) -> (&mut [f64], &mut [f64], &mut [f64]) {
        for v in [&mut self.first, &mut self.slope, &mut self.curvature] {
            v.resize(n, 0.0);
        }
        (
            &mut self.first[..n],
            &mut self.slope[..n],
            &mut self.curvature[..n],
        )
    }
}

/// Runs `$body` (a call of an `#[inline(always)]` function) compiled for AVX2 where the CPU
/// has it, else as built: the same operations in the same order either way.
macro_rules! dispatch {
    ($name:ident, fn($($arg:ident: $ty:ty),*) -> $ret:ty, $body:ident) => {
        pub fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked just above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

/// Predictor A's benefactors as its kernel reads them: ages, 1 / (ln t_max - ln age), and
/// ln age as equation 5 takes it.
#[derive(Clone, Copy, Debug)]
pub struct Benefactors<'a> {
    pub ages: &'a [f64],
    pub inv_room: &'a [f64],
    pub ln_ages: &'a [f64],
}

dispatch!(
    benefactor_sums,
    fn(jobs: Benefactors, q: f64, h: Horizon, scratch: &mut Scratch) -> (f64, f64, f64),
    benefactor_body
);

/// Predictor A's sums at q over its benefactors: their joint survival Pr{none ends by q},
/// and the first two derivatives of its log. Per job, with t = age + q and left =
/// ln t_max - ln t, the survival is left / room, the slope -1 / (t left) and its
/// derivative (left - 1) times the slope squared (zero below t_min, where the job is
/// conditioned on nothing). At q = 0, ln t is the age's, given.
#[inline(always)]
fn benefactor_body(jobs: Benefactors, q: f64, h: Horizon, scratch: &mut Scratch) -> (f64, f64, f64) {
    let n = jobs.ages.len();
    let (ages, inv_room, ln_ages) = (jobs.ages, &jobs.inv_room[..n], &jobs.ln_ages[..n]);
    let (survival, slope, curvature) = scratch.sized(n);
    // Sliced again so the compiler sees that every length is n: no bounds check is left
    // in the loop to stop it vectorising.
    let (survival, slope, curvature) = (&mut survival[..n], &mut slope[..n], &mut curvature[..n]);
    let at_zero = q == 0.0;
    // No dependence between jobs: the compiler vectorises this loop.
    for i in 0..n {
        let t = ages[i] + q;
        let lt = if at_zero { ln_ages[i] } else { max(ln(t), h.ln_min) };
        let left = max(h.ln_max - lt, 1e-300);
        let d = -1.0 / (t * left);
        let d = if lt > h.ln_min { d } else { 0.0 };
        survival[i] = left * inv_room[i];
        slope[i] = d;
        curvature[i] = (left - 1.0) * d * d;
    }
    lane_reduce::<true>(survival, slope, curvature)
}

/// The running jobs as predictor B's kernel reads them: processors held, age, ln age as
/// equation 5 takes it, and weight = processors / (ln t_max - ln age). Jobs past t_max
/// have size and weight 0 here: they are counted apart.
#[derive(Clone, Copy, Debug)]
pub struct Running<'a> {
    pub sizes: &'a [f64],
    pub ages: &'a [f64],
    pub ln_ages: &'a [f64],
    pub weights: &'a [f64],
}

dispatch!(
    released_sums,
    fn(jobs: Running, q: f64, h: Horizon, scratch: &mut Scratch) -> (f64, f64, f64),
    released_body
);

/// Predictor B's sums at q (equation 10): the processors the running jobs release by q,
/// and the first two derivatives. Per job, with t = age + q, it has released
/// weight (ln t - ln age) of its processors (all of them once t reaches t_max, none while
/// t is below t_min), at slope weight / t, whose derivative is minus that over t. At q = 0,
/// ln t is the age's, given.
#[inline(always)]
fn released_body(jobs: Running, q: f64, h: Horizon, scratch: &mut Scratch) -> (f64, f64, f64) {
    let n = jobs.sizes.len();
    let (sizes, ages, ln_ages, weights) = (
        jobs.sizes,
        &jobs.ages[..n],
        &jobs.ln_ages[..n],
        &jobs.weights[..n],
    );
    let (released, slope, curvature) = scratch.sized(n);
    // Sliced again, as in `benefactor_body`.
    let (released, slope, curvature) = (&mut released[..n], &mut slope[..n], &mut curvature[..n]);
    let at_zero = q == 0.0;
    for i in 0..n {
        let (size, age, ln_age, weight) = (sizes[i], ages[i], ln_ages[i], weights[i]);
        let t = age + q;
        let lt = if at_zero { ln_age } else { max(ln(t), h.ln_min) };
        let full = lt >= h.ln_max;
        let moving = (lt > h.ln_min) & !full;
        let per_t = 1.0 / t;
        let d = weight * per_t;
        released[i] = if full { size } else { weight * (lt - ln_age) };
        slope[i] = if moving { d } else { 0.0 };
        curvature[i] = if moving { -d * per_t } else { 0.0 };
    }
    lane_reduce::<false>(released, slope, curvature)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between two finite floats of the same sign.
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn ln_is_within_two_ulp_of_the_library_logarithm() {
        let mut worst = 0;
        let mut check = |t: f64| {
            let (fast, exact) = (ln(t), t.ln());
            if exact == 0.0 {
                assert_eq!(fast, 0.0, "ln({t})");
            } else {
                worst = worst.max(ulps(fast, exact));
                assert!(ulps(fast, exact) <= 2, "ln({t}) = {fast}, library {exact}");
            }
        };
        // Powers of two, both sides of the sqrt(2) split, and a dense log-spaced sweep
        // from 1e-300 to 1e300.
        for e in -1000..1000 {
            let p = 2f64.powi(e);
            for t in [
                p,
                p * std::f64::consts::SQRT_2,
                p * (std::f64::consts::SQRT_2 + 1e-15),
            ] {
                check(t);
            }
        }
        for i in 0..2_000_000 {
            check((i as f64 * 6e-4 - 690.0).exp());
        }
        assert!(worst <= 2);
    }

    #[test]
    fn ln_2_is_split_so_that_its_high_part_times_an_exponent_is_exact() {
        // 11 exponent bits times a high part with 21 trailing zero bits fit in 53 bits.
        assert!(LN2_HI.to_bits().trailing_zeros() >= 11);
        assert_eq!(LN2_HI + LN2_LO, std::f64::consts::LN_2);
    }

    #[test]
    fn ln_of_zero_and_subnormals_lies_below_any_t_min() {
        for t in [0.0, f64::MIN_POSITIVE / 4.0, f64::from_bits(1)] {
            assert!(ln(t) < -708.0, "ln({t}) = {}", ln(t));
        }
    }

    #[test]
    fn kernels_do_not_depend_on_the_vector_width() {
        // The AVX2 and portable builds of a kernel must give the same bits: compare the
        // dispatched kernels with the portable bodies on lengths around the lane count.
        let h = Horizon {
            ln_min: 2.0,
            ln_max: 12.0,
        };
        for n in [1, 3, 4, 5, 17, 66, 129] {
            let ages: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).exp()).collect();
            let ln_ages: Vec<f64> = ages.iter().map(|a: &f64| a.ln().max(h.ln_min)).collect();
            let inv_room: Vec<f64> = ln_ages.iter().map(|l| 1.0 / (h.ln_max - l)).collect();
            let sizes: Vec<f64> = (0..n).map(|i| (1 + i % 7) as f64).collect();
            let weights: Vec<f64> = sizes.iter().zip(&inv_room).map(|(s, r)| s * r).collect();
            let a = Benefactors {
                ages: &ages,
                inv_room: &inv_room,
                ln_ages: &ln_ages,
            };
            let b = Running {
                sizes: &sizes,
                ages: &ages,
                ln_ages: &ln_ages,
                weights: &weights,
            };
            let mut scratch = Scratch::default();
            for q in [0.0, 3.0, 1e3] {
                let (dispatched, portable) = (
                    benefactor_sums(a, q, h, &mut scratch),
                    benefactor_body(a, q, h, &mut scratch),
                );
                assert_eq!(
                    format!("{dispatched:?}"),
                    format!("{portable:?}"),
                    "A: n = {n}, q = {q}"
                );
                let (dispatched, portable) = (
                    released_sums(b, q, h, &mut scratch),
                    released_body(b, q, h, &mut scratch),
                );
                assert_eq!(
                    format!("{dispatched:?}"),
                    format!("{portable:?}"),
                    "B: n = {n}, q = {q}"
                );
            }
        }
    }
}
