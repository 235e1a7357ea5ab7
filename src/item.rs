//! Item type ids: the one type every layer names items by.
//!
//! A leaf module: it depends on nothing else in the crate, so the rules, the
//! engine and the save format can all use it without depending on each
//! other. Its public path stays `bevy_container::contents::ItemType`.
//!
//! Ids are interned: every outcome carries its type's id, and copying an
//! interned id is copying a pointer, where a reference-counted one costs
//! two atomic operations (the count up, and down again when the outcome is
//! dropped), a fifth of a backpack delivery's cost when measured. A game
//! names a bounded set of item types, so the interned text lives as long as
//! the process; the table stops growing at [`INTERN_LIMIT`] ids or
//! [`INTERN_BYTES`] of text, and ids past those (a flood of made-up names
//! from a hostile client, say) are reference-counted and freed as before.
//! Which form an id has never changes an outcome: ids compare, order and
//! hash by their text.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use bevy::reflect::{ReflectDeserialize, ReflectSerialize};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many distinct ids are interned at most.
pub const INTERN_LIMIT: usize = 1 << 16;
/// How many bytes of id text are interned at most (ids longer than
/// [`INTERN_LONGEST`] are never interned).
pub const INTERN_BYTES: usize = 4 << 20;
/// The longest id interned, in bytes.
pub const INTERN_LONGEST: usize = 256;

/// An item type's id (kebab-case), cheap to clone: usually a pointer copy.
///
/// ```
/// use bevy_container::contents::ItemType;
/// let a = ItemType::from("berries");
/// let b = ItemType::from(String::from("berries"));
/// assert_eq!(a, b);
/// assert_eq!(a.as_str(), "berries");
/// assert!(ItemType::from("axe") < a);
/// ```
#[derive(Clone, bevy::reflect::Reflect)]
#[reflect(opaque)]
#[reflect(Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
pub struct ItemType(Repr);

#[derive(Clone)]
enum Repr {
    /// In the process-wide table: one copy of the text per id.
    Interned(&'static str),
    /// Past the table's limits. Boxed inside the `Arc` so the pointer is
    /// thin and an id takes 16 bytes, not 24 (a slot's stack holds one).
    Counted(Arc<Box<str>>),
}

/// The interned ids and their total length.
struct Table {
    ids: HashSet<&'static str>,
    bytes: usize,
}

static TABLE: RwLock<Option<Table>> = RwLock::new(None);

/// The interned copy of `s`, interning it when there is room.
fn intern(s: &str, owned: impl FnOnce() -> Box<str>) -> Option<&'static str> {
    if s.len() > INTERN_LONGEST {
        return None;
    }
    // a poisoned lock still holds a consistent table: every insert is one
    // call that either happened or did not
    if let Some(t) = TABLE.read().unwrap_or_else(|e| e.into_inner()).as_ref()
        && let Some(&id) = t.ids.get(s)
    {
        return Some(id);
    }
    let mut guard = TABLE.write().unwrap_or_else(|e| e.into_inner());
    let table = guard.get_or_insert_with(|| Table {
        ids: HashSet::new(),
        bytes: 0,
    });
    if let Some(&id) = table.ids.get(s) {
        return Some(id);
    }
    if table.ids.len() >= INTERN_LIMIT || table.bytes + s.len() > INTERN_BYTES {
        return None;
    }
    let id: &'static str = Box::leak(owned());
    table.ids.insert(id);
    table.bytes += id.len();
    Some(id)
}

/// Whether two ids have the same text: the same pointer (an interned id
/// against itself) or the same length and bytes, short ids compared a
/// word or two at a time. Always in its callers' lines: a delivery's
/// lookup of its type called it, for a few instructions more.
#[inline(always)]
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if std::ptr::eq(a.as_ptr(), b.as_ptr()) {
        return true;
    }
    match n {
        // two overlapping loads cover the whole id
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        _ => a == b,
    }
}

/// `N` bytes of `s` from `at` as a number (`N` is 4 or 8 and `at + N` is
/// within `s`, so the fallback never applies).
#[inline]
fn word<const N: usize>(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(bytes) = s.get(at..at + N) {
        w[..N].copy_from_slice(bytes);
    }
    u64::from_le_bytes(w)
}

impl ItemType {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Interned(s) => s,
            Repr::Counted(s) => s,
        }
    }
}

impl From<&str> for ItemType {
    fn from(s: &str) -> ItemType {
        match intern(s, || s.into()) {
            Some(id) => ItemType(Repr::Interned(id)),
            None => ItemType(Repr::Counted(Arc::new(s.into()))),
        }
    }
}

impl From<String> for ItemType {
    fn from(s: String) -> ItemType {
        match intern(&s, || s.clone().into_boxed_str()) {
            Some(id) => ItemType(Repr::Interned(id)),
            None => ItemType(Repr::Counted(Arc::new(s.into_boxed_str()))),
        }
    }
}

impl PartialEq for ItemType {
    fn eq(&self, other: &ItemType) -> bool {
        match (&self.0, &other.0) {
            // one copy per interned id: the same text is the same pointer
            (Repr::Interned(a), Repr::Interned(b)) => std::ptr::eq(*a, *b),
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for ItemType {}

impl PartialOrd for ItemType {
    fn partial_cmp(&self, other: &ItemType) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ItemType {
    fn cmp(&self, other: &ItemType) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

/// Hashes as its text, so tables keyed by ids are searched by `&str`.
impl Hash for ItemType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Borrow<str> for ItemType {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Serialize for ItemType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ItemType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ItemType, D::Error> {
        String::deserialize(deserializer).map(ItemType::from)
    }
}

impl fmt::Debug for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_agrees_with_string_equality() {
        let ids = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abce",
            "berries",
            "berriez",
            "xerries",
            "flint-12",
            "flint-13",
            "glint-12",
            "a-long-sixteen-x",
            "a-long-sixteen-y",
            "b-long-sixteen-x",
            "seventeen-letters",
            "seventeen-letterz",
        ];
        for a in ids {
            for b in ids {
                let copy = b.to_string();
                assert_eq!(same_text(a, &copy), a == b, "{a:?} vs {b:?}");
            }
            assert!(same_text(a, a));
        }
    }

    #[test]
    fn interned_and_counted_ids_compare_by_text() {
        let long = "x".repeat(INTERN_LONGEST + 1);
        let a = ItemType::from(long.as_str());
        let b = ItemType::from(long.clone());
        assert!(matches!(a.0, Repr::Counted(_)), "too long to intern");
        assert_eq!(a, b);
        let short = ItemType::from("berries");
        assert!(matches!(short.0, Repr::Interned(_)));
        assert_ne!(short, a);
        assert_eq!(short.cmp(&a), "berries".cmp(long.as_str()));
        // a counted id equal in text to an interned one (it cannot be made
        // through `From`, but the comparison does not rely on that)
        let counted = ItemType(Repr::Counted(Arc::new("berries".into())));
        assert_eq!(counted, short);
        assert_eq!(counted.cmp(&short), Ordering::Equal);
    }

    #[test]
    fn an_id_is_two_words() {
        assert_eq!(std::mem::size_of::<ItemType>(), 16);
    }

    #[test]
    fn ids_round_trip_through_serde() {
        let id = ItemType::from("torch");
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"torch\"");
        let back: ItemType = serde_json::from_str(&json).unwrap();
        assert_eq!(back, id);
    }
}
