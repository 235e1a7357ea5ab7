//! The plugin that keeps a world's containers in a database, and the
//! writer as the game sees it.

use std::sync::Mutex;

use bevy::prelude::*;

use crate::persist::database::ContainerDatabase;

use crate::persist::servers::mail::{MailAnswered, MailNotSent, MailReceived, MailSent, SendMail};
use crate::persist::servers::{
    ClaimFrom, ClaimRefused, ContainerArrived, ContainerHandedOver, ContainerLost, HandOver,
    HandOverRefused, ServerClaimed, ThisServer,
};
use crate::persist::world::database_writer::DatabaseWriter;
use crate::persist::world::entities::PersistentEntities;
use crate::persist::world::fence;
use crate::persist::world::id::PersistentId;
use crate::persist::world::stopped::{PersistenceStopped, ServerReplaced};
use crate::persist::world::tracked;

/// The put-back after a fence ([`fence`]): first in the frame, before the
/// systems that spawn what other servers sent.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct PutBack;

/// Keeps the world's containers and loose pickups in a
/// [`ContainerDatabase`]; see the [module](crate::persist). Add it after
/// [`ContainerPlugin`](crate::plugin::ContainerPlugin).
pub struct ContainerDatabasePlugin {
    database: Mutex<Option<ContainerDatabase>>,
}

impl ContainerDatabasePlugin {
    /// The plugin for an opened database.
    pub fn new(database: ContainerDatabase) -> ContainerDatabasePlugin {
        ContainerDatabasePlugin {
            database: Mutex::new(Some(database)),
        }
    }
}

impl Plugin for ContainerDatabasePlugin {
    fn build(&self, app: &mut App) {
        let taken = self.database.lock().ok().and_then(|mut d| d.take());
        let Some(database) = taken else {
            error!("ContainerDatabasePlugin was added twice; the second is ignored");
            return;
        };
        let (start, loaded, server, mut arrivals) = database.into_parts();
        // a store several servers share has a listener (PostgreSQL)
        let shared = arrivals.receiver.is_some();
        let mailbox = crate::persist::servers::mail::Mailbox::new(arrivals.letters.take());
        app.register_type::<PersistentId>()
            .insert_resource(DatabaseWriter {
                inner: crate::persist::frame::writer::start(start),
            })
            .insert_resource(loaded)
            .insert_resource(ThisServer(server))
            .insert_resource(arrivals)
            .insert_resource(mailbox)
            .init_resource::<PersistentEntities>()
            .init_resource::<tracked::Tracked>();
        add_messages(app);
        app.add_systems(PreStartup, crate::persist::world::load::spawn_persisted)
            .add_systems(
                PostUpdate,
                crate::persist::servers::mail::send_mail.run_if(on_message::<SendMail>),
            )
            .add_systems(Last, crate::persist::world::track::send_frame)
            .add_systems(
                First,
                fence::put_back_after_fence
                    .run_if(fence::fenced)
                    .in_set(PutBack),
            );
        if shared {
            add_listening(app);
        } else {
            // a SQLite file has no listener: a claim is refused with the fix,
            // and no frame pays for systems that would find nothing
            app.add_systems(
                First,
                crate::persist::servers::ownership::send_claims
                    .run_if(on_message::<ClaimFrom>)
                    .after(PutBack),
            );
        }
    }
}

/// The systems that pass on what the listener of a shared database heard:
/// containers handed to this server, claims, mail, a newer process of the
/// server id.
fn add_listening(app: &mut App) {
    use crate::persist::servers::ownership::listener_sent;
    app.add_systems(
        First,
        (
            (
                crate::persist::servers::ownership::spawn_arrivals,
                crate::persist::servers::ownership::hear_replaced,
                crate::persist::servers::ownership::spawn_claimed,
            )
                .chain()
                .run_if(listener_sent),
            crate::persist::servers::ownership::send_claims.run_if(on_message::<ClaimFrom>),
        )
            .after(PutBack),
    )
    .add_systems(
        PreUpdate,
        (
            crate::persist::servers::mail::read_mail.run_if(listener_sent),
            crate::persist::servers::mail::apply_mail
                .run_if(crate::persist::servers::mail::mail_waiting),
        )
            .chain(),
    );
}

/// The requests and facts of ownership and mail.
fn add_messages(app: &mut App) {
    app.add_message::<HandOver>()
        .add_message::<ContainerArrived>()
        .add_message::<ContainerHandedOver>()
        .add_message::<ContainerLost>()
        .add_message::<HandOverRefused>()
        .add_message::<PersistenceStopped>()
        .add_message::<ServerReplaced>()
        .add_message::<ClaimFrom>()
        .add_message::<ServerClaimed>()
        .add_message::<ClaimRefused>()
        .add_message::<SendMail>()
        .add_message::<MailSent>()
        .add_message::<MailNotSent>()
        .add_message::<MailReceived>()
        .add_message::<MailAnswered>();
}
