//! Hashing: a small, fast, deterministic hasher for the engine's lookup
//! tables, and SHA-256 for seed names and adoption content hashes.
//!
//! The tables are only ever looked up, never iterated for an outcome, so
//! the hasher's job is speed; being seedless it also keeps every run alike.

use std::hash::{BuildHasherDefault, Hasher};

/// FxHash (as in rustc): a multiply-rotate hash over words.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        // the 1 to 7 bytes left as one word, read in place (a copy into a
        // buffer costs a library call, and most ids are this short): two
        // overlapping 4-byte reads cover 4 to 7 bytes, three single bytes
        // cover 1 to 3, so strings of one length never share a word
        let rest = chunks.remainder();
        let n = rest.len();
        if n >= 4 {
            let lo = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let hi = u32::from_le_bytes([rest[n - 4], rest[n - 3], rest[n - 2], rest[n - 1]]);
            self.add(u64::from(lo) | u64::from(hi) << 32);
        } else if n > 0 {
            let word =
                u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16;
            self.add(word);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// SHA-256 of `data` (FIPS 180-4), by the `sha2` crate: seed names and
/// adoption files.
pub(crate) fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

/// `sha256:` and the hex digest of `data`.
pub(crate) fn sha256_hex(data: &[u8]) -> String {
    let mut out = String::from("sha256:");
    for b in sha256(data) {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod sha_tests {
    use super::*;

    fn hex(d: [u8; 32]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(
            hex(sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(sha256(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        let million = vec![b'a'; 1_000_000];
        assert_eq!(
            hex(sha256(&million)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }
}

#[cfg(test)]
mod fx_tests {
    use super::*;

    fn fx(bytes: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(bytes);
        h.finish()
    }

    /// Every byte of a short tail counts: changing any one byte of a 1 to
    /// 15 byte input changes its hash.
    #[test]
    fn every_byte_of_a_short_input_counts() {
        for len in 1..16usize {
            let base: Vec<u8> = (0..len as u8).map(|i| b'a' + i).collect();
            for at in 0..len {
                for b in [b'-', b'z', 0, 0xff] {
                    let mut other = base.clone();
                    if other[at] == b {
                        continue;
                    }
                    other[at] = b;
                    assert_ne!(fx(&base), fx(&other), "len {len}, byte {at} -> {b}");
                }
            }
        }
    }
}
