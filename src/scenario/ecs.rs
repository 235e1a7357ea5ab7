//! The scenario through the plugin: a headless `App` with one entity per
//! container, each frame's steps written as [`ContainerRequest`] messages
//! and answered by one `app.update()`, the outcomes read back in order by
//! observers, and the world (containers, pickups on the ground, what was
//! destroyed or kept by a caller) read after every frame.

use std::collections::BTreeMap;

use bevy::prelude::*;
use serde_json::{Map, Value, json};

use super::{Action, Request, Scenario, Step, StepOutcome, line};
use crate::contents::ItemType;
use crate::plugin::*;
use crate::props::KindLabel;

/// Every outcome of a frame, in the order the plugin reported them.
#[derive(Resource, Default)]
pub(super) struct Recorded(pub(super) Vec<Outcome>);

pub(super) enum Outcome {
    Answered(StepOutcome, Vec<Settled>),
    Unanswered(NotAnswered),
}

fn record(app: &mut App) {
    app.init_resource::<Recorded>()
        .add_observer(|d: On<ItemsDelivered>, mut r: ResMut<Recorded>| {
            let d = d.event().clone();
            r.0.push(Outcome::Answered(
                StepOutcome::Delivered(d.outcome),
                d.settled,
            ));
        })
        .add_observer(|t: On<ItemsTaken>, mut r: ResMut<Recorded>| {
            r.0.push(Outcome::Answered(
                StepOutcome::Taken(t.outcome.clone()),
                Vec::new(),
            ));
        })
        .add_observer(|t: On<ItemsTransferred>, mut r: ResMut<Recorded>| {
            // triggered on both containers: keep it once
            if t.container == t.from {
                r.0.push(Outcome::Answered(
                    StepOutcome::Transferred(t.outcome.clone()),
                    Vec::new(),
                ));
            }
        })
        .add_observer(|f: On<ItemsForcedOut>, mut r: ResMut<Recorded>| {
            let f = f.event().clone();
            r.0.push(Outcome::Answered(
                StepOutcome::ForcedOut(f.outcome),
                f.settled,
            ));
        })
        .add_observer(|m: On<PropsChanged>, mut r: ResMut<Recorded>| {
            r.0.push(Outcome::Answered(
                StepOutcome::PropsSet(m.outcome.clone()),
                Vec::new(),
            ));
        })
        .add_observer(|m: On<ContainerRearranged>, mut r: ResMut<Recorded>| {
            r.0.push(Outcome::Answered(
                StepOutcome::Rearranged(m.outcome.clone()),
                Vec::new(),
            ));
        })
        .add_observer(|u: On<RequestUnanswered>, mut r: ResMut<Recorded>| {
            r.0.push(Outcome::Unanswered(u.reason.clone()));
        });
}

/// The world of a scenario in a headless app.
pub(super) struct World {
    pub(super) app: App,
    /// Each container's entity, in the scenario's order.
    pub(super) entities: Vec<Entity>,
    /// Types to the total destroyed, and returned to a caller, so far.
    destroyed: BTreeMap<String, u64>,
    kept: BTreeMap<String, u64>,
}

/// The adoption of container `i` of a scenario, kept under a fixed id so a
/// saved world names it the same in every app.
fn adoption_handle(i: usize) -> Handle<AdoptionAsset> {
    Handle::from(bevy::asset::uuid::Uuid::from_u128(
        0xC07A_1E00_0000_0000_0000_0000_0000_0000 + i as u128,
    ))
}

/// A headless app with the plugin, the scenario's tuning and adoptions,
/// and the outcome recorder; no containers yet. `more` adds plugins after
/// the container plugin (the network's, for `--replicon`).
pub(super) fn new_app(scenario: &Scenario, more: fn(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    more(&mut app);
    app.insert_resource(ContainerTuning(scenario.tuning.clone()));
    record(&mut app);
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    for (i, c) in scenario.containers.iter().enumerate() {
        // a fixed (uuid) id never fails to insert
        let _ = assets.insert(&adoption_handle(i), AdoptionAsset::new(c.adoption.clone()));
    }
    app
}

impl World {
    pub(super) fn new(scenario: &Scenario, more: fn(&mut App)) -> Result<World, String> {
        scenario.rules()?;
        let mut app = new_app(scenario, more);
        let mut entities = Vec::with_capacity(scenario.containers.len());
        for (i, c) in scenario.containers.iter().enumerate() {
            let mut e = app.world_mut().spawn((
                Name::new(c.name.clone()),
                Container::new(adoption_handle(i)),
            ));
            if let Some(sr) = &c.slot_rules {
                e.insert(ContainerSlotRules(
                    sr.accepts
                        .iter()
                        .map(|s| s.iter().cloned().collect())
                        .collect(),
                ));
            }
            entities.push(e.id());
        }
        for (c, &e) in scenario.containers.iter().zip(&entities) {
            if let Some(store) = c.store {
                app.world_mut()
                    .entity_mut(e)
                    .insert(OverflowStore(entities[store]));
            }
        }
        let mut world = World {
            app,
            entities,
            destroyed: BTreeMap::new(),
            kept: BTreeMap::new(),
        };
        world.settle_in(scenario)?;
        Ok(world)
    }

    /// Runs the frame in which the containers' rules attach, checks that
    /// every one is ready, and forgets that frame's outcomes.
    fn settle_in(&mut self, scenario: &Scenario) -> Result<(), String> {
        self.app.update();
        for (c, &e) in scenario.containers.iter().zip(&self.entities) {
            let ready = self
                .app
                .world()
                .get::<ContainerContents>(e)
                .is_some_and(ContainerContents::is_ready);
            if !ready {
                return Err(format!("container {}: its rules did not attach", c.name));
            }
        }
        self.app.world_mut().resource_mut::<Recorded>().0.clear();
        Ok(())
    }

    /// `--through-scene`: writes the whole world (containers, stores,
    /// pickups) as a `DynamicWorld` in text and reads it into a fresh app,
    /// which answers the next frame.
    #[cfg(feature = "scene")]
    fn through_scene(&mut self, scenario: &Scenario) -> Result<(), String> {
        use crate::plugin::scene;
        let text = scene::save_containers(self.app.world_mut()).map_err(|e| e.to_string())?;
        let mut fresh = new_app(scenario, |_| {});
        let map = scene::load_containers(fresh.world_mut(), &text).map_err(|e| e.to_string())?;
        for e in &mut self.entities {
            *e = *map
                .get(e)
                .ok_or("a container is missing from the saved world")?;
        }
        self.app = fresh;
        self.settle_in(scenario)
    }

    /// The request message for one step.
    fn request(&self, r: &Request) -> ContainerRequest {
        request(&self.entities, r)
    }

    /// Writes a frame's requests, runs the frame, and returns their
    /// outcomes in order (exactly one each).
    pub(super) fn frame(
        &mut self,
        steps: &[Request],
        first: usize,
    ) -> Result<Vec<StepOutcome>, String> {
        for r in steps {
            let msg = self.request(r);
            self.app.world_mut().write_message(msg);
        }
        self.app.update();
        let recorded = std::mem::take(&mut self.app.world_mut().resource_mut::<Recorded>().0);
        if recorded.len() != steps.len() {
            return Err(format!(
                "step {first}: {} outcomes for {} requests in one frame",
                recorded.len(),
                steps.len()
            ));
        }
        let mut out = Vec::with_capacity(steps.len());
        for (i, o) in recorded.into_iter().enumerate() {
            match o {
                Outcome::Unanswered(why) => return Err(format!("step {}: {why}", first + i)),
                Outcome::Answered(outcome, settled) => {
                    self.tally(&settled);
                    out.push(outcome);
                }
            }
        }
        Ok(out)
    }

    fn tally(&mut self, settled: &[Settled]) {
        for s in settled {
            let (book, item, props, amount) = match s {
                Settled::Destroyed {
                    item,
                    props,
                    amount,
                } => (&mut self.destroyed, item, props, amount),
                Settled::Caller {
                    item,
                    props,
                    amount,
                    ..
                } => (&mut self.kept, item, props, amount),
                _ => continue,
            };
            *book
                .entry(KindLabel(item.as_str(), props).to_string())
                .or_default() += u64::from(*amount);
        }
    }

    pub(super) fn contents(&self, i: usize) -> Result<&crate::contents::Contents, String> {
        self.app
            .world()
            .get::<ContainerContents>(self.entities[i])
            .and_then(ContainerContents::engine)
            .ok_or_else(|| "a container lost its contents".to_string())
    }

    /// `world` of a world line: containers by name, and the tallies.
    pub(super) fn view(&mut self, scenario: &Scenario) -> Result<Value, String> {
        let mut containers: BTreeMap<&str, Value> = BTreeMap::new();
        for (i, c) in scenario.containers.iter().enumerate() {
            containers.insert(
                &c.name,
                Value::Object(super::line::state(self.contents(i)?)),
            );
        }
        let mut ground: BTreeMap<String, u64> = BTreeMap::new();
        let world = self.app.world_mut();
        for p in world.query::<&LoosePickup>().iter(world) {
            *ground
                .entry(KindLabel(&p.item, &p.props).to_string())
                .or_default() += u64::from(p.amount);
        }
        let tally = |m: &BTreeMap<String, u64>| {
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect::<Map<_, _>>(),
            )
        };
        Ok(json!({
            "containers": containers,
            "ground": tally(&ground),
            "destroyed": tally(&self.destroyed),
            "kept-by-caller": tally(&self.kept),
        }))
    }
}

/// The request message for one step, naming the containers by `entities`.
pub(super) fn request(entities: &[Entity], r: &Request) -> ContainerRequest {
    let container = entities[r.container];
    match &r.action {
        Action::Transfer { to, request } => Transfer {
            from: container,
            to: entities[*to],
            request: request.clone(),
        }
        .into(),
        Action::Step(step) => match step.clone() {
            Step::Deliver {
                item,
                amount,
                props,
            } => Deliver {
                container,
                item: item.into(),
                props,
                amount,
                sender: r.sender.map(|s| entities[s]),
            }
            .into(),
            Step::Take {
                item,
                amount,
                slot,
                props,
            } => Take {
                container,
                item: item.into(),
                props,
                amount,
                slot,
            }
            .into(),
            Step::SetProps { at, amount, to } => SetProps {
                container,
                at,
                amount,
                to,
            }
            .into(),
            Step::Resize {
                slot_count,
                size_budget,
            } => Resize {
                container,
                slot_count,
                size_budget,
            }
            .into(),
            Step::OwnerGone => EmptyForGoneOwner { container }.into(),
            Step::Sort { order } => Sort {
                container,
                order: order.into_iter().map(ItemType::from).collect(),
            }
            .into(),
            Step::Move { from, to, amount } => MoveItems {
                container,
                from,
                to,
                amount,
            }
            .into(),
        },
    }
}

impl Scenario {
    /// Runs the scenario through the plugin in a headless `App`: each frame
    /// of steps is written as request messages and answered by one update.
    pub fn run_ecs(&self) -> Result<Vec<Value>, String> {
        self.run_world(false)
    }

    /// [`Scenario::run_ecs`], with the whole world (containers, stores,
    /// pickups) written as a `DynamicWorld`, serialized to text and read
    /// into a fresh app before every frame: the lines must be the same.
    #[cfg(feature = "scene")]
    pub fn run_through_scene(&self) -> Result<Vec<Value>, String> {
        self.run_world(true)
    }

    fn run_world(&self, through_scene: bool) -> Result<Vec<Value>, String> {
        let mut world = World::new(self, |_| {})?;
        self.lines_of(
            &mut world,
            |world, scenario, frame| {
                if through_scene {
                    #[cfg(feature = "scene")]
                    world
                        .through_scene(scenario)
                        .map_err(|e| format!("step {}: through the scene: {e}", frame.start + 1))?;
                }
                world.frame(&scenario.steps[frame.clone()], frame.start + 1)
            },
            |world| world,
        )
    }

    /// The lines of every frame: `answer` answers a frame of `runner`,
    /// and the state after it is read from the world `served` names.
    pub(super) fn lines_of<R>(
        &self,
        runner: &mut R,
        mut answer: impl FnMut(
            &mut R,
            &Scenario,
            std::ops::Range<usize>,
        ) -> Result<Vec<StepOutcome>, String>,
        served: fn(&mut R) -> &mut World,
    ) -> Result<Vec<Value>, String> {
        let mut lines = Vec::with_capacity(self.steps.len());
        for frame in self.frames() {
            let outcomes = answer(runner, self, frame.clone())?;
            let world = served(runner);
            let view = if self.world {
                Some(world.view(self)?)
            } else {
                None
            };
            for (i, outcome) in frame.zip(&outcomes) {
                let op = self.steps[i].action.op();
                lines.push(match &view {
                    Some(v) => super::line::world_line(i + 1, op, outcome, v.clone()),
                    None => line(i + 1, op, outcome, world.contents(0)?),
                });
            }
        }
        Ok(lines)
    }
}
