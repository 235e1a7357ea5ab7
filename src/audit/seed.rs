//! Seeds are names: a stable hash turns `backpack-audit-a` into the number a
//! random sequence starts from, the same on every machine.

/// The random-number seed a seed name stands for: the first eight bytes of
/// the name's SHA-256, big-endian.
///
/// ```
/// use bevy_container::audit::seed_of;
/// assert_eq!(seed_of("backpack-audit-a"), seed_of("backpack-audit-a"));
/// assert_ne!(seed_of("backpack-audit-a"), seed_of("backpack-audit-b"));
/// ```
pub fn seed_of(name: &str) -> u64 {
    let digest = crate::hash::sha256(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// A small, fast, reproducible random-number generator (SplitMix64).
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        crate::splitmix::below(&mut self.0, n)
    }

    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        let span = u64::from(hi.saturating_sub(lo)) + 1;
        lo + self.below(span) as u32
    }

    /// True with probability `percent`/100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, from: &'a [T]) -> Option<&'a T> {
        from.get(self.below(from.len() as u64) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_name_is_the_first_eight_bytes_of_its_digest() {
        let d = crate::hash::sha256(b"backpack-audit-a");
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        assert_eq!(seed_of("backpack-audit-a"), u64::from_be_bytes(first));
    }
}
