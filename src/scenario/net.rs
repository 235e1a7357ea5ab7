//! The scenario through a server and a client (`--ecs --replicon`): the
//! world lives on a server app, a client app connected to it in the same
//! process (replicon's test connection) sends every step a player could
//! send (takes, transfers, moves, sorts) and reads their outcomes from the
//! server's answers; what only a server does (deliveries, capacity
//! changes, an owner gone) is written on the server. After every frame the
//! client's replicated view of every container and of the ground must
//! equal the server's, or the run stops with the difference.

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon::test_app::ServerTestAppExt;
use serde_json::Value;

use super::ecs::{self, Outcome, Recorded, World};
use super::{Action, Request, Scenario, Step, StepOutcome};
use crate::net::{ContainerAccess, ContainerNetPlugin, RequestsPerTick};
use crate::plugin::{ContainerContents, LoosePickup};
use crate::props::KindLabel;
use crate::save::SavedContents;

/// How many exchanges a client may take to see what the server holds.
const MAX_EXCHANGES: usize = 16;

/// Replicon, ticking every frame, and the networked containers: the same
/// on both sides.
fn networked(app: &mut App) {
    app.add_plugins((
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ContainerNetPlugin,
    ));
    // a frame of the scenario may hold any number of a player's steps
    app.insert_resource(RequestsPerTick(u32::MAX));
    app.finish();
    app.cleanup();
}

/// Whether only the server may write this step.
fn server_only(r: &Request) -> bool {
    matches!(
        r.action,
        Action::Step(
            Step::Deliver { .. } | Step::Resize { .. } | Step::OwnerGone | Step::SetProps { .. }
        )
    )
}

/// A server with the scenario's world and one client connected to it.
struct Net {
    server: World,
    client: App,
}

impl Net {
    fn new(scenario: &Scenario) -> Result<Net, String> {
        let mut server = World::new(scenario, networked)?;
        for &e in &server.entities {
            server
                .app
                .world_mut()
                .entity_mut(e)
                .insert(ContainerAccess::public(None));
        }
        let mut client = ecs::new_app(scenario, networked);
        server.app.connect_client(&mut client);
        let mut net = Net { server, client };
        net.sync()?;
        Ok(net)
    }

    /// One exchange: the client's messages to the server, a server frame,
    /// the server's messages to the client, a client frame.
    fn exchange(&mut self) {
        self.client.update();
        self.server.app.exchange_with_client(&mut self.client);
        self.server.app.update();
        self.server.app.exchange_with_client(&mut self.client);
        self.client.update();
    }

    /// Exchanges until the client sees every container as the server
    /// holds it (and the same ground); an error names what differs.
    fn sync(&mut self) -> Result<(), String> {
        let mut last = String::new();
        for _ in 0..MAX_EXCHANGES {
            match self.difference() {
                None => return Ok(()),
                Some(d) => last = d,
            }
            self.exchange();
        }
        Err(format!(
            "the client's view differs from the server's after {MAX_EXCHANGES} exchanges: {last}"
        ))
    }

    /// The client's entity for each container, in the scenario's order.
    fn client_entities(&self) -> Result<Vec<Entity>, String> {
        let map = self.client.world().resource::<ServerEntityMap>();
        self.server
            .entities
            .iter()
            .map(|e| {
                map.to_client()
                    .get(e)
                    .copied()
                    .ok_or_else(|| format!("container {e} never reached the client"))
            })
            .collect()
    }

    /// What differs between the client's view and the server's, if anything.
    fn difference(&mut self) -> Option<String> {
        let clients = match self.client_entities() {
            Ok(c) => c,
            Err(e) => return Some(e),
        };
        for (i, &c) in clients.iter().enumerate() {
            let server = self.server.contents(i).ok().and_then(|engine| {
                let id = self
                    .server
                    .app
                    .world()
                    .get::<ContainerContents>(self.server.entities[i])?
                    .adoption()?
                    .clone();
                Some((engine.save(&id), id))
            });
            let Some((server, id)) = server else {
                return Some(format!("container {i} has no contents on the server"));
            };
            let client: Option<SavedContents> = self
                .client
                .world()
                .get::<ContainerContents>(c)
                .and_then(ContainerContents::engine)
                .map(|e| e.save(&id));
            if client.as_ref() != Some(&server) {
                return Some(format!(
                    "container {i}: server {} client {}",
                    server.to_json(),
                    client.map_or("not ready".into(), |c| c.to_json())
                ));
            }
        }
        let server = ground(self.server.app.world_mut());
        let client = ground(self.client.world_mut());
        (server != client).then(|| format!("ground: server {server:?} client {client:?}"))
    }

    /// Sends a run of player steps from the client and returns the outcomes
    /// it read from the server's answers, in order.
    fn client_run(&mut self, steps: &[Request], first: usize) -> Result<Vec<StepOutcome>, String> {
        let entities = self.client_entities()?;
        for r in steps {
            let msg = ecs::request(&entities, r);
            self.client.world_mut().write_message(msg);
        }
        self.exchange();
        // the server recorded the same outcomes as it answered them
        self.server
            .app
            .world_mut()
            .resource_mut::<Recorded>()
            .0
            .clear();
        let recorded = std::mem::take(&mut self.client.world_mut().resource_mut::<Recorded>().0);
        if recorded.len() != steps.len() {
            return Err(format!(
                "step {first}: the client read {} answers for {} requests",
                recorded.len(),
                steps.len()
            ));
        }
        recorded
            .into_iter()
            .enumerate()
            .map(|(i, o)| match o {
                Outcome::Answered(outcome, _) => Ok(outcome),
                Outcome::Unanswered(why) => Err(format!("step {}: {why}", first + i)),
            })
            .collect()
    }

    /// Answers one frame: its steps in runs of the same side (a run of the
    /// server's own requests, then the client's, ...), in written order.
    /// Answering in order one after another gives the outcomes of one
    /// frame (the guide's [`guide::world`](crate::guide::world)).
    fn frame(
        &mut self,
        scenario: &Scenario,
        frame: std::ops::Range<usize>,
    ) -> Result<Vec<StepOutcome>, String> {
        let mut out = Vec::with_capacity(frame.len());
        let mut start = frame.start;
        while start < frame.end {
            let side = server_only(&scenario.steps[start]);
            let end = (start..frame.end)
                .find(|&i| server_only(&scenario.steps[i]) != side)
                .unwrap_or(frame.end);
            let steps = &scenario.steps[start..end];
            if side {
                out.extend(self.server.frame(steps, start + 1)?);
            } else {
                out.extend(self.client_run(steps, start + 1)?);
            }
            start = end;
        }
        self.sync()
            .map_err(|e| format!("step {}: {e}", frame.end))?;
        Ok(out)
    }
}

/// The loose pickups of a world, as (type, amount), sorted.
fn ground(world: &mut bevy::ecs::world::World) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = world
        .query::<&LoosePickup>()
        .iter(world)
        .map(|p| (KindLabel(&p.item, &p.props).to_string(), p.amount))
        .collect();
    out.sort();
    out
}

impl Scenario {
    /// [`Scenario::run_ecs`] with a server and a client (feature
    /// `replicon`): the client sends every step a player could send and
    /// reads its outcome from the server's answer, the server writes its
    /// own (deliveries, capacity changes, owner gone), and after every
    /// frame the client's replicated view must equal the server's
    /// contents. The lines must be the same as through the plugin alone.
    pub fn run_replicon(&self) -> Result<Vec<Value>, String> {
        let mut net = Net::new(self)?;
        self.lines_of(
            &mut net,
            |net, scenario, frame| net.frame(scenario, frame),
            |net| &mut net.server,
        )
    }
}
