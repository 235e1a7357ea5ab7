//! The replay: occurrences into containers, and the rules the story broke.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::{Holders, InputProblem, Kind, Occurrence};
use crate::adoption::{self, Context, Format, Tuning};
use crate::contents::{Contents, Landings, Reason, Taken};
use crate::rules::{LeftoverDestination, Rules};

/// One occurrence replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    /// Its index in the list.
    pub index: usize,
    /// Its source references (`session-7 units 2-2`).
    pub sources: String,
    /// What happened, in words.
    pub text: String,
    /// The rule the story broke here, if any.
    pub broke: Option<String>,
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{} [{}] {}", self.index, self.sources, self.text)?;
        if let Some(b) = &self.broke {
            write!(f, "  BROKE: {b}")?;
        }
        Ok(())
    }
}

/// A holder at the end of the replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HolderState {
    /// Slots (`None` empty) for containers with slots.
    pub slots: Vec<Option<(String, u32)>>,
    /// Holdings for slotless containers.
    pub holdings: BTreeMap<String, u32>,
    /// Currency counted outside the container.
    pub currency: BTreeMap<String, u64>,
}

/// The whole replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replay {
    /// One line per occurrence.
    pub lines: Vec<Line>,
    /// Each holder's final contents.
    pub holders: BTreeMap<String, HolderState>,
    /// Items left lying where they arrived (leftovers with nowhere else to go).
    pub ground: BTreeMap<String, u64>,
    /// Items destroyed by an explicit `destroyed` rule.
    pub destroyed: BTreeMap<String, u64>,
}

impl Replay {
    /// The rules the story broke, with their lines.
    pub fn broken(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.broke.is_some())
    }

    /// The readable report.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            out.push_str(&format!("{l}\n"));
        }
        let broken: Vec<&Line> = self.broken().collect();
        out.push_str(&format!("\n{} rule(s) broken\n", broken.len()));
        for l in broken {
            out.push_str(&format!(
                "  #{}: {}\n",
                l.index,
                l.broke.as_deref().unwrap_or_default()
            ));
        }
        for (name, h) in &self.holders {
            out.push_str(&format!("\n{name}:\n"));
            for (i, s) in h.slots.iter().enumerate() {
                match s {
                    Some((item, n)) => out.push_str(&format!("  slot {}: {n} {item}\n", i + 1)),
                    None => out.push_str(&format!("  slot {}: -\n", i + 1)),
                }
            }
            for (item, n) in &h.holdings {
                out.push_str(&format!("  {n} {item}\n"));
            }
            for (item, n) in &h.currency {
                out.push_str(&format!("  {n} {item} (currency)\n"));
            }
        }
        if !self.ground.is_empty() {
            out.push_str("\non the ground:\n");
            for (item, n) in &self.ground {
                out.push_str(&format!("  {n} {item}\n"));
            }
        }
        if !self.destroyed.is_empty() {
            out.push_str("\ndestroyed:\n");
            for (item, n) in &self.destroyed {
                out.push_str(&format!("  {n} {item}\n"));
            }
        }
        out
    }
}

struct World<'a> {
    holders: &'a Holders,
    contents: BTreeMap<String, Contents>,
    currency: BTreeMap<String, BTreeMap<String, u64>>,
    ground: BTreeMap<String, u64>,
    destroyed: BTreeMap<String, u64>,
}

/// Replays occurrences into the holders' containers. Input problems (a
/// holder the holders file lacks, an adoption with errors) reject the
/// replay; rules the story breaks are reported in its lines.
pub fn replay(occurrences: &[Occurrence], holders: &Holders) -> Result<Replay, Vec<InputProblem>> {
    let mut problems = Vec::new();
    let mut contents = BTreeMap::new();
    for (name, path) in &holders.holders {
        let read = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                adoption::read(&b, Format::of_path(path), Context::default())
                    .map_err(|r| r.render(&path.display().to_string()))
            })
            .and_then(|a| Rules::compile(&a, &Tuning::default()).map_err(|r| r.to_string()));
        match read {
            Ok(rules) => {
                contents.insert(name.clone(), Contents::new(Arc::new(rules)));
            }
            Err(e) => problems.push(InputProblem {
                path: format!("/holders/{name}"),
                message: format!("{}: {e}", path.display()),
            }),
        }
    }
    for (i, o) in occurrences.iter().enumerate() {
        for (key, h) in [("from", &o.from), ("to", &o.to)] {
            if let Some(h) = h
                && !holders.holders.contains_key(h)
            {
                problems.push(InputProblem {
                    path: format!("/occurrences/{i}/{key}"),
                    message: format!("holder \"{h}\" has no adoption in the holders file"),
                });
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut world = World {
        holders,
        contents,
        currency: BTreeMap::new(),
        ground: BTreeMap::new(),
        destroyed: BTreeMap::new(),
    };
    let lines = occurrences
        .iter()
        .enumerate()
        .map(|(i, o)| world.apply(i, o))
        .collect();
    let holders_out = world
        .contents
        .iter()
        .map(|(name, c)| {
            (
                name.clone(),
                HolderState {
                    slots: c
                        .slots()
                        .map(|s| s.map(|s| (s.item.to_string(), s.amount)))
                        .collect(),
                    holdings: c.holdings().map(|(k, v)| (k.to_string(), v)).collect(),
                    currency: world.currency.get(name).cloned().unwrap_or_default(),
                },
            )
        })
        .collect();
    Ok(Replay {
        lines,
        holders: holders_out,
        ground: world.ground,
        destroyed: world.destroyed,
    })
}

impl World<'_> {
    fn apply(&mut self, index: usize, o: &Occurrence) -> Line {
        let q = o.quantity.unwrap_or(1).min(u64::from(u32::MAX)) as u32;
        let item = self.holders.item_type(o);
        let currency = self.holders.currency.contains(&o.item_id);
        let sources = o
            .source_refs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        let (text, broke) = match o.kind {
            Kind::Discovered => (format!("discovered {q} {}", o.name), None),
            Kind::Acquired => {
                let to = o.to.clone().unwrap_or_default();
                let (got, broke) = self.receive(&to, None, &item, &o.name, q, currency);
                (format!("acquired {q} {} to {to}: {got}", o.name), broke)
            }
            Kind::Lost | Kind::Consumed => {
                let from = o.from.clone().unwrap_or_default();
                let (taken, text) = self.give(&from, &item, q, currency);
                let verb = o.kind.as_str();
                let broke = (taken < q)
                    .then(|| format!("{verb} {q} {} but {from} held only {taken}", o.name));
                (format!("{verb} {q} {} from {from}: {text}", o.name), broke)
            }
            Kind::Transferred => {
                let from = o.from.clone().unwrap_or_default();
                let to = o.to.clone().unwrap_or_default();
                let (taken, took) = self.give(&from, &item, q, currency);
                let mut broke = (taken < q)
                    .then(|| format!("transferred {q} {} but {from} held only {taken}", o.name));
                let (got, more) = self.receive(&to, Some(&from), &item, &o.name, taken, currency);
                if broke.is_none() {
                    broke = more;
                }
                (
                    format!(
                        "transferred {q} {} from {from} ({took}) to {to}: {got}",
                        o.name
                    ),
                    broke,
                )
            }
        };
        Line {
            index,
            sources,
            text,
            broke,
        }
    }

    /// Takes up to `q` from a holder; returns how many and the words.
    fn give(&mut self, from: &str, item: &str, q: u32, currency: bool) -> (u32, String) {
        if currency {
            let purse = self.currency.entry(from.to_string()).or_default();
            let held = purse.get(item).copied().unwrap_or(0);
            let n = u64::from(q).min(held) as u32;
            if held > 0 {
                purse.insert(item.to_string(), held - u64::from(n));
            }
            return (
                n,
                format!("{from} now holds {} (currency)", held - u64::from(n)),
            );
        }
        let Some(c) = self.contents.get_mut(from) else {
            return (0, "no such holder".into());
        };
        let mut t: Taken = c.take(item, q);
        if t.refused == Some(Reason::AmbiguousDraw) {
            // The story names no slot: use the matching stacks in slot order.
            let slots: Vec<u32> = (0..c.slot_len() as u32)
                .filter(|&s| c.stack(s).is_some_and(|st| st.item.as_str() == item))
                .collect();
            let mut left = q;
            let mut from_slots = Landings::default();
            for s in slots {
                if left == 0 {
                    break;
                }
                let k = c.take_from(item, left, s);
                left -= k.taken;
                from_slots.extend(k.from);
            }
            t = Taken {
                taken: q - left,
                shortfall: left,
                from: from_slots,
                refused: None,
                ..t
            };
        }
        (t.taken, t.to_string())
    }

    /// Delivers `q` to a holder, settling the leftover by its rules; returns
    /// the words and the broken rule, if any.
    fn receive(
        &mut self,
        to: &str,
        sender: Option<&str>,
        item: &str,
        name: &str,
        q: u32,
        currency: bool,
    ) -> (String, Option<String>) {
        if currency {
            let purse = self.currency.entry(to.to_string()).or_default();
            let held = purse.get(item).copied().unwrap_or(0) + u64::from(q);
            if held > 0 {
                purse.insert(item.to_string(), held);
            }
            return (format!("{to} now holds {held} (currency)"), None);
        }
        if q == 0 {
            return ("nothing to receive".into(), None);
        }
        let Some(c) = self.contents.get_mut(to) else {
            return ("no such holder".into(), None);
        };
        let d = c.deliver(item, q);
        let mut broke = None;
        if let Some(r) = &d.refused {
            broke = Some(format!(
                "{to}'s container refused {} {name} ({})",
                r.amount, r.reason
            ));
            self.back(sender, item, r.amount);
        }
        if let Some(l) = &d.leftover {
            broke = Some(format!(
                "{to}'s container could not hold {} of {q} {name}; they went {}",
                l.amount,
                l.to.as_str().replace('-', " ")
            ));
            match l.to {
                LeftoverDestination::BackToTheSender => self.back(sender, item, l.amount),
                LeftoverDestination::Destroyed => {
                    *self.destroyed.entry(item.to_string()).or_default() += u64::from(l.amount)
                }
                LeftoverDestination::LeftWhereItIs | LeftoverDestination::AnotherStore => {
                    *self.ground.entry(item.to_string()).or_default() += u64::from(l.amount)
                }
            }
        }
        (d.to_string(), broke)
    }

    /// Returns items to the holder they came from, or leaves them on the
    /// ground when there is none or it cannot take them.
    fn back(&mut self, sender: Option<&str>, item: &str, amount: u32) {
        let mut rest = amount;
        if let Some(s) = sender
            && let Some(c) = self.contents.get_mut(s)
        {
            rest -= c.deliver(item, amount).accepted;
        }
        if rest > 0 {
            *self.ground.entry(item.to_string()).or_default() += u64::from(rest);
        }
    }
}
