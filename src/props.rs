//! Item properties: the data one item carries of its own (a sword's
//! durability, a letter's addressee, a potion's quality), and the **kind**
//! they make with the item's type (the guide's chapter on item properties).
//!
//! A leaf module, like [`crate::item`]: the rules, the engine, saves and the
//! plugin all use it. [`Props`] is validated when built (kebab-case keys of
//! at most [`MAX_KEY_BYTES`], at most [`MAX_PROPS`] of them, texts of at most
//! [`MAX_TEXT_BYTES`], numbers exact to six decimals within 10^15), kept in
//! canonical order, and cheap to clone and compare: the empty map is a null
//! pointer, any other one a shared pointer to its entries and its canonical
//! text. Items of one type with equal properties are of one [`Kind`]; a
//! stack holds one kind.
//!
//! ```
//! use bevy_container::props::{Kind, PropValue, Props};
//!
//! let worn = Props::new([("durability", PropValue::from(37))]).unwrap();
//! assert_eq!(worn.canonical(), r#"{"durability":37}"#);
//! assert_eq!(worn.number("durability"), Some("37".parse().unwrap()));
//! let axe = Kind::new("axe", worn.clone());
//! assert_eq!(axe.to_string(), r#"axe{"durability":37}"#);
//! // one use later: a new map, the old one untouched
//! let used = worn.with("durability", 36).unwrap();
//! assert_ne!(used, worn);
//! assert!(Props::EMPTY < used, "the plain kind comes first");
//! // what a player reads
//! assert_eq!(axe.player_label(), "Axe (durability 37)");
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::decimal::{Decimal, DecimalError};
use crate::item::ItemType;
use bevy::reflect::std_traits::ReflectDefault;
use bevy::reflect::{ReflectDeserialize, ReflectSerialize};

/// The most properties one item carries.
pub const MAX_PROPS: usize = 16;
/// The longest key, in bytes.
pub const MAX_KEY_BYTES: usize = 64;
/// The longest text value, in bytes of UTF-8.
pub const MAX_TEXT_BYTES: usize = 256;
/// The longest canonical text [`Props::parse`] reads: more than any valid
/// map can need, so a longer one is refused before it is parsed.
pub const MAX_CANONICAL_BYTES: usize = 16 * 1024;

/// A property's number: an exact decimal with at most six decimal places
/// and a magnitude of at most 10^15, negative or not (`2` and `2.0` are the
/// same number; `-0` is `0`).
///
/// ```
/// use bevy_container::props::PropNumber;
/// let n: PropNumber = "-2.50".parse().unwrap();
/// assert_eq!(n.to_string(), "-2.5");
/// assert_eq!(PropNumber::from(3), "3.0".parse().unwrap());
/// assert!("0.0000001".parse::<PropNumber>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PropNumber {
    /// The value in millionths.
    micros: i128,
}

impl PropNumber {
    /// The value in millionths (`2.5` is `2_500_000`).
    pub fn micros(self) -> i128 {
        self.micros
    }

    /// The number as a float, for display (exact for integers below 2^53).
    pub fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The whole part, rounded toward zero.
    pub fn trunc(self) -> i64 {
        i64::try_from(self.micros / 1_000_000).unwrap_or(0)
    }

    /// `self + other`, or `None` past the limits (a durability that would
    /// pass 10^15).
    pub fn checked_add(self, other: PropNumber) -> Option<PropNumber> {
        PropNumber::from_micros(self.micros.checked_add(other.micros)?)
    }

    /// `self - other`, or `None` past the limits.
    pub fn checked_sub(self, other: PropNumber) -> Option<PropNumber> {
        PropNumber::from_micros(self.micros.checked_sub(other.micros)?)
    }

    fn from_micros(micros: i128) -> Option<PropNumber> {
        let limit = (crate::decimal::MAX_UNITS * 1_000_000) as i128;
        (micros.abs() <= limit).then_some(PropNumber { micros })
    }

    /// The number as an exact [`Decimal`], when it is not negative
    /// (decimals are sizes and budgets: zero or more).
    ///
    /// ```
    /// use bevy_container::decimal::Decimal;
    /// use bevy_container::props::PropNumber;
    /// let weight: PropNumber = "2.5".parse().unwrap();
    /// assert_eq!(weight.to_decimal(), Some("2.5".parse::<Decimal>().unwrap()));
    /// assert_eq!(PropNumber::from(-1).to_decimal(), None);
    /// ```
    pub fn to_decimal(self) -> Option<Decimal> {
        u128::try_from(self.micros).ok().map(Decimal::from_micros)
    }

    /// A whole number `n`, when within the limits.
    fn whole(n: i128) -> Result<PropNumber, DecimalError> {
        n.checked_mul(1_000_000)
            .and_then(PropNumber::from_micros)
            .ok_or(DecimalError::TooLarge)
    }
}

/// The integer types a property's number holds whole whatever their value
/// (all of them lie within 10^15): `From` for the number and the value.
macro_rules! lossless_numbers {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for PropNumber {
            fn from(n: $t) -> PropNumber {
                PropNumber {
                    micros: i128::from(n) * 1_000_000,
                }
            }
        }

        impl From<$t> for PropValue {
            fn from(n: $t) -> PropValue {
                PropValue::Number(n.into())
            }
        }
    )*};
}

lossless_numbers!(i8, i16, i32, u8, u16, u32);

/// The integer types with values past a property's limit of 10^15: a
/// checked `TryFrom` for the number and the value, refused
/// [`DecimalError::TooLarge`] past it.
macro_rules! checked_numbers {
    ($($t:ty),* $(,)?) => {$(
        impl TryFrom<$t> for PropNumber {
            type Error = DecimalError;

            fn try_from(n: $t) -> Result<PropNumber, DecimalError> {
                // every one of these types is at most 64 bits wide: the
                // cast to 128 bits keeps the value
                PropNumber::whole(n as i128)
            }
        }

        impl TryFrom<$t> for PropValue {
            type Error = DecimalError;

            fn try_from(n: $t) -> Result<PropValue, DecimalError> {
                PropNumber::try_from(n).map(PropValue::Number)
            }
        }
    )*};
}

checked_numbers!(i64, u64, isize, usize);

/// An exact decimal (a size, a weight), when within a property's limits.
impl TryFrom<Decimal> for PropNumber {
    type Error = DecimalError;

    fn try_from(d: Decimal) -> Result<PropNumber, DecimalError> {
        i128::try_from(d.micros())
            .ok()
            .and_then(PropNumber::from_micros)
            .ok_or(DecimalError::TooLarge)
    }
}

/// An exact decimal (a size, a weight), when within a property's limits.
impl TryFrom<Decimal> for PropValue {
    type Error = DecimalError;

    fn try_from(d: Decimal) -> Result<PropValue, DecimalError> {
        PropNumber::try_from(d).map(PropValue::Number)
    }
}

impl std::str::FromStr for PropNumber {
    type Err = DecimalError;

    fn from_str(text: &str) -> Result<PropNumber, DecimalError> {
        let text = text.trim();
        let (negative, magnitude) = match text.strip_prefix('-') {
            Some(rest) if !rest.starts_with(['-', '+']) => (true, rest),
            _ => (false, text),
        };
        if magnitude.starts_with(['-', '+']) {
            return Err(DecimalError::NotANumber);
        }
        let d: Decimal = magnitude.parse()?;
        let micros = i128::try_from(d.micros()).map_err(|_| DecimalError::TooLarge)?;
        Ok(PropNumber {
            micros: if negative { -micros } else { micros },
        })
    }
}

impl fmt::Display for PropNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.micros < 0 {
            f.write_str("-")?;
        }
        let d = Decimal::from_micros(self.micros.unsigned_abs());
        write!(f, "{d}")
    }
}

/// One property's value: a number, a text or a yes/no.
///
/// Every integer type converts: those that always fit (`i8` to `i32`, `u8`
/// to `u32`) with `From`, the wider ones (`i64`, `u64`, `isize`, `usize`)
/// and exact decimals with a checked `TryFrom`, refused past 10^15.
///
/// ```
/// use bevy_container::decimal::Decimal;
/// use bevy_container::props::{PropValue, Props};
/// let charges: u8 = 3;
/// let gold: i64 = 1_250_000;
/// let weight: Decimal = "2.5".parse().unwrap();
/// let sack = Props::new([
///     ("charges", PropValue::from(charges)),
///     ("gold", PropValue::try_from(gold).unwrap()),
///     ("weight", PropValue::try_from(weight).unwrap()),
/// ])
/// .unwrap();
/// assert_eq!(sack.canonical(), r#"{"charges":3,"gold":1250000,"weight":2.5}"#);
/// assert!(PropValue::try_from(u64::MAX).is_err(), "past 10^15");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PropValue {
    /// An exact number (`37`, `0.5`).
    Number(PropNumber),
    /// A text of at most [`MAX_TEXT_BYTES`] bytes.
    Text(Box<str>),
    /// `true` or `false`.
    Bool(bool),
}

impl PropValue {
    /// The value's canonical text: a plain decimal, a JSON string with
    /// non-ASCII characters as they are, or `true`/`false`.
    fn write_canonical(&self, out: &mut String) {
        match self {
            PropValue::Number(n) => out.push_str(&n.to_string()),
            PropValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            PropValue::Text(t) => write_json_string(t, out),
        }
    }
}

impl fmt::Display for PropValue {
    /// Numbers and yes/no as in the canonical text; texts as they are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PropValue::Number(n) => write!(f, "{n}"),
            PropValue::Bool(b) => write!(f, "{b}"),
            PropValue::Text(t) => f.write_str(t),
        }
    }
}

impl From<PropNumber> for PropValue {
    fn from(n: PropNumber) -> PropValue {
        PropValue::Number(n)
    }
}

impl From<bool> for PropValue {
    fn from(b: bool) -> PropValue {
        PropValue::Bool(b)
    }
}

impl From<&str> for PropValue {
    fn from(t: &str) -> PropValue {
        PropValue::Text(t.into())
    }
}

impl From<String> for PropValue {
    fn from(t: String) -> PropValue {
        PropValue::Text(t.into_boxed_str())
    }
}

/// Why a properties map could not be built or read. Each names the key
/// (where there is one) and says what would be accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropsError {
    /// A key that is not kebab-case or is too long.
    #[error(
        "key {key:?} is not a property key; use kebab-case (`durability`, `made-by`) of at most {MAX_KEY_BYTES} bytes"
    )]
    BadKey {
        /// The key (cut to 80 bytes).
        key: String,
    },
    /// The same key twice.
    #[error("key {key:?} is given twice; give each property once")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// More than [`MAX_PROPS`] properties.
    #[error("{count} properties; an item carries at most {MAX_PROPS}")]
    TooMany {
        /// How many were given.
        count: usize,
    },
    /// A text value over [`MAX_TEXT_BYTES`].
    #[error("property {key:?} is a text of {bytes} bytes; at most {MAX_TEXT_BYTES} are kept")]
    TextTooLong {
        /// The key.
        key: String,
        /// Its length in bytes.
        bytes: usize,
    },
    /// A number that is not an exact decimal within the limits.
    #[error("property {key:?}: {problem}")]
    Number {
        /// The key.
        key: String,
        /// What is wrong with it.
        problem: DecimalError,
    },
    /// A value that is not a number, a text or `true`/`false`.
    #[error(
        "property {key:?} is {what}; a property is a number, a text or true/false (no lists, objects or null)"
    )]
    NotAValue {
        /// The key.
        key: String,
        /// What was found (`a list`).
        what: &'static str,
    },
    /// Properties that are not an object at all, or canonical text that does
    /// not read.
    #[error("properties are {what}; write them as an object of key to value")]
    NotAMap {
        /// What was found or what went wrong.
        what: String,
    },
}

impl PropsError {
    /// The key the problem is at, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            PropsError::BadKey { key }
            | PropsError::DuplicateKey { key }
            | PropsError::TextTooLong { key, .. }
            | PropsError::Number { key, .. }
            | PropsError::NotAValue { key, .. } => Some(key),
            PropsError::TooMany { .. } | PropsError::NotAMap { .. } => None,
        }
    }
}

/// The shared entries of a non-empty map.
#[derive(Debug)]
struct Entries {
    /// Sorted by key bytes, keys unique.
    entries: Box<[(Box<str>, PropValue)]>,
    /// The canonical text (the guide's [`guide::properties`](crate::guide::properties) chapter).
    canonical: Box<str>,
}

/// An item's properties: a validated map from kebab-case keys to
/// [`PropValue`]s, in canonical (key byte) order. Cloning copies a pointer;
/// equality and order are those of the canonical text, the empty map first.
///
/// ```
/// use bevy_container::props::Props;
/// let letter = Props::new([("to", "Ilsa"), ("sealed", "yes")]).unwrap();
/// assert_eq!(letter.canonical(), r#"{"sealed":"yes","to":"Ilsa"}"#);
/// assert_eq!(letter.text("to"), Some("Ilsa"));
/// assert!(Props::new([("To", "Ilsa")]).is_err(), "keys are kebab-case");
/// assert_eq!(Props::EMPTY.canonical(), "{}");
/// ```
#[derive(Clone, Default, bevy::reflect::Reflect)]
#[reflect(opaque)]
#[reflect(Clone, Debug, Default, PartialEq, Hash, Serialize, Deserialize)]
pub struct Props(Option<Arc<Entries>>);

impl Props {
    /// The empty map: what every item without properties carries.
    pub const EMPTY: Props = Props(None);

    /// Builds a map from `(key, value)` pairs in any order, checking every
    /// limit.
    pub fn new<K, V, I>(entries: I) -> Result<Props, PropsError>
    where
        K: Into<String>,
        V: Into<PropValue>,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut list: Vec<(Box<str>, PropValue)> = Vec::new();
        for (k, v) in entries {
            let key: String = k.into();
            check_key(&key)?;
            let value = v.into();
            check_value(&key, &value)?;
            list.push((key.into_boxed_str(), value));
            if list.len() > MAX_PROPS {
                return Err(PropsError::TooMany { count: list.len() });
            }
        }
        Props::from_checked(list)
    }

    fn from_checked(mut list: Vec<(Box<str>, PropValue)>) -> Result<Props, PropsError> {
        if list.len() > MAX_PROPS {
            return Err(PropsError::TooMany { count: list.len() });
        }
        list.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        if let Some(w) = list.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(PropsError::DuplicateKey {
                key: w[0].0.to_string(),
            });
        }
        if list.is_empty() {
            return Ok(Props::EMPTY);
        }
        let mut canonical = String::from("{");
        for (i, (k, v)) in list.iter().enumerate() {
            if i > 0 {
                canonical.push(',');
            }
            write_json_string(k, &mut canonical);
            canonical.push(':');
            v.write_canonical(&mut canonical);
        }
        canonical.push('}');
        Ok(Props(Some(Arc::new(Entries {
            entries: list.into_boxed_slice(),
            canonical: canonical.into_boxed_str(),
        }))))
    }

    /// Whether this is the empty map.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many properties.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |e| e.entries.len())
    }

    /// The properties in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PropValue)> {
        self.0
            .as_ref()
            .map(|e| &e.entries[..])
            .unwrap_or(&[])
            .iter()
            .map(|(k, v)| (&**k, v))
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&PropValue> {
        let e = self.0.as_ref()?;
        e.entries
            .binary_search_by(|(k, _)| k.as_bytes().cmp(key.as_bytes()))
            .ok()
            .map(|i| &e.entries[i].1)
    }

    /// The number under `key`, when it is one.
    pub fn number(&self, key: &str) -> Option<PropNumber> {
        match self.get(key)? {
            PropValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The text under `key`, when it is one.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            PropValue::Text(t) => Some(t),
            _ => None,
        }
    }

    /// A copy with `key` set to `value` (added or replaced).
    pub fn with(&self, key: &str, value: impl Into<PropValue>) -> Result<Props, PropsError> {
        check_key(key)?;
        let value = value.into();
        check_value(key, &value)?;
        let mut list: Vec<(Box<str>, PropValue)> = self
            .iter()
            .filter(|(k, _)| *k != key)
            .map(|(k, v)| (k.into(), v.clone()))
            .collect();
        list.push((key.into(), value));
        Props::from_checked(list)
    }

    /// A copy without `key`.
    pub fn without(&self, key: &str) -> Props {
        let list: Vec<(Box<str>, PropValue)> = self
            .iter()
            .filter(|(k, _)| *k != key)
            .map(|(k, v)| (k.into(), v.clone()))
            .collect();
        // removing a key from a valid map keeps it valid
        Props::from_checked(list).unwrap_or_default()
    }

    /// The canonical text: a JSON object, keys in byte order, no spaces,
    /// numbers as plain decimals, non-ASCII text as it is; `{}` when empty.
    pub fn canonical(&self) -> &str {
        self.0.as_ref().map_or("{}", |e| &e.canonical)
    }

    /// Reads properties from a JSON tree (an object of key to number, text
    /// or `true`/`false`), as the crate's strict readers hand them over.
    /// Numbers read through `f64` keep 15 significant digits exactly.
    pub fn from_json(value: &serde_json::Value) -> Result<Props, PropsError> {
        let serde_json::Value::Object(map) = value else {
            return Err(PropsError::NotAMap {
                what: json_kind(value).into(),
            });
        };
        if map.len() > MAX_PROPS {
            return Err(PropsError::TooMany { count: map.len() });
        }
        let mut list = Vec::with_capacity(map.len());
        for (key, v) in map {
            check_key(key)?;
            let value = match v {
                serde_json::Value::Bool(b) => PropValue::Bool(*b),
                serde_json::Value::String(s) => PropValue::Text(s.as_str().into()),
                serde_json::Value::Number(n) => {
                    PropValue::Number(n.to_string().parse().map_err(|problem| {
                        PropsError::Number {
                            key: key.clone(),
                            problem,
                        }
                    })?)
                }
                other => {
                    return Err(PropsError::NotAValue {
                        key: key.clone(),
                        what: json_kind(other),
                    });
                }
            };
            check_value(key, &value)?;
            list.push((key.as_str().into(), value));
        }
        Props::from_checked(list)
    }

    /// The properties as a JSON object (numbers as JSON numbers).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::from_str(self.canonical()).unwrap_or_default()
    }

    /// Reads a canonical text (or any flat JSON object of numbers, texts and
    /// `true`/`false`, keys in any order) exactly: numbers are read as
    /// decimals, never through a float. Saves, scenes and replicas carry
    /// properties this way.
    ///
    /// ```
    /// use bevy_container::props::Props;
    /// let p = Props::parse(r#"{ "gold": 123456789012.345678, "name": "Kr\u00e1l" }"#).unwrap();
    /// assert_eq!(p.canonical(), r#"{"gold":123456789012.345678,"name":"Král"}"#);
    /// assert!(Props::parse(r#"{"a":[1]}"#).is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Props, PropsError> {
        if text.len() > MAX_CANONICAL_BYTES {
            return Err(PropsError::NotAMap {
                what: format!(
                    "a text of {} bytes (at most {MAX_CANONICAL_BYTES} are read)",
                    text.len()
                ),
            });
        }
        let list = flat::parse(text)?;
        if list.len() > MAX_PROPS {
            return Err(PropsError::TooMany { count: list.len() });
        }
        for (k, v) in &list {
            check_key(k)?;
            check_value(k, v)?;
        }
        Props::from_checked(list)
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a yes/no",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a text",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

fn check_key(key: &str) -> Result<(), PropsError> {
    let kebab = !key.is_empty()
        && key.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if kebab && key.len() <= MAX_KEY_BYTES {
        Ok(())
    } else {
        let mut cut = key.len().min(80);
        while !key.is_char_boundary(cut) {
            cut -= 1;
        }
        Err(PropsError::BadKey {
            key: key[..cut].to_string(),
        })
    }
}

fn check_value(key: &str, value: &PropValue) -> Result<(), PropsError> {
    match value {
        PropValue::Text(t) if t.len() > MAX_TEXT_BYTES => Err(PropsError::TextTooLong {
            key: key.to_string(),
            bytes: t.len(),
        }),
        PropValue::Number(n) if PropNumber::from_micros(n.micros).is_none() => {
            Err(PropsError::Number {
                key: key.to_string(),
                problem: DecimalError::TooLarge,
            })
        }
        _ => Ok(()),
    }
}

/// `text` as a JSON string: quotes, backslashes and control characters
/// escaped, everything else (non-ASCII included) as it is.
fn write_json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl PartialEq for Props {
    #[inline]
    fn eq(&self, other: &Props) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a.canonical == b.canonical,
            _ => false,
        }
    }
}

impl Eq for Props {}

impl PartialOrd for Props {
    fn partial_cmp(&self, other: &Props) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The empty map first, then by the bytes of the canonical text.
impl Ord for Props {
    fn cmp(&self, other: &Props) -> Ordering {
        match (&self.0, &other.0) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => a.canonical.as_bytes().cmp(b.canonical.as_bytes()),
        }
    }
}

impl Hash for Props {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.canonical().hash(state)
    }
}

impl fmt::Debug for Props {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.canonical())
    }
}

impl fmt::Display for Props {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.canonical())
    }
}

/// Serialized as its canonical text, so every format (JSON, RON, the
/// replication wire) carries numbers exactly.
impl Serialize for Props {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.canonical())
    }
}

impl<'de> Deserialize<'de> for Props {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Props, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Props;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("properties as their canonical text")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Props, E> {
                Props::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// An item's kind: its type and its properties. Items of one kind stack;
/// kinds of one type are ordered plain first, then by canonical text.
///
/// ```
/// use bevy_container::props::{Kind, Props};
/// let plain = Kind::plain("potion");
/// let strong = Kind::new("potion", Props::new([("quality", 3)]).unwrap());
/// assert!(plain < strong);
/// assert_eq!(strong.to_string(), r#"potion{"quality":3}"#);
/// assert_eq!(plain.to_string(), "potion");
/// assert_eq!(Kind::parse_label(r#"potion{"quality":3}"#).unwrap(), strong);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Kind {
    /// The type.
    pub item: ItemType,
    /// The properties (empty for the plain kind).
    #[serde(default)]
    pub props: Props,
}

impl Kind {
    /// The kind of `item` with `props`.
    pub fn new(item: impl Into<ItemType>, props: Props) -> Kind {
        Kind {
            item: item.into(),
            props,
        }
    }

    /// The plain kind of `item` (no properties).
    pub fn plain(item: impl Into<ItemType>) -> Kind {
        Kind::new(item, Props::EMPTY)
    }

    /// The kind's label as a player reads it ([`PlayerLabel`]): `Axe
    /// (durability 40)` where [`Kind`]'s own label is
    /// `axe{"durability":40}`.
    ///
    /// ```
    /// use bevy_container::props::{Kind, Props};
    /// let axe = Kind::new("axe", Props::new([("durability", 40)]).unwrap());
    /// assert_eq!(axe.player_label(), "Axe (durability 40)");
    /// ```
    pub fn player_label(&self) -> String {
        PlayerLabel(self.item.as_str(), &self.props).to_string()
    }

    /// Reads a kind label: the type, followed directly by the canonical
    /// text of its properties when it has any (`potion{"quality":3}`).
    pub fn parse_label(label: &str) -> Result<Kind, PropsError> {
        match label.find('{') {
            None => Ok(Kind::plain(label)),
            Some(i) => Ok(Kind::new(&label[..i], Props::parse(&label[i..])?)),
        }
    }
}

/// The kind's label: the type, then its properties' canonical text when it
/// has any.
impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        KindLabel(self.item.as_str(), &self.props).fmt(f)
    }
}

/// A kind's label from a borrowed type and properties, without building a
/// [`Kind`]: the type, then the properties' canonical text when there are
/// any (`potion{"quality":3}`, or `potion` for the plain kind). Outcomes,
/// logs, scenario lines and tallies all name kinds this way.
///
/// ```
/// use bevy_container::props::{KindLabel, Props};
/// let strong = Props::new([("quality", 3)]).unwrap();
/// assert_eq!(KindLabel("potion", &strong).to_string(), r#"potion{"quality":3}"#);
/// assert_eq!(KindLabel("potion", &Props::EMPTY).to_string(), "potion");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KindLabel<'a>(pub &'a str, pub &'a Props);

impl fmt::Display for KindLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)?;
        if !self.1.is_empty() {
            f.write_str(self.1.canonical())?;
        }
        Ok(())
    }
}

/// A kind's label as a player reads it, from its type and properties alone
/// (no catalog): the type with its first letter capitalised and hyphens
/// read as spaces, then its properties in parentheses in canonical order,
/// each as [`PlayerProp`] writes it (`Axe (durability 40)`). With the
/// `ui` feature, `ItemCatalog::label` names the type and its properties as
/// the item catalog does.
///
/// ```
/// use bevy_container::props::{PlayerLabel, Props};
/// let worn = Props::new([("durability", 40)]).unwrap();
/// assert_eq!(PlayerLabel("axe", &worn).to_string(), "Axe (durability 40)");
/// use bevy_container::props::PropValue;
/// let letter = Props::new([("to", PropValue::from("Ilsa")), ("sealed", PropValue::from(true))]).unwrap();
/// assert_eq!(PlayerLabel("love-letter", &letter).to_string(), "Love letter (sealed, to Ilsa)");
/// assert_eq!(PlayerLabel("berries", &Props::EMPTY).to_string(), "Berries");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PlayerLabel<'a>(pub &'a str, pub &'a Props);

impl fmt::Display for PlayerLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&as_words(self.0, true))?;
        if self.1.is_empty() {
            return Ok(());
        }
        f.write_str(" (")?;
        for (i, (key, value)) in self.1.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", PlayerProp(key, value))?;
        }
        f.write_str(")")
    }
}

/// One property as a player reads it: its key with hyphens read as spaces,
/// then its value (`durability 40`, `made by Ilsa`); a yes/no property
/// shows as its key when yes and `not` and its key when no.
///
/// ```
/// use bevy_container::props::{PlayerProp, PropValue};
/// assert_eq!(PlayerProp("made-by", &PropValue::from("Ilsa")).to_string(), "made by Ilsa");
/// assert_eq!(PlayerProp("sealed", &PropValue::from(false)).to_string(), "not sealed");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PlayerProp<'a>(pub &'a str, pub &'a PropValue);

impl fmt::Display for PlayerProp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = as_words(self.0, false);
        match self.1 {
            PropValue::Bool(true) => f.write_str(&key),
            PropValue::Bool(false) => write!(f, "not {key}"),
            value => write!(f, "{key} {value}"),
        }
    }
}

/// `text` (a type or a key) as words: hyphens read as spaces, and the
/// first letter capitalised when `capital`.
fn as_words(text: &str, capital: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        match c {
            '-' => out.push(' '),
            c if i == 0 && capital => out.extend(c.to_uppercase()),
            c => out.push(c),
        }
    }
    out
}

mod flat;

#[cfg(test)]
mod tests;
