//! Scenario files: the engine driven from data (the guide's [`guide::scenarios`](crate::guide::scenarios) chapter).
//!
//! A scenario replays requests against one container, or against a world of
//! named containers (transfers, stores, senders, the ground), and yields one
//! JSON object per step. [`Scenario::run`] drives the engine directly (one
//! container only: settling in the world is the plugin's); [`Scenario::run_ecs`]
//! writes the same steps as request messages to the plugin in a headless app
//! and prints the same lines, so both paths are checked against the same
//! expected output. Steps marked `same-frame` are written in one frame
//! (the guide's [`guide::world`](crate::guide::world)).
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

mod ecs;
mod line;
#[cfg(feature = "replicon")]
mod net;
mod read;

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

pub use line::line;

use crate::adoption::{Adoption, Tuning};
use crate::contents::{
    Contents, Delivered, ForcedOut, Props, PropsAt, PropsSet, Rearranged, SlotRules, Taken,
    TransferRequest, Transferred,
};
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
        /// The items' properties (empty: plain).
        props: Props,
    },
    /// Take `amount` of `item`, from `slot` when given.
    Take {
        /// The type.
        item: String,
        /// How many.
        amount: u32,
        /// The slot the player chose.
        slot: Option<u32>,
        /// Only this kind (`None`: any kind of the type).
        props: Option<Props>,
    },
    /// Give `amount` items (all when `None`) of a stack or holding new
    /// properties.
    SetProps {
        /// The stack (a slot) or the holding (a kind).
        at: PropsAt,
        /// How many.
        amount: Option<u32>,
        /// The new properties.
        to: Props,
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
            Step::SetProps { .. } => "set-props",
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
    /// A transfer's outcome.
    Transferred(Transferred),
    /// A change of properties.
    PropsSet(PropsSet),
}

/// What a scenario step asks: a one-container op, or a transfer.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// An op on the step's container.
    Step(Step),
    /// A transfer from the step's container to container `to`.
    Transfer {
        /// The target container's index in [`Scenario::containers`].
        to: usize,
        /// What moves.
        request: TransferRequest,
    },
}

impl Action {
    /// The step's `op` word.
    pub fn op(&self) -> &'static str {
        match self {
            Action::Step(s) => s.op(),
            Action::Transfer { .. } => "transfer",
        }
    }
}

/// One step of a scenario: what it asks, of which container, and whether
/// it shares the frame of the step before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The container's index in [`Scenario::containers`] (a transfer's
    /// source).
    pub container: usize,
    /// What it asks.
    pub action: Action,
    /// The sending container of a delivery, when named.
    pub sender: Option<usize>,
    /// Written in the same frame as the step before it.
    pub same_frame: bool,
}

/// One container of a scenario.
#[derive(Clone, Debug)]
pub struct ContainerSpec {
    /// Its name (`container` in a one-container scenario).
    pub name: String,
    /// Its adoption, read and validated.
    pub adoption: Adoption,
    /// Slot rules for `by-slot`.
    pub slot_rules: Option<SlotRules>,
    /// The index of its store, when named.
    pub store: Option<usize>,
}

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The containers, in the file's order (one for a one-container
    /// scenario).
    pub containers: Vec<ContainerSpec>,
    /// Whether it is a world scenario (`containers`): its lines show the
    /// world.
    pub world: bool,
    /// The tuning.
    pub tuning: Tuning,
    /// The steps.
    pub steps: Vec<Request>,
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
        read::scenario(bytes, dir)
    }

    /// The compiled rules of each container's adoption.
    pub fn rules(&self) -> Result<Vec<Rules>, String> {
        self.containers
            .iter()
            .map(|c| {
                Rules::compile(&c.adoption, &self.tuning)
                    .map_err(|r| format!("container {}: {r}", c.name))
            })
            .collect()
    }

    /// The steps in frames: each group is a step and the `same-frame`
    /// steps after it.
    pub fn frames(&self) -> Vec<std::ops::Range<usize>> {
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for (i, s) in self.steps.iter().enumerate() {
            match out.last_mut() {
                Some(r) if s.same_frame => r.end = i + 1,
                _ => out.push(i..i + 1),
            }
        }
        out
    }

    /// Runs a one-container scenario on the engine directly: one JSON line
    /// per step. A frame's steps are answered one after another, which gives
    /// the same outcomes as one frame, and each of its lines shows the state
    /// after the whole frame. A world scenario is refused: run it with
    /// [`Scenario::run_ecs`], where settling in the world lives.
    pub fn run(&self) -> Result<Vec<Value>, String> {
        if self.world {
            return Err(
                "a world scenario (\"containers\") runs through the plugin: use --ecs".into(),
            );
        }
        let rules = self.rules()?.into_iter().next().ok_or("no container")?;
        let mut contents = Contents::new(Arc::new(rules));
        if let Some(sr) = &self.containers[0].slot_rules {
            contents = contents.with_slot_rules(sr.clone());
        }
        let mut lines = Vec::with_capacity(self.steps.len());
        for frame in self.frames() {
            let mut outcomes = Vec::with_capacity(frame.len());
            for r in &self.steps[frame.clone()] {
                match &r.action {
                    Action::Step(step) => outcomes.push(apply(&mut contents, step)),
                    Action::Transfer { .. } => {
                        return Err("a transfer needs a world scenario: use --ecs".into());
                    }
                }
            }
            for (i, outcome) in frame.zip(&outcomes) {
                lines.push(line(i + 1, self.steps[i].action.op(), outcome, &contents));
            }
        }
        Ok(lines)
    }
}

/// Applies one step to the engine.
pub fn apply(contents: &mut Contents, step: &Step) -> StepOutcome {
    match step {
        Step::Deliver {
            item,
            amount,
            props,
        } => StepOutcome::Delivered(contents.deliver_kind(item, props, *amount)),
        Step::Take {
            item,
            amount,
            slot,
            props,
        } => StepOutcome::Taken(contents.take_kind(item, props.as_ref(), *amount, *slot)),
        Step::SetProps { at, amount, to } => {
            StepOutcome::PropsSet(contents.set_props(at.clone(), *amount, to.clone()))
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
