//! Hashing: the hasher of the engine's lookup tables, and SHA-256 for seed
//! names and adoption content hashes.
//!
//! The tables are only ever looked up, never iterated for an outcome, so
//! the hasher's job is speed; a fixed seed also keeps every run alike.
//!
//! The crate had its own FxHash until it was raced against foldhash (what
//! Bevy uses, `bevy::platform::hash::FixedHasher`) and rustc-hash 2 on
//! the lookups of the perf workloads (`cargo run --release --example perf --all-features`
//! at the time, one run, best rounds): on the seed backpack's 4 short ids
//! ours was about 10% faster (foldhash 1.09-1.10 and rustc-hash 1.12 of
//! ours), and on the bank's 1,000 ids `item-000`..`item-999` about twice
//! as slow (foldhash 0.47, rustc-hash 0.49-0.51 of ours): its keys
//! crowded into few buckets. Not a margin worth its code, so the tables
//! use foldhash, which Bevy already brings.

/// A `HashMap` with Bevy's fixed-seed foldhash.
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, bevy::platform::hash::FixedHasher>;

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
