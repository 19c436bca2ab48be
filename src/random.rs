//! The random numbers every model draws: xoshiro256++ (seeded through SplitMix64, see
//! [`crate::seed`]) and its uniform draws, one definition for the workload models, the
//! resampling, the estimates, the utility generator and the cluster model alike.

/// Random numbers for the models: xoshiro256++ seeded through SplitMix64.
pub type ModelRng = rand_xoshiro::Xoshiro256PlusPlus;

/// A uniform draw in [0, 1) with 53 random bits.
#[inline]
pub fn unit(rng: &mut ModelRng) -> f64 {
    use rand_xoshiro::rand_core::Rng;
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform draw from 0 to `n - 1` (n >= 1), by multiplying 64 random bits by `n`.
#[inline]
pub fn below(rng: &mut ModelRng, n: u64) -> u64 {
    use rand_xoshiro::rand_core::Rng;
    ((rng.next_u64() as u128 * n as u128) >> 64) as u64
}
