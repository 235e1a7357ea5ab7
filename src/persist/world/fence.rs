//! After a fence (another server owns a row this server wrote, and the
//! store refused the frame): the writer writes nothing and rereads the rows
//! of every id the unwritten frames touched, while the game goes on; at
//! the start of the first frame after the reread covers every frame handed
//! over, the game puts those ids back as the database holds them
//! ([`put_back`]), and writing goes on from that frame.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::persist::servers::ContainerLost;
use crate::persist::servers::mail::Mailbox;
use crate::persist::servers::ownership::put_back;
use crate::persist::world::database_writer::DatabaseWriter;
use crate::persist::world::load::Spawning;

/// Frames a fenced game goes on without the reread before it waits for
/// it: only a game whose frames come faster than the writer rereads them
/// (each frame handed over joins the next reread) ever waits, and only
/// while the writer is not in a reread (a database away, or slow, is
/// never waited for).
const FRAMES_BEFORE_WAITING: u32 = 8;

/// Whether the store refused a frame and the game has not put back what
/// the unwritten frames touched yet.
pub(crate) fn fenced(writer: Res<DatabaseWriter>) -> bool {
    writer.inner.fenced()
}

/// What the put-back reads and changes.
#[derive(SystemParam)]
pub(crate) struct PutBackWorld<'w, 's> {
    writer: ResMut<'w, DatabaseWriter>,
    spawning: Spawning<'w, 's>,
    mailbox: ResMut<'w, Mailbox>,
    lost: MessageWriter<'w, ContainerLost>,
}

/// Puts back what the unwritten frames touched, once the writer reread it
/// for every frame handed over (see the module doc). Runs first in the
/// frame, so the frame's own changes are made to what was put back and
/// are written.
pub(crate) fn put_back_after_fence(mut w: PutBackWorld, mut frames: Local<u32>) {
    let reread = match w.writer.inner.take_reread() {
        Some(reread) => reread,
        None if *frames < FRAMES_BEFORE_WAITING || w.writer.inner.rereading() => {
            *frames = frames.saturating_add(1);
            return;
        }
        None => match w.writer.inner.wait_reread() {
            Ok(reread) => reread,
            Err(e) => {
                error!("{e}; containers are no longer persisted");
                return;
            }
        },
    };
    *frames = 0;
    // mail applied in the frames not written is still in its table: it is
    // applied again to what is put back
    let written = w.writer.inner.stats().written_frame;
    w.mailbox.forget_applied_after(written);
    put_back(&mut w.spawning.spawner(), reread, &mut w.lost);
}
