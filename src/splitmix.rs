//! SplitMix64: the one small deterministic generator the crate's audit, its
//! tests and its benchmarks draw from, so a seed reproduces anywhere.
//!
//! It depends on nothing else in the crate: the tests and benches include
//! this file by path (`#[path = ".../src/splitmix.rs"]`).

/// Advances `state` and returns the next 64 random bits (Steele, Lea and
/// Flood's SplitMix64).
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A number below `n` (0 when `n` is 0).
pub fn below(state: &mut u64, n: u64) -> u64 {
    if n == 0 { 0 } else { next(state) % n }
}
