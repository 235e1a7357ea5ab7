//! Requests a client sends, and the server's answers.
//!
//! A client writes the usual [`ContainerRequest`] messages (the UI does);
//! while connected they are not answered locally but sent to the server as
//! [`ClientRequest`]s, numbered. The server checks each against the
//! containers' [`ContainerAccess`], settles it exactly as a local game
//! would, and answers that client alone with [`RequestAnswered`]; the
//! client turns the answer back into the usual outcome messages and
//! events, on its own entities.

use std::collections::BTreeMap;

use bevy::ecs::entity::MapEntities;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use serde::{Deserialize, Serialize};

use super::access::{ContainerAccess, Permission};
use crate::contents::{Delivered, ItemType, Rearranged, Taken, TransferRequest, Transferred};
use crate::plugin::{
    Container, ContainerRearranged, ContainerRequest, Containers, ItemsDelivered, ItemsTaken,
    ItemsTransferred, MoveItems, NotAnswered, PickUp, RequestUnanswered, Sort, Take, Transfer,
};
use crate::props::Props;

/// What a client may ask of the server's containers: never a delivery
/// from nothing, a capacity change or an owner gone, which are the
/// server's. Entities are the client's own; replicon maps them to the
/// server's when the request is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RemoteRequest {
    /// A take (the items become the client's character's, as a local take
    /// gives them to the caller).
    Take {
        /// The container.
        #[serde(with = "bevy_replicon::compact_entity")]
        container: Entity,
        /// The type.
        item: ItemType,
        /// Only this kind (`None`: any kind of the type). Properties past
        /// their limits do not decode: the message is dropped.
        props: Option<Props>,
        /// How many.
        amount: u32,
        /// The slot the player chose.
        slot: Option<u32>,
    },
    /// A transfer between two containers, or within one.
    Transfer {
        /// The source.
        #[serde(with = "bevy_replicon::compact_entity")]
        from: Entity,
        /// The target.
        #[serde(with = "bevy_replicon::compact_entity")]
        to: Entity,
        /// What to move.
        request: TransferRequest,
    },
    /// A move between two slots of one container.
    Move {
        /// The container.
        #[serde(with = "bevy_replicon::compact_entity")]
        container: Entity,
        /// The source slot.
        from: u32,
        /// The target slot.
        to: u32,
        /// How many (`None`: the whole stack).
        amount: Option<u32>,
    },
    /// A sort.
    Sort {
        /// The container.
        #[serde(with = "bevy_replicon::compact_entity")]
        container: Entity,
        /// The types first, in this order.
        order: Vec<ItemType>,
    },
    /// A loose pickup picked up into a container.
    PickUp {
        /// The container.
        #[serde(with = "bevy_replicon::compact_entity")]
        container: Entity,
        /// The pickup.
        #[serde(with = "bevy_replicon::compact_entity")]
        pickup: Entity,
    },
}

/// A request sent by a client to the server (a client message): `id`
/// pairs it with its [`RequestAnswered`].
#[derive(Message, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRequest {
    /// The client's number for it.
    pub id: u32,
    /// What it asks.
    pub request: RemoteRequest,
}

impl MapEntities for ClientRequest {
    fn map_entities<M: EntityMapper>(&mut self, m: &mut M) {
        match &mut self.request {
            RemoteRequest::Take { container, .. }
            | RemoteRequest::Move { container, .. }
            | RemoteRequest::Sort { container, .. } => *container = m.get_mapped(*container),
            RemoteRequest::Transfer { from, to, .. } => {
                *from = m.get_mapped(*from);
                *to = m.get_mapped(*to);
            }
            RemoteRequest::PickUp { container, pickup } => {
                *container = m.get_mapped(*container);
                *pickup = m.get_mapped(*pickup);
            }
        }
    }
}

/// Which entity of a request a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// The container of a take, move, sort or pick-up.
    Container,
    /// The source of a transfer.
    From,
    /// The target of a transfer.
    To,
    /// The pickup of a pick-up.
    Pickup,
}

/// Why the server did not answer a request with an outcome. Entities are
/// named by their role in the request, so the answer needs no entity the
/// client cannot see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// That entity is no container (or was despawned).
    NotAContainer(Role),
    /// That container has no contents yet.
    NotReady(Role),
    /// That entity is no loose pickup (or was picked up already).
    NotAPickup,
    /// The client may not do this with that container.
    NotAllowed {
        /// The container's role.
        role: Role,
        /// The permission that was missing.
        needs: Permission,
    },
    /// More requests in one tick than the server answers.
    TooManyRequests,
}

/// The server's answer to one [`ClientRequest`]: its outcome, exactly as a
/// local game gets it, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// A take.
    Taken(Taken),
    /// A transfer.
    Transferred(Transferred),
    /// A move or a sort.
    Rearranged(Rearranged),
    /// A pick-up (what did not fit stays on the ground).
    PickedUp(Delivered),
    /// Refused before the engine.
    Refused(Refusal),
}

/// The server answered a client's request (a server message, sent to that
/// client alone).
#[derive(Message, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestAnswered {
    /// The client's number for the request.
    pub id: u32,
    /// The answer.
    pub answer: Answer,
}

/// Server: a client's request was answered (a message on the server,
/// written for every request of a connected client, refused ones too), so
/// the game knows who did what: a take's items are now that client's
/// character's to credit, a shop's sale is that buyer's to charge.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::net::{Answer, ClientRequestAnswered};
///
/// fn credit_takers(mut answered: MessageReader<ClientRequestAnswered>) {
///     for a in answered.read() {
///         if let Answer::Taken(t) = &a.answer {
///             info!("client {} took {} {}", a.client, t.taken, t.item);
///         }
///     }
/// }
/// # let _ = credit_takers;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ClientRequestAnswered {
    /// The client's entity on the server.
    pub client: Entity,
    /// What it asked, with the server's entities.
    pub request: RemoteRequest,
    /// The answer it was sent.
    pub answer: Answer,
}

/// How many requests the server answers from one client in one tick; the
/// rest are refused with [`Refusal::TooManyRequests`].
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestsPerTick(pub u32);

impl Default for RequestsPerTick {
    fn default() -> RequestsPerTick {
        RequestsPerTick(1024)
    }
}

fn refusal_of(why: &NotAnswered, role_of: impl Fn(Entity) -> Role) -> Refusal {
    match why {
        NotAnswered::NotAContainer(e)
        | NotAnswered::NotSeen(e)
        | NotAnswered::ConnectionLost(e) => Refusal::NotAContainer(role_of(*e)),
        NotAnswered::NotReady(e) => Refusal::NotReady(role_of(*e)),
        // the client sees a container that never becomes ready; the server's
        // log and `AdoptionRejected` carry the file's problems
        NotAnswered::AdoptionRefused { container, .. } => Refusal::NotReady(role_of(*container)),
        NotAnswered::NotAllowed { container, needs } => Refusal::NotAllowed {
            role: role_of(*container),
            needs: *needs,
        },
        NotAnswered::TooManyRequests(_) => Refusal::TooManyRequests,
        // a remote pick-up names no type (it comes from the pickup)
        NotAnswered::NotAPickup(_) | NotAnswered::OtherPickupItem { .. } => Refusal::NotAPickup,
        // never answered to a remote request: the server writes these
        NotAnswered::ServerOnly(e) => Refusal::NotAllowed {
            role: role_of(*e),
            needs: Permission::Put,
        },
    }
}

/// The server's view of who may do what.
#[derive(SystemParam)]
pub(crate) struct Gate<'w, 's> {
    access: Query<'w, 's, &'static ContainerAccess>,
    containers: Query<'w, 's, (), With<Container>>,
    authorized: Query<'w, 's, (), With<AuthorizedClient>>,
}

impl Gate<'_, '_> {
    /// Whether `client` (`None`: the server itself) may have `permission`
    /// on `container`.
    fn check(
        &self,
        client: Option<Entity>,
        container: Entity,
        permission: Permission,
    ) -> Result<(), NotAnswered> {
        if !self.containers.contains(container) {
            return Err(NotAnswered::NotAContainer(container));
        }
        let Some(client) = client else {
            return Ok(());
        };
        // a client that has not passed replicon's protocol check (or the
        // game's own login, which inserts `AuthorizedClient`) acts on nothing
        if !self.authorized.contains(client) {
            return Err(NotAnswered::NotAllowed {
                container,
                needs: permission,
            });
        }
        match self.access.get(container) {
            Ok(a) if a.allows(client, permission) => Ok(()),
            _ => Err(NotAnswered::NotAllowed {
                container,
                needs: permission,
            }),
        }
    }
}

/// Server: answers every client request of the tick in the order received,
/// checked against the containers' access, each with one answer to the
/// client that sent it.
pub(crate) fn answer_clients(
    mut requests: MessageReader<FromClient<ClientRequest>>,
    gate: Gate,
    limit: Res<RequestsPerTick>,
    mut ops: Containers,
    mut answers: MessageWriter<ToClients<RequestAnswered>>,
    mut answered: MessageWriter<ClientRequestAnswered>,
    mut per_client: Local<BTreeMap<ClientId, u32>>,
) {
    per_client.clear();
    for FromClient { client_id, message } in requests.read() {
        let client = client_id.entity();
        let count = per_client.entry(*client_id).or_default();
        *count = count.saturating_add(1);
        let answer = if *count > limit.0 {
            Answer::Refused(Refusal::TooManyRequests)
        } else {
            answer(&gate, client, &message.request, &mut ops)
        };
        if let Some(client) = client {
            answered.write(ClientRequestAnswered {
                client,
                request: message.request.clone(),
                answer: answer.clone(),
            });
        }
        answers.write(ToClients {
            targets: SendTargets::Single(*client_id),
            message: RequestAnswered {
                id: message.id,
                answer,
            },
        });
    }
}

fn answer(gate: &Gate, client: Option<Entity>, r: &RemoteRequest, ops: &mut Containers) -> Answer {
    let refused = |why: NotAnswered, role_of: &dyn Fn(Entity) -> Role| {
        Answer::Refused(refusal_of(&why, role_of))
    };
    match r {
        RemoteRequest::Take {
            container,
            item,
            props,
            amount,
            slot,
        } => {
            let role = |_| Role::Container;
            if let Err(why) = gate.check(client, *container, Permission::Take) {
                return refused(why, &role);
            }
            match ops.take_kind(*container, item.as_str(), props.as_ref(), *amount, *slot) {
                Ok(t) => Answer::Taken(t.outcome),
                Err(why) => refused(why, &role),
            }
        }
        RemoteRequest::Transfer { from, to, request } => {
            let (f, t) = (*from, *to);
            let role = move |e: Entity| if e == f { Role::From } else { Role::To };
            let mut checked = gate
                .check(client, f, Permission::Take)
                .and_then(|()| gate.check(client, t, Permission::Put));
            // a drop onto another type's stack may swap the two: the
            // target's stack comes back, so it is a take from the target
            // and a put into the source too
            if checked.is_ok() && f != t && may_swap(ops, f, t, request) {
                checked = gate
                    .check(client, t, Permission::Take)
                    .and_then(|()| gate.check(client, f, Permission::Put));
            }
            if let Err(why) = checked {
                return refused(why, &role);
            }
            match ops.transfer(f, t, request) {
                Ok(o) => Answer::Transferred(o.outcome),
                Err(why) => refused(why, &role),
            }
        }
        RemoteRequest::Move {
            container,
            from,
            to,
            amount,
        } => {
            let role = |_| Role::Container;
            let checked = gate
                .check(client, *container, Permission::Take)
                .and_then(|()| gate.check(client, *container, Permission::Put));
            if let Err(why) = checked {
                return refused(why, &role);
            }
            match ops.move_items(*container, *from, *to, *amount) {
                Ok(o) => Answer::Rearranged(o.outcome),
                Err(why) => refused(why, &role),
            }
        }
        RemoteRequest::Sort { container, order } => {
            let role = |_| Role::Container;
            let checked = gate
                .check(client, *container, Permission::Take)
                .and_then(|()| gate.check(client, *container, Permission::Put));
            if let Err(why) = checked {
                return refused(why, &role);
            }
            let order: Vec<&str> = order.iter().map(ItemType::as_str).collect();
            match ops.sort(*container, &order) {
                Ok(o) => Answer::Rearranged(o.outcome),
                Err(why) => refused(why, &role),
            }
        }
        RemoteRequest::PickUp { container, pickup } => {
            let c = *container;
            let role = move |e: Entity| {
                if e == c {
                    Role::Container
                } else {
                    Role::Pickup
                }
            };
            if let Err(why) = gate.check(client, c, Permission::Put) {
                return refused(why, &role);
            }
            match ops.pick_up(c, *pickup) {
                Ok(d) => Answer::PickedUp(d.outcome),
                Err(why) => refused(why, &role),
            }
        }
    }
}

/// Whether a transfer names both slots and its target slot holds a kind
/// other than its source slot's (another type, or the same type with other
/// properties): the two stacks may swap.
fn may_swap(ops: &Containers, from: Entity, to: Entity, r: &TransferRequest) -> bool {
    let (Some(fs), Some(ts)) = (r.from_slot, r.to_slot) else {
        return false;
    };
    let slot = |e: Entity, i: u32| {
        ops.contents(e)
            .and_then(|c| c.slots().nth(i as usize).flatten())
            .map(|s| (s.item.clone(), s.props.clone()))
    };
    match (slot(from, fs), slot(to, ts)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

/// Client: the requests sent and not answered yet, by number.
#[derive(Resource, Default, Debug)]
pub struct PendingRequests {
    next: u32,
    sent: BTreeMap<u32, ContainerRequest>,
}

impl PendingRequests {
    /// How many requests wait for their answer.
    pub fn len(&self) -> usize {
        self.sent.len()
    }

    /// Whether every request sent has been answered.
    pub fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }
}

/// Client: the outcome messages an answer becomes.
#[derive(SystemParam)]
pub(crate) struct Outcomes<'w, 's> {
    taken: MessageWriter<'w, ItemsTaken>,
    transferred: MessageWriter<'w, ItemsTransferred>,
    rearranged: MessageWriter<'w, ContainerRearranged>,
    delivered: MessageWriter<'w, ItemsDelivered>,
    unanswered: MessageWriter<'w, RequestUnanswered>,
    commands: Commands<'w, 's>,
}

impl Outcomes<'_, '_> {
    fn unanswered(&mut self, container: Entity, reason: NotAnswered) {
        let fact = RequestUnanswered { container, reason };
        self.commands.trigger(fact.clone());
        self.unanswered.write(fact);
    }
}

/// Client: sends every container request of the frame to the server, in
/// order; what only the server may do is refused here. It runs in every
/// frame and forwards only while connected, so a request answered locally
/// before the connection is never sent again after it.
pub(crate) fn forward_requests(
    state: Option<Res<State<ClientState>>>,
    mut requests: MessageReader<ContainerRequest>,
    map: Res<ServerEntityMap>,
    mut pending: ResMut<PendingRequests>,
    mut sent: MessageWriter<ClientRequest>,
    mut out: Outcomes,
) {
    if state.is_none_or(|s| *s.get() != ClientState::Connected) {
        requests.clear();
        return;
    }
    for r in requests.read() {
        let remote = match r.clone() {
            ContainerRequest::Take(Take {
                container,
                item,
                props,
                amount,
                slot,
            }) => RemoteRequest::Take {
                container,
                item,
                props,
                amount,
                slot,
            },
            ContainerRequest::Transfer(Transfer { from, to, request }) => {
                RemoteRequest::Transfer { from, to, request }
            }
            ContainerRequest::Move(MoveItems {
                container,
                from,
                to,
                amount,
            }) => RemoteRequest::Move {
                container,
                from,
                to,
                amount,
            },
            ContainerRequest::Sort(Sort { container, order }) => {
                RemoteRequest::Sort { container, order }
            }
            ContainerRequest::PickUp(PickUp { container, pickup }) => {
                RemoteRequest::PickUp { container, pickup }
            }
            ContainerRequest::Deliver(d) => {
                out.unanswered(d.container, NotAnswered::ServerOnly(d.container));
                continue;
            }
            ContainerRequest::Resize(d) => {
                out.unanswered(d.container, NotAnswered::ServerOnly(d.container));
                continue;
            }
            ContainerRequest::EmptyForGoneOwner(d) => {
                out.unanswered(d.container, NotAnswered::ServerOnly(d.container));
                continue;
            }
            // properties are the server's to change (a durability a
            // client could set is a durability a cheat could set)
            ContainerRequest::SetProps(d) => {
                out.unanswered(d.container, NotAnswered::ServerOnly(d.container));
                continue;
            }
        };
        // an entity the server never sent cannot be named to it
        let named = named(&remote);
        if let Some(&e) = named.iter().find(|e| !map.to_server().contains_key(*e)) {
            out.unanswered(named[0], NotAnswered::NotSeen(e));
            continue;
        }
        let id = pending.next;
        pending.next = pending.next.wrapping_add(1);
        pending.sent.insert(id, r.clone());
        sent.write(ClientRequest {
            id,
            request: remote,
        });
    }
}

/// The entities a request names, the container (or the source) first.
fn named(r: &RemoteRequest) -> Vec<Entity> {
    match r {
        RemoteRequest::Take { container, .. }
        | RemoteRequest::Move { container, .. }
        | RemoteRequest::Sort { container, .. } => vec![*container],
        RemoteRequest::Transfer { from, to, .. } => vec![*from, *to],
        RemoteRequest::PickUp { container, pickup } => vec![*container, *pickup],
    }
}

/// Client: turns each answer into the outcome message and event a local
/// game would have seen, on the client's entities.
pub(crate) fn receive_answers(
    mut answers: MessageReader<RequestAnswered>,
    mut pending: ResMut<PendingRequests>,
    mut out: Outcomes,
) {
    for RequestAnswered { id, answer } in answers.read() {
        let Some(request) = pending.sent.remove(id) else {
            warn!("the server answered request {id}, which this client did not send");
            continue;
        };
        match (request, answer.clone()) {
            (ContainerRequest::Take(t), Answer::Taken(outcome)) => {
                let fact = ItemsTaken {
                    container: t.container,
                    outcome,
                };
                out.commands.trigger(fact.clone());
                out.taken.write(fact);
            }
            (ContainerRequest::Transfer(t), Answer::Transferred(outcome)) => {
                let fact = ItemsTransferred {
                    container: t.from,
                    from: t.from,
                    to: t.to,
                    outcome,
                };
                out.commands.trigger(fact.clone());
                if t.from != t.to {
                    out.commands.trigger(ItemsTransferred {
                        container: t.to,
                        ..fact.clone()
                    });
                }
                out.transferred.write(fact);
            }
            (ContainerRequest::Move(MoveItems { container, .. }), Answer::Rearranged(outcome))
            | (ContainerRequest::Sort(Sort { container, .. }), Answer::Rearranged(outcome)) => {
                let fact = ContainerRearranged { container, outcome };
                out.commands.trigger(fact.clone());
                out.rearranged.write(fact);
            }
            (ContainerRequest::PickUp(p), Answer::PickedUp(outcome)) => {
                let fact = ItemsDelivered::unsettled(p.container, Some(p.pickup), outcome);
                out.commands.trigger(fact.clone());
                out.delivered.write(fact);
            }
            (request, Answer::Refused(refusal)) => {
                let (container, why) = local_refusal(&request, &refusal);
                out.unanswered(container, why);
            }
            (request, answer) => {
                warn!("the server answered {request:?} with {answer:?}, which does not match it");
            }
        }
    }
}

/// Client: the connection is gone; every request still waiting for its
/// answer is reported unanswered, so a drag in flight never hangs.
pub(crate) fn abandon_pending(mut pending: ResMut<PendingRequests>, mut out: Outcomes) {
    for (_, request) in std::mem::take(&mut pending.sent) {
        let container = request.container();
        out.unanswered(container, NotAnswered::ConnectionLost(container));
    }
}

/// A refusal on the client's own entities.
fn local_refusal(request: &ContainerRequest, refusal: &Refusal) -> (Entity, NotAnswered) {
    let container = request.container();
    let (to, pickup) = match request {
        ContainerRequest::Transfer(t) => (t.to, container),
        ContainerRequest::PickUp(p) => (container, p.pickup),
        _ => (container, container),
    };
    let from = container;
    let entity = |role: &Role| match role {
        Role::Container => container,
        Role::From => from,
        Role::To => to,
        Role::Pickup => pickup,
    };
    let why = match refusal {
        Refusal::NotAContainer(r) => NotAnswered::NotAContainer(entity(r)),
        Refusal::NotReady(r) => NotAnswered::NotReady(entity(r)),
        Refusal::NotAPickup => NotAnswered::NotAPickup(pickup),
        Refusal::NotAllowed { role, needs } => NotAnswered::NotAllowed {
            container: entity(role),
            needs: *needs,
        },
        Refusal::TooManyRequests => NotAnswered::TooManyRequests(container),
    };
    (container, why)
}
