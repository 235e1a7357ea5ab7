//! The listener: a thread with its own connection that hears of the
//! containers handed to this server and of the mail waiting for it
//! (PostgreSQL's `LISTEN`/`NOTIFY`, and a look at the `handovers` and
//! `mail` tables every quarter second in case a wake-up was missed) and
//! passes them to the game.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::{Client, Config};

use super::generation::{Mine, Standing, judge};
use super::{Epochs, container_rows, schema};
use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::ContainerRow;
use crate::persist::frame::rows::{Letter, MailRow};
use crate::persist::servers::ServerId;
use crate::persist::servers::ownership::{Arrivals, Claimed, Known, KnownServers};

/// How long the listener waits for a wake-up before it looks anyway.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Stops the listener when dropped (with the plugin's resources).
struct Listener {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What the listener starts with.
pub(super) struct Start {
    pub(super) config: Config,
    pub(super) name: String,
    pub(super) server: ServerId,
    /// The generation this process opened the server id at: the listener
    /// takes nothing for an older one.
    pub(super) generation: i64,
    pub(super) epochs: Epochs,
    /// The server ids the database knew when this server opened it.
    pub(super) servers: Vec<String>,
    /// Set when the writer stopped: nothing more is taken for a process
    /// that saves nothing.
    pub(super) stopped: Arc<AtomicBool>,
}

/// Starts the listener of `server`.
pub(super) fn start(start: Start) -> Arrivals {
    let (send, receive) = channel();
    let (post, letters) = channel();
    let (ask, claims) = channel();
    let (answer, claimed) = channel();
    let (tell, replaced) = channel();
    let known = Arc::new(Mutex::new(Known {
        ids: start.servers.clone(),
        reads: 0,
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let heard = Arc::new(AtomicU64::new(0));
    let thread = {
        let stop = stop.clone();
        let to = Game {
            heard: heard.clone(),
            send,
            post,
            claims,
            claimed: answer,
            known: known.clone(),
            replaced: tell,
        };
        std::thread::Builder::new()
            .name("container-handovers".into())
            .spawn(move || listen(&start, &to, &stop))
            .ok()
    };
    Arrivals {
        receiver: Some(Mutex::new(receive)),
        letters: Some(Mutex::new(letters)),
        claims: Some(Mutex::new(ask)),
        claimed: Some(Mutex::new(claimed)),
        known_servers: Some(known),
        replaced: Some(Mutex::new(replaced)),
        heard,
        _listener: Some(Box::new(Listener { stop, thread })),
    }
}

/// Where the listener passes what it read, and takes the claims to make.
struct Game {
    /// Containers that arrived.
    send: Sender<ContainerRow>,
    /// Every read of the mail waiting, whole.
    post: Sender<Vec<Letter>>,
    /// Servers to claim from ([`ClaimFrom`](crate::persist::ClaimFrom)).
    claims: Receiver<ServerId>,
    /// The claims made, or why not.
    claimed: Sender<Claimed>,
    /// The server ids the database knows, as of the last look.
    known: KnownServers,
    /// This process's server id was opened again elsewhere: the writer
    /// stops with this error even if it never writes again.
    replaced: Sender<DatabaseError>,
    /// Raised after each thing sent: the game's systems that take them run
    /// only in frames after a raise.
    heard: Arc<AtomicU64>,
}

impl Game {
    /// Marks that something was sent to the game.
    fn told(&self) {
        self.heard.fetch_add(1, Ordering::Release);
    }
}

/// Makes the claims the game asked for since the last look, each answered
/// (with why, when the database refused it); whether the connection is
/// still good and the game still listens (if not, the listener connects
/// again, or stops).
fn make_claims(client: &mut Client, start: &Start, to: &Game) -> bool {
    for from in to.claims.try_iter() {
        let rows = super::claim(
            client,
            &start.name,
            (&start.server, start.generation),
            &from,
            &start.epochs,
        )
        .map_err(|e| e.to_string());
        if to.claimed.send(Claimed { from, rows }).is_err() || client.is_closed() {
            return false;
        }
        to.told();
    }
    true
}

/// What one look found: whether to go on listening on this connection.
enum Look {
    Again,
    /// The connection broke: connect again (to the new primary after a
    /// failover) and look again, so nothing sent while away is missed.
    Reconnect,
    /// The game is gone, or this process's server id was opened again
    /// elsewhere: the listener stops.
    Stop,
}

fn listen(start: &Start, to: &Game, stop: &AtomicBool) {
    let server = &start.server;
    let mut warned = false;
    let mut connections = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let (mut client, statements) = match connect(start) {
            Ok(c) => c,
            Err(e) => {
                if !warned {
                    bevy::log::warn!("{e}; hand-overs to {server} wait until it connects");
                    warned = true;
                }
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        warned = false;
        // connected again (a failover, a session cut): what a take or a
        // claim committed whose answer was lost is this server's now, and
        // not in its world; the game spawns each once
        if connections > 0 && !reconcile(&mut client, start, to) {
            continue;
        }
        connections += 1;
        // every hand-over waiting is taken before the first wake-up
        while !stop.load(Ordering::SeqCst) {
            match look(&mut client, &statements, start, to) {
                Look::Again => {}
                Look::Reconnect => break,
                Look::Stop => return,
            }
            let mut heard = client.notifications();
            // a wake-up, or the quarter second: either way, look
            if heard.timeout_iter(LOOK_EVERY).next().is_err() {
                break;
            }
            while let Ok(Some(_)) = heard.iter().next() {}
        }
    }
}

/// The listener's connection: named, listening, its look's statements
/// prepared.
fn connect(start: &Start) -> Result<(Client, Statements), DatabaseError> {
    let (name, server) = (start.name.as_str(), &start.server);
    let mut client = schema::connect_plain(&start.config, name)?;
    client
        .batch_execute(&format!(
            "SET application_name = 'bevy_container {} listener'; LISTEN bevy_container_handover; LISTEN bevy_container_mail",
            server.as_str().replace('\'', "")
        ))
        .map_err(|e| schema::error(name, &e))?;
    let statements = Statements::prepare(&mut client).map_err(|e| schema::error(name, &e))?;
    Ok((client, statements))
}

/// The containers this server owns that this process does not know of
/// (no epoch recorded), passed to the game as arrivals; whether the
/// connection is still good.
fn reconcile(client: &mut Client, start: &Start, to: &Game) -> bool {
    let known: Vec<String> = super::lock(&start.epochs).keys().cloned().collect();
    let found = client.query(
        "SELECT id, epoch, adoption, contents, store FROM containers WHERE owner = $1 AND id <> ALL($2) ORDER BY id",
        &[&start.server.as_str(), &known],
    );
    let Ok(found) = found else {
        return false;
    };
    for row in arrivals(&found, start, "the container is not spawned") {
        let _ = to.send.send(row);
    }
    to.told();
    true
}

/// The containers of `found` (rows this server owns) that arrive in this
/// process, their epochs recorded. A row at the epoch this process knows
/// it at is this process's already: in its world, or handed on in a frame
/// not written yet (the reconcile after a reconnect read it, and its
/// hand-over row was still there for the next take); spawned again, its
/// items would be twice in the world, and the frame that hands it on
/// would write it as the database last held it.
fn arrivals(found: &[postgres::Row], start: &Start, not_spawned: &str) -> Vec<ContainerRow> {
    let mut out = Vec::new();
    for row in found {
        let (id, epoch): (Option<String>, Option<i64>) = (row.try_get(0).ok(), row.try_get(1).ok());
        let known = id
            .as_ref()
            .and_then(|id| super::lock(&start.epochs).get(id).copied());
        if known.is_some() && known == epoch {
            continue;
        }
        match container_rows(std::slice::from_ref(row), &start.name, &start.epochs) {
            Ok(mut rows) => out.append(&mut rows),
            Err(e) => bevy::log::error!("{e}; {not_spawned}"),
        }
    }
    out
}

/// The statements of a look, prepared once a connection: a statement sent
/// as text is prepared first, a round trip of its own, so a look of four
/// such statements was eight round trips and is two (the listener looks
/// every quarter second, and on a machine of two cores its work and the
/// database's ran beside the game's slowest frames).
struct Statements {
    /// [`STATE`].
    state: postgres::Statement,
    /// The mail this server handles now ([`letters`]).
    letters: postgres::Statement,
}

/// This server's row (its frame and generation, `NULL` when there is no
/// row), the server ids the database knows, and whether a hand-over
/// waits for this server, in one row.
const STATE: &str = "SELECT s.frame, s.generation, ARRAY(SELECT id FROM servers ORDER BY id), EXISTS (SELECT 1 FROM handovers WHERE to_server = $1) FROM (VALUES (1)) AS one LEFT JOIN servers AS s ON s.id = $1";

impl Statements {
    fn prepare(client: &mut Client) -> Result<Statements, postgres::Error> {
        Ok(Statements {
            state: client.prepare(STATE)?,
            letters: client.prepare(&format!("{LETTERS} {THIS_SERVERS_LETTERS}"))?,
        })
    }
}

/// What [`STATE`] read.
#[derive(Debug, PartialEq)]
struct State {
    /// This server's row: its frame and generation.
    standing: Option<(u64, i64)>,
    /// The server ids the database knows, sorted.
    known: Vec<String>,
    /// Whether a hand-over waits for this server.
    waiting: bool,
}

/// Reads [`STATE`] for `server`.
fn state(
    client: &mut Client,
    statements: &Statements,
    server: &ServerId,
) -> Result<State, postgres::Error> {
    let row = client.query_one(&statements.state, &[&server.as_str()])?;
    let frame: Option<i64> = row.try_get(0)?;
    let generation: Option<i64> = row.try_get(1)?;
    Ok(State {
        standing: frame
            .zip(generation)
            .map(|(f, g)| schema::standing_of(f, g)),
        known: row.try_get(2)?,
        waiting: row.try_get(3)?,
    })
}

/// One look: this process still the server id's current one, its mail
/// and the servers known, the containers handed to it, the claims asked
/// for.
fn look(client: &mut Client, statements: &Statements, start: &Start, to: &Game) -> Look {
    let (name, server) = (start.name.as_str(), &start.server);
    let mine = Mine {
        generation: start.generation,
        seen: 0,
    };
    if start.stopped.load(Ordering::SeqCst) {
        return Look::Stop;
    }
    let reconnect = |e: postgres::Error| {
        bevy::log::warn!(
            "{name}: reading hand-overs to {server} failed ({}); connecting again",
            schema::describe(&e)
        );
        Look::Reconnect
    };
    let read = state(client, statements, server)
        .and_then(|state| Ok((state, letters(client, statements, (name, server))?)));
    let (state, letters) = match read {
        Ok(read) => read,
        Err(e) => return reconnect(e),
    };
    if let Standing::Replaced { now } = judge(state.standing, mine) {
        let _ = to.replaced.send(DatabaseError::Replaced {
            path: name.to_string(),
            server: server.to_string(),
            mine: start.generation,
            now,
        });
        to.told();
        return Look::Stop;
    }
    let mut shared = to
        .known
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    shared.ids = state.known;
    shared.reads += 1;
    drop(shared);
    if to.post.send(letters).is_err() {
        return Look::Stop;
    }
    to.told();
    // after the mail, which takes no lock: a take waits for this server's
    // row while its writer holds it, and the mail read before it is not
    // held back meanwhile (a row applied to a container still arriving
    // waits in the game for it). What a take committed goes to the game
    // at once, whatever fails after it: its hand-over rows are gone, and
    // its epochs recorded. Most looks find nothing handed over, and leave
    // the take's transaction out: a row that comes after the read wakes
    // the listener with its `NOTIFY`, and is taken then
    if state.waiting {
        match take(client, start) {
            Ok(rows) => {
                let any = !rows.is_empty();
                for row in rows {
                    if to.send.send(row).is_err() {
                        return Look::Stop;
                    }
                }
                if any {
                    to.told();
                }
            }
            Err(e) => return reconnect(e),
        }
    }
    if make_claims(client, start, to) {
        Look::Again
    } else {
        Look::Reconnect
    }
}

use postgres::fallible_iterator::FallibleIterator;

/// The containers handed to `server`, their hand-overs done with, in one
/// transaction; their epochs are recorded before the game sees them.
fn take(client: &mut Client, start: &Start) -> Result<Vec<ContainerRow>, postgres::Error> {
    let me = start.server.as_str();
    let mut tx = client.transaction()?;
    // only for the process of the id's current generation, held for the
    // transaction: a newer process's open waits for this take to end
    let current = tx.query_opt(
        "SELECT 1 FROM servers WHERE id = $1 AND generation = $2 FOR SHARE",
        &[&me, &start.generation],
    )?;
    if current.is_none() {
        return Ok(Vec::new());
    }
    let found = tx.query(
        "DELETE FROM handovers AS h USING containers AS c
         WHERE h.to_server = $1 AND c.id = h.id AND c.owner = $1 AND c.epoch = h.epoch
           AND EXISTS (SELECT 1 FROM servers AS s WHERE s.id = $1 AND s.generation = $2)
         RETURNING c.id, c.epoch, c.adoption, c.contents, c.store",
        &[&me, &start.generation],
    )?;
    // hand-overs whose container went on elsewhere since
    tx.execute(
        "DELETE FROM handovers AS h WHERE h.to_server = $1 AND NOT EXISTS
         (SELECT 1 FROM containers AS c WHERE c.id = h.id AND c.owner = $1 AND c.epoch = h.epoch)",
        &[&me],
    )?;
    tx.commit()?;
    // a row that does not read stays this server's in the table: the next
    // start reports it
    Ok(arrivals(
        &found,
        start,
        "the container handed over is not spawned",
    ))
}

/// The mail this server (`$1`) handles now, in the order sent: rows whose
/// target it owns, and rows it sent whose target has no container row.
const THIS_SERVERS_LETTERS: &str =
    "WHERE c.owner = $1 OR (c.id IS NULL AND m.origin = $1) ORDER BY m.seq";

/// The mail this server handles now ([`THIS_SERVERS_LETTERS`]), each row
/// checked.
fn letters(
    client: &mut Client,
    statements: &Statements,
    (name, server): (&str, &ServerId),
) -> Result<Vec<Letter>, postgres::Error> {
    let found = client.query(&statements.letters, &[&server.as_str()])?;
    let mut out = Vec::with_capacity(found.len());
    for row in &found {
        match letter(row) {
            Ok(l) => out.push(l),
            // left in the table, untouched: nothing is applied from it
            Err(e) => bevy::log::error!(
                "{name}: the mail row {:?} does not read ({e}); it stays in the table",
                row.try_get::<_, String>(0).unwrap_or_default()
            ),
        }
    }
    Ok(out)
}

/// The mail rows as [`letter`] reads them, each with whether its target
/// has a container row (a `WHERE` and an order follow).
pub(super) const LETTERS: &str = "SELECT m.id, m.target, m.item, m.props, m.amount, m.reply_to, m.origin, m.answers, m.landed, c.id IS NOT NULL FROM mail AS m LEFT JOIN containers AS c ON c.id = m.target";

/// One mail row, checked.
pub(super) fn letter(row: &postgres::Row) -> Result<Letter, String> {
    let col = |e: postgres::Error| schema::describe(&e);
    let amount: i64 = row.try_get(4).map_err(col)?;
    let landed: i64 = row.try_get(8).map_err(col)?;
    let props: String = row.try_get(3).map_err(col)?;
    let props = if props.is_empty() {
        crate::props::Props::EMPTY
    } else {
        crate::props::Props::parse(&props).map_err(|e| format!("column props: {e}"))?
    };
    let origin: String = row.try_get(6).map_err(col)?;
    Ok(Letter {
        row: MailRow {
            id: row.try_get(0).map_err(col)?,
            target: row.try_get(1).map_err(col)?,
            item: row.try_get(2).map_err(col)?,
            props,
            amount: u32::try_from(amount).map_err(|_| format!("amount {amount} out of range"))?,
            reply_to: row.try_get(5).map_err(col)?,
            origin: ServerId::new(origin),
            answers: row.try_get(7).map_err(col)?,
            landed: u32::try_from(landed).map_err(|_| format!("landed {landed} out of range"))?,
        },
        target_exists: row.try_get(9).map_err(col)?,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::persist::postgres::ThrowawayPostgres;

    /// One statement reads what a look needs besides the mail: this
    /// server's row (none, then its own), every server id sorted, and
    /// whether a hand-over waits for this server (not for another).
    #[test]
    fn a_look_reads_the_standing_the_servers_and_the_hand_overs_waiting() {
        let (_pg, url) =
            ThrowawayPostgres::url_for_tests("listen-state").unwrap_or_else(|e| panic!("{e}"));
        let config: Config = url.parse().expect("a URL");
        let (west, east) = (ServerId::new("west"), ServerId::new("east"));
        let mut client = schema::connect_plain(&config, "test").expect("connects");
        schema::migrate(&mut client, "test").expect("migrates");
        let statements = Statements::prepare(&mut client).expect("prepares");
        let read = |client: &mut Client| state(client, &statements, &west).expect("reads");
        let nothing = State {
            standing: None,
            known: Vec::new(),
            waiting: false,
        };
        assert_eq!(read(&mut client), nothing, "no row yet");
        let generation = schema::register(&mut client, "test", &west).expect("registers");
        schema::register(&mut client, "test", &east).expect("registers");
        let known = vec!["east".to_string(), "west".to_string()];
        let standing = Some((0, generation));
        assert_eq!(
            read(&mut client),
            State {
                standing,
                known: known.clone(),
                waiting: false
            }
        );
        client
            .batch_execute("INSERT INTO handovers (id, to_server, epoch) VALUES ('bag', 'east', 1)")
            .expect("inserts");
        assert!(
            !read(&mut client).waiting,
            "a hand-over to east is not west's"
        );
        client
            .batch_execute("INSERT INTO handovers (id, to_server, epoch) VALUES ('box', 'west', 1)")
            .expect("inserts");
        assert_eq!(
            read(&mut client),
            State {
                standing,
                known,
                waiting: true
            }
        );
    }

    /// A save of the crate's backpack holding 12 berries.
    fn backpack_save() -> String {
        let bytes = std::fs::read("assets/backpack.adoption.json").expect("the crate's backpack");
        let adoption =
            crate::adoption::read(&bytes, crate::adoption::Format::Json, Default::default())
                .expect("reads");
        let rules = crate::rules::Rules::compile(&adoption, &crate::adoption::Tuning::default())
            .expect("compiles");
        let mut contents = crate::contents::Contents::new(Arc::new(rules));
        contents.deliver("berries", 12);
        let id = crate::save::AdoptionId::of("backpack.adoption.json", &bytes);
        contents.save(&id).to_json()
    }

    /// A hand-over row left behind (a reconcile after a reconnect spawned
    /// the container from its row; the take that deletes the row had not
    /// committed) for a container this process knows at that epoch: it
    /// holds it, or handed it on in a frame not written yet. The take
    /// spawns nothing (the items would be in the world twice, and the
    /// frame handing it on would write the row as the database last held
    /// it); a row at a newer epoch (it left and came back) arrives.
    #[test]
    fn a_hand_over_row_at_an_epoch_this_process_knows_spawns_nothing() {
        let (_pg, url) =
            ThrowawayPostgres::url_for_tests("listen-known").unwrap_or_else(|e| panic!("{e}"));
        let config: Config = url.parse().expect("a URL");
        let west = ServerId::new("west");
        let mut client = schema::connect_plain(&config, "test").expect("connects");
        schema::migrate(&mut client, "test").expect("migrates");
        let generation = schema::register(&mut client, "test", &west).expect("registers");
        client
            .execute(
                "INSERT INTO containers (id, owner, epoch, adoption, contents, store)
                 VALUES ('west-bag', 'west', 3, 'backpack.adoption.json', $1, NULL)",
                &[&backpack_save()],
            )
            .expect("inserts");
        client
            .batch_execute(
                "INSERT INTO handovers (id, to_server, epoch) VALUES ('west-bag', 'west', 3)",
            )
            .expect("inserts");
        let start = Start {
            config,
            name: "test".into(),
            server: west,
            generation,
            epochs: Arc::new(Mutex::new(HashMap::from([("west-bag".to_string(), 3)]))),
            servers: Vec::new(),
            stopped: Arc::default(),
        };
        let arrived = take(&mut client, &start).expect("takes");
        assert!(
            arrived.is_empty(),
            "a container this process knows at the row's epoch was spawned again"
        );
        let left: i64 = client
            .query_one("SELECT count(*) FROM handovers", &[])
            .expect("counts")
            .get(0);
        assert_eq!(left, 0, "the row left behind is done with");
        // it left and came back: the row's epoch is newer
        client
            .batch_execute(
                "UPDATE containers SET epoch = 5 WHERE id = 'west-bag';
                 INSERT INTO handovers (id, to_server, epoch) VALUES ('west-bag', 'west', 5)",
            )
            .expect("updates");
        let arrived = take(&mut client, &start).expect("takes");
        assert_eq!(
            arrived.len(),
            1,
            "a container back at a newer epoch arrives"
        );
        assert_eq!(super::super::lock(&start.epochs).get("west-bag"), Some(&5));
    }
}
