//! Reading scenario files strictly: every field checked, unknown keys and
//! unknown container names refused with their path.
//!
//! The reader stops at the first field it cannot use (what follows may
//! depend on it) and renders the report into the error text.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Action, ContainerSpec, Request, Scenario, Step};
use crate::adoption::source::fields::{
    Any, Bool, DecimalNumber, List, Obj, Object, OneOf, PropsField, Text, Want, Whole, kind_of,
    wrong_type,
};
use crate::adoption::{self, Adoption, Context, Format, Problem, ProblemKind, Report, Tuning};
use crate::contents::{ItemType, Kind, PropsAt, SlotRules, TransferRequest};

/// The fields of a scenario.
const FIELDS: [&str; 6] = [
    "about",
    "adoption",
    "containers",
    "tuning",
    "slot-rules",
    "steps",
];

/// The fields of a world scenario's container.
const CONTAINER_FIELDS: [&str; 3] = ["adoption", "slot-rules", "store"];

/// Each op, with the fields a step of it may carry.
const STEPS: [(&str, &[&str]); 8] = [
    (
        "deliver",
        &[
            "op",
            "in",
            "item",
            "amount",
            "props",
            "sender",
            "same-frame",
        ],
    ),
    (
        "take",
        &["op", "in", "item", "amount", "slot", "props", "same-frame"],
    ),
    (
        "set-props",
        &[
            "op",
            "in",
            "slot",
            "item",
            "props",
            "amount",
            "to-props",
            "same-frame",
        ],
    ),
    (
        "resize",
        &["op", "in", "slot-count", "size-budget", "same-frame"],
    ),
    ("owner-gone", &["op", "in", "same-frame"]),
    ("sort", &["op", "in", "order", "same-frame"]),
    (
        "move",
        &["op", "in", "from-slot", "to-slot", "amount", "same-frame"],
    ),
    (
        "transfer",
        &[
            "op",
            "from",
            "to",
            "item",
            "from-slot",
            "to-slot",
            "amount",
            "props",
            "same-frame",
        ],
    ),
];

/// What an adoption field holds.
const ADOPTION: Any<'static> = Any("a path to an adoption file, or an adoption object");

/// Reads the whole scenario; `dir` is where relative adoption paths start.
pub(super) fn scenario(bytes: &[u8], dir: &Path) -> Result<Scenario, String> {
    let root = adoption::source::parse(bytes, Format::Json).map_err(|r| r.to_string())?;
    let mut r = Report::default();
    match from_tree(&root, dir, &mut r) {
        Some(s) if !r.has_errors() => Ok(s),
        _ => Err(r.to_string()),
    }
}

/// The scenario in a parsed tree; `None` after its first problem.
fn from_tree(root: &Value, dir: &Path, r: &mut Report) -> Option<Scenario> {
    let obj = Obj::of(
        root,
        "",
        "a scenario is an object with \"adoption\" (or \"containers\") and \"steps\"",
        r,
    )?;
    obj.refuse_unknown(&FIELDS, r);
    let tuning = match obj.get("tuning") {
        None => Tuning::default(),
        Some(t) => Tuning::from_value(t)
            .map_err(|report| nest(r, &obj.path("tuning"), report))
            .ok()?,
    };
    let (containers, world) = containers(&obj, dir, &tuning, r)?;
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let steps = steps(&obj, &names, world, r)?;
    Some(Scenario {
        containers,
        world,
        tuning,
        steps,
    })
}

/// Adds the problems of a table or an adoption found at `at` (a tuning
/// table, an inline adoption), their paths under `at`.
fn nest(r: &mut Report, at: &str, inner: Report) {
    for p in inner.problems {
        r.problems.push(Problem {
            path: format!("{at}{}", p.path),
            ..p
        });
    }
}

/// The containers: one (`adoption`), or a world of them (`containers`).
fn containers(
    obj: &Obj<'_>,
    dir: &Path,
    tuning: &Tuning,
    r: &mut Report,
) -> Option<(Vec<ContainerSpec>, bool)> {
    match (obj.get("adoption"), obj.get("containers")) {
        (Some(_), Some(_)) => {
            r.error(
                ProblemKind::Unknown,
                "/containers",
                "a scenario has \"adoption\" (one container) or \"containers\" (a world), not both",
            );
            None
        }
        (None, Some(_)) => {
            if obj.has("slot-rules") {
                r.error(
                    ProblemKind::Unknown,
                    "/slot-rules",
                    "in a world scenario, slot rules go with their container (/containers/NAME/slot-rules)",
                );
                return None;
            }
            Some((world_containers(obj, dir, tuning, r)?, true))
        }
        (Some(a), None) => {
            let spec = ContainerSpec {
                name: "container".into(),
                adoption: adoption_of(a, dir, tuning, "/adoption", r)?,
                slot_rules: optional_slot_rules(obj, r)?,
                store: None,
            };
            Some((vec![spec], false))
        }
        (None, None) => {
            r.error(
                ProblemKind::Missing,
                "/adoption",
                "add \"adoption\": a path to an adoption file or an adoption object (or \"containers\" for a world)",
            );
            None
        }
    }
}

fn world_containers(
    obj: &Obj<'_>,
    dir: &Path,
    tuning: &Tuning,
    r: &mut Report,
) -> Option<Vec<ContainerSpec>> {
    let map = obj.required(
        "containers",
        Object("an object of name to {\"adoption\", \"slot-rules\", \"store\"}"),
        r,
    )?;
    if map.map().is_empty() {
        r.error(
            ProblemKind::Missing,
            map.at(),
            "name at least one container",
        );
        return None;
    }
    let names: Vec<&str> = map.map().keys().map(String::as_str).collect();
    let mut out = Vec::with_capacity(names.len());
    for name in &names {
        let c = map.required(name, Object("an object with \"adoption\""), r)?;
        c.refuse_unknown(&CONTAINER_FIELDS, r);
        let store = c.optional("store", Name(&names), r)?;
        let adoption = c.required("adoption", ADOPTION, r)?;
        out.push(ContainerSpec {
            name: name.to_string(),
            adoption: adoption_of(adoption, dir, tuning, &c.path("adoption"), r)?,
            slot_rules: optional_slot_rules(&c, r)?,
            store,
        });
    }
    Some(out)
}

/// A container's name, read to its index among `names`.
struct Name<'a>(&'a [&'a str]);

impl<'v> Want<'v> for Name<'_> {
    type Out = usize;

    fn describe(&self) -> String {
        format!("the name of a container ({})", self.0.join(", "))
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<usize> {
        let Some(n) = v.as_str() else {
            wrong_type(r, path, name, &self.describe(), kind_of(v));
            return None;
        };
        let found = self.0.iter().position(|x| *x == n);
        if found.is_none() {
            r.error(
                ProblemKind::NotAnOption,
                path,
                format!(
                    "no container is named \"{n}\"; the containers are {}",
                    self.0.join(", ")
                ),
            );
        }
        found
    }
}

fn adoption_of(
    v: &Value,
    dir: &Path,
    tuning: &Tuning,
    at: &str,
    r: &mut Report,
) -> Option<Adoption> {
    let cx = Context {
        tuning: Some(tuning),
        prose: None,
    };
    match v {
        Value::String(p) => {
            let path: PathBuf = dir.join(p);
            let bytes = std::fs::read(&path)
                .map_err(|e| {
                    r.error(
                        ProblemKind::Missing,
                        at,
                        format!("cannot read {}: {e}", path.display()),
                    )
                })
                .ok()?;
            let name = path.display().to_string();
            adoption::read(&bytes, Format::of_path(&path), cx)
                .map_err(|report| {
                    let kind = report
                        .errors()
                        .next()
                        .map_or(ProblemKind::WrongType, |p| p.kind);
                    r.error(
                        kind,
                        at,
                        format!("{name}:\n{}", report.render(&name).trim_end()),
                    );
                })
                .ok()
        }
        Value::Object(_) => {
            let (report, a) = adoption::validate(v, cx);
            if a.is_none() {
                nest(r, at, report);
            }
            a
        }
        _ => {
            wrong_type(r, at, "\"adoption\"", &ADOPTION.describe(), kind_of(v));
            None
        }
    }
}

/// An object's `slot-rules`, when it has them.
fn optional_slot_rules(obj: &Obj<'_>, r: &mut Report) -> Option<Option<SlotRules>> {
    let Some(lists) = obj.optional("slot-rules", List("a list of lists of types"), r)? else {
        return Some(None);
    };
    let at = obj.path("slot-rules");
    let mut out = Vec::with_capacity(lists.len());
    for (i, l) in lists.iter().enumerate() {
        out.push(types(l, &format!("{at}/{i}"), "each slot's rule", r)?);
    }
    Some(Some(SlotRules::new(out)))
}

/// A list of item types, found at `at`; `name` starts its messages.
fn types(v: &Value, at: &str, name: &str, r: &mut Report) -> Option<Vec<String>> {
    let list = List("a list of types").read(v, at, name, r)?;
    list.iter()
        .enumerate()
        .map(|(i, t)| {
            Text.read(t, &format!("{at}/{i}"), "a type", r)
                .map(str::to_string)
        })
        .collect()
}

/// The steps, in order.
fn steps(obj: &Obj<'_>, names: &[&str], world: bool, r: &mut Report) -> Option<Vec<Request>> {
    let list = obj.required("steps", List("a list of steps"), r)?;
    let mut steps = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        steps.push(request(s, &format!("/steps/{i}"), names, world, r)?);
    }
    if steps.first().is_some_and(|s| s.same_frame) {
        r.error(
            ProblemKind::NotApplicable,
            "/steps/0/same-frame",
            "the first step has no step before it to share a frame with",
        );
        return None;
    }
    Some(steps)
}

/// One step: its op, the container it goes to, and its frame.
fn request(v: &Value, at: &str, names: &[&str], world: bool, r: &mut Report) -> Option<Request> {
    let s = Obj::of(v, at, "a step is an object with \"op\"", r)?;
    let ops: Vec<&str> = STEPS.iter().map(|(op, _)| *op).collect();
    let op = s.required("op", OneOf(&ops), r)?;
    let fields: &[&str] = STEPS
        .iter()
        .find(|(o, _)| *o == op)
        .map(|(_, f)| *f)
        .unwrap_or_default();
    s.refuse_unknown(fields, r);
    let same_frame = s.optional("same-frame", Bool, r)?.unwrap_or(false);
    if op == "transfer" {
        return transfer(&s, names, world, same_frame, r);
    }
    let sender = match s.get("sender") {
        None => None,
        Some(_) if world => Some(s.required("sender", Name(names), r)?),
        Some(_) => {
            r.error(
                ProblemKind::NotApplicable,
                s.path("sender"),
                "a sender is another container; write a world scenario (\"containers\")",
            );
            return None;
        }
    };
    Some(Request {
        container: container(&s, "in", names, world, r)?,
        action: Action::Step(step(op, &s, r)?),
        sender,
        same_frame,
    })
}

/// The container a step names under `key`: by name in a world, none (the
/// one container) otherwise.
fn container(s: &Obj<'_>, key: &str, names: &[&str], world: bool, r: &mut Report) -> Option<usize> {
    if world {
        return s.required(key, Name(names), r);
    }
    if s.has(key) {
        r.error(
            ProblemKind::NotApplicable,
            s.path(key),
            "a one-container scenario names no containers; use \"containers\" for a world",
        );
        return None;
    }
    Some(0)
}

/// A transfer step, from one container of a world to another.
fn transfer(
    s: &Obj<'_>,
    names: &[&str],
    world: bool,
    same_frame: bool,
    r: &mut Report,
) -> Option<Request> {
    if !world {
        r.error(
            ProblemKind::NotApplicable,
            s.path("op"),
            "a transfer needs two containers; write a world scenario (\"containers\")",
        );
        return None;
    }
    let item = s.optional("item", Text, r)?;
    let from_slot = opt_amount(s, "from-slot", r)?;
    if item.is_none() && from_slot.is_none() {
        r.error(
            ProblemKind::Missing,
            s.at(),
            "a transfer names \"item\" or \"from-slot\" (or both)",
        );
        return None;
    }
    Some(Request {
        container: container(s, "from", names, world, r)?,
        action: Action::Transfer {
            to: container(s, "to", names, world, r)?,
            request: TransferRequest {
                item: item.map(ItemType::from),
                props: s.optional("props", PropsField, r)?,
                from_slot,
                to_slot: opt_amount(s, "to-slot", r)?,
                amount: amount(s, "amount", r)?,
            },
        },
        sender: None,
        same_frame,
    })
}

/// A required amount, slot or count: 0 to `u32::MAX`.
fn amount(s: &Obj<'_>, key: &str, r: &mut Report) -> Option<u32> {
    s.required(key, Whole::U32, r).map(|n| n as u32)
}

/// An optional amount, slot or count.
fn opt_amount(s: &Obj<'_>, key: &str, r: &mut Report) -> Option<Option<u32>> {
    s.optional(key, Whole::U32, r).map(|n| n.map(|n| n as u32))
}

/// A required item type.
fn item(s: &Obj<'_>, r: &mut Report) -> Option<String> {
    s.required("item", Text, r).map(str::to_string)
}

/// A one-container op.
fn step(op: &str, s: &Obj<'_>, r: &mut Report) -> Option<Step> {
    Some(match op {
        "deliver" => Step::Deliver {
            item: item(s, r)?,
            amount: amount(s, "amount", r)?,
            props: s.optional("props", PropsField, r)?.unwrap_or_default(),
        },
        "take" => Step::Take {
            item: item(s, r)?,
            amount: amount(s, "amount", r)?,
            slot: opt_amount(s, "slot", r)?,
            props: s.optional("props", PropsField, r)?,
        },
        "set-props" => {
            let slot = opt_amount(s, "slot", r)?;
            let item = s.optional("item", Text, r)?;
            let props = s.optional("props", PropsField, r)?;
            let at = match (slot, item) {
                (Some(slot), None) if props.is_none() => PropsAt::Slot(slot),
                (None, Some(item)) => PropsAt::Held(Kind::new(item, props.unwrap_or_default())),
                _ => {
                    r.error(
                        ProblemKind::Missing,
                        s.at(),
                        "set-props names \"slot\" (a container with slots) or \"item\" with optional \"props\" (a slotless one), not both",
                    );
                    return None;
                }
            };
            Step::SetProps {
                at,
                amount: opt_amount(s, "amount", r)?,
                to: s.required("to-props", PropsField, r)?,
            }
        }
        "resize" => Step::Resize {
            slot_count: opt_amount(s, "slot-count", r)?,
            size_budget: s.optional("size-budget", DecimalNumber, r)?,
        },
        "owner-gone" => Step::OwnerGone,
        "sort" => Step::Sort {
            order: match s.get("order") {
                None => Vec::new(),
                Some(v) => types(v, &s.path("order"), "\"order\"", r)?,
            },
        },
        "move" => Step::Move {
            from: amount(s, "from-slot", r)?,
            to: amount(s, "to-slot", r)?,
            amount: opt_amount(s, "amount", r)?,
        },
        other => {
            r.error(
                ProblemKind::NotAnOption,
                s.path("op"),
                format!("\"{other}\" is not a one-container op"),
            );
            return None;
        }
    })
}
