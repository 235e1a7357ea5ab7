//! Replaying D&D item-occurrence lists (`notarius_dnd_item_occurrences_v1`)
//! into containers.
//!
//! The artifact "records discoveries and possession changes, not an
//! inventory". A replay turns it into the inventory it implies: each holder
//! (the party, a character, a chest) gets a container governed by an
//! adoption file, acquisitions are deliveries, losses and consumption are
//! takes, transfers are a take then a delivery, and every rule the story
//! breaks is reported.
//!
//! **The registry's schema is an assumption.** The seeds do not give the
//! `dnd/item-registry` artifact's full schema; this crate reads a JSON
//! object with an `items` array of objects with `item_id` and `name` (other
//! fields are allowed and ignored).

mod reader;
mod replay;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use reader::{InputProblem, Kind, Occurrence, SourceRef, read_occurrences};
pub use replay::{HolderState, Line, Replay, replay};

/// The item registry: id to name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registry {
    /// Item id to its exact name.
    pub names: BTreeMap<String, String>,
}

/// Reads a registry: `{"items": [{"item_id": ..., "name": ...}, ...]}`.
pub fn read_registry(bytes: &[u8]) -> Result<Registry, Vec<InputProblem>> {
    let p = |path: String, message: &str| InputProblem {
        path,
        message: message.to_string(),
    };
    let root = crate::adoption::source::parse(bytes, crate::adoption::Format::Json)
        .map_err(|r| vec![p(String::new(), &r.to_string())])?;
    let items = root
        .get("items")
        .and_then(|v| v.as_array())
        .ok_or_else(|| vec![p("/items".into(), "the registry needs an \"items\" list")])?;
    let mut names = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let id = it.get("item_id").and_then(|v| v.as_str());
        let name = it.get("name").and_then(|v| v.as_str());
        match (id, name) {
            (Some(id), Some(name)) => {
                if names.insert(id.to_string(), name.to_string()).is_some() {
                    problems.push(p(format!("/items/{i}/item_id"), "this id is listed twice"));
                }
            }
            _ => problems.push(p(
                format!("/items/{i}"),
                "each item needs text item_id and name",
            )),
        }
    }
    if problems.is_empty() {
        Ok(Registry { names })
    } else {
        Err(problems)
    }
}

/// Checks every occurrence's id/name pair against the registry.
pub fn ground(occurrences: &[Occurrence], registry: &Registry) -> Vec<InputProblem> {
    let mut out = Vec::new();
    for (i, o) in occurrences.iter().enumerate() {
        match registry.names.get(&o.item_id) {
            None => out.push(InputProblem {
                path: format!("/occurrences/{i}/item_id"),
                message: format!("\"{}\" is not in the item registry", o.item_id),
            }),
            Some(name) if *name != o.name => out.push(InputProblem {
                path: format!("/occurrences/{i}/name"),
                message: format!(
                    "\"{}\" does not match the registry's name \"{name}\" for {}",
                    o.name, o.item_id
                ),
            }),
            _ => {}
        }
    }
    out
}

/// The holders file: which adoption governs each holder, how registry items
/// map to item types, and which items are currency.
///
/// ```text
/// (
///     holders: { "party": "party-pack.adoption.ron", "bram": "bram.adoption.ron" },
///     items: { "item:potion-of-healing": "healing-potion" },
///     currency: [ "item:gold-pieces" ],
/// )
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Holders {
    /// Holder name to adoption file (relative to the holders file).
    pub holders: BTreeMap<String, PathBuf>,
    /// Item id to item type (default: the registry name in kebab-case).
    #[serde(default)]
    pub items: BTreeMap<String, String>,
    /// Item ids counted per holder outside the containers.
    #[serde(default)]
    pub currency: Vec<String>,
}

impl Holders {
    /// Reads a holders file (RON).
    pub fn read(path: &Path) -> Result<Holders, Vec<InputProblem>> {
        let bytes = std::fs::read(path).map_err(|e| {
            vec![InputProblem {
                path: String::new(),
                message: format!("{}: {e}", path.display()),
            }]
        })?;
        Holders::parse(&bytes, path.parent().unwrap_or(Path::new("."))).map_err(|mut problems| {
            for p in &mut problems {
                p.message = format!("{}: {}", path.display(), p.message);
            }
            problems
        })
    }

    /// Reads a holders file's bytes (RON); adoption paths are taken
    /// relative to `dir`.
    ///
    /// ```
    /// use bevy_container::occurrences::Holders;
    /// let text = br#"(holders: {"party": "party-pack.adoption.ron"})"#;
    /// let h = Holders::parse(text, std::path::Path::new("assets/dnd")).unwrap();
    /// assert_eq!(h.holders["party"], std::path::Path::new("assets/dnd/party-pack.adoption.ron"));
    /// assert!(Holders::parse(b"(holders: 3)", std::path::Path::new(".")).is_err());
    /// ```
    pub fn parse(bytes: &[u8], dir: &Path) -> Result<Holders, Vec<InputProblem>> {
        let problem = |message: String| {
            vec![InputProblem {
                path: String::new(),
                message,
            }]
        };
        // the same strict reader as adoption files: size and depth limits,
        // duplicate keys reported
        let tree = crate::adoption::source::parse(bytes, crate::adoption::Format::Ron)
            .map_err(|r| problem(r.to_string()))?;
        let mut h: Holders = serde_json::from_value(tree).map_err(|e| problem(e.to_string()))?;
        for p in h.holders.values_mut() {
            *p = dir.join(&*p);
        }
        Ok(h)
    }

    /// The item type an occurrence's item replays as.
    pub fn item_type(&self, o: &Occurrence) -> String {
        self.items
            .get(&o.item_id)
            .cloned()
            .unwrap_or_else(|| kebab(&o.name))
    }
}

/// `"Potion of Healing"` to `"potion-of-healing"`.
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}
