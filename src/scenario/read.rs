//! Reading scenario files strictly: every field checked, unknown keys and
//! unknown container names refused with their path.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Action, ContainerSpec, Request, Scenario, Step};
use crate::adoption::{self, Adoption, Context, Format, Tuning};
use crate::contents::{ItemType, SlotRules, TransferRequest};
use crate::decimal::Decimal;

type Obj = Map<String, Value>;

fn field<'a>(obj: &'a Obj, key: &str, at: &str) -> Result<&'a Value, String> {
    obj.get(key)
        .ok_or_else(|| format!("{at}: missing \"{key}\""))
}

fn amount(v: &Value, at: &str) -> Result<u32, String> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{at}: {v} is not a whole number from 0 to {}", u32::MAX))
}

fn opt_amount(obj: &Obj, key: &str, at: &str) -> Result<Option<u32>, String> {
    obj.get(key)
        .map(|v| amount(v, &format!("{at}/{key}")))
        .transpose()
}

fn text(obj: &Obj, key: &str, at: &str) -> Result<String, String> {
    field(obj, key, at)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{at}/{key}: text, like \"arrow\""))
}

/// Refuses keys outside `known`, naming the first with the list.
fn known_keys(obj: &Obj, known: &[&str], at: &str) -> Result<(), String> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(format!(
            "{at}/{k}: unknown field; the fields here are {}",
            known.join(", ")
        )),
    }
}

/// The fields a step may carry, by op.
fn step_fields(op: &str) -> Option<&'static [&'static str]> {
    Some(match op {
        "deliver" => &["op", "in", "item", "amount", "sender", "same-frame"],
        "take" => &["op", "in", "item", "amount", "slot", "same-frame"],
        "resize" => &["op", "in", "slot-count", "size-budget", "same-frame"],
        "owner-gone" => &["op", "in", "same-frame"],
        "sort" => &["op", "in", "order", "same-frame"],
        "move" => &["op", "in", "from-slot", "to-slot", "amount", "same-frame"],
        "transfer" => &[
            "op",
            "from",
            "to",
            "item",
            "from-slot",
            "to-slot",
            "amount",
            "same-frame",
        ],
        _ => return None,
    })
}

/// Reads the whole scenario; `dir` is where relative adoption paths start.
pub(super) fn scenario(bytes: &[u8], dir: &Path) -> Result<Scenario, String> {
    let root = adoption::source::parse(bytes, Format::Json).map_err(|r| r.to_string())?;
    let obj = root
        .as_object()
        .ok_or("a scenario is an object with \"adoption\" (or \"containers\") and \"steps\"")?;
    known_keys(
        obj,
        &[
            "about",
            "adoption",
            "containers",
            "tuning",
            "slot-rules",
            "steps",
        ],
        "",
    )?;
    let tuning = match obj.get("tuning") {
        None => Tuning::default(),
        Some(t) => Tuning::from_value(t).map_err(|r| {
            r.render("/tuning")
                .lines()
                .next()
                .unwrap_or("/tuning: not a table of key to number")
                .to_string()
        })?,
    };
    let (containers, world) = match (obj.get("adoption"), obj.get("containers")) {
        (Some(_), Some(_)) => {
            return Err(
                "a scenario has \"adoption\" (one container) or \"containers\" (a world), not both"
                    .into(),
            );
        }
        (None, Some(c)) => {
            if obj.contains_key("slot-rules") {
                return Err("/slot-rules: in a world scenario, slot rules go with their container (/containers/NAME/slot-rules)".into());
            }
            (world_containers(c, dir, &tuning)?, true)
        }
        (Some(a), None) => {
            let spec = ContainerSpec {
                name: "container".into(),
                adoption: adoption_of(a, dir, &tuning, "/adoption")?,
                slot_rules: obj
                    .get("slot-rules")
                    .map(|v| slot_rules(v, "/slot-rules"))
                    .transpose()?,
                store: None,
            };
            (vec![spec], false)
        }
        (None, None) => return Err("/: missing \"adoption\" (or \"containers\")".into()),
    };
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let steps_v = field(obj, "steps", "")?
        .as_array()
        .ok_or("/steps: a list of steps")?;
    let mut steps = Vec::with_capacity(steps_v.len());
    for (i, s) in steps_v.iter().enumerate() {
        steps.push(request(s, &format!("/steps/{i}"), &names, world)?);
    }
    if steps.first().is_some_and(|s| s.same_frame) {
        return Err(
            "/steps/0/same-frame: the first step has no step before it to share a frame with"
                .into(),
        );
    }
    Ok(Scenario {
        containers,
        world,
        tuning,
        steps,
    })
}

fn world_containers(v: &Value, dir: &Path, tuning: &Tuning) -> Result<Vec<ContainerSpec>, String> {
    let map = v
        .as_object()
        .ok_or("/containers: an object of name to {\"adoption\", \"slot-rules\", \"store\"}")?;
    if map.is_empty() {
        return Err("/containers: name at least one container".into());
    }
    let names: Vec<&str> = map.keys().map(String::as_str).collect();
    let mut out = Vec::with_capacity(map.len());
    for (name, c) in map {
        let at = format!("/containers/{name}");
        let c = c
            .as_object()
            .ok_or_else(|| format!("{at}: an object with \"adoption\""))?;
        known_keys(c, &["adoption", "slot-rules", "store"], &at)?;
        let store = match c.get("store") {
            None => None,
            Some(s) => Some(name_of(s, &names, &format!("{at}/store"))?),
        };
        out.push(ContainerSpec {
            name: name.clone(),
            adoption: adoption_of(
                field(c, "adoption", &at)?,
                dir,
                tuning,
                &format!("{at}/adoption"),
            )?,
            slot_rules: c
                .get("slot-rules")
                .map(|v| slot_rules(v, &format!("{at}/slot-rules")))
                .transpose()?,
            store,
        });
    }
    Ok(out)
}

fn name_of(v: &Value, names: &[&str], at: &str) -> Result<usize, String> {
    let n = v
        .as_str()
        .ok_or_else(|| format!("{at}: a container's name"))?;
    names.iter().position(|x| *x == n).ok_or_else(|| {
        format!(
            "{at}: no container is named \"{n}\"; the containers are {}",
            names.join(", ")
        )
    })
}

fn adoption_of(v: &Value, dir: &Path, tuning: &Tuning, at: &str) -> Result<Adoption, String> {
    let cx = Context {
        tuning: Some(tuning),
        prose: None,
    };
    match v {
        Value::String(p) => {
            let path: PathBuf = dir.join(p);
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("{at}: cannot read {}: {e}", path.display()))?;
            adoption::read(&bytes, Format::of_path(&path), cx).map_err(|r| {
                format!(
                    "{at}: {}:\n{}",
                    path.display(),
                    r.render(&path.display().to_string())
                )
            })
        }
        v @ Value::Object(_) => {
            let (report, a) = adoption::validate(v, cx);
            a.ok_or_else(|| format!("{at}:\n{}", report.render("(inline adoption)")))
        }
        _ => Err(format!("{at}: a path or an adoption object")),
    }
}

fn slot_rules(v: &Value, at: &str) -> Result<SlotRules, String> {
    let lists = v
        .as_array()
        .ok_or_else(|| format!("{at}: a list of lists of types"))?;
    let mut out = Vec::with_capacity(lists.len());
    for (i, l) in lists.iter().enumerate() {
        let l = l
            .as_array()
            .ok_or_else(|| format!("{at}/{i}: a list of types"))?;
        out.push(
            l.iter()
                .map(|t| {
                    t.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("{at}/{i}: types are text"))
                })
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(SlotRules::new(out))
}

/// One step: its op, the container it goes to, and its frame.
fn request(s: &Value, at: &str, names: &[&str], world: bool) -> Result<Request, String> {
    let s = s
        .as_object()
        .ok_or_else(|| format!("{at}: a step is an object with \"op\""))?;
    let op = field(s, "op", at)?
        .as_str()
        .ok_or_else(|| format!("{at}/op: text, like \"deliver\""))?;
    let Some(fields) = step_fields(op) else {
        return Err(format!(
            "{at}/op: \"{op}\" is not one of deliver, take, resize, owner-gone, sort, move, transfer"
        ));
    };
    known_keys(s, fields, at)?;
    let same_frame = match s.get("same-frame") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| format!("{at}/same-frame: true or false"))?,
    };
    let container = |key: &str| -> Result<usize, String> {
        match (world, s.get(key)) {
            (true, Some(v)) => name_of(v, names, &format!("{at}/{key}")),
            (true, None) => Err(format!("{at}: missing \"{key}\" (a container's name)")),
            (false, None) => Ok(0),
            (false, Some(_)) => Err(format!(
                "{at}/{key}: a one-container scenario names no containers; use \"containers\" for a world"
            )),
        }
    };
    if op == "transfer" {
        if !world {
            return Err(format!(
                "{at}/op: a transfer needs two containers; write a world scenario (\"containers\")"
            ));
        }
        let item = s.get("item").map(|_| text(s, "item", at)).transpose()?;
        let from_slot = opt_amount(s, "from-slot", at)?;
        if item.is_none() && from_slot.is_none() {
            return Err(format!(
                "{at}: a transfer names \"item\" or \"from-slot\" (or both)"
            ));
        }
        return Ok(Request {
            container: container("from")?,
            action: Action::Transfer {
                to: container("to")?,
                request: TransferRequest {
                    item: item.map(ItemType::from),
                    from_slot,
                    to_slot: opt_amount(s, "to-slot", at)?,
                    amount: amount(field(s, "amount", at)?, &format!("{at}/amount"))?,
                },
            },
            sender: None,
            same_frame,
        });
    }
    let sender = match s.get("sender") {
        Some(v) if world => Some(name_of(v, names, &format!("{at}/sender"))?),
        Some(_) => {
            return Err(format!(
                "{at}/sender: a sender is another container; write a world scenario (\"containers\")"
            ));
        }
        None => None,
    };
    Ok(Request {
        container: container("in")?,
        action: Action::Step(step(op, s, at)?),
        sender,
        same_frame,
    })
}

/// A one-container op.
fn step(op: &str, s: &Obj, at: &str) -> Result<Step, String> {
    let n = |key: &str| amount(field(s, key, at)?, &format!("{at}/{key}"));
    Ok(match op {
        "deliver" => Step::Deliver {
            item: text(s, "item", at)?,
            amount: n("amount")?,
        },
        "take" => Step::Take {
            item: text(s, "item", at)?,
            amount: n("amount")?,
            slot: opt_amount(s, "slot", at)?,
        },
        "resize" => Step::Resize {
            slot_count: opt_amount(s, "slot-count", at)?,
            size_budget: s
                .get("size-budget")
                .map(|v| {
                    v.as_f64()
                        .ok_or_else(|| format!("{at}/size-budget: not a number"))
                        .and_then(|f| {
                            Decimal::from_f64(f).map_err(|e| format!("{at}/size-budget: {e}"))
                        })
                })
                .transpose()?,
        },
        "owner-gone" => Step::OwnerGone,
        "sort" => Step::Sort {
            order: match s.get("order") {
                None => Vec::new(),
                Some(v) => v
                    .as_array()
                    .ok_or_else(|| format!("{at}/order: a list of types"))?
                    .iter()
                    .map(|t| {
                        t.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("{at}/order: types are text"))
                    })
                    .collect::<Result<_, _>>()?,
            },
        },
        "move" => Step::Move {
            from: n("from-slot")?,
            to: n("to-slot")?,
            amount: opt_amount(s, "amount", at)?,
        },
        other => return Err(format!("{at}/op: \"{other}\" is not a one-container op")),
    })
}
