//! Networked containers: a server and two clients in one process
//! (replicon's test connection, which moves the same bytes a transport
//! would). The server owns every container; the clients send requests and
//! see only what their `ContainerAccess` lets them view.
//!
//! Each test checks what a player or a cheater relies on: forged requests
//! are refused with a reason and create nothing, two clients grabbing one
//! stack get what was there between them, a disconnect loses nothing, and
//! over thousands of random requests the server's books balance and every
//! client's view equals the server's contents.

#![cfg(feature = "replicon")]

mod common;

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::adoption::Adoption;
use bevy_container::contents::TransferRequest;
use bevy_container::net::{
    Answer, ClientRequest, ClientRequestAnswered, ContainerAccess, ContainerNetPlugin,
    PendingRequests, Refusal, RemoteRequest, RequestAnswered, RequestsPerTick, Role,
};
use bevy_container::plugin::*;
use bevy_container::props::Props;
use bevy_container::save::SavedContents;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use common::{Rng, adoption_json, read, seed, slot_answers};
use serde_json::json;

/// The public chest: 6 slots, berries stack to 10, arrows to 20, a lantern.
fn chest() -> Adoption {
    read(&adoption_json(
        slot_answers("left-where-it-is"),
        6,
        0.0,
        json!([
            {"id": "berries", "stack-limit": 10, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "arrow", "stack-limit": 20, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "lantern", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
        ]),
    ))
}

/// Every answer the server wrote, with its client, in order.
#[derive(Resource, Default)]
struct Answers(Vec<(ClientId, RequestAnswered)>);

fn collect_answers(mut r: MessageReader<ToClients<RequestAnswered>>, mut out: ResMut<Answers>) {
    for m in r.read() {
        if let SendTargets::Single(c) = m.targets {
            out.0.push((c, m.message.clone()));
        }
    }
}

/// Every refusal a client saw, in order.
#[derive(Resource, Default)]
struct Refused(Vec<NotAnswered>);

/// An app of either side, with the adoptions under the same ids.
fn side(adoptions: &[Adoption]) -> (App, Vec<Handle<AdoptionAsset>>) {
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
    app.init_resource::<Answers>()
        .init_resource::<Refused>()
        .add_systems(PostUpdate, collect_answers)
        .add_observer(|u: On<RequestUnanswered>, mut r: ResMut<Refused>| {
            r.0.push(u.reason.clone())
        });
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    let handles = adoptions
        .iter()
        .map(|a| assets.add(AdoptionAsset::new(a.clone())))
        .collect::<Vec<_>>();
    // a client finds its copy of the adoption among the loaded ones
    app.insert_resource(Keep(handles.clone()));
    (app, handles)
}

/// Keeps the adoptions loaded.
#[derive(Resource)]
struct Keep(#[allow(dead_code)] Vec<Handle<AdoptionAsset>>);

/// A server with a public chest and a private backpack for each of two
/// clients (server entities).
struct Game {
    server: App,
    clients: [App; 2],
    chest: Entity,
    packs: [Entity; 2],
}

impl Game {
    fn new() -> Game {
        let adoptions = [chest(), seed()];
        let (mut server, h) = side(&adoptions);
        let mut clients = [side(&adoptions).0, side(&adoptions).0];
        for c in &mut clients {
            server.connect_client(c);
        }
        let who = clients
            .each_ref()
            .map(|c| **c.world().resource::<TestClientEntity>());
        let chest = server
            .world_mut()
            .spawn((Container::new(h[0].clone()), ContainerAccess::public(None)))
            .id();
        let packs = who.map(|client| {
            server
                .world_mut()
                .spawn((
                    Container::new(h[1].clone()),
                    ContainerAccess::private(client),
                ))
                .id()
        });
        let mut game = Game {
            server,
            clients,
            chest,
            packs,
        };
        game.exchange();
        for (item, n) in [("berries", 25), ("arrow", 30), ("lantern", 1)] {
            game.deliver(chest, item, n);
        }
        game.deliver(packs[0], "berries", 4);
        game.deliver(packs[1], "flint", 2);
        game.exchange_until_seen();
        game
    }

    /// The server's entity for client `i`.
    fn client_entity(&self, i: usize) -> Entity {
        **self.clients[i].world().resource::<TestClientEntity>()
    }

    /// One exchange: every client's messages to the server, a server
    /// tick, the server's messages to every client, a client frame.
    fn exchange(&mut self) {
        for c in &mut self.clients {
            c.update();
            self.server.exchange_with_client(c);
        }
        self.server.update();
        for c in &mut self.clients {
            self.server.exchange_with_client(c);
            c.update();
        }
    }

    fn exchange_until_seen(&mut self) {
        for _ in 0..8 {
            if self.mismatch().is_none() {
                return;
            }
            self.exchange();
        }
        panic!(
            "views never matched: {}",
            self.mismatch().unwrap_or_default()
        );
    }

    /// A server delivery (only the server delivers from nothing).
    fn deliver(&mut self, container: Entity, item: &str, amount: u32) {
        self.server
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(
                container, item, amount,
            )));
        self.server.update();
    }

    /// Client `i`'s entity for the server's `e`, if it was sent to it.
    fn seen_by(&self, i: usize, e: Entity) -> Option<Entity> {
        let map = self.clients[i].world().resource::<ServerEntityMap>();
        map.to_client().get(&e).copied()
    }

    fn save_on(app: &App, e: Entity) -> Option<SavedContents> {
        let c = app.world().get::<ContainerContents>(e)?;
        Some(c.engine()?.save(c.adoption()?))
    }

    /// What differs between any client's view and the server, if anything:
    /// a client sees exactly the containers it may view, each as the
    /// server holds it.
    fn mismatch(&self) -> Option<String> {
        let containers = [self.chest, self.packs[0], self.packs[1]];
        for i in 0..2 {
            let me = self.client_entity(i);
            for &e in &containers {
                let access = self.server.world().get::<ContainerAccess>(e)?;
                let may = access.allows(me, bevy_container::net::Permission::View);
                let local = self.seen_by(i, e);
                let Some(local) = local.filter(|_| may) else {
                    if may {
                        return Some(format!("client {i} does not see {e}"));
                    }
                    if local.is_some() {
                        return Some(format!("client {i} sees {e}, which it may not view"));
                    }
                    continue;
                };
                let server = Self::save_on(&self.server, e);
                let client = Self::save_on(&self.clients[i], local);
                if server != client {
                    return Some(format!(
                        "client {i} container {e}: {client:?} vs {server:?}"
                    ));
                }
            }
        }
        None
    }

    /// Every item the server holds: in containers and on the ground.
    fn totals(&mut self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        let world = self.server.world_mut();
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

    /// Client `i` writes `r` as a game or the UI would (its own entities).
    fn send(&mut self, i: usize, r: impl Into<ContainerRequest>) {
        self.clients[i].world_mut().write_message(r.into());
    }

    /// A request as it arrives at the server from client `i`, whatever the
    /// client's code (a forged one).
    fn forge(&mut self, i: usize, id: u32, request: RemoteRequest) {
        let client_id = ClientId::Client(self.client_entity(i));
        self.server.world_mut().write_message(FromClient {
            client_id,
            message: ClientRequest { id, request },
        });
    }

    /// Runs client `i`'s frame and takes back the one request it sent:
    /// the channel and the bytes, as replicon would put them on the wire.
    fn sent_request(&mut self, i: usize) -> (usize, Vec<u8>) {
        self.clients[i].update();
        let sent: Vec<(usize, Vec<u8>)> = self.clients[i]
            .world_mut()
            .resource_mut::<ClientMessages>()
            .drain_sent()
            .map(|(channel, bytes)| (channel, bytes.to_vec()))
            .collect();
        let channel = self.clients[i]
            .world()
            .resource::<bevy_replicon::shared::message::registry::RemoteMessageRegistry>()
            .client_message_channel::<ClientRequest>()
            .expect("registered");
        sent.into_iter()
            .find(|(c, _)| *c == channel)
            .expect("the request was sent")
    }

    fn answers(&mut self) -> Vec<(ClientId, RequestAnswered)> {
        std::mem::take(&mut self.server.world_mut().resource_mut::<Answers>().0)
    }

    fn refused(&mut self, i: usize) -> Vec<NotAnswered> {
        std::mem::take(&mut self.clients[i].world_mut().resource_mut::<Refused>().0)
    }

    fn slots(&self, e: Entity) -> Vec<Option<(String, u32)>> {
        self.server
            .world()
            .get::<ContainerContents>(e)
            .expect("a container")
            .slots()
            .iter()
            .map(|s| s.as_ref().map(|(k, n)| (k.to_string(), *n)))
            .collect()
    }
}

#[test]
fn each_client_sees_its_own_backpack_and_the_chest_only() {
    let g = Game::new();
    for i in 0..2 {
        assert!(g.seen_by(i, g.chest).is_some(), "client {i} sees the chest");
        assert!(
            g.seen_by(i, g.packs[i]).is_some(),
            "client {i} sees its pack"
        );
        assert!(
            g.seen_by(i, g.packs[1 - i]).is_none(),
            "client {i} never gets the other pack"
        );
    }
    let local = g.seen_by(0, g.chest).expect("seen");
    let contents = g.clients[0]
        .world()
        .get::<ContainerContents>(local)
        .expect("contents");
    assert!(
        contents.is_ready(),
        "the replica is a container the UI can read"
    );
    assert_eq!(contents.count("berries"), 25);
    assert_eq!(contents.capacity(), "6 slots");
    assert_eq!(g.mismatch(), None);
}

#[test]
fn forged_requests_are_refused_with_a_reason_and_create_nothing() {
    let mut g = Game::new();
    let before = g.totals();
    let (other, chest) = (g.packs[1], g.chest);
    let gone = g.server.world_mut().spawn_empty().id();
    g.server.world_mut().despawn(gone);
    let take = |container, item: &str, amount, slot| RemoteRequest::Take {
        container,
        item: item.into(),
        props: None,
        amount,
        slot,
    };
    // client 0 names client 1's pack, a despawned entity, a slot past the end,
    // more than u32 can hold of what is there, an item nobody has
    g.forge(0, 1, take(other, "flint", 2, None));
    g.forge(
        0,
        2,
        RemoteRequest::Sort {
            container: other,
            order: vec![],
        },
    );
    g.forge(
        0,
        3,
        RemoteRequest::Transfer {
            from: chest,
            to: other,
            request: TransferRequest::item("arrow", 5),
        },
    );
    g.forge(0, 4, take(gone, "berries", 1, None));
    g.forge(0, 5, take(chest, "berries", 1, Some(1_000_000)));
    g.forge(0, 6, take(chest, "unobtainium", 3, None));
    g.forge(
        0,
        7,
        RemoteRequest::PickUp {
            container: g.packs[0],
            pickup: chest,
        },
    );
    g.forge(
        0,
        8,
        RemoteRequest::Move {
            container: other,
            from: 0,
            to: 1,
            amount: None,
        },
    );
    g.exchange();
    let answers: BTreeMap<u32, Answer> = g
        .answers()
        .into_iter()
        .map(|(_, a)| (a.id, a.answer))
        .collect();
    let not_allowed = |role| {
        Answer::Refused(Refusal::NotAllowed {
            role,
            needs: bevy_container::net::Permission::Take,
        })
    };
    assert_eq!(answers[&1], not_allowed(Role::Container));
    assert_eq!(answers[&2], not_allowed(Role::Container));
    assert_eq!(
        answers[&3],
        Answer::Refused(Refusal::NotAllowed {
            role: Role::To,
            needs: bevy_container::net::Permission::Put
        })
    );
    assert_eq!(
        answers[&4],
        Answer::Refused(Refusal::NotAContainer(Role::Container))
    );
    for id in [5, 6] {
        match &answers[&id] {
            Answer::Taken(t) => assert_eq!(t.taken, 0, "request {id} took nothing: {t:?}"),
            a => panic!("request {id}: {a:?}"),
        }
    }
    assert_eq!(answers[&7], Answer::Refused(Refusal::NotAPickup));
    assert_eq!(answers[&8], not_allowed(Role::Container));
    assert_eq!(g.totals(), before, "nothing was created or lost");
    g.exchange_until_seen();
}

#[test]
fn a_client_cannot_deliver_resize_or_empty_and_the_server_never_hears_of_it() {
    let mut g = Game::new();
    let before = g.totals();
    let pack = g.seen_by(0, g.packs[0]).expect("seen");
    g.send(0, Deliver::new(pack, "berries", 1000));
    g.send(
        0,
        Resize {
            container: pack,
            slot_count: Some(100),
            size_budget: None,
        },
    );
    g.send(0, EmptyForGoneOwner { container: pack });
    g.exchange();
    assert_eq!(g.refused(0), vec![NotAnswered::ServerOnly(pack); 3]);
    assert!(g.answers().is_empty(), "nothing reached the server");
    assert_eq!(g.totals(), before);
}

#[test]
fn ten_thousand_requests_in_one_tick_are_answered_up_to_the_limit() {
    let mut g = Game::new();
    let before = g.totals();
    let limit = g.server.world().resource::<RequestsPerTick>().0 as usize;
    let chest = g.seen_by(0, g.chest).expect("seen");
    let pack = g.seen_by(0, g.packs[0]).expect("seen");
    for n in 0..10_000u32 {
        g.send(
            0,
            Transfer {
                from: chest,
                to: pack,
                request: TransferRequest::item("arrow", 1),
            },
        );
        if n % 2 == 1 {
            g.send(
                0,
                Transfer {
                    from: pack,
                    to: chest,
                    request: TransferRequest::item("arrow", 1),
                },
            );
        }
    }
    g.exchange();
    let answers = g.answers();
    assert_eq!(answers.len(), 15_000, "every request is answered");
    let refused = answers
        .iter()
        .filter(|(_, a)| a.answer == Answer::Refused(Refusal::TooManyRequests))
        .count();
    assert_eq!(refused, 15_000 - limit, "past the limit, refused");
    assert!(
        g.clients[0]
            .world()
            .resource::<PendingRequests>()
            .is_empty()
    );
    assert_eq!(g.totals(), before);
    g.exchange_until_seen();
}

#[test]
fn two_clients_grabbing_one_stack_in_one_tick_get_what_was_there() {
    let mut g = Game::new();
    // slot 0 of the chest holds 10 berries, slot 1 the other 15 (stack limit 10)
    assert_eq!(g.slots(g.chest)[0], Some(("berries".into(), 10)));
    for i in 0..2 {
        let chest = g.seen_by(i, g.chest).expect("seen");
        let pack = g.seen_by(i, g.packs[i]).expect("seen");
        g.send(
            i,
            Transfer {
                from: chest,
                to: pack,
                request: TransferRequest::from_slot(0, 8),
            },
        );
    }
    g.exchange();
    let moved: Vec<u32> = g
        .answers()
        .into_iter()
        .map(|(_, a)| match a.answer {
            Answer::Transferred(t) => t.moved,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        moved,
        [8, 2],
        "the first answered got 8, the second what was left"
    );
    assert_eq!(g.slots(g.chest)[0], None);
    let count = |g: &Game, e| {
        g.server
            .world()
            .get::<ContainerContents>(e)
            .expect("c")
            .count("berries")
    };
    assert_eq!(count(&g, g.packs[0]) + count(&g, g.packs[1]), 4 + 10);
    g.exchange_until_seen();
}

#[test]
fn a_client_that_disconnects_mid_transfer_loses_nothing() {
    let mut g = Game::new();
    let before = g.totals();
    let chest = g.seen_by(0, g.chest).expect("seen");
    let pack = g.seen_by(0, g.packs[0]).expect("seen");
    g.send(
        0,
        Transfer {
            from: chest,
            to: pack,
            request: TransferRequest::item("arrow", 25),
        },
    );
    // the request leaves the client and reaches the server, then the
    // client drops before the server's tick
    g.clients[0].update();
    let [c0, _] = &mut g.clients;
    g.server.exchange_with_client(c0);
    g.server.disconnect_client(c0);
    for _ in 0..3 {
        g.server.update();
    }
    // the client's drag does not hang: it is told the connection went
    assert_eq!(g.refused(0), [NotAnswered::ConnectionLost(chest)]);
    assert!(
        g.clients[0]
            .world()
            .resource::<PendingRequests>()
            .is_empty()
    );
    assert_eq!(g.totals(), before, "every item is in the chest or the pack");
    let arrows: u64 = [g.chest, g.packs[0]]
        .iter()
        .map(|&e| {
            g.server
                .world()
                .get::<ContainerContents>(e)
                .expect("c")
                .count("arrow")
        })
        .sum();
    assert_eq!(arrows, 30);
}

/// A random request of client `i`: mostly its own pack and the chest,
/// sometimes the other's pack (refused).
fn random_request(g: &Game, i: usize, rng: &mut Rng) -> Option<ContainerRequest> {
    let chest = g.seen_by(i, g.chest)?;
    let pack = g.seen_by(i, g.packs[i])?;
    let items = ["berries", "arrow", "lantern", "flint"];
    let item = items[rng.below(items.len())];
    let amount = 1 + rng.below(12) as u32;
    let (a, b) = if rng.below(2) == 0 {
        (chest, pack)
    } else {
        (pack, chest)
    };
    Some(match rng.below(6) {
        0 => Take::new(a, item, amount)
            .from_slot(rng.below(13) as u32)
            .into(),
        1 | 2 => Transfer {
            from: a,
            to: b,
            request: TransferRequest::item(item, amount),
        }
        .into(),
        3 => Transfer {
            from: a,
            to: b,
            request: TransferRequest::from_slot(rng.below(12) as u32, amount)
                .to_slot(rng.below(12) as u32),
        }
        .into(),
        4 => MoveItems {
            container: a,
            from: rng.below(12) as u32,
            to: rng.below(12) as u32,
            amount: None,
        }
        .into(),
        _ => Sort {
            container: a,
            order: vec![item.into()],
        }
        .into(),
    })
}

#[test]
fn a_ledger_of_random_client_requests_balances_and_every_view_matches() {
    let mut g = Game::new();
    let mut books = g.totals();
    let mut rng = Rng(0x5EED_0019);
    let mut sent = 0;
    let mut exchanges = 0;
    while sent < 2_000 {
        for i in 0..2 {
            for _ in 0..rng.below(6) {
                if let Some(r) = random_request(&g, i, &mut rng) {
                    g.send(i, r);
                    sent += 1;
                }
            }
        }
        if rng.below(10) == 0 {
            // the chest's leftovers are left where they are (a pickup): all of it stays
            let n = 1 + rng.below(5) as u64;
            g.deliver(g.chest, "arrow", n as u32);
            *books.entry("arrow".into()).or_default() += n;
        }
        g.exchange();
        exchanges += 1;
        for (_, a) in g.answers() {
            // a take gives the items to the player's character: they leave
            if let Answer::Taken(t) = a.answer {
                let left = books.entry(t.item.to_string()).or_default();
                *left = left
                    .checked_sub(u64::from(t.taken))
                    .expect("took what was there");
            }
        }
        books.retain(|_, n| *n > 0);
        assert_eq!(
            g.totals(),
            books,
            "exchange {exchanges}: the server's books balance"
        );
        assert_eq!(
            g.mismatch(),
            None,
            "exchange {exchanges}: every view matches"
        );
    }
    for i in 0..2 {
        assert!(
            g.clients[i]
                .world()
                .resource::<PendingRequests>()
                .is_empty()
        );
    }
}

#[test]
fn naming_what_the_server_never_sent_is_refused_on_the_client() {
    let mut g = Game::new();
    let mine = g.seen_by(0, g.packs[0]).expect("seen");
    // the other pack's server entity: client 0 has no entity for it
    let theirs = g.packs[1];
    g.send(0, Take::new(theirs, "flint", 1));
    g.send(
        0,
        Transfer {
            from: mine,
            to: theirs,
            request: TransferRequest::item("berries", 1),
        },
    );
    g.exchange();
    assert_eq!(
        g.refused(0),
        [NotAnswered::NotSeen(theirs), NotAnswered::NotSeen(theirs)]
    );
    assert!(g.answers().is_empty(), "nothing reached the server");
}

#[test]
fn malformed_bytes_from_a_client_are_dropped_and_change_nothing() {
    let mut g = Game::new();
    let before = g.totals();
    let chest = g.seen_by(0, g.chest).expect("seen");
    // a legitimate take of 126 arrows (one varint byte, 0x7E), slot none
    g.send(0, Take::new(chest, "arrow", 126));
    let (channel, take) = g.sent_request(0);
    assert_eq!(take[take.len() - 2..], [0x7E, 0x00], "amount then no slot");
    let mut past_u32 = take[..take.len() - 2].to_vec();
    past_u32.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00]); // 2^40
    let truncated = take[..take.len() / 2].to_vec();
    let garbage: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    let client = g.client_entity(0);
    for bytes in [past_u32, truncated, garbage, vec![0xFF; 4096]] {
        g.server
            .world_mut()
            .resource_mut::<ServerMessages>()
            .insert_received(client, channel, bytes);
    }
    g.server.update();
    assert!(
        g.answers().is_empty(),
        "nothing decodable, nothing answered"
    );
    assert_eq!(g.totals(), before, "nothing taken, nothing created");
    // the client's connection still works
    g.send(0, Take::new(chest, "arrow", 5));
    g.exchange();
    assert_eq!(g.answers().len(), 1);
}

/// A postcard varint, as replicon's wire writes lengths.
fn varint(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7F) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

#[test]
fn forged_properties_from_a_client_are_dropped_and_change_nothing() {
    let mut g = Game::new();
    let before = g.totals();
    let chest = g.seen_by(0, g.chest).expect("seen");
    // a legitimate take of one kind: its properties travel as their text
    let kind = Props::new([("q", 1)]).expect("valid");
    g.send(0, Take::new(chest, "arrow", 5).with_props(kind.clone()));
    let (channel, take) = g.sent_request(0);
    let text = kind.canonical().as_bytes();
    let at = take
        .windows(text.len())
        .position(|w| w == text)
        .expect("the properties are in the message as their text");
    assert_eq!(take[at - 1] as usize, text.len(), "a length, then the text");
    let forge = |props: &str| {
        let mut bytes = take[..at - 1].to_vec();
        bytes.extend(varint(props.len()));
        bytes.extend(props.as_bytes());
        bytes.extend(&take[at + text.len()..]);
        bytes
    };
    let many_keys = format!(
        "{{{}}}",
        (0..10_000)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let seventeen = format!(
        "{{{}}}",
        (0..17)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let long_text = format!("{{\"note\":\"{}\"}}", "x".repeat(300));
    let huge = format!("{{\"note\":\"{}\"}}", "x".repeat(1 << 20));
    let deep = format!("{}1{}", "{\"a\":".repeat(5000), "}".repeat(5000));
    let forged = [
        many_keys.as_str(),
        seventeen.as_str(),
        long_text.as_str(),
        huge.as_str(),
        deep.as_str(),
        r#"{"a":{"b":1}}"#,
        r#"{"a":[1,2]}"#,
        r#"{"a":null}"#,
        r#"{"Bad Key":1}"#,
        r#"{"a":1e400}"#,
        r#"{"a":0.0000001}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":"\ud800"}"#,
        "{",
        "",
    ];
    let client = g.client_entity(0);
    for props in forged {
        g.server
            .world_mut()
            .resource_mut::<ServerMessages>()
            .insert_received(client, channel, forge(props));
    }
    g.server.update();
    assert!(
        g.answers().is_empty(),
        "no forged properties decode, nothing is answered"
    );
    assert_eq!(g.totals(), before, "nothing taken, nothing created");
    // the well-formed take still reads, and the connection works
    g.server
        .world_mut()
        .resource_mut::<ServerMessages>()
        .insert_received(client, channel, forge(kind.canonical()));
    g.server.update();
    assert_eq!(
        g.answers().len(),
        1,
        "the same bytes, unforged, are answered"
    );
    g.send(0, Take::new(chest, "arrow", 5));
    g.exchange();
    assert_eq!(g.answers().len(), 1, "the connection keeps working");
}

#[test]
fn a_drop_that_would_swap_needs_the_reverse_permissions_too() {
    let mut g = Game::new();
    // a donation chest: anyone puts in, nobody but the server takes out
    let donation = ContainerAccess {
        take: bevy_container::net::Who::Nobody,
        ..ContainerAccess::public(None)
    };
    g.server.world_mut().entity_mut(g.chest).insert(donation);
    g.exchange_until_seen();
    let before = g.totals();
    let chest = g.seen_by(0, g.chest).expect("seen");
    let pack = g.seen_by(0, g.packs[0]).expect("seen");
    // the pack's 4 berries dropped on the chest's lantern (slot 5): a swap
    // would hand the lantern out
    assert_eq!(g.slots(g.chest)[5], Some(("lantern".into(), 1)));
    g.send(
        0,
        Transfer {
            from: pack,
            to: chest,
            request: TransferRequest::from_slot(0, 4).to_slot(5),
        },
    );
    g.exchange();
    let answers = g.answers();
    assert_eq!(
        answers[0].1.answer,
        Answer::Refused(Refusal::NotAllowed {
            role: Role::To,
            needs: bevy_container::net::Permission::Take
        })
    );
    assert_eq!(g.totals(), before);
    assert_eq!(g.slots(g.chest)[5], Some(("lantern".into(), 1)));
    // a plain donation goes in
    g.send(
        0,
        Transfer {
            from: pack,
            to: chest,
            request: TransferRequest::from_slot(0, 4),
        },
    );
    g.exchange();
    assert!(matches!(&g.answers()[0].1.answer, Answer::Transferred(t) if t.moved > 0));
}

#[test]
fn a_client_that_is_not_authorized_acts_on_nothing() {
    let mut g = Game::new();
    let before = g.totals();
    // a connection that never passed the protocol check
    let stranger = g
        .server
        .world_mut()
        .spawn(ConnectedClient { max_size: 1200 })
        .id();
    g.server.world_mut().write_message(FromClient {
        client_id: ClientId::Client(stranger),
        message: ClientRequest {
            id: 1,
            request: RemoteRequest::Take {
                container: g.chest,
                item: "arrow".into(),
                props: None,
                amount: 5,
                slot: None,
            },
        },
    });
    g.server.update();
    let answers = g.answers();
    assert_eq!(answers.len(), 1);
    assert!(matches!(
        answers[0].1.answer,
        Answer::Refused(Refusal::NotAllowed { .. })
    ));
    assert_eq!(g.totals(), before);
}

#[test]
fn the_server_hears_who_asked_what() {
    let mut g = Game::new();
    let chest = g.seen_by(1, g.chest).expect("seen");
    g.send(1, Take::new(chest, "arrow", 3));
    g.exchange();
    let heard: Vec<ClientRequestAnswered> = g
        .server
        .world_mut()
        .resource_mut::<Messages<ClientRequestAnswered>>()
        .drain()
        .collect();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].client, g.client_entity(1));
    assert!(matches!(&heard[0].answer, Answer::Taken(t) if t.taken == 3));
}
