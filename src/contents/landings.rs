//! [`Landings`]: the slots one request's items landed in or left from.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Items landing in one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Landing {
    /// The slot.
    pub slot: u32,
    /// How many landed there.
    pub amount: u32,
}

/// How many landings a request keeps without a heap allocation: most
/// deliveries and takes touch one or two slots, and on a bank of mixed
/// stack limits nine in ten touch at most four.
const INLINE: usize = 4;

/// The slots one request's items landed in (a delivery) or left from (a
/// take), in order. It reads like a slice of [`Landing`]s (`len`, `iter`,
/// indexing) and compares equal to a `Vec` or array of the same landings;
/// up to four are kept without allocating.
///
/// ```
/// use bevy_container::contents::{Landing, Landings};
/// let mut l = Landings::default();
/// l.push(Landing { slot: 0, amount: 20 });
/// l.push(Landing { slot: 1, amount: 5 });
/// assert_eq!(l.len(), 2);
/// assert_eq!(l[1].amount, 5);
/// assert_eq!(l, vec![Landing { slot: 0, amount: 20 }, Landing { slot: 1, amount: 5 }]);
/// assert_eq!(l.iter().map(|x| x.amount).sum::<u32>(), 25);
/// ```
#[derive(Clone, Default)]
pub struct Landings(Repr);

#[derive(Clone)]
enum Repr {
    Inline(u32, [Landing; INLINE]),
    Heap(Vec<Landing>),
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Inline(0, [Landing { slot: 0, amount: 0 }; INLINE])
    }
}

impl Landings {
    /// Adds one landing at the end.
    #[inline]
    pub fn push(&mut self, landing: Landing) {
        if let Repr::Inline(len, items) = &mut self.0
            && let Some(at) = items.get_mut(*len as usize)
        {
            *at = landing;
            *len += 1;
            return;
        }
        self.push_past_inline(landing);
    }

    /// [`Landings::push`] once the inline room is used.
    #[inline(never)]
    fn push_past_inline(&mut self, landing: Landing) {
        match &mut self.0 {
            Repr::Inline(len, items) => {
                // a request past four landings often has several more
                let mut v = Vec::with_capacity(INLINE * 2);
                v.extend_from_slice(&items[..*len as usize]);
                v.push(landing);
                self.0 = Repr::Heap(v);
            }
            Repr::Heap(v) => v.push(landing),
        }
    }

    /// The landings as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Landing] {
        match &self.0 {
            Repr::Inline(len, items) => &items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }

    /// The landings as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Landing] {
        match &mut self.0 {
            Repr::Inline(len, items) => &mut items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }

    /// The landings in a `Vec`.
    pub fn to_vec(&self) -> Vec<Landing> {
        self.as_slice().to_vec()
    }
}

impl std::ops::Deref for Landings {
    type Target = [Landing];
    #[inline]
    fn deref(&self) -> &[Landing] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Landings {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Landing] {
        self.as_mut_slice()
    }
}

impl fmt::Debug for Landings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl PartialEq for Landings {
    fn eq(&self, other: &Landings) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Landings {}

impl PartialEq<Vec<Landing>> for Landings {
    fn eq(&self, other: &Vec<Landing>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<[Landing]> for Landings {
    fn eq(&self, other: &[Landing]) -> bool {
        self.as_slice() == other
    }
}

impl<const N: usize> PartialEq<[Landing; N]> for Landings {
    fn eq(&self, other: &[Landing; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Extend<Landing> for Landings {
    fn extend<I: IntoIterator<Item = Landing>>(&mut self, iter: I) {
        for l in iter {
            self.push(l);
        }
    }
}

impl FromIterator<Landing> for Landings {
    fn from_iter<I: IntoIterator<Item = Landing>>(iter: I) -> Landings {
        let mut out = Landings::default();
        out.extend(iter);
        out
    }
}

impl From<Vec<Landing>> for Landings {
    fn from(v: Vec<Landing>) -> Landings {
        if v.len() <= INLINE {
            v.into_iter().collect()
        } else {
            Landings(Repr::Heap(v))
        }
    }
}

/// The landings of a [`Landings`], by value, in order.
#[derive(Clone, Debug)]
pub struct IntoIter {
    landings: Landings,
    next: usize,
}

impl Iterator for IntoIter {
    type Item = Landing;
    fn next(&mut self) -> Option<Landing> {
        let l = self.landings.get(self.next).copied();
        self.next += usize::from(l.is_some());
        l
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.landings.len() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for Landings {
    type Item = Landing;
    type IntoIter = IntoIter;
    fn into_iter(self) -> IntoIter {
        IntoIter {
            landings: self,
            next: 0,
        }
    }
}

impl<'a> IntoIterator for &'a Landings {
    type Item = &'a Landing;
    type IntoIter = std::slice::Iter<'a, Landing>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a> IntoIterator for &'a mut Landings {
    type Item = &'a mut Landing;
    type IntoIter = std::slice::IterMut<'a, Landing>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

impl Serialize for Landings {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Landings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Landings, D::Error> {
        Vec::<Landing>::deserialize(d).map(Landings::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(slot: u32) -> Landing {
        Landing {
            slot,
            amount: slot + 1,
        }
    }

    #[test]
    fn inline_then_heap_keeps_every_landing_in_order() {
        for n in 0..10u32 {
            let want: Vec<Landing> = (0..n).map(l).collect();
            let mut got = Landings::default();
            for x in &want {
                got.push(*x);
            }
            assert_eq!(got, want);
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
            assert_eq!(got.clone().into_iter().collect::<Vec<_>>(), want);
            assert_eq!(Landings::from(want.clone()), got);
            let json = serde_json::to_string(&got).unwrap();
            assert_eq!(json, serde_json::to_string(&want).unwrap());
            assert_eq!(serde_json::from_str::<Landings>(&json).unwrap(), got);
        }
    }
}
