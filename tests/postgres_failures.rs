//! The database's own failures (feature `postgres`): a server id opened
//! again while its older process lives (real processes, SIGSTOP, the
//! session cut), a database that forgot frames (an asynchronous standby
//! promoted), a primary that fails over to a synchronous standby, a
//! claimed server's mail-only frame, hand-overs to a server id nobody
//! knows, and the operator's tool. Totals are read from the database
//! itself (`operator::audit`), not from the servers' own ledgers.
#![cfg(feature = "postgres")]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_container::persist::operator;
use bevy_container::persist::{
    ContainerArrived, ContainerDatabase, ContainerDatabasePlugin, ContainerLost, DatabaseError,
    DatabaseWriter, HandOver, HandOverRefused, PersistenceStopped, PersistentEntities,
    PersistentId, Replication, SendMail, ServerId, ServerReplaced, ThrowawayOptions,
    ThrowawayPostgres,
};
use bevy_container::plugin::*;

/// Every message of type `M` the app sent, kept.
#[derive(Resource)]
struct Heard<M: Message + Clone>(Vec<M>);

fn hear<M: Message + Clone>(mut heard: ResMut<Heard<M>>, mut reader: MessageReader<M>) {
    heard.0.extend(reader.read().cloned());
}

fn heard<M: Message + Clone>(app: &App) -> &[M] {
    &app.world().resource::<Heard<M>>().0
}

/// Opens `url` as `server`, waiting for a killed predecessor's session
/// (and its lock) to end.
fn open(url: &str, server: &str) -> ContainerDatabase {
    let since = Instant::now();
    loop {
        match ContainerDatabase::open_as(url, ServerId::new(server)) {
            Ok(db) => return db,
            Err(DatabaseError::ServerInUse { .. }) if since.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{server} opens: {e}"),
        }
    }
}

fn server_on(db: ContainerDatabase) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        common::crate_assets(),
        ContainerPlugin::default(),
        ContainerDatabasePlugin::new(db),
    ))
    .insert_resource(Heard::<ContainerArrived>(Vec::new()))
    .insert_resource(Heard::<ContainerLost>(Vec::new()))
    .insert_resource(Heard::<ServerReplaced>(Vec::new()))
    .insert_resource(Heard::<PersistenceStopped>(Vec::new()))
    .insert_resource(Heard::<HandOverRefused>(Vec::new()))
    .add_systems(
        Last,
        (
            hear::<ContainerArrived>,
            hear::<ContainerLost>,
            hear::<ServerReplaced>,
            hear::<PersistenceStopped>,
            hear::<HandOverRefused>,
        ),
    );
    app.update();
    app
}

/// Runs frames until `done` holds (bounded).
fn until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..3_000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{what} never happened");
}

fn entity(app: &App, id: &str) -> Option<Entity> {
    app.world().resource::<PersistentEntities>().get(id)
}

/// Spawns a ready backpack `id` holding `berries` berries.
fn backpack(app: &mut App, id: &str, berries: u32) -> Entity {
    let adoption = app
        .world()
        .resource::<AssetServer>()
        .load("backpack.adoption.json");
    let e = app
        .world_mut()
        .spawn((PersistentId::new(id), Container::new(adoption)))
        .id();
    until(app, "the backpack's adoption loading", |app| {
        app.world()
            .get::<ContainerContents>(e)
            .is_some_and(ContainerContents::is_ready)
    });
    if berries > 0 {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(e, "berries", berries)));
        app.update();
    }
    e
}

fn flush(app: &App) -> Result<(), DatabaseError> {
    app.world().resource::<DatabaseWriter>().flush()
}

/// Counts by item of a container in `app`.
fn counts(app: &App, id: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Some(c) = entity(app, id).and_then(|e| app.world().get::<ContainerContents>(e)) else {
        return out;
    };
    for (item, n) in c.slots().iter().flatten() {
        *out.entry(item.to_string()).or_default() += u64::from(*n);
    }
    out
}

/// What the database holds, per kind, wherever it is.
fn totals(url: &str) -> BTreeMap<String, u64> {
    let audit = operator::audit(url).unwrap_or_else(|e| panic!("{e}"));
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    audit.totals()
}

// ---------------------------------------------------------------------------
// A server process driven line by line from the test.

const CHILD: &str = "BEVY_CONTAINER_PG_FAILURES_CHILD";

#[test]
#[ignore = "a server of the failure tests, started by them"]
fn failures_test_server() {
    let Ok(spec) = std::env::var(CHILD) else {
        return;
    };
    let (me, url) = spec.split_once('|').expect("server|url");
    let mut app = server_on(open(url, me));
    until(&mut app, "every container ready", |app| {
        let world = app.world_mut();
        world
            .query::<&ContainerContents>()
            .iter(world)
            .all(ContainerContents::is_ready)
    });
    println!("ready");
    let _ = std::io::stdout().flush();
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer = match words.as_slice() {
            ["deliver", id, item, n] => {
                let e = entity(&app, id).expect("the container is here");
                let n: u32 = n.parse().expect("a number");
                app.world_mut()
                    .write_message(ContainerRequest::from(Deliver::new(e, *item, n)));
                app.update();
                "ok".to_string()
            }
            ["mail", id, to, item, n] => {
                let e = entity(&app, id).expect("the container is here");
                let n: u32 = n.parse().expect("a number");
                // the backpack draws from a slot named (its draw order)
                app.world_mut()
                    .write_message(SendMail::new(e, to.to_string(), *item, n).from_slot(0));
                app.update();
                "ok".to_string()
            }
            ["flush"] => match flush(&app) {
                Ok(()) => "ok".into(),
                Err(e) => format!("error {e}"),
            },
            ["frames", n] => {
                for _ in 0..n.parse::<u32>().expect("a number") {
                    app.update();
                    std::thread::sleep(Duration::from_millis(5));
                }
                "ok".into()
            }
            ["report"] => {
                let world = app.world_mut();
                let held: Vec<String> = world
                    .query::<&PersistentId>()
                    .iter(world)
                    .map(|id| id.0.clone())
                    .collect();
                let lost: Vec<String> = heard::<ContainerLost>(&app)
                    .iter()
                    .map(|l| l.lost.id.clone())
                    .collect();
                serde_json::json!({
                    "held": held,
                    "lost": lost,
                    "replaced": heard::<ServerReplaced>(&app).len(),
                    "stopped": heard::<PersistenceStopped>(&app).iter().map(|s| s.error.to_string()).collect::<Vec<_>>(),
                })
                .to_string()
            }
            _ => format!("error unknown command {line}"),
        };
        println!("{answer}");
        let _ = std::io::stdout().flush();
    }
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(name: &str, url: &str) -> Server {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "failures_test_server",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD, format!("{name}|{url}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if std::env::var_os("KILL_DEBUG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut s = Server {
            child,
            stdin,
            stdout,
        };
        s.answer_to(None);
        s
    }

    /// Sends `command` (if any) and returns the next line that answers
    /// it (`ready`, `ok`, `error ...` or a report).
    fn answer_to(&mut self, command: Option<&str>) -> String {
        if let Some(c) = command {
            writeln!(self.stdin, "{c}").expect("writes");
        }
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("reads");
            assert!(n > 0, "the server exited before answering {command:?}");
            // libtest's "test failures_test_server ... " has no newline
            // of its own: the child's first line follows it
            let line = line.rsplit(" ... ").next().unwrap_or_default().trim();
            if line == "ready" || line == "ok" || line.starts_with("error") || line.starts_with('{')
            {
                return line.to_string();
            }
        }
    }

    fn run(&mut self, command: &str) {
        let answer = self.answer_to(Some(command));
        assert_eq!(answer, "ok", "{command}");
    }

    fn report(&mut self) -> serde_json::Value {
        serde_json::from_str(&self.answer_to(Some("report"))).expect("a report")
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill {sig}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Cuts every session of `server` (its writer and its listener), as a
/// network partition or a TCP keepalive does.
fn cut_sessions(url: &str, server: &str) -> u64 {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1",
        &[&format!("bevy_container {server}%")],
    )
    .expect("terminates")
    .len() as u64
}

#[test]
fn a_server_id_started_again_fences_the_older_process() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("twice").unwrap_or_else(|e| panic!("{e}"));
    // the world: north's backpack with 25 berries, south's chest
    {
        let mut south = server_on(open(&url, "south"));
        backpack(&mut south, "south-chest", 0);
        flush(&south).expect("written");
        let mut north = server_on(open(&url, "north"));
        backpack(&mut north, "north-pack", 25);
        flush(&north).expect("written");
    }
    let before = totals(&url);
    assert_eq!(before.get("berries"), Some(&25));
    let mut older = Server::start("north", &url);
    // paused as a VM in a live migration, its sessions cut
    older.signal("-STOP");
    assert!(
        cut_sessions(&url, "north") >= 1,
        "north's sessions were cut"
    );
    // the orchestrator starts north again: it loads the backpack, mails
    // 10 berries south, and dies
    let mut newer = Server::start("north", &url);
    newer.run("mail north-pack south-chest berries 10");
    newer.run("flush");
    newer.child.kill().expect("SIGKILL");
    let _ = newer.child.wait();
    // the older process resumes with its old view, and changes it
    older.signal("-CONT");
    older.run("deliver north-pack axe 1");
    let mut report = older.report();
    for _ in 0..200 {
        if report["replaced"] == 1 {
            break;
        }
        older.run("frames 5");
        report = older.report();
    }
    // whatever the older process still had to write, written (or refused)
    let _ = older.answer_to(Some("flush"));
    let after = operator::audit(&url).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        after.totals().get("berries"),
        Some(&25),
        "no berry doubled: {after:?}"
    );
    assert_eq!(after.containers.get("berries"), Some(&15), "{after:?}");
    assert_eq!(after.mail.get("berries"), Some(&10), "{after:?}");
    assert_eq!(
        after.totals().get("axe"),
        None,
        "the older process wrote nothing: {after:?}"
    );
    assert_eq!(
        report["replaced"], 1,
        "the older process heard it was replaced: {report}"
    );
    assert_eq!(
        report["held"],
        serde_json::json!([]),
        "it let go of everything: {report}"
    );
    assert!(
        report["lost"]
            .as_array()
            .is_some_and(|l| l.iter().any(|id| id == "north-pack")),
        "the backpack reported lost: {report}"
    );
    assert!(
        report["stopped"].to_string().contains("opened again"),
        "the stop names the reason: {report}"
    );
    let status = operator::status(&url).unwrap_or_else(|e| panic!("{e}"));
    let north = status
        .servers
        .iter()
        .find(|s| s.id == "north")
        .expect("north");
    assert_eq!(north.generation, 3, "opened three times: {status:?}");
}

#[test]
fn a_database_that_forgot_frames_is_detected_and_never_written_over() {
    let pg = ThrowawayPostgres::start_with(ThrowawayOptions {
        standby: Some(Replication::Asynchronous),
        ..ThrowawayOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let url = pg.database("forgot").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server_on(open(&url, "north"));
    let pack = backpack(&mut north, "north-pack", 5);
    flush(&north).expect("written");
    // the standby has everything so far, then lags: it is stopped
    std::thread::sleep(Duration::from_millis(500));
    pg.stop_standby().expect("stops");
    let seen_before = north.world().resource::<DatabaseWriter>().written();
    for _ in 0..3 {
        north
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 1)));
        north.update();
    }
    flush(&north).expect("committed on the primary");
    let seen = north.world().resource::<DatabaseWriter>().written();
    assert!(seen > seen_before);
    // the primary dies; the lagging standby is promoted
    pg.fail_over().expect("fails over");
    north
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 1)));
    until(&mut north, "the writer noticed", |app| {
        !heard::<PersistenceStopped>(app).is_empty()
    });
    let error = heard::<PersistenceStopped>(&north)[0].error.clone();
    assert!(matches!(error, DatabaseError::Behind { .. }), "{error}");
    let text = error.to_string();
    assert!(text.contains("forgot frames"), "{text}");
    assert!(text.contains(&format!("to {seen} are missing")), "{text}");
    assert!(text.contains("restart the server"), "{text}");
    // nothing was written on top: the database is still at what it kept
    let status = operator::status(&url).unwrap_or_else(|e| panic!("{e}"));
    let row = status
        .servers
        .iter()
        .find(|s| s.id == "north")
        .expect("north");
    assert!(row.frame < seen, "{status:?}");
    assert_eq!(
        totals(&url).get("berries"),
        Some(&5),
        "the database's own past, whole"
    );
    // a restart loads what the database holds, and writes again
    drop(north);
    let mut again = server_on(open(&url, "north"));
    until(&mut again, "the pack back", |app| {
        counts(app, "north-pack").get("berries") == Some(&5)
    });
    let e = entity(&again, "north-pack").expect("here");
    again
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(e, "berries", 2)));
    again.update();
    flush(&again).expect("written after the restart");
    assert_eq!(totals(&url).get("berries"), Some(&7));
}

#[test]
fn a_failover_to_a_synchronous_standby_loses_no_frame() {
    let pg = ThrowawayPostgres::start_with(ThrowawayOptions {
        standby: Some(Replication::Synchronous),
        ..ThrowawayOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let url = pg.database("failover").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server_on(open(&url, "north"));
    let mut south = server_on(open(&url, "south"));
    backpack(&mut south, "south-chest", 0);
    flush(&south).expect("written");
    let pack = backpack(&mut north, "north-pack", 20);
    flush(&north).expect("written");
    for round in 0..2 {
        pg.fail_over().expect("fails over");
        // a change right after the failover: written once on the new primary
        north
            .world_mut()
            .write_message(SendMail::new(pack, "south-chest", "berries", 2));
        north.update();
        flush(&north).unwrap_or_else(|e| panic!("round {round}: {e}"));
        pg.make_standby().expect("a new standby");
    }
    // the listener came back: the mail landed in the chest
    until(&mut south, "the mail landed", |app| {
        counts(app, "south-chest").get("berries") == Some(&4)
    });
    flush(&south).expect("written");
    flush(&north).expect("written");
    assert_eq!(totals(&url).get("berries"), Some(&20));
    assert!(heard::<PersistenceStopped>(&north).is_empty());
    assert!(
        north
            .world()
            .resource::<DatabaseWriter>()
            .stats()
            .reconnects
            >= 1
    );
}

#[test]
fn a_commit_waiting_for_a_lost_standby_never_holds_the_game_back() {
    let pg = std::sync::Arc::new(
        ThrowawayPostgres::start_with(ThrowawayOptions {
            standby: Some(Replication::Synchronous),
            ..ThrowawayOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let url = pg.database("stalled").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server_on(open(&url, "north").queue(2));
    let packs: Vec<Entity> = (0..3)
        .map(|i| backpack(&mut north, &format!("north-pack-{i}"), 0))
        .collect();
    flush(&north).expect("written");
    // the synchronous standby goes: every commit from here waits for it,
    // on a connection that stays up (no error, no reconnect, no end)
    pg.stop_standby().expect("the standby stops");
    // a game held back would wait for ever: after a minute and a half the
    // standby comes back, the game goes on, and the check below fails
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = {
        let pg = pg.clone();
        std::thread::spawn(move || {
            let fired = finished.recv_timeout(Duration::from_secs(90)).is_err();
            if fired {
                pg.make_standby().expect("a new standby");
            }
            fired
        })
    };
    for frame in 0..300 {
        north
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(
                packs[frame % 3],
                "berries",
                1,
            )));
        north.update();
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = done.send(());
    let fired = watchdog.join().expect("the watchdog ends");
    assert!(
        !fired,
        "300 frames ran while every commit waited for the standby"
    );
    let writer = north.world().resource::<DatabaseWriter>();
    assert!(
        writer.written() < writer.frame(),
        "nothing was committed meanwhile"
    );
    assert!(
        writer.merged_while_behind() > 250,
        "the frames past the queue joined the newest: {}",
        writer.merged_while_behind()
    );
    assert_eq!(
        totals(&url).get("berries"),
        None,
        "the database has none yet"
    );
    pg.make_standby().expect("a new standby");
    flush(&north).expect("written once the standby is back");
    assert_eq!(totals(&url).get("berries"), Some(&300));
    for (i, _) in packs.iter().enumerate() {
        let id = format!("north-pack-{i}");
        assert_eq!(counts(&north, &id).get("berries"), Some(&100), "{id}");
    }
    assert!(heard::<PersistenceStopped>(&north).is_empty());
}

/// Whether `server`'s writer waits for a row lock.
fn waits_for_a_lock(c: &mut postgres::Client, server: &str) -> bool {
    c.query_opt(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' LIMIT 1",
        &[&format!("bevy_container {server}")],
    )
    .ok()
    .flatten()
    .is_some()
}

#[test]
fn a_claimed_servers_frame_that_only_deletes_mail_is_refused() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("mailonly").unwrap_or_else(|e| panic!("{e}"));
    let mut west = server_on(open(&url, "west"));
    backpack(&mut west, "west-bag", 0);
    flush(&west).expect("written");
    // mail west sent to a container that does not exist: west bounces it
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.batch_execute(
        "INSERT INTO mail (id, target, item, props, amount, reply_to, origin, answers, landed)
         VALUES ('mail-west-900', 'nowhere', 'berries', '', 4, 'west-bag', 'west', NULL, 0);
         NOTIFY bevy_container_mail",
    )
    .expect("inserts");
    // west's frames wait on its server row, held here
    let mut hold = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    let mut tx = hold.transaction().expect("begins");
    tx.execute("SELECT 1 FROM servers WHERE id = 'west' FOR UPDATE", &[])
        .expect("locks");
    // west reads the mail and bounces it: a frame with only mail in it,
    // held on the lock
    let since = Instant::now();
    while !waits_for_a_lock(&mut c, "west") {
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "west never bounced the mail"
        );
        west.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    // meanwhile south claims west (west is gone, as far as south knows)
    let south = open(&url, "south")
        .claim_from(&ServerId::new("west"))
        .expect("claims");
    drop(south);
    tx.rollback().expect("releases");
    let _ = flush(&west);
    let stats = west.world().resource::<DatabaseWriter>().stats();
    assert_eq!(
        stats.fenced, 1,
        "the claimed server's mail-only frame was refused"
    );
    let left: Vec<(String, String)> = c
        .query("SELECT id, origin FROM mail ORDER BY id", &[])
        .expect("reads")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        left,
        vec![("mail-west-900".to_string(), "south".to_string())],
        "the row is south's to bounce now, and west's answer was never written"
    );
}

#[test]
fn a_hand_over_to_a_server_nobody_knows_is_refused_and_the_container_stays() {
    let (_pg, url) =
        ThrowawayPostgres::url_for_tests("unknownid").unwrap_or_else(|e| panic!("{e}"));
    let south = server_on(open(&url, "zone-south"));
    flush(&south).expect("written");
    let mut north = server_on(open(&url, "zone-north"));
    let pack = backpack(&mut north, "pack", 12);
    flush(&north).expect("written");
    north
        .world_mut()
        .write_message(HandOver::new(pack, "zone-sout"));
    // refused once the listener has read the servers after the request
    // (a server that opened a moment ago is not refused)
    until(&mut north, "the refusal", |app| {
        !heard::<HandOverRefused>(app).is_empty()
    });
    flush(&north).expect("written");
    let refused = heard::<HandOverRefused>(&north).to_vec();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].why.contains("zone-sout"), "{}", refused[0]);
    assert!(
        refused[0].why.contains("zone-south"),
        "the known ids are named: {}",
        refused[0]
    );
    assert_eq!(entity(&north, "pack"), Some(pack), "still in the world");
    assert_eq!(counts(&north, "pack").get("berries"), Some(&12));
    let status = operator::status(&url).unwrap_or_else(|e| panic!("{e}"));
    let owner = status
        .servers
        .iter()
        .find(|s| s.id == "zone-north")
        .expect("north");
    assert_eq!(
        owner.containers, 1,
        "still north's in the database: {status:?}"
    );
    // a container without a PersistentId: refused as a message too
    let bare = north.world_mut().spawn_empty().id();
    north
        .world_mut()
        .write_message(HandOver::new(bare, "zone-south"));
    north.update();
    north.update();
    assert_eq!(heard::<HandOverRefused>(&north).len(), 2);
    // registered ahead by the operator, the id is accepted; the container
    // arrives when that server first starts, with its ContainerArrived
    assert!(operator::register(&url, &ServerId::new("zone-east")).expect("registers"));
    north
        .world_mut()
        .write_message(HandOver::new(pack, "zone-east"));
    // it goes once north's listener has read the servers again
    until(&mut north, "the hand-over to zone-east", |app| {
        entity(app, "pack").is_none()
    });
    flush(&north).expect("written");
    assert_eq!(heard::<HandOverRefused>(&north).len(), 2, "accepted");
    assert_eq!(entity(&north, "pack"), None, "gone from north");
    let mut east = server_on(open(&url, "zone-east"));
    east.update();
    let arrived = heard::<ContainerArrived>(&east).to_vec();
    assert_eq!(
        arrived.len(),
        1,
        "the game hears of the pack at start: {arrived:?}"
    );
    assert_eq!(arrived[0].id, "pack");
    until(&mut east, "the pack's contents", |app| {
        counts(app, "pack").get("berries") == Some(&12)
    });
    flush(&south).expect("south wrote nothing wrong");
}

#[test]
fn the_operators_tool_claims_and_audits() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("operator").unwrap_or_else(|e| panic!("{e}"));
    {
        let mut gone = server_on(open(&url, "gone"));
        backpack(&mut gone, "gone-bag", 9);
        flush(&gone).expect("written");
    }
    let mut taker = server_on(open(&url, "taker"));
    let status = operator::status(&url).unwrap_or_else(|e| panic!("{e}"));
    let gone = status
        .servers
        .iter()
        .find(|s| s.id == "gone")
        .expect("gone");
    assert_eq!((gone.containers, gone.running), (1, false), "{status:?}");
    assert!(
        status.servers.iter().any(|s| s.id == "taker" && s.running),
        "{status:?}"
    );
    let claimed = operator::claim(&url, &ServerId::new("gone"), &ServerId::new("taker"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(claimed.containers, 1);
    // the running taker spawns it, as a hand-over
    until(&mut taker, "the claimed bag", |app| {
        counts(app, "gone-bag").get("berries") == Some(&9)
    });
    assert_eq!(heard::<ContainerArrived>(&taker).len(), 1);
    assert!(operator::claim(&url, &ServerId::new("gone"), &ServerId::new("nobody")).is_err());
    assert_eq!(totals(&url).get("berries"), Some(&9));
    // a damaged row is a problem the audit names
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.execute(
        "UPDATE containers SET contents = 'not a save' WHERE id = 'gone-bag'",
        &[],
    )
    .expect("damages");
    let audit = operator::audit(&url).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(audit.problems.len(), 1, "{audit:?}");
    assert!(audit.problems[0].contains("gone-bag"), "{audit:?}");
    // a schema changed by hand: a cell the tool cannot read is a problem
    // named with its row, or an error naming the database, never a panic
    c.batch_execute(
        "ALTER TABLE pickups ALTER COLUMN props DROP NOT NULL;
         INSERT INTO pickups (id, owner, epoch, item, amount, props, x, y, z)
           VALUES ('odd-pickup', 'gone', 1, 'berries', 1, NULL, 0, 0, 0);
         ALTER TABLE servers ALTER COLUMN generation DROP NOT NULL;
         UPDATE servers SET generation = NULL WHERE id = 'gone'",
    )
    .expect("changes the schema");
    let audit = operator::audit(&url).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(audit.problems.len(), 2, "{audit:?}");
    assert!(
        audit.problems[1].contains("pickups") && audit.problems[1].contains("odd-pickup"),
        "{audit:?}"
    );
    let refused = operator::status(&url).expect_err("a server's cell it cannot read");
    assert!(
        refused.to_string().contains("a damaged one") && refused.to_string().contains("NULL"),
        "{refused}"
    );
}

#[test]
fn an_idle_older_process_hears_it_was_replaced_without_writing() {
    let (_pg, url) =
        ThrowawayPostgres::url_for_tests("idletwice").unwrap_or_else(|e| panic!("{e}"));
    let mut older = server_on(open(&url, "north"));
    backpack(&mut older, "north-pack", 7);
    flush(&older).expect("written");
    // its writer's session cut (its lock with it); its listener still
    // connected: the orchestrator starts north again
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bevy_container north'",
        &[],
    )
    .expect("terminates");
    let newer = server_on(open(&url, "north"));
    // the older process changes nothing, and still hears it
    until(&mut older, "the older process replaced", |app| {
        !heard::<ServerReplaced>(app).is_empty()
    });
    older.update();
    assert_eq!(entity(&older, "north-pack"), None, "it let go of the pack");
    assert!(
        heard::<ContainerLost>(&older)
            .iter()
            .any(|l| l.lost.id == "north-pack")
    );
    assert_eq!(totals(&url).get("berries"), Some(&7));
    flush(&newer).expect("the newer process writes on");
}
