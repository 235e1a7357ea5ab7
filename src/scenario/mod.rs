//! Scenario files: the engine driven from data (`scenario-format.md`).
//!
//! A scenario replays requests against one container and yields one JSON
//! object per step. [`Scenario::run`] drives the engine directly; the
//! plugin's ECS driver writes the same steps as messages and prints the same
//! lines, so both paths are checked against the same expected output.
//!
//! ```
//! use bevy_container::scenario::Scenario;
//!
//! let text = r#"{
//!   "adoption": {"contract": "container", "version": 1,
//!     "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
//!       "leftover-destination": "destroyed", "fill-order": "append",
//!       "draw-order": "first-in-order", "type-restriction": "any-item"},
//!     "values": {"slot-count": 1, "size-budget": 0},
//!     "rows": {"items": [{"id": "arrow", "stack-limit": 20, "when-forced-out": "never"}]}},
//!   "steps": [{"op": "deliver", "item": "arrow", "amount": 25}]
//! }"#;
//! let scenario = Scenario::parse(text.as_bytes(), std::path::Path::new(".")).unwrap();
//! let lines = scenario.run().unwrap();
//! assert_eq!(lines[0]["accepted"], 20);
//! assert_eq!(lines[0]["leftover"]["to"], "destroyed");
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::adoption::{self, Adoption, Context, Format, Tuning};
use crate::contents::{Contents, Delivered, ForcedOut, Rearranged, SlotRules, Taken};
use crate::decimal::Decimal;
use crate::rules::Rules;

/// One request of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Deliver `amount` of `item`.
    Deliver {
        /// The type.
        item: String,
        /// How many.
        amount: u32,
    },
    /// Take `amount` of `item`, from `slot` when given.
    Take {
        /// The type.
        item: String,
        /// How many.
        amount: u32,
        /// The slot the player chose.
        slot: Option<u32>,
    },
    /// Change the slot count and/or size budget.
    Resize {
        /// New slot count.
        slot_count: Option<u32>,
        /// New size budget.
        size_budget: Option<Decimal>,
    },
    /// The owner is gone.
    OwnerGone,
    /// Sort by the named types first.
    Sort {
        /// The explicit order.
        order: Vec<String>,
    },
    /// Move items between slots.
    Move {
        /// From this slot.
        from: u32,
        /// To this slot.
        to: u32,
        /// How many (all when `None`).
        amount: Option<u32>,
    },
}

impl Step {
    /// The step's `op` word.
    pub fn op(&self) -> &'static str {
        match self {
            Step::Deliver { .. } => "deliver",
            Step::Take { .. } => "take",
            Step::Resize { .. } => "resize",
            Step::OwnerGone => "owner-gone",
            Step::Sort { .. } => "sort",
            Step::Move { .. } => "move",
        }
    }
}

/// The outcome of one step, whichever path produced it.
#[derive(Clone, Debug, PartialEq)]
pub enum StepOutcome {
    /// A delivery's outcome.
    Delivered(Delivered),
    /// A take's outcome.
    Taken(Taken),
    /// A resize's or owner-gone's outcome.
    ForcedOut(ForcedOut),
    /// A sort's or move's outcome.
    Rearranged(Rearranged),
}

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The adoption, read and validated.
    pub adoption: Adoption,
    /// The tuning.
    pub tuning: Tuning,
    /// Slot rules for `by-slot`.
    pub slot_rules: Option<SlotRules>,
    /// The steps.
    pub steps: Vec<Step>,
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, String> {
    obj.get(key)
        .ok_or_else(|| format!("{at}: missing \"{key}\""))
}

fn amount(v: &Value, at: &str) -> Result<u32, String> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{at}: {v} is not a whole number from 0 to {}", u32::MAX))
}

fn opt_amount(obj: &Map<String, Value>, key: &str, at: &str) -> Result<Option<u32>, String> {
    obj.get(key)
        .map(|v| amount(v, &format!("{at}/{key}")))
        .transpose()
}

impl Scenario {
    /// Reads a scenario file; `adoption` paths are relative to its folder.
    pub fn read(path: &Path) -> Result<Scenario, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Scenario::parse(&bytes, dir).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a scenario's bytes; `dir` is where relative adoption paths
    /// start.
    pub fn parse(bytes: &[u8], dir: &Path) -> Result<Scenario, String> {
        let root = adoption::source::parse(bytes, Format::Json).map_err(|r| r.to_string())?;
        let obj = root
            .as_object()
            .ok_or("a scenario is an object with adoption and steps")?;
        let mut tuning = Tuning::default();
        if let Some(t) = obj.get("tuning") {
            let t = t.as_object().ok_or("/tuning: an object of key to number")?;
            for (k, v) in t {
                let f = v
                    .as_f64()
                    .ok_or_else(|| format!("/tuning/{k}: not a number"))?;
                tuning.set(k, f);
            }
        }
        let cx = Context {
            tuning: Some(&tuning),
            prose: None,
        };
        let adoption = match field(obj, "adoption", "")? {
            Value::String(p) => {
                let path: PathBuf = dir.join(p);
                let bytes = std::fs::read(&path)
                    .map_err(|e| format!("/adoption: cannot read {}: {e}", path.display()))?;
                adoption::read(&bytes, Format::of_path(&path), cx).map_err(|r| {
                    format!(
                        "/adoption: {}:\n{}",
                        path.display(),
                        r.render(&path.display().to_string())
                    )
                })?
            }
            v @ Value::Object(_) => {
                let (report, a) = adoption::validate(v, cx);
                a.ok_or_else(|| format!("/adoption:\n{}", report.render("(inline adoption)")))?
            }
            _ => return Err("/adoption: a path or an adoption object".into()),
        };
        let slot_rules = match obj.get("slot-rules") {
            None => None,
            Some(v) => {
                let lists = v
                    .as_array()
                    .ok_or("/slot-rules: a list of lists of types")?;
                let mut out = Vec::new();
                for (i, l) in lists.iter().enumerate() {
                    let l = l
                        .as_array()
                        .ok_or_else(|| format!("/slot-rules/{i}: a list of types"))?;
                    out.push(
                        l.iter()
                            .map(|t| {
                                t.as_str()
                                    .map(str::to_string)
                                    .ok_or_else(|| format!("/slot-rules/{i}: types are text"))
                            })
                            .collect::<Result<Vec<_>, _>>()?,
                    );
                }
                Some(SlotRules::new(out))
            }
        };
        let steps_v = field(obj, "steps", "")?
            .as_array()
            .ok_or("/steps: a list of steps")?;
        let mut steps = Vec::with_capacity(steps_v.len());
        for (i, s) in steps_v.iter().enumerate() {
            let at = format!("/steps/{i}");
            let s = s
                .as_object()
                .ok_or_else(|| format!("{at}: a step is an object with \"op\""))?;
            let item = || -> Result<String, String> {
                field(s, "item", &at)?
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{at}/item: a type name"))
            };
            let op = field(s, "op", &at)?.as_str().unwrap_or_default();
            steps.push(match op {
                "deliver" => Step::Deliver {
                    item: item()?,
                    amount: amount(field(s, "amount", &at)?, &format!("{at}/amount"))?,
                },
                "take" => Step::Take {
                    item: item()?,
                    amount: amount(field(s, "amount", &at)?, &format!("{at}/amount"))?,
                    slot: opt_amount(s, "slot", &at)?,
                },
                "resize" => Step::Resize {
                    slot_count: opt_amount(s, "slot-count", &at)?,
                    size_budget: s
                        .get("size-budget")
                        .map(|v| {
                            v.as_f64()
                                .ok_or(adoption_err(&at))
                                .and_then(|f| Decimal::from_f64(f).map_err(|e| format!("{at}/size-budget: {e}")))
                        })
                        .transpose()?,
                },
                "owner-gone" => Step::OwnerGone,
                "sort" => Step::Sort {
                    order: s
                        .get("order")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
                        .unwrap_or_default(),
                },
                "move" => Step::Move {
                    from: amount(field(s, "from-slot", &at)?, &format!("{at}/from-slot"))?,
                    to: amount(field(s, "to-slot", &at)?, &format!("{at}/to-slot"))?,
                    amount: opt_amount(s, "amount", &at)?,
                },
                other => {
                    return Err(format!(
                        "{at}/op: \"{other}\" is not one of deliver, take, resize, owner-gone, sort, move"
                    ));
                }
            });
        }
        Ok(Scenario {
            adoption,
            tuning,
            slot_rules,
            steps,
        })
    }

    /// The compiled rules of the scenario's adoption.
    pub fn rules(&self) -> Result<Rules, String> {
        Rules::compile(&self.adoption, &self.tuning).map_err(|r| r.to_string())
    }

    /// Runs the scenario on the engine directly: one JSON line per step.
    pub fn run(&self) -> Result<Vec<Value>, String> {
        let mut contents = Contents::new(Arc::new(self.rules()?));
        if let Some(sr) = &self.slot_rules {
            contents = contents.with_slot_rules(sr.clone());
        }
        Ok(self
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let outcome = apply(&mut contents, step);
                line(i + 1, step, &outcome, &contents)
            })
            .collect())
    }
}

fn adoption_err(at: &str) -> String {
    format!("{at}/size-budget: not a number")
}

/// Applies one step to the engine.
pub fn apply(contents: &mut Contents, step: &Step) -> StepOutcome {
    match step {
        Step::Deliver { item, amount } => StepOutcome::Delivered(contents.deliver(item, *amount)),
        Step::Take { item, amount, slot } => {
            StepOutcome::Taken(contents.take_inner(item, *amount, *slot))
        }
        Step::Resize {
            slot_count,
            size_budget,
        } => StepOutcome::ForcedOut(contents.resize(*slot_count, *size_budget)),
        Step::OwnerGone => StepOutcome::ForcedOut(contents.owner_gone()),
        Step::Sort { order } => {
            let order: Vec<&str> = order.iter().map(String::as_str).collect();
            StepOutcome::Rearranged(contents.sort(&order))
        }
        Step::Move { from, to, amount } => {
            StepOutcome::Rearranged(contents.move_items(*from, *to, *amount))
        }
    }
}

fn decimal_json(d: Decimal) -> Value {
    if d.micros().is_multiple_of(1_000_000)
        && let Ok(n) = u64::try_from(d.micros() / 1_000_000)
    {
        return json!(n);
    }
    json!(d.to_f64())
}

/// The JSON line for one step: `step`, `op`, the state, then the outcome's
/// fields in the order `scenario-format.md` gives.
pub fn line(step_no: usize, step: &Step, outcome: &StepOutcome, contents: &Contents) -> Value {
    let mut m = Map::new();
    m.insert("step".into(), json!(step_no));
    m.insert("op".into(), json!(step.op()));
    let rules = contents.rules();
    if rules.has_slots() {
        let slots: Vec<Value> = contents
            .slots()
            .map(|s| s.map_or(Value::Null, |s| json!([s.item.as_str(), s.amount])))
            .collect();
        m.insert("slots".into(), Value::Array(slots));
    } else {
        let holdings: Map<String, Value> = contents
            .holdings()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        m.insert("holdings".into(), Value::Object(holdings));
    }
    if rules.has_budget() {
        m.insert("size-used".into(), decimal_json(contents.size_used()));
    }
    match outcome {
        StepOutcome::Delivered(d) => {
            m.insert("offered".into(), json!(d.offered));
            m.insert("accepted".into(), json!(d.accepted));
            m.insert(
                "landed".into(),
                json!(
                    d.landed
                        .iter()
                        .map(|l| [l.slot, l.amount])
                        .collect::<Vec<_>>()
                ),
            );
            m.insert(
                "refused".into(),
                d.refused.as_ref().map_or(
                    Value::Null,
                    |r| json!({"amount": r.amount, "reason": r.reason.as_str()}),
                ),
            );
            m.insert(
                "leftover".into(),
                d.leftover.as_ref().map_or(
                    Value::Null,
                    |l| json!({"amount": l.amount, "to": l.to.as_str()}),
                ),
            );
        }
        StepOutcome::Taken(t) => {
            m.insert("asked".into(), json!(t.asked));
            m.insert("taken".into(), json!(t.taken));
            m.insert("shortfall".into(), json!(t.shortfall));
            m.insert(
                "from".into(),
                json!(
                    t.from
                        .iter()
                        .map(|l| [l.slot, l.amount])
                        .collect::<Vec<_>>()
                ),
            );
            m.insert(
                "refused".into(),
                t.refused
                    .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
            );
        }
        StepOutcome::ForcedOut(f) => {
            m.insert(
                "forced-out".into(),
                Value::Array(
                    f.portions
                        .iter()
                        .map(|p| {
                            json!({"item": p.item.as_str(), "amount": p.amount, "slot": p.slot, "to": p.to.as_str()})
                        })
                        .collect(),
                ),
            );
            m.insert(
                "refused".into(),
                f.refused.as_ref().map_or(
                    Value::Null,
                    |s| json!({"reason": "too-few-can-leave", "short": s.to_string()}),
                ),
            );
        }
        StepOutcome::Rearranged(r) => {
            m.insert(
                "refused".into(),
                r.refused
                    .map_or(Value::Null, |r| json!({"reason": r.as_str()})),
            );
        }
    }
    Value::Object(m)
}

/// The same scenario through a headless Bevy `App`: each step is written as
/// a request message, `app.update()` runs the plugin's systems, and the
/// outcome is read back from the outcome messages.
pub mod ecs {
    use bevy::ecs::message::MessageCursor;
    use bevy::prelude::*;
    use serde_json::Value;

    use super::{Scenario, Step, StepOutcome, line};
    use crate::plugin::*;

    struct Cursors {
        delivered: MessageCursor<ItemsDelivered>,
        taken: MessageCursor<ItemsTaken>,
        forced: MessageCursor<ItemsForcedOut>,
        rearranged: MessageCursor<ContainerRearranged>,
        unanswered: MessageCursor<RequestUnanswered>,
    }

    fn read<M: Message + Clone>(world: &World, cursor: &mut MessageCursor<M>) -> Vec<M> {
        let messages = world.resource::<Messages<M>>();
        cursor.read(messages).cloned().collect()
    }

    impl Scenario {
        /// Runs the scenario through the plugin in a headless `App`.
        pub fn run_ecs(&self) -> Result<Vec<Value>, String> {
            self.rules()?;
            let mut app = App::new();
            app.add_plugins((
                MinimalPlugins,
                AssetPlugin::default(),
                ContainerPlugin::default(),
            ));
            app.insert_resource(ContainerTuning(self.tuning.clone()));
            let handle = app
                .world_mut()
                .resource_mut::<Assets<AdoptionAsset>>()
                .add(AdoptionAsset::new(self.adoption.clone()));
            let mut entity = app.world_mut().spawn(Container::new(handle));
            if let Some(sr) = &self.slot_rules {
                entity.insert(ContainerSlotRules(
                    sr.accepts
                        .iter()
                        .map(|s| s.iter().cloned().collect())
                        .collect(),
                ));
            }
            let container = entity.id();
            app.update();
            let mut cursors = Cursors {
                delivered: MessageCursor::default(),
                taken: MessageCursor::default(),
                forced: MessageCursor::default(),
                rearranged: MessageCursor::default(),
                unanswered: MessageCursor::default(),
            };
            let mut lines = Vec::with_capacity(self.steps.len());
            for (i, step) in self.steps.iter().enumerate() {
                let world = app.world_mut();
                match step.clone() {
                    Step::Deliver { item, amount } => drop(world.write_message(Deliver {
                        container,
                        item: item.into(),
                        amount,
                        sender: None,
                    })),
                    Step::Take { item, amount, slot } => drop(world.write_message(Take {
                        container,
                        item: item.into(),
                        amount,
                        slot,
                    })),
                    Step::Resize {
                        slot_count,
                        size_budget,
                    } => drop(world.write_message(Resize {
                        container,
                        slot_count,
                        size_budget,
                    })),
                    Step::OwnerGone => drop(world.write_message(EmptyForGoneOwner { container })),
                    Step::Sort { order } => drop(world.write_message(Sort { container, order })),
                    Step::Move { from, to, amount } => drop(world.write_message(MoveItems {
                        container,
                        from,
                        to,
                        amount,
                    })),
                };
                app.update();
                let world = app.world();
                let mut outcomes: Vec<StepOutcome> = Vec::new();
                outcomes.extend(
                    read(world, &mut cursors.delivered)
                        .into_iter()
                        .map(|m| StepOutcome::Delivered(m.outcome)),
                );
                outcomes.extend(
                    read(world, &mut cursors.taken)
                        .into_iter()
                        .map(|m| StepOutcome::Taken(m.outcome)),
                );
                outcomes.extend(
                    read(world, &mut cursors.forced)
                        .into_iter()
                        .map(|m| StepOutcome::ForcedOut(m.outcome)),
                );
                outcomes.extend(
                    read(world, &mut cursors.rearranged)
                        .into_iter()
                        .map(|m| StepOutcome::Rearranged(m.outcome)),
                );
                if let Some(u) = read(world, &mut cursors.unanswered).into_iter().next() {
                    return Err(format!("step {}: {}", i + 1, u.reason));
                }
                let [outcome] = <[StepOutcome; 1]>::try_from(outcomes).map_err(|o| {
                    format!(
                        "step {}: {} outcome messages for one request",
                        i + 1,
                        o.len()
                    )
                })?;
                let contents = world
                    .get::<ContainerContents>(container)
                    .and_then(ContainerContents::engine)
                    .ok_or("the container has no contents")?;
                lines.push(line(i + 1, step, &outcome, contents));
            }
            Ok(lines)
        }
    }
}
