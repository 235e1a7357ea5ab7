//! Client message bytes answered by a server world (bevy_replicon): a
//! public chest, the sender's own backpack, another player's backpack and
//! a loose pickup. Each message is either raw bytes or a request built
//! from the input (every request kind, entities the server has or forged
//! ones) and encoded as the client would. What must hold: no panic; the
//! other player's backpack never changes; no item is made or lost (what
//! the containers and the ground hold, plus what the answers say was
//! taken, is what the world began with); every request that decodes gets
//! exactly one answer.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::adoption::{self, Adoption, Format};
use bevy_container::contents::TransferRequest;
use bevy_container::net::{
    Answer, ClientRequest, ClientRequestAnswered, ContainerAccess, ContainerNetPlugin,
    RemoteRequest,
};
use bevy_container::plugin::*;
use bevy_container::props::Props;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::message::registry::RemoteMessageRegistry;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use libfuzzer_sys::fuzz_target;

mod common;
use common::Input;

const ITEMS: [&str; 5] = ["berries", "axe", "letter", "flint", "Not-Kebab"];

fn seed() -> &'static Adoption {
    static SEED: OnceLock<Adoption> = OnceLock::new();
    SEED.get_or_init(|| {
        let bytes = include_bytes!("../../assets/backpack.adoption.json");
        adoption::read(bytes, Format::Json, Default::default()).expect("the seed reads")
    })
}

fn side() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        AssetPlugin::default(),
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ContainerPlugin::default(),
        ContainerNetPlugin,
    ));
    app.finish();
    app.cleanup();
    app
}

#[derive(Resource, Default)]
struct Answered(Vec<ClientRequestAnswered>);

struct Server {
    app: App,
    /// chest, own pack, other's pack, pickup, the client, the other player
    entities: [Entity; 6],
    client: Entity,
    channel: usize,
}

fn server() -> Server {
    let mut app = side();
    let mut client = side();
    app.connect_client(&mut client);
    let who = **client.world().resource::<TestClientEntity>();
    app.init_resource::<Answered>().add_systems(
        Update,
        |mut r: MessageReader<ClientRequestAnswered>, mut out: ResMut<Answered>| {
            out.0.extend(r.read().cloned())
        },
    );
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(seed().clone()));
    let other = app.world_mut().spawn_empty().id();
    let w = app.world_mut();
    let chest = w
        .spawn((
            Container::new(handle.clone()),
            ContainerAccess::public(None),
        ))
        .id();
    let own = w
        .spawn((
            Container::new(handle.clone()),
            ContainerAccess::private(who),
        ))
        .id();
    let others = w
        .spawn((
            Container::new(handle.clone()),
            ContainerAccess::private(other),
        ))
        .id();
    let pickup = w
        .spawn((
            LoosePickup {
                item: "berries".into(),
                amount: 9,
                props: Props::default(),
            },
            Transform::default(),
        ))
        .id();
    app.update();
    for (c, item, n) in [
        (chest, "berries", 12),
        (chest, "axe", 1),
        (chest, "letter", 1),
        (own, "berries", 4),
        (others, "berries", 5),
        (others, "axe", 1),
    ] {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(c, item, n)));
    }
    app.update();
    let channel = app
        .world()
        .resource::<RemoteMessageRegistry>()
        .client_message_channel::<ClientRequest>()
        .expect("registered");
    Server {
        app,
        entities: [chest, own, others, pickup, who, other],
        client: who,
        channel,
    }
}

/// The requests this target builds from its input.
trait Requests {
    fn small(&mut self) -> u32;
    fn slot_option(&mut self) -> Option<u32>;
    fn entity(&mut self, known: &[Entity; 6]) -> Entity;
    fn item(&mut self) -> String;
    fn props(&mut self) -> Option<Props>;
    fn request(&mut self, known: &[Entity; 6]) -> RemoteRequest;
}

impl Requests for Input<'_> {
    fn small(&mut self) -> u32 {
        u32::from(self.byte() % 32)
    }
    fn slot_option(&mut self) -> Option<u32> {
        let b = self.byte();
        (b & 1 == 1).then_some(u32::from(b >> 1) % 16)
    }
    fn entity(&mut self, known: &[Entity; 6]) -> Entity {
        match self.byte() % 8 {
            i @ 0..6 => known[usize::from(i)],
            6 => Entity::PLACEHOLDER,
            _ => Entity::try_from_bits(u64::from(self.u32()) | u64::from(self.u32()) << 32)
                .unwrap_or(Entity::PLACEHOLDER),
        }
    }
    fn item(&mut self) -> String {
        ITEMS[usize::from(self.byte()) % ITEMS.len()].to_string()
    }
    fn props(&mut self) -> Option<Props> {
        match self.byte() % 4 {
            0 => None,
            1 => Some(Props::default()),
            2 => Some(Props::new([("q", 1)]).expect("valid")),
            _ => Some(Props::new([("durability", 3)]).expect("valid")),
        }
    }
    fn request(&mut self, known: &[Entity; 6]) -> RemoteRequest {
        match self.byte() % 5 {
            0 => RemoteRequest::Take {
                container: self.entity(known),
                item: self.item().into(),
                props: self.props(),
                amount: self.small(),
                slot: self.slot_option(),
            },
            1 => {
                let (from, to) = (self.entity(known), self.entity(known));
                let mut request = match self.byte() % 2 {
                    0 => TransferRequest::item(self.item(), self.small()),
                    _ => TransferRequest::from_slot(self.small() % 16, self.small()),
                };
                if let Some(slot) = self.slot_option() {
                    request = request.to_slot(slot);
                }
                if let Some(props) = self.props() {
                    request = request.with_props(props);
                }
                RemoteRequest::Transfer { from, to, request }
            }
            2 => RemoteRequest::Move {
                container: self.entity(known),
                from: self.small() % 16,
                to: self.small() % 16,
                amount: self.slot_option(),
            },
            3 => RemoteRequest::Sort {
                container: self.entity(known),
                order: (0..self.byte() % 4).map(|_| self.item().into()).collect(),
            },
            _ => RemoteRequest::PickUp {
                container: self.entity(known),
                pickup: self.entity(known),
            },
        }
    }
}

fn totals(world: &mut World) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for c in world.query::<&ContainerContents>().iter(world) {
        for (item, n) in c.engine().map(|e| e.totals()).into_iter().flatten() {
            *out.entry(item.to_string()).or_default() += n;
        }
    }
    for p in world.query::<&LoosePickup>().iter(world) {
        *out.entry(p.item.clone()).or_default() += u64::from(p.amount);
    }
    out
}

fn slots(world: &World, e: Entity) -> Vec<Option<(String, u32)>> {
    world
        .get::<ContainerContents>(e)
        .expect("a container")
        .slots()
        .iter()
        .map(|s| s.as_ref().map(|(k, n)| (k.to_string(), *n)))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut s = server();
    let before = totals(s.app.world_mut());
    let others = slots(s.app.world(), s.entities[2]);
    let mut input = Input(data);
    let (mut decodable, mut built, mut frames) = (0usize, 0usize, 0);
    while !input.0.is_empty() && frames < 8 {
        // a frame of up to 8 messages
        for _ in 0..=input.byte() % 8 {
            let tag = input.byte();
            let bytes = if tag & 0x80 == 0 {
                let message = ClientRequest {
                    id: u32::from(tag),
                    request: input.request(&s.entities),
                };
                built += 1;
                postcard::to_stdvec(&message).expect("a request encodes")
            } else {
                let n = usize::from(input.byte() % 64);
                input.bytes(n)
            };
            if postcard::from_bytes::<ClientRequest>(&bytes).is_ok() {
                decodable += 1;
            }
            s.app
                .world_mut()
                .resource_mut::<ServerMessages>()
                .insert_received(s.client, s.channel, bytes);
        }
        s.app.update();
        frames += 1;
    }
    s.app.update();
    let answered = std::mem::take(&mut s.app.world_mut().resource_mut::<Answered>().0);
    assert!(
        (built..=decodable).contains(&answered.len()),
        "{} answers for {built} built and {decodable} decodable requests",
        answered.len()
    );
    let mut taken: BTreeMap<String, u64> = BTreeMap::new();
    for a in &answered {
        assert_eq!(a.client, s.client);
        if let Answer::Taken(t) = &a.answer {
            *taken.entry(t.item.to_string()).or_default() += u64::from(t.taken);
        }
    }
    let mut after = totals(s.app.world_mut());
    for (item, n) in taken {
        *after.entry(item).or_default() += n;
    }
    after.retain(|_, n| *n > 0);
    assert_eq!(after, before, "no item made or lost");
    assert_eq!(
        slots(s.app.world(), s.entities[2]),
        others,
        "another player's backpack is not this client's to change"
    );
});
