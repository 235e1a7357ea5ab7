//! Three server processes on one PostgreSQL database, each killed with
//! SIGKILL at random moments and restarted, while they move items between
//! their bags, drop them on the ground, pick them up, hand bags to each
//! other and mail items to each other's bags (with what does not fit
//! coming back, and bags handed over with mail in flight). After every
//! restart: every item of every kind exists exactly once (in containers,
//! pickups, or in flight as mail: the stream only moves items, so the
//! totals never change), every container has one owner, and each server's
//! world is what the database says it owns (no container in two worlds).
//! The same again through failovers of the primary to a synchronous
//! standby. Feature `postgres`.
//!
//! `KILL_DEBUG=1` logs the servers' warnings (in `KILL_DEBUG_DIR/NAME-SEED.log`
//! when that is set; `RUST_LOG=info,bevy_container::persist=trace` adds
//! every frame each one hands to its writer and every transaction it
//! wrote) and records every row change in the database, so a total that
//! is off names the transaction that changed it.
#![cfg(feature = "postgres")]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_container::adoption::Format;
use bevy_container::persist::{
    ContainerDatabase, ContainerDatabasePlugin, DatabaseError, DatabaseWriter, HandOver,
    PersistentId, Replication, SendMail, ServerId, ThrowawayOptions, ThrowawayPostgres,
};
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;
use common::{Rng, adoption_json, slot_answers};
use serde_json::json;

const SERVERS: [&str; 3] = ["north", "south", "east"];
const ITEMS: [&str; 3] = ["ore", "berries", "gem"];

/// Counts by item type.
type Counts = BTreeMap<String, u64>;

/// A world (or the database's part of one): each container's counts, and
/// the pickups' counts.
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct World {
    containers: BTreeMap<String, Counts>,
    pickups: Counts,
}

/// A test's folder of adoption files, removed when the test ends (each
/// test has its own: the tests of this file run side by side in one
/// process).
struct Assets(PathBuf);

impl std::ops::Deref for Assets {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Assets {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn assets(test: &str) -> Assets {
    let dir = std::env::temp_dir().join(format!(
        "bevy_container-pgkill-{}-{test}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a folder");
    let bag = adoption_json(
        slot_answers("left-where-it-is"),
        4,
        0.0,
        json!([
            {"id": "ore", "stack-limit": 10, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "berries", "stack-limit": 20, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "gem", "stack-limit": 5, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
        ]),
    );
    std::fs::write(dir.join("bag.adoption.json"), bag.to_string()).expect("writes");
    Assets(dir)
}

fn app(assets: &Path, db: ContainerDatabase) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.display().to_string(),
            watch_for_changes_override: Some(false),
            ..default()
        },
        ContainerPlugin::default(),
        ContainerDatabasePlugin::new(db),
    ));
    // KILL_DEBUG=1: the servers' warnings (fences, reconnects) on stderr
    if std::env::var_os("KILL_DEBUG").is_some() {
        app.add_plugins(bevy::log::LogPlugin::default());
    }
    app
}

/// Opens the database as `server`, waiting for a killed predecessor's
/// session (and its lock) to end, and trying again, as an orchestrator
/// restarts a server whose start failed, when the open lost its
/// connection: a cluster being failed over, or a machine so loaded that
/// the open's transaction sat idle past `idle_in_transaction_session_timeout`
/// (three loaded runs of eight ended so before this). An open that fails
/// leaves nothing behind, so the totals checked after still hold every
/// item.
fn open(url: &str, server: &str) -> ContainerDatabase {
    let since = Instant::now();
    loop {
        let in_time = since.elapsed() < Duration::from_secs(30);
        match ContainerDatabase::open_as(url, ServerId::new(server)) {
            Ok(db) => return db,
            Err(DatabaseError::ServerInUse { .. }) if in_time => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e @ (DatabaseError::Open { .. } | DatabaseError::Connect { .. })) if in_time => {
                eprintln!("{server} opens again after: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("{server} opens: {e}"),
        }
    }
}

fn until_ready(app: &mut App) {
    for _ in 0..5_000 {
        app.update();
        let world = app.world_mut();
        if world
            .query::<&ContainerContents>()
            .iter(world)
            .all(ContainerContents::is_ready)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("the bags never got ready");
}

fn counts_of(c: &ContainerContents) -> Counts {
    let mut out = Counts::new();
    for (item, n) in c.slots().iter().flatten() {
        *out.entry(item.to_string()).or_default() += u64::from(*n);
    }
    out
}

/// The world of a server, as its entities hold it.
fn world_of(app: &mut App) -> World {
    let world = app.world_mut();
    let containers = world
        .query::<(&PersistentId, &ContainerContents)>()
        .iter(world)
        .map(|(id, c)| (id.0.clone(), counts_of(c)))
        .collect();
    let mut pickups = Counts::new();
    for p in world.query::<&LoosePickup>().iter(world) {
        *pickups.entry(p.item.clone()).or_default() += u64::from(p.amount);
    }
    World {
        containers,
        pickups,
    }
}

fn flush(app: &App) {
    app.world()
        .resource::<DatabaseWriter>()
        .flush()
        .expect("written");
}

// ---------------------------------------------------------------------------
// The child: one server running the stream until it is killed.

const CHILD: &str = "BEVY_CONTAINER_PG_KILL_CHILD";

/// One step of the server's stream: only moves items (between its bags,
/// to the ground and back, to another server).
fn step(app: &mut App, rng: &mut Rng, me: &str, hand_over: bool) {
    let world = app.world_mut();
    let bags: Vec<Entity> = world
        .query::<(Entity, &ContainerContents)>()
        .iter(world)
        .filter(|(_, c)| c.is_ready())
        .map(|(e, _)| e)
        .collect();
    if bags.is_empty() {
        return;
    }
    let bag = |rng: &mut Rng| bags[rng.below(bags.len())];
    let pickups: Vec<Entity> = world
        .query_filtered::<Entity, With<LoosePickup>>()
        .iter(world)
        .collect();
    let request: Option<ContainerRequest> = match rng.below(20) {
        0..=9 => Some(
            Transfer {
                from: bag(rng),
                to: bag(rng),
                request: bevy_container::contents::TransferRequest::item(
                    ITEMS[rng.below(3)],
                    1 + rng.below(12) as u32,
                ),
            }
            .into(),
        ),
        10 | 11 => Some(
            Resize {
                container: bag(rng),
                slot_count: Some(1 + rng.below(4) as u32),
                size_budget: None,
            }
            .into(),
        ),
        12..=15 if !pickups.is_empty() => Some(
            PickUp {
                container: bag(rng),
                pickup: pickups[rng.below(pickups.len())],
            }
            .into(),
        ),
        18 | 19 if hand_over => {
            // mail to any bag of any server (wherever it is now)
            let to = format!("{}-bag-{}", SERVERS[rng.below(3)], rng.below(3));
            let item = ITEMS[rng.below(3)];
            let mail = SendMail::new(bag(rng), to, item, 1 + rng.below(8) as u32);
            eprintln!("step: {mail:?}");
            world.write_message(mail);
            None
        }
        16 | 17 if hand_over => {
            let others: Vec<&str> = SERVERS.iter().copied().filter(|s| *s != me).collect();
            let hand_over = HandOver {
                container: bag(rng),
                to: ServerId::new(others[rng.below(others.len())]),
            };
            eprintln!("step: {hand_over:?}");
            world.write_message(hand_over);
            None
        }
        _ => None,
    };
    if let Some(r) = request {
        eprintln!("step: {r:?}");
        world.write_message(r);
    }
}

fn stdin_lines() -> Receiver<String> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Stops the stream, lets arrivals land, writes everything, and prints
/// the world; goes on at `go`.
fn report(app: &mut App, lines: &Receiver<String>) {
    flush(app);
    loop {
        // the listener looks every quarter second: twice that, frame by frame
        let since = Instant::now();
        while since.elapsed() < Duration::from_millis(600) {
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        until_ready(app);
        app.update();
        flush(app);
        let world = world_of(app);
        println!("world {}", serde_json::to_string(&world).expect("json"));
        let _ = std::io::stdout().flush();
        // "again": another server's last frame (a hand-over, mail) may
        // have been written after this one looked; look once more
        match lines.recv().as_deref() {
            Ok("again") => {}
            _ => return,
        }
    }
}

#[test]
#[ignore = "a server of the PostgreSQL kill test, started by it"]
fn kill_test_server() {
    let Ok(spec) = std::env::var(CHILD) else {
        return;
    };
    let mut parts = spec.splitn(5, '|');
    let me = parts.next().expect("server");
    let seed = parts
        .next()
        .and_then(|s| s.parse::<u64>().ok())
        .expect("seed");
    let hand_over = parts.next() == Some("hand-over");
    let assets = PathBuf::from(parts.next().expect("assets"));
    let url = parts.next().expect("url");
    let lines = stdin_lines();
    let mut app = app(&assets, open(url, me));
    until_ready(&mut app);
    println!("ready");
    let _ = std::io::stdout().flush();
    let mut rng = Rng(seed);
    loop {
        if let Ok(line) = lines.try_recv()
            && line == "sync"
        {
            report(&mut app, &lines);
        }
        step(&mut app, &mut rng, me, hand_over);
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
}

// ---------------------------------------------------------------------------
// The test.

struct Server {
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(name: &'static str, seed: u64, hand_over: bool, assets: &Path, url: &str) -> Server {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "kill_test_server",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(
                CHILD,
                format!(
                    "{name}|{seed}|{}|{}|{url}",
                    if hand_over { "hand-over" } else { "keep" },
                    assets.display()
                ),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(debug_log(name, seed))
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut s = Server {
            name,
            child,
            stdin,
            stdout,
        };
        s.wait_for("ready");
        s
    }

    /// The rest of the first line holding `word`.
    fn wait_for(&mut self, word: &str) -> String {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("reads");
            assert!(n > 0, "{} exited before saying {word}", self.name);
            if let Some(at) = line.find(word) {
                return line[at + word.len()..].trim().to_string();
            }
        }
    }

    fn pause_and_report(&mut self) {
        writeln!(self.stdin, "sync").expect("writes");
    }

    fn world(&mut self) -> World {
        serde_json::from_str(&self.wait_for("world ")).expect("a world")
    }

    fn go(&mut self) {
        writeln!(self.stdin, "go").expect("writes");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// KILL_DEBUG=1: a server's stderr (its warnings: fences, reconnects),
/// in `KILL_DEBUG_DIR/NAME-SEED.log` when that is set, else inherited.
fn debug_log(name: &str, seed: u64) -> Stdio {
    if std::env::var_os("KILL_DEBUG").is_none() {
        return Stdio::null();
    }
    match std::env::var_os("KILL_DEBUG_DIR") {
        Some(dir) => std::fs::File::create(Path::new(&dir).join(format!("{name}-{seed}.log")))
            .map_or_else(|_| Stdio::inherit(), Stdio::from),
        None => Stdio::inherit(),
    }
}

/// KILL_DEBUG=1: every row change of the three tables recorded with its
/// transaction and session, so a failed total can be traced to the
/// transaction that changed it ([`history`]).
fn record_history(url: &str) {
    if std::env::var_os("KILL_DEBUG").is_none() {
        return;
    }
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    c.batch_execute(
        "CREATE TABLE history (seq bigserial PRIMARY KEY, xid bigint NOT NULL DEFAULT txid_current(),
           app text NOT NULL DEFAULT current_setting('application_name'), tab text NOT NULL,
           id text NOT NULL, old text, new text);
         CREATE FUNCTION record() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP = 'INSERT' THEN
             INSERT INTO history (tab, id, new) VALUES (TG_TABLE_NAME, NEW.id, row_to_json(NEW)::text);
           ELSIF TG_OP = 'UPDATE' THEN
             INSERT INTO history (tab, id, old, new) VALUES (TG_TABLE_NAME, NEW.id, row_to_json(OLD)::text, row_to_json(NEW)::text);
           ELSE
             INSERT INTO history (tab, id, old) VALUES (TG_TABLE_NAME, OLD.id, row_to_json(OLD)::text);
           END IF;
           RETURN NULL;
         END $$;
         CREATE TRIGGER history AFTER INSERT OR UPDATE OR DELETE ON containers FOR EACH ROW EXECUTE FUNCTION record();
         CREATE TRIGGER history AFTER INSERT OR UPDATE OR DELETE ON pickups FOR EACH ROW EXECUTE FUNCTION record();
         CREATE TRIGGER history AFTER INSERT OR UPDATE OR DELETE ON mail FOR EACH ROW EXECUTE FUNCTION record();
         CREATE TRIGGER history AFTER INSERT OR UPDATE OR DELETE ON handovers FOR EACH ROW EXECUTE FUNCTION record();
         CREATE TRIGGER history AFTER UPDATE ON servers FOR EACH ROW EXECUTE FUNCTION record();",
    )
    .expect("the history trigger");
}

/// The counts of one recorded row (a `row_to_json` of a container,
/// pickup or mail row).
fn row_counts(tab: &str, json: Option<&str>) -> Counts {
    let mut out = Counts::new();
    let Some(row) = json.and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok()) else {
        return out;
    };
    if tab == "containers" {
        let text = row["contents"].as_str().unwrap_or_default();
        if let Ok(saved) = SavedContents::read(text.as_bytes(), Format::Json) {
            for s in saved.slots.iter().flatten().chain(&saved.holdings) {
                *out.entry(s.item.clone()).or_default() += u64::from(s.amount);
            }
        }
    } else if let (Some(item), Some(n)) = (row["item"].as_str(), row["amount"].as_u64()) {
        *out.entry(item.to_string()).or_default() += n;
    }
    out
}

/// A recorded transaction: its xid, its session, its row changes, and what
/// it changed each kind's total by.
type Recorded = (i64, String, Vec<String>, BTreeMap<String, i64>);

/// KILL_DEBUG=1: the transactions that changed a kind's total, each with
/// its session and rows, from the recorded history.
fn history(url: &str) -> String {
    if std::env::var_os("KILL_DEBUG").is_none() {
        return String::new();
    }
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let rows = c
        .query(
            "SELECT xid, app, tab, id, old, new FROM history ORDER BY seq",
            &[],
        )
        .expect("the history");
    let mut by_xid: Vec<Recorded> = Vec::new();
    for r in &rows {
        let (xid, app, tab, id): (i64, String, String, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let (old, new): (Option<String>, Option<String>) = (r.get(4), r.get(5));
        // concurrent transactions interleave in `seq`: grouped by xid
        let at = match by_xid.iter().position(|l| l.0 == xid) {
            Some(at) => at,
            None => {
                by_xid.push((xid, app, Vec::new(), BTreeMap::new()));
                by_xid.len() - 1
            }
        };
        let entry = &mut by_xid[at];
        let (before, after) = (
            row_counts(&tab, old.as_deref()),
            row_counts(&tab, new.as_deref()),
        );
        for (k, n) in &after {
            *entry.3.entry(k.clone()).or_default() += *n as i64;
        }
        for (k, n) in &before {
            *entry.3.entry(k.clone()).or_default() -= *n as i64;
        }
        if tab == "servers" || tab == "handovers" {
            entry.2.push(format!(
                "  {tab} {id}: {} -> {}",
                old.unwrap_or_default(),
                new.unwrap_or_default()
            ));
            continue;
        }
        entry
            .2
            .push(format!("  {tab} {id}: {before:?} -> {after:?}"));
    }
    let mut out = format!("{} transactions recorded\n", by_xid.len());
    for (at, (xid, app, changes, delta)) in by_xid.iter().enumerate() {
        if delta.values().any(|d| *d != 0) {
            // the same session's transactions before it, then it
            let before: Vec<&Recorded> = by_xid[..at]
                .iter()
                .filter(|t| t.1 == *app)
                .rev()
                .take(4)
                .collect();
            for (x, a, c, _) in before.into_iter().rev() {
                out.push_str(&format!("before: xid {x} ({a}):\n{}\n", c.join("\n")));
            }
            out.push_str(&format!(
                "xid {xid} ({app}) changed the totals by {delta:?}:\n{}\n",
                changes.join("\n")
            ));
        }
    }
    out
}

/// Ends the test process (and so fails the test) if it runs past
/// `limit`: a server that stopped answering must not hang CI.
fn watchdog(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!("the test ran past {limit:?}: a server stopped answering");
        std::process::exit(1);
    });
}

/// What the database holds, per owner, and every owner's id.
fn database(url: &str) -> (BTreeMap<String, World>, Counts) {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let mut by_owner: BTreeMap<String, World> = BTreeMap::new();
    let mut total = Counts::new();
    for row in c
        .query("SELECT id, owner, contents FROM containers", &[])
        .expect("reads")
    {
        let (id, owner, text): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        assert!(
            SERVERS.contains(&owner.as_str()) || owner == "west",
            "{id} is owned by {owner}, not a server of the test"
        );
        let saved = SavedContents::read(text.as_bytes(), Format::Json).expect("a save");
        let mut counts = Counts::new();
        for s in saved.slots.iter().flatten().chain(&saved.holdings) {
            *counts.entry(s.item.clone()).or_default() += u64::from(s.amount);
            *total.entry(s.item.clone()).or_default() += u64::from(s.amount);
        }
        by_owner
            .entry(owner)
            .or_default()
            .containers
            .insert(id, counts);
    }
    for row in c
        .query("SELECT owner, item, amount FROM pickups", &[])
        .expect("reads")
    {
        let (owner, item, n): (String, String, i64) = (row.get(0), row.get(1), row.get(2));
        *by_owner
            .entry(owner)
            .or_default()
            .pickups
            .entry(item.clone())
            .or_default() += n as u64;
        *total.entry(item).or_default() += n as u64;
    }
    // mail in flight: in no container, in its row
    for row in c
        .query("SELECT item, amount FROM mail", &[])
        .expect("reads")
    {
        let (item, n): (String, i64) = (row.get(0), row.get(1));
        *total.entry(item).or_default() += n as u64;
    }
    (by_owner, total)
}

/// The first world: three bags per server, written and closed.
fn first_world(assets: &Path, url: &str) {
    for server in SERVERS {
        let mut app = app(assets, open(url, server));
        let adoption = app
            .world()
            .resource::<AssetServer>()
            .load("bag.adoption.json");
        let bags: Vec<Entity> = (0..3)
            .map(|i| {
                app.world_mut()
                    .spawn((
                        PersistentId::new(format!("{server}-bag-{i}")),
                        Container::new(adoption.clone()),
                    ))
                    .id()
            })
            .collect();
        until_ready(&mut app);
        for bag in bags {
            for (item, n) in [("ore", 7), ("berries", 15), ("gem", 3)] {
                app.world_mut()
                    .write_message(ContainerRequest::from(Deliver::new(bag, item, n)));
            }
        }
        app.update();
        flush(&app);
    }
}

/// Pauses every server and checks, from the database: every kind's total
/// exact, and each server's world what the database says it owns. The
/// servers are paused one after another, so one may write a hand-over or
/// mail after another looked: a world that differs is asked for again
/// (nothing is written by then but what arrives), a few times.
fn check(servers: &mut [Server], url: &str, expected: &Counts, when: &str) {
    for s in servers.iter_mut() {
        s.pause_and_report();
    }
    let mut worlds: Vec<World> = servers.iter_mut().map(Server::world).collect();
    let (mut by_owner, total) = database(url);
    assert_eq!(
        &total,
        expected,
        "{when}: every item exactly once\n{}",
        history(url)
    );
    let none = World::default();
    for _ in 0..4 {
        let settled = servers
            .iter()
            .zip(&worlds)
            .all(|(s, w)| by_owner.get(s.name).unwrap_or(&none) == w);
        if settled {
            break;
        }
        for s in servers.iter_mut() {
            writeln!(s.stdin, "again").expect("writes");
        }
        worlds = servers.iter_mut().map(Server::world).collect();
        let (owners, again) = database(url);
        assert_eq!(
            &again,
            expected,
            "{when}, looked again: every item exactly once\n{}",
            history(url)
        );
        by_owner = owners;
    }
    for (s, world) in servers.iter().zip(&worlds) {
        let owned = by_owner.get(s.name).unwrap_or(&none);
        assert_eq!(
            world, owned,
            "{when}: {}'s world is what the database says it owns",
            s.name
        );
    }
    for s in servers.iter_mut() {
        s.go();
    }
}

#[test]
fn servers_killed_at_random_lose_and_double_nothing() {
    watchdog(Duration::from_secs(600));
    let assets = assets("killed");
    let (_pg, url) = ThrowawayPostgres::url_for_tests("kill").unwrap_or_else(|e| panic!("{e}"));
    first_world(&assets, &url);
    let (_, expected) = database(&url);
    assert_eq!(expected.values().sum::<u64>(), 3 * 3 * 25);
    let mut rng = Rng(0x00C0_FFEE_0053);
    let mut servers: Vec<Server> = SERVERS
        .iter()
        .enumerate()
        .map(|(i, s)| Server::start(s, 100 + i as u64, true, &assets, &url))
        .collect();
    let started = Instant::now();
    for kill in 0..21 {
        let i = rng.below(servers.len());
        std::thread::sleep(Duration::from_millis(20 + rng.below(300) as u64));
        let name = servers[i].name;
        servers[i].child.kill().expect("SIGKILL");
        let _ = servers[i].child.wait();
        servers[i] = Server::start(name, 1_000 + kill, true, &assets, &url);
        check(
            &mut servers,
            &url,
            &expected,
            &format!("after kill {kill} ({name})"),
        );
    }
    let (by_owner, _) = database(&url);
    let moved: usize = by_owner
        .iter()
        .map(|(owner, w)| {
            w.containers
                .keys()
                .filter(|id| !id.starts_with(owner.as_str()))
                .count()
        })
        .sum();
    assert!(moved > 0, "bags were handed over: {by_owner:?}");
    eprintln!(
        "postgres kill test: 21 kills, {moved} bags away from their first server at the end, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn servers_through_failovers_of_the_primary_lose_and_double_nothing() {
    watchdog(Duration::from_secs(600));
    let assets = assets("failovers");
    let pg = ThrowawayPostgres::start_with(ThrowawayOptions {
        standby: Some(Replication::Synchronous),
        ..ThrowawayOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let url = pg
        .database("failover-kill")
        .unwrap_or_else(|e| panic!("{e}"));
    first_world(&assets, &url);
    record_history(&url);
    let (_, expected) = database(&url);
    let mut rng = Rng(0x00FA_110F_0058);
    let mut servers: Vec<Server> = SERVERS
        .iter()
        .enumerate()
        .map(|(i, s)| Server::start(s, 200 + i as u64, true, &assets, &url))
        .collect();
    let (mut failovers, mut kills) = (0, 0);
    let started = Instant::now();
    for event in 0..16u64 {
        std::thread::sleep(Duration::from_millis(20 + rng.below(300) as u64));
        if event % 3 == 1 {
            // the primary dies at a random moment of the stream; the
            // synchronous standby is promoted, then a new standby made
            pg.fail_over().unwrap_or_else(|e| panic!("{e}"));
            std::thread::sleep(Duration::from_millis(rng.below(200) as u64));
            pg.make_standby().unwrap_or_else(|e| panic!("{e}"));
            failovers += 1;
            check(
                &mut servers,
                &url,
                &expected,
                &format!("after failover {failovers}"),
            );
        } else {
            let i = rng.below(servers.len());
            let name = servers[i].name;
            servers[i].child.kill().expect("SIGKILL");
            let _ = servers[i].child.wait();
            servers[i] = Server::start(name, 2_000 + event, true, &assets, &url);
            kills += 1;
            check(
                &mut servers,
                &url,
                &expected,
                &format!("after kill {kills} ({name})"),
            );
        }
    }
    assert!(
        failovers >= 5 && kills >= 10,
        "{failovers} failovers, {kills} kills"
    );
    eprintln!(
        "postgres failover test: {failovers} failovers and {kills} kills, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------------------
// Fencing: a paused server whose containers were claimed.

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig}");
}

/// The state of `server`'s writer session.
fn session_state(c: &mut postgres::Client, server: &str) -> Option<String> {
    c.query_opt(
        "SELECT state FROM pg_stat_activity WHERE application_name = $1",
        &[&format!("bevy_container {server}")],
    )
    .ok()
    .flatten()
    .map(|r| r.get(0))
}

/// Stops `server` with SIGSTOP inside its frame's open transaction (its
/// session idle in a transaction, holding row locks).
fn stop_inside_a_transaction(server: &Server, url: &str) -> u32 {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    for attempt in 1..=20_000 {
        if session_state(&mut c, server.name).as_deref() == Some("idle in transaction") {
            signal(&server.child, "-STOP");
            if session_state(&mut c, server.name).as_deref() == Some("idle in transaction") {
                return attempt;
            }
            signal(&server.child, "-CONT");
        }
    }
    panic!("{} was never caught inside a transaction", server.name);
}

/// Claims what `from` owns as `claimer`, changes it (items moved between
/// the claimed bags), writes it; the claimer's world.
fn claim_and_change(assets: &Path, url: &str, from: &str, claimer: &str) -> (World, Duration) {
    let since = Instant::now();
    let db = open(url, claimer)
        .claim_from(&ServerId::new(from))
        .expect("claimed");
    let took = since.elapsed();
    assert!(!db.containers().is_empty(), "{from} owned bags");
    let mut app = app(assets, db);
    until_ready(&mut app);
    let world = app.world_mut();
    let bags: Vec<Entity> = world
        .query_filtered::<Entity, With<ContainerContents>>()
        .iter(world)
        .collect();
    world.write_message(ContainerRequest::from(Transfer {
        from: bags[0],
        to: bags[bags.len() - 1],
        request: bevy_container::contents::TransferRequest::item("berries", 3),
    }));
    app.update();
    flush(&app);
    (world_of(&mut app), took)
}

#[test]
fn a_paused_server_whose_containers_were_claimed_writes_nothing_of_them() {
    watchdog(Duration::from_secs(300));
    let assets = assets("paused");
    let (_pg, url) = ThrowawayPostgres::url_for_tests("fence").unwrap_or_else(|e| panic!("{e}"));
    first_world(&assets, &url);
    let (_, expected) = database(&url);
    for (round, (from, claimer)) in [("north", "west"), ("east", "south")]
        .into_iter()
        .enumerate()
    {
        let mut server = Server::start(from, 7 + round as u64, false, &assets, &url);
        std::thread::sleep(Duration::from_millis(150));
        let attempts = if round == 0 {
            // anywhere in its frame
            signal(&server.child, "-STOP");
            0
        } else {
            stop_inside_a_transaction(&server, &url)
        };
        let (claimed, took) = claim_and_change(&assets, &url, from, claimer);
        assert!(
            took < Duration::from_secs(30),
            "round {round}: the claim waited {took:?} for the paused server's locks"
        );
        signal(&server.child, "-CONT");
        // its stream goes on: its next writes are refused, and it lets go
        // of what it lost (a server learns of the loss when it writes: a
        // server paused and reporting at once may not have written yet)
        // (a pickup its stream leaves alone is let go of when the stream
        // next touches it: up to ten looks, half a second apart)
        let none = World::default();
        let mut looks = 0;
        let (world, by_owner, total) = loop {
            std::thread::sleep(Duration::from_millis(500));
            looks += 1;
            server.pause_and_report();
            let world = server.world();
            let (by_owner, total) = database(&url);
            server.go();
            if looks == 10 || &world == by_owner.get(from).unwrap_or(&none) {
                break (world, by_owner, total);
            }
        };
        assert_eq!(total, expected, "round {round}: every item exactly once");
        assert_eq!(
            &world,
            by_owner.get(from).unwrap_or(&none),
            "round {round}: the paused server's world is what it owns now"
        );
        let held = by_owner.get(claimer).expect("the claimer owns rows");
        for (id, counts) in &claimed.containers {
            assert_eq!(
                held.containers.get(id),
                Some(counts),
                "round {round}: {id} holds exactly the claimer's state"
            );
        }
        eprintln!(
            "fence round {round}: {from} stopped{}, claim took {took:?}",
            if attempts > 0 {
                format!(" inside a transaction (caught on try {attempts})")
            } else {
                String::new()
            }
        );
    }
}

// ---------------------------------------------------------------------------
// Mail applied exactly once: a receiver killed between applying a row and
// committing it.

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

fn mail_rows(c: &mut postgres::Client) -> i64 {
    c.query_one("SELECT count(*) FROM mail", &[])
        .expect("reads")
        .get(0)
}

#[test]
fn a_receiver_killed_before_its_commit_applies_the_mail_once_on_restart() {
    watchdog(Duration::from_secs(300));
    let assets = assets("mail");
    let (_pg, url) =
        ThrowawayPostgres::url_for_tests("mail_once").unwrap_or_else(|e| panic!("{e}"));
    first_world(&assets, &url);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    // two gems in flight to south's first bag, from a server that is gone
    // (what does not land lies on south's ground)
    c.execute(
        "INSERT INTO mail (id, target, item, props, amount, reply_to, origin, answers, landed)
         VALUES ('mail-west-1', 'south-bag-0', 'gem', '', 2, NULL, 'west', NULL, 0)",
        &[],
    )
    .expect("mail sent");
    let (_, expected) = database(&url);
    // the receiver's commit waits behind this lock on the row
    let mut locker = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    let mut hold = locker.transaction().expect("begins");
    hold.execute(
        "SELECT 1 FROM mail WHERE id = 'mail-west-1' FOR UPDATE",
        &[],
    )
    .expect("locks");
    let mut south = Server::start("south", 5, false, &assets, &url);
    let since = Instant::now();
    while !waits_for_a_lock(&mut c, "south") {
        assert!(
            since.elapsed() < Duration::from_secs(20),
            "south never applied the mail"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // applied in its world, not committed: killed
    south.child.kill().expect("SIGKILL");
    let _ = south.child.wait();
    hold.rollback().expect("unlocks");
    assert_eq!(mail_rows(&mut c), 1, "the mail is still in flight");
    assert_eq!(database(&url).1, expected, "nothing landed, nothing lost");
    // on restart it lands, once
    let mut south = Server::start("south", 6, false, &assets, &url);
    let since = Instant::now();
    while mail_rows(&mut c) > 0 {
        assert!(
            since.elapsed() < Duration::from_secs(20),
            "the mail never landed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    check(
        std::slice::from_mut(&mut south),
        &url,
        &expected,
        "after the restart",
    );
    // a receiver whose commit went through never applies it again
    south.child.kill().expect("SIGKILL");
    let _ = south.child.wait();
    let mut south = Server::start("south", 7, false, &assets, &url);
    std::thread::sleep(Duration::from_millis(800));
    check(
        std::slice::from_mut(&mut south),
        &url,
        &expected,
        "after a second restart",
    );
    assert_eq!(mail_rows(&mut c), 0);
}
