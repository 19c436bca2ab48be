//! Stable hashing and seed mixing: every seed in schedlab (a replication's, the GA's, the
//! local users' of a cluster run) is derived with these, so the same spec and seed give the
//! same bytes on any machine and for any thread count.

/// 64-bit FNV-1a: a stable hash for spec files and seeds (std's hashers are not stable).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64's finaliser: spreads nearby inputs over the whole 64-bit range.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a and SplitMix64 values: a change here would change every seed.
    #[test]
    fn known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(mix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
