//! Multiplayer: a server that owns every container, over
//! [bevy_replicon](https://docs.rs/bevy_replicon) (feature `replicon`).
//!
//! Add [`ContainerNetPlugin`] after [`ContainerPlugin`](crate::plugin::ContainerPlugin)
//! and replicon's plugins, in the server and in every client, in the same
//! order (replicon checks that both sides registered the same things).
//!
//! - **The server owns every container.** A client's requests (the usual
//!   [`ContainerRequest`](crate::plugin::ContainerRequest) messages, which
//!   the UI writes) are not answered on the client: they go to the server
//!   as [`ClientRequest`]s. The server checks each against the container's
//!   [`ContainerAccess`], settles it exactly as a local game would, and
//!   answers that client alone ([`RequestAnswered`]); the client gets the
//!   usual outcome messages and events, on its own entities. A client
//!   cannot deliver from nothing, resize or empty a container: those are
//!   refused on the client ([`NotAnswered::ServerOnly`](crate::plugin::NotAnswered::ServerOnly)).
//! - **Access.** Only containers with a [`ContainerAccess`] replicate, and
//!   only to the clients it lets view. Each request is checked for the
//!   permissions it needs (take from the source, put into the target);
//!   a refusal names the one missing. One client's requests beyond
//!   [`RequestsPerTick`] in one tick are refused.
//! - **Replication.** A container's contents replicate as a
//!   [`ContainerReplica`] whose changes are sent as diffs: one changed slot
//!   of a 10,000-slot bank sends that slot. On the client the replica
//!   becomes a [`ContainerContents`](crate::plugin::ContainerContents) with
//!   an engine under the same adoption, so the UI and game code read it as
//!   they read a local container. Loose pickups replicate with their
//!   transform.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy::state::app::StatesPlugin;
//! use bevy_container::net::{ContainerAccess, ContainerNetPlugin};
//! use bevy_container::plugin::ContainerPlugin;
//! use bevy_replicon::prelude::*;
//!
//! let mut server = App::new();
//! server.add_plugins((
//!     MinimalPlugins,
//!     StatesPlugin,
//!     AssetPlugin::default(),
//!     RepliconPlugins,
//!     ContainerPlugin::default(),
//!     ContainerNetPlugin,
//! ));
//! // a chest every client may use: it replicates to all of them
//! server.world_mut().spawn(ContainerAccess::public(None));
//! ```

mod access;
mod replica;
mod request;

use bevy::prelude::*;
use bevy_replicon::prelude::*;

pub use access::{ContainerAccess, Permission, Who};
pub use replica::{ContainerReplica, ReplicaChange};
pub use request::{
    Answer, ClientRequest, ClientRequestAnswered, PendingRequests, Refusal, RemoteRequest,
    RequestAnswered, RequestsPerTick, Role,
};

use crate::plugin::{
    AnsweredByServer, ContainerSlotRules, ContainerSystems, LoosePickup, handle_requests,
};

/// The server and client sides of networked containers (feature
/// `replicon`); see the [module](self).
pub struct ContainerNetPlugin;

impl Plugin for ContainerNetPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RequestsPerTick>()
            .init_resource::<request::PendingRequests>()
            .add_mapped_client_message::<ClientRequest>(Channel::Ordered)
            .add_server_message::<RequestAnswered>(Channel::Ordered)
            .add_message::<ClientRequestAnswered>()
            .replicate_diff::<ContainerReplica>()
            .replicate::<ContainerSlotRules>()
            .replicate::<LoosePickup>()
            .replicate_filtered::<Transform, With<LoosePickup>>()
            .add_visibility_filter::<ContainerAccess>()
            .add_observer(replicate_pickups)
            .add_observer(keep_private)
            .add_systems(OnEnter(ClientState::Connected), |mut commands: Commands| {
                commands.insert_resource(AnsweredByServer)
            })
            .add_systems(
                OnExit(ClientState::Connected),
                (
                    |mut commands: Commands| commands.remove_resource::<AnsweredByServer>(),
                    (request::abandon_pending, forget_replicas).chain(),
                ),
            )
            .add_systems(
                Update,
                (
                    replica::adopt_replicas
                        .run_if(in_state(ClientState::Connected))
                        .in_set(ContainerSystems::Rules)
                        .before(crate::plugin::attach_engines),
                    request::answer_clients
                        .run_if(in_state(ServerState::Running))
                        .in_set(ContainerSystems::Requests)
                        .before(handle_requests),
                    (
                        request::forward_requests,
                        request::receive_answers.run_if(in_state(ClientState::Connected)),
                    )
                        .in_set(ContainerSystems::Requests)
                        .before(handle_requests),
                    replica::publish_replicas
                        .run_if(in_state(ServerState::Running))
                        .in_set(ContainerSystems::Requests)
                        .after(handle_requests),
                ),
            );
    }
}

/// Server: a container whose access is removed becomes the server's alone
/// (replicon shows an entity without a filter to everyone).
fn keep_private(remove: On<Remove, ContainerAccess>, mut commands: Commands) {
    if let Ok(mut e) = commands.get_entity(remove.entity) {
        e.try_insert(ContainerAccess::server_only());
    }
}

/// Server: loose pickups replicate to every client.
fn replicate_pickups(
    add: On<Add, LoosePickup>,
    remote: Query<(), With<Remote>>,
    mut commands: Commands,
) {
    if !remote.contains(add.entity) {
        commands.entity(add.entity).try_insert(Replicated);
    }
}

/// The client's copies of the server's containers and pickups.
type ServersCopies = (
    With<Remote>,
    Or<(With<ContainerReplica>, With<LoosePickup>)>,
);

/// Client: when the connection goes, so does its copy of the server's
/// containers and pickups (replicon keeps them): a stale copy would answer
/// requests locally, and the next connection sends fresh ones.
fn forget_replicas(copies: Query<Entity, ServersCopies>, mut commands: Commands) {
    for e in &copies {
        commands.entity(e).try_despawn();
    }
}
