//! The plugin that keeps a world's containers in a database, and the
//! writer as the game sees it.

use std::sync::Mutex;

use bevy::app::MainScheduleOrder;
use bevy::ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
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

/// The persistence's systems at the head of the frame, right after
/// `First`: the put-back after a fence ([`fence`]), then what the listener
/// of a shared database heard (containers handed to this server, claims
/// made, a newer process of this server id, mail) and the game's claims.
///
/// Most frames none of them has work, and each is skipped by its run
/// condition. In a schedule of their own, run one after another on the
/// thread that runs the frame, those conditions cost a few loads. In
/// `First` and `PreUpdate` under Bevy's multi-threaded executor, each of
/// these systems (they spawn entities and change containers) waited for
/// every running system whose access it shares before its condition was
/// even read, as if it were to run: in `examples/perf`, three of them made
/// a persisted frame that hands nothing over about 20 us longer than the
/// plain frame (`persist-frame-vs-frame` 1.065 against 1.021 without
/// them, means of four runs).
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct FrameHead;

/// The mail this frame sends, right after `PostUpdate` (where it was
/// sent before it had a schedule of its own): its `MailSent` and
/// `MailNotSent` reach systems in `Last`, and its rows this frame's
/// transaction. Run as [`FrameHead`]'s systems are.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct MailOut;

/// The hand-over of everything the frame changed, right after `Last` (so
/// a change a game makes in `Last` is in this frame's transaction too).
/// Run as [`FrameHead`]'s systems are.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct FrameEnd;

/// The put-back after a fence ([`fence`]): first in [`FrameHead`], before
/// the systems that spawn what other servers sent and the game's claims.
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
        add_schedules(app);
        app.add_systems(PreStartup, crate::persist::world::load::spawn_persisted)
            .add_systems(
                MailOut,
                crate::persist::servers::mail::send_mail.run_if(on_message::<SendMail>),
            )
            .add_systems(FrameEnd, crate::persist::world::track::send_frame)
            .add_systems(
                FrameHead,
                (
                    fence::put_back_after_fence
                        .run_if(fence::fenced)
                        .in_set(PutBack),
                    crate::persist::servers::ownership::send_claims
                        .run_if(on_message::<ClaimFrom>)
                        .after(PutBack),
                ),
            );
        // a SQLite file has no listener (a claim is refused with the fix):
        // no frame pays for systems that would find nothing
        if shared {
            add_listening(app);
        }
    }
}

/// Adds [`FrameHead`], [`MailOut`] and [`FrameEnd`] to the frame, right
/// after `First`, `PostUpdate` and `Last`, each run by the single-threaded
/// executor. An app whose frame lacks one of those (not one `App::new`
/// makes) runs them nowhere, and says so: nothing is persisted.
fn add_schedules(app: &mut App) {
    for label in [FrameHead.intern(), MailOut.intern(), FrameEnd.intern()] {
        app.init_schedule(label);
        app.edit_schedule(label, |s| {
            s.set_executor(SingleThreadedExecutor::new());
        });
    }
    let Some(mut order) = app.world_mut().get_resource_mut::<MainScheduleOrder>() else {
        error!(
            "ContainerDatabasePlugin: this app has no main schedule order (Bevy's MainSchedulePlugin); nothing is persisted"
        );
        return;
    };
    let needed = [First.intern(), PostUpdate.intern(), Last.intern()];
    if !needed.iter().all(|label| order.labels.contains(label)) {
        error!(
            "ContainerDatabasePlugin: this app's frame lacks First, PostUpdate or Last; nothing is persisted"
        );
        return;
    }
    order.insert_after(First, FrameHead);
    order.insert_after(PostUpdate, MailOut);
    order.insert_after(Last, FrameEnd);
}

/// The systems that take in what the listener of a shared database heard:
/// containers handed to this server, claims, mail, a newer process of the
/// server id; after the put-back, as the game's claims are.
fn add_listening(app: &mut App) {
    use crate::persist::servers::mail::{apply_mail, mail_waiting, read_mail};
    use crate::persist::servers::ownership::{
        hear_replaced, listener_sent, spawn_arrivals, spawn_claimed,
    };
    app.add_systems(
        FrameHead,
        (
            (spawn_arrivals, hear_replaced, spawn_claimed)
                .chain()
                .run_if(listener_sent),
            read_mail.run_if(listener_sent),
            apply_mail.run_if(mail_waiting),
        )
            .chain()
            .after(PutBack),
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
