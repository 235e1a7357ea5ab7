//! Mail between servers (the guide's [`guide::servers`](crate::guide::servers)):
//! items sent from a container of this server to a container that another
//! server owns, named by its [`PersistentId`](crate::persist::PersistentId), exactly
//! once.
//!
//! - **Sending.** [`SendMail`] takes the items from the source by its rules
//!   (a take), and in the same frame's transaction a row of the `mail`
//!   table records them: the target's id, the kind and amount, the source
//!   container to answer, the sending server. The items are *in flight*:
//!   in no container, in that row ([`MailSent`]).
//! - **Receiving.** The server that owns the target applies the row in its
//!   own frame, as a delivery under the target's rules, and deletes the
//!   row in that frame's transaction, beside the target's new contents:
//!   applied once, whatever dies when ([`MailReceived`]). What the target
//!   refuses, or leaves to its sender by `back-to-the-sender`, goes back
//!   the same way, as an answer row to the source container; the target's
//!   other leftover rules (the ground, a store, destroyed) settle where the
//!   target is.
//! - **The answer.** Every mail gets one answer, even when everything
//!   landed: the server that owns the source applies it ([`MailAnswered`]:
//!   how many landed, how many came back, and where those went: into the
//!   source, or onto the ground beside it when it has no room).
//! - **Gone.** A row whose target has no container row (it left the world
//!   for good) is handled by the server that sent it: a mail comes back as
//!   an answer with nothing landed; an answer whose source is gone lies on
//!   that server's ground as a loose pickup.
//!
//! A container handed over with mail in flight gets its mail at its new
//! owner: a row goes to whichever server owns its target when it is read.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::mpsc::Receiver;

use bevy::prelude::*;

use crate::persist::frame::rows::{Letter, MailRow, id_fits};
use crate::persist::servers::{ServerId, ThisServer};
use crate::persist::world::entities::PersistentEntities;
use crate::persist::world::tracked::{Table, Tracked};
use crate::plugin::{Containers, NotAnswered, Settled};
use crate::props::Props;

/// Sends items from the container `from` to the container named `to` on
/// another server (or on this one): they leave `from` by its rules now,
/// and land in `to` when the server that owns it applies the mail. A
/// request (`SendMail` messages are read every frame after `Update`); the
/// outcome is [`MailSent`], or [`MailNotSent`] when nothing left.
///
/// Mail needs a shared database (PostgreSQL): on a SQLite file it is
/// refused with [`MailRefused::NotShared`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::SendMail;
///
/// // a player in this zone mails 5 arrows to a chest in another zone
/// fn mail_arrows(mut mail: MessageWriter<SendMail>, player: Single<Entity, With<Name>>) {
///     mail.write(SendMail::new(*player, "guild-chest", "arrow", 5));
/// }
/// # let _ = mail_arrows;
/// ```
#[derive(Message, Debug, Clone, PartialEq)]
pub struct SendMail {
    /// The container the items leave (a persisted container of this world).
    pub from: Entity,
    /// The [`PersistentId`](crate::persist::PersistentId) of the container they go to.
    pub to: String,
    /// The item type.
    pub item: String,
    /// The items' properties (one kind).
    pub props: Props,
    /// How many.
    pub amount: u32,
    /// The slot they are taken from (`None`: by the source's draw order,
    /// as a take without a slot).
    pub slot: Option<u32>,
}

impl SendMail {
    /// `amount` plain items of `item` from `from` to the container `to`.
    pub fn new(
        from: Entity,
        to: impl Into<String>,
        item: impl Into<String>,
        amount: u32,
    ) -> SendMail {
        SendMail {
            from,
            to: to.into(),
            item: item.into(),
            props: Props::EMPTY,
            amount,
            slot: None,
        }
    }

    /// The same mail, its items taken from `slot` (counted from 0); a
    /// source whose draw order is `not-applicable` needs it when it holds
    /// the type in several slots.
    pub fn from_slot(mut self, slot: u32) -> SendMail {
        self.slot = Some(slot);
        self
    }

    /// The same mail of items carrying `props`.
    pub fn with_props(mut self, props: Props) -> SendMail {
        self.props = props;
        self
    }
}

/// Mail left its source: `amount` items are in flight under the id `mail`
/// (they are in the database's `mail` row, in no container).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct MailSent {
    /// The source container.
    pub from: Entity,
    /// The mail's id, which its [`MailAnswered`] names.
    pub mail: String,
    /// The target container's id.
    pub to: String,
    /// The item type.
    pub item: String,
    /// The items' properties.
    pub props: Props,
    /// How many left the source (at most the amount asked).
    pub amount: u32,
}

/// Why a [`SendMail`] sent nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MailRefused {
    /// Mail needs a database several servers share (PostgreSQL).
    #[error(
        "mail needs a database several servers share: open a postgresql:// URL with ContainerDatabase::open"
    )]
    NotShared,
    /// The source is not a persisted container of this world.
    #[error("{0} is not a persisted container of this world (give it a PersistentId)")]
    NotPersisted(Entity),
    /// The target id is empty or longer than a row's id may be.
    #[error("\"{0}\" is not a container id (1 to 256 bytes)")]
    BadTarget(String),
    /// The source did not answer the take.
    #[error("the source did not answer: {0}")]
    NotAnswered(NotAnswered),
    /// The source gave none of the items: it holds none, or its draw
    /// order needs a slot ([`SendMail::from_slot`]).
    #[error(
        "the source gave none of the items (it holds none, or its draw order needs a slot: SendMail::from_slot)"
    )]
    NothingTaken,
}

/// A [`SendMail`] that sent nothing, and why.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct MailNotSent {
    /// The request.
    pub request: SendMail,
    /// Why.
    pub why: MailRefused,
}

/// Mail landed in a container of this server (applied once; its row is
/// deleted in this frame's transaction).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct MailReceived {
    /// The container.
    pub container: Entity,
    /// The mail's id.
    pub mail: String,
    /// The server that sent it.
    pub from: ServerId,
    /// The item type.
    pub item: String,
    /// The items' properties.
    pub props: Props,
    /// How many came.
    pub offered: u32,
    /// How many entered the container.
    pub landed: u32,
    /// How many go back to the sender (refused, or `back-to-the-sender`).
    pub came_back: u32,
    /// Where the rest settled here by the container's leftover rules (the
    /// ground, a store, destroyed).
    pub settled: Vec<Settled>,
}

/// The answer to mail this server sent came back.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct MailAnswered {
    /// The mail's id (as [`MailSent`] named it).
    pub mail: String,
    /// The source container, when it is still in this world (`None`: it
    /// is gone, and what came back lies on the ground).
    pub container: Option<Entity>,
    /// The item type.
    pub item: String,
    /// The items' properties.
    pub props: Props,
    /// How many landed in the target.
    pub landed: u32,
    /// How many came back.
    pub came_back: u32,
    /// How many of those went back into the source container.
    pub kept: u32,
    /// How many of those the source did not take back: settled by its
    /// leftover rules (the ground beside it, its store, destroyed; what it
    /// would leave with its sender lies on the ground), or on the ground
    /// when the source is gone.
    pub dropped: u32,
}

/// Mail as the game thread handles it: what the listener read, the rows
/// applied whose deletes are not committed yet, and the rows to write in
/// this frame's transaction. A resource.
#[derive(Resource, Default)]
pub(crate) struct Mailbox {
    pub(crate) receiver: Option<Mutex<Receiver<Vec<Letter>>>>,
    /// The rows waiting for this server, as last read.
    pending: Vec<Letter>,
    /// Rows applied in this world and the frame that applied them, until
    /// a read no longer finds them (their delete committed).
    applied: BTreeMap<String, u64>,
    /// Rows to insert with this frame.
    pub(crate) outgoing: Vec<MailRow>,
    /// Rows applied in this frame, to delete with it.
    pub(crate) done: Vec<String>,
}

impl Mailbox {
    /// A mailbox fed by the listener's `receiver` (none on SQLite).
    pub(crate) fn new(receiver: Option<Mutex<Receiver<Vec<Letter>>>>) -> Mailbox {
        Mailbox {
            receiver,
            ..Mailbox::default()
        }
    }

    /// After a fence: the rows applied in frames after `written` (the last
    /// frame committed) are still in the table, and are applied again to
    /// what was put back, from the listener's next read.
    pub(crate) fn forget_applied_after(&mut self, written: u64) {
        self.applied.retain(|_, frame| *frame <= written);
        // the last read may hold a row another server has applied since
        // (the cause of a fence, perhaps): nothing is applied until the
        // listener reads again
        self.pending.clear();
    }

    /// Takes the newest read: the rows not applied yet, in the order sent.
    /// A row applied in a frame not written yet stays marked applied even
    /// if a read misses it (the read may come from before the row reached
    /// this server's containers); once its frame is written, a read that
    /// misses it means its delete committed.
    fn read(&mut self, written: impl FnOnce() -> u64) {
        let Some(receiver) = &self.receiver else {
            return;
        };
        let newest = match receiver.lock() {
            Ok(r) => r.try_iter().last(),
            Err(_) => None,
        };
        let Some(letters) = newest else {
            return;
        };
        // a row a read no longer finds was deleted: its apply committed
        let present: BTreeSet<&str> = letters.iter().map(|l| l.row.id.as_str()).collect();
        let written = written();
        self.applied
            .retain(|id, frame| *frame > written || present.contains(id.as_str()));
        self.pending = letters;
    }
}

/// The next mail id of this server (`mail-SERVER-N`), numbered with the
/// generated pickups, so the number is kept in the same transaction.
fn next_mail_id(tracked: &mut Tracked, server: &ServerId) -> String {
    let id = format!("mail-{server}-{}", tracked.next_pickup);
    tracked.next_pickup += 1;
    id
}

/// Sends this frame's [`SendMail`] requests: each takes its items from the
/// source and queues its row for this frame's transaction.
pub(crate) fn send_mail(
    mut requests: MessageReader<SendMail>,
    mut containers: Containers,
    mut tracked: ResMut<Tracked>,
    mut mailbox: ResMut<Mailbox>,
    server: Res<ThisServer>,
    mut sent: MessageWriter<MailSent>,
    mut not_sent: MessageWriter<MailNotSent>,
) {
    for request in requests.read() {
        match send_one(request, &mut containers, &mut tracked, &server.0) {
            Ok(row) => {
                sent.write(MailSent {
                    from: request.from,
                    mail: row.id.clone(),
                    to: row.target.clone(),
                    item: row.item.clone(),
                    props: row.props.clone(),
                    amount: row.amount,
                });
                mailbox.outgoing.push(row);
            }
            Err(why) => {
                warn!(
                    "mail from {} to {} not sent: {why}",
                    request.from, request.to
                );
                not_sent.write(MailNotSent {
                    request: request.clone(),
                    why,
                });
            }
        }
    }
}

/// Takes one mail's items from its source; its row.
fn send_one(
    request: &SendMail,
    containers: &mut Containers,
    tracked: &mut Tracked,
    server: &ServerId,
) -> Result<MailRow, MailRefused> {
    if !tracked.shared {
        return Err(MailRefused::NotShared);
    }
    if !id_fits(&request.to) {
        return Err(MailRefused::BadTarget(request.to.clone()));
    }
    let source = match tracked.ids.get(&request.from) {
        Some(entry) if entry.table == Table::Containers => entry.id.to_string(),
        _ => return Err(MailRefused::NotPersisted(request.from)),
    };
    let taken = containers
        .take_kind(
            request.from,
            &request.item,
            Some(&request.props),
            request.amount,
            request.slot,
        )
        .map_err(MailRefused::NotAnswered)?;
    if taken.outcome.taken == 0 {
        return Err(MailRefused::NothingTaken);
    }
    Ok(MailRow {
        id: next_mail_id(tracked, server),
        target: request.to.clone(),
        item: request.item.clone(),
        props: request.props.clone(),
        amount: taken.outcome.taken,
        reply_to: Some(source),
        origin: server.clone(),
        answers: None,
        landed: 0,
    })
}

/// What applying mail needs.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Post<'w, 's> {
    containers: Containers<'w, 's>,
    mailbox: ResMut<'w, Mailbox>,
    tracked: ResMut<'w, Tracked>,
    ids: Res<'w, PersistentEntities>,
    server: Res<'w, ThisServer>,
    writer: Res<'w, crate::persist::world::database_writer::DatabaseWriter>,
    received: MessageWriter<'w, MailReceived>,
    answered: MessageWriter<'w, MailAnswered>,
}

/// Takes the listener's newest read of this server's mail, if one came.
pub(crate) fn read_mail(
    mut mailbox: ResMut<Mailbox>,
    writer: Res<crate::persist::world::database_writer::DatabaseWriter>,
) {
    // the writer's lock is taken only when a read came
    mailbox.read(|| writer.inner.stats().written_frame);
}

/// Whether any mail waits to be applied (most frames: none, and
/// [`apply_mail`] does not run).
pub(crate) fn mail_waiting(mailbox: Res<Mailbox>) -> bool {
    !mailbox.pending.is_empty()
}

/// Applies the mail waiting for this server, each row once: a mail to a
/// container here lands by its rules; an answer goes back into its source;
/// a row whose target is gone is handled by the server that sent it. A row
/// whose container is not in this world yet (still arriving, or loading)
/// waits.
pub(crate) fn apply_mail(mut post: Post) {
    let letters = std::mem::take(&mut post.mailbox.pending);
    // the frame these changes are written with
    let frame = post.writer.inner.frame + 1;
    for letter in &letters {
        if post.mailbox.applied.contains_key(&letter.row.id) {
            continue;
        }
        let done = match (letter.target_exists, &letter.row.answers) {
            (true, None) => post.land(&letter.row),
            (true, Some(_)) => post.take_back(&letter.row),
            (false, None) => post.bounce(&letter.row),
            (false, Some(_)) => post.drop_answer(&letter.row),
        };
        if done {
            post.mailbox.applied.insert(letter.row.id.clone(), frame);
            post.mailbox.done.push(letter.row.id.clone());
        }
    }
    post.mailbox.pending = letters;
}

impl Post<'_, '_> {
    /// The ready container of `id` in this world.
    fn container(&self, id: &str) -> Option<Entity> {
        let e = self.ids.get(id)?;
        self.containers.get(e).filter(|c| c.is_ready()).map(|_| e)
    }

    /// A mail lands in its target; what comes back is answered.
    fn land(&mut self, row: &MailRow) -> bool {
        let Some(e) = self.container(&row.target) else {
            return false;
        };
        let Ok(delivered) = self
            .containers
            .deliver_kind(e, &row.item, &row.props, row.amount, None)
        else {
            return false;
        };
        let came_back = with_caller(&delivered.settled);
        let settled: Vec<Settled> = delivered
            .settled
            .into_iter()
            .filter(|s| !matches!(s, Settled::Caller { .. }))
            .collect();
        let landed = delivered.outcome.accepted;
        self.answer(row, landed, came_back);
        self.received.write(MailReceived {
            container: e,
            mail: row.id.clone(),
            from: row.origin.clone(),
            item: row.item.clone(),
            props: row.props.clone(),
            offered: row.amount,
            landed,
            came_back,
            settled,
        });
        true
    }

    /// A mail whose target is gone: all of it comes back.
    fn bounce(&mut self, row: &MailRow) -> bool {
        if row.origin != self.server.0 {
            return false;
        }
        self.answer(row, 0, row.amount);
        true
    }

    /// Queues the answer to `row`: `landed` of it landed, `came_back` go
    /// back to its source (with no source, they lie here on the ground).
    fn answer(&mut self, row: &MailRow, landed: u32, came_back: u32) {
        let Some(source) = row.reply_to.clone() else {
            self.drop_here(None, row, came_back);
            return;
        };
        let id = next_mail_id(&mut self.tracked, &self.server.0);
        self.mailbox.outgoing.push(MailRow {
            id,
            target: source,
            item: row.item.clone(),
            props: row.props.clone(),
            amount: came_back,
            reply_to: None,
            origin: row.origin.clone(),
            answers: Some(row.id.clone()),
            landed,
        });
    }

    /// An answer goes back into its source; what does not fit lies on the
    /// ground beside it.
    fn take_back(&mut self, row: &MailRow) -> bool {
        let Some(e) = self.container(&row.target) else {
            return false;
        };
        let mut kept = 0;
        if row.amount > 0 {
            let Ok(delivered) = self
                .containers
                .deliver_kind(e, &row.item, &row.props, row.amount, None)
            else {
                return false;
            };
            kept = delivered.outcome.accepted;
            // what the source's rules leave with its caller lies beside it
            self.drop_here(Some(e), row, with_caller(&delivered.settled));
        }
        self.answered_with(row, Some(e), kept, row.amount - kept);
        true
    }

    /// An answer whose source is gone lies on the sending server's ground.
    fn drop_answer(&mut self, row: &MailRow) -> bool {
        if row.origin != self.server.0 {
            return false;
        }
        self.drop_here(None, row, row.amount);
        self.answered_with(row, None, 0, row.amount);
        true
    }

    fn answered_with(&mut self, row: &MailRow, container: Option<Entity>, kept: u32, dropped: u32) {
        self.answered.write(MailAnswered {
            mail: row.answers.clone().unwrap_or_else(|| row.id.clone()),
            container,
            item: row.item.clone(),
            props: row.props.clone(),
            landed: row.landed,
            came_back: row.amount,
            kept,
            dropped,
        });
    }

    /// `amount` of `row`'s items on the ground, beside `at` (or at the
    /// origin): a loose pickup, persisted with this frame.
    fn drop_here(&mut self, at: Option<Entity>, row: &MailRow, amount: u32) {
        self.containers
            .drop_on_ground(at, &row.item, &row.props, amount);
    }
}

/// How many items of `settled` stay with the caller: what a delivery
/// with no sender refused, or left to its sender.
fn with_caller(settled: &[Settled]) -> u32 {
    settled
        .iter()
        .filter(|s| matches!(s, Settled::Caller { .. }))
        .map(Settled::amount)
        .sum()
}
