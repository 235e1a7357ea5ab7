//! What several targets share: the first byte choosing a format, and a
//! reader taking the input a byte at a time.
#![allow(dead_code)]

use bevy_container::adoption::Format;

/// The input's first byte chooses the format (even: JSON, odd: RON); the
/// rest is the file. `None` for an empty input.
pub fn format_first(data: &[u8]) -> Option<(Format, &[u8])> {
    let (&which, bytes) = data.split_first()?;
    let format = if which & 1 == 0 {
        Format::Json
    } else {
        Format::Ron
    };
    Some((format, bytes))
}

/// Reads the input a byte at a time; zeros once it runs out, so any input
/// builds something.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }

    /// Up to `n` bytes, as they are.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a.to_vec()
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    /// `f`'s value when the next byte is odd.
    pub fn option<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        (self.byte() & 1 == 1).then(|| f(self))
    }
}
