//! Two zones, two server processes, one PostgreSQL database: a player's
//! backpack follows the player across the border, handed from one server
//! to the other exactly once; then the player mails a stack of berries to
//! the guild chest in the other zone, which has room for part of it, and
//! the rest comes back.
//!
//! ```sh
//! # two servers and a player who crosses back and forth, every item
//! # checked after every crossing (starts a throwaway PostgreSQL, or uses
//! # the database at BEVY_CONTAINER_PG)
//! cargo run --example zones --features postgres -- --script
//! # one zone server on a database you run, driven by lines on stdin
//! cargo run --example zones --features postgres -- --server north --db postgresql://...
//! ```
//!
//! A server reads commands on stdin, one a line, and answers on stdout:
//! `spawn ID` (a new backpack), `deliver ID ITEM N`, `take ID ITEM N`,
//! `cross ID SERVER` (the player walks into the other zone: its backpack
//! is handed over), `chest ID` (a new guild chest: two slots, and what does
//! not fit goes back to its sender), `mail ID TO ITEM N` (mails N items from
//! the first slot of ID to the container TO, wherever it is), `show ID`
//! (prints `ID: ITEM N, ...` once the container is in this zone and ready,
//! `ID: not here` otherwise), `quit`. The
//! script plays the player's client: it talks to the server of the zone
//! the player is in, as a game client would connect to it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_container::persist::{
    ContainerArrived, ContainerDatabase, ContainerDatabasePlugin, HandOver, MailAnswered,
    MailNotSent, MailReceived, MailSent, PersistentEntities, PersistentId, SendMail, ServerId,
    ThrowawayPostgres,
};
use bevy_container::plugin::{
    Container, ContainerContents, ContainerPlugin, ContainerSystems, Deliver, Take,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let code = if args.iter().any(|a| a == "--script") {
        match script() {
            Ok(()) => {
                println!(
                    "zones: every crossing and the mail checked, every item where it should be"
                );
                0
            }
            Err(e) => {
                eprintln!("zones: {e}");
                1
            }
        }
    } else if let (Some(server), Some(db)) = (flag("--server"), flag("--db")) {
        run_server(&server, &db)
    } else {
        eprintln!("usage: zones --script | zones --server NAME --db POSTGRES_URL");
        2
    };
    std::process::exit(code);
}

// ---------------------------------------------------------------------------
// A zone server.

/// The lines read from stdin, waiting for the next frame.
#[derive(Resource)]
struct Commands(Mutex<Receiver<String>>);

fn run_server(server: &str, url: &str) -> i32 {
    let db = match ContainerDatabase::open_as(url, ServerId::new(server)) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    App::new()
        .add_plugins((
            MinimalPlugins.set(bevy::app::ScheduleRunnerPlugin::run_loop(
                Duration::from_secs_f64(1.0 / 60.0),
            )),
            AssetPlugin {
                file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").into(),
                ..default()
            },
            ContainerPlugin::default(),
            ContainerDatabasePlugin::new(db),
        ))
        .insert_resource(Commands(Mutex::new(receive)))
        .add_systems(
            Update,
            (
                obey.before(ContainerSystems::Requests),
                report_arrivals,
                report_mail,
            ),
        )
        .run();
    0
}

fn report_arrivals(mut arrived: MessageReader<ContainerArrived>) {
    for a in arrived.read() {
        eprintln!("arrived: {}", a.id);
    }
}

/// What mail did, on stderr (the script reads stdout).
fn report_mail(
    mut sent: MessageReader<MailSent>,
    mut not_sent: MessageReader<MailNotSent>,
    mut received: MessageReader<MailReceived>,
    mut answered: MessageReader<MailAnswered>,
) {
    for m in sent.read() {
        eprintln!("mail {}: {} {} sent to {}", m.mail, m.amount, m.item, m.to);
    }
    for m in not_sent.read() {
        eprintln!("mail to {} not sent: {}", m.request.to, m.why);
    }
    for m in received.read() {
        eprintln!(
            "mail {} from {}: {} of {} {} landed, {} go back",
            m.mail, m.from, m.landed, m.offered, m.item, m.came_back
        );
    }
    for m in answered.read() {
        eprintln!(
            "mail {} answered: {} landed, {} came back ({} into the pack, {} on the ground)",
            m.mail, m.landed, m.came_back, m.kept, m.dropped
        );
    }
}

/// Answers the commands of the frame.
#[allow(clippy::too_many_arguments)] // a command each: one writer per kind of answer
fn obey(
    lines: Res<Commands>,
    ids: Res<PersistentEntities>,
    contents: Query<&ContainerContents>,
    server: Res<AssetServer>,
    mut commands: bevy::prelude::Commands,
    mut hand_over: MessageWriter<HandOver>,
    mut mail: MessageWriter<SendMail>,
    mut exit: MessageWriter<AppExit>,
) {
    let lines: Vec<String> = match lines.0.lock() {
        Ok(r) => r.try_iter().collect(),
        Err(_) => return,
    };
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let here = |id: &str| ids.get(id);
        match words.as_slice() {
            ["spawn", id] | ["chest", id] => {
                let file = if words[0] == "spawn" {
                    "backpack.adoption.json"
                } else {
                    "guild-chest.adoption.json"
                };
                commands.spawn((PersistentId::new(*id), Container::new(server.load(file))));
                println!("ok");
            }
            ["mail", id, to, item, n] => {
                let (Some(e), Ok(n)) = (here(id), n.parse::<u32>()) else {
                    println!("error: {id} is not here");
                    continue;
                };
                mail.write(SendMail::new(e, *to, *item, n).from_slot(0));
                println!("ok");
            }
            ["deliver", id, item, n] | ["take", id, item, n] => {
                let (Some(e), Ok(n)) = (here(id), n.parse::<u32>()) else {
                    println!("error: {id} is not here");
                    continue;
                };
                if words[0] == "deliver" {
                    commands.write_message(bevy_container::plugin::ContainerRequest::from(
                        Deliver::new(e, *item, n),
                    ));
                } else {
                    commands.write_message(bevy_container::plugin::ContainerRequest::from(
                        Take::new(e, *item, n).from_slot(0),
                    ));
                }
                println!("ok");
            }
            ["cross", id, to] => match here(id) {
                Some(e) => {
                    hand_over.write(HandOver {
                        container: e,
                        to: ServerId::new(*to),
                    });
                    println!("ok");
                }
                None => println!("error: {id} is not here"),
            },
            ["show", id] => match here(id).and_then(|e| contents.get(e).ok()) {
                Some(c) if c.is_ready() => println!("{id}: {}", describe(c)),
                _ => println!("{id}: not here"),
            },
            ["quit"] => {
                println!("ok");
                exit.write(AppExit::Success);
            }
            _ => println!("error: unknown command {line:?}"),
        }
        let _ = std::io::stdout().flush();
    }
}

/// `berries 25, axe 1`: every type and its count, sorted by type.
fn describe(c: &ContainerContents) -> String {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (item, n) in c.slots().iter().flatten() {
        *counts.entry(item.to_string()).or_default() += u64::from(*n);
    }
    let parts: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    if parts.is_empty() {
        "empty".into()
    } else {
        parts.join(", ")
    }
}

// ---------------------------------------------------------------------------
// The script: two servers and the player's client.

/// A server process and its pipes.
struct Zone {
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Zone {
    fn start(name: &'static str, url: &str) -> Result<Zone, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .args(["--server", name, "--db", url])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {name}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Zone {
            name,
            child,
            stdin,
            stdout,
        })
    }

    /// Sends a command; its one-line answer.
    fn ask(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}").map_err(|e| format!("{}: {e}", self.name))?;
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .map_err(|e| format!("{}: {e}", self.name))?;
        if line.is_empty() {
            return Err(format!("{} exited", self.name));
        }
        Ok(line.trim().to_string())
    }

    /// Asks until the backpack `id` is here and ready: its contents.
    fn wait_for(&mut self, id: &str) -> Result<String, String> {
        let since = Instant::now();
        loop {
            let answer = self.ask(&format!("show {id}"))?;
            if !answer.ends_with("not here") {
                return Ok(answer);
            }
            if since.elapsed() > Duration::from_secs(20) {
                return Err(format!("{id} never reached {}", self.name));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Zone {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
    }
}

/// Waits until the backpack is in `zone` and holds `want` (a request is
/// answered in the frame it is read or the next).
fn expect(zone: &mut Zone, id: &str, want: &BTreeMap<&str, u64>) -> Result<(), String> {
    let parts: Vec<String> = want.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let want = format!("{id}: {}", parts.join(", "));
    let since = Instant::now();
    loop {
        let got = zone.wait_for(id)?;
        if got == want {
            println!("{}: {got}", zone.name);
            return Ok(());
        }
        if since.elapsed() > Duration::from_secs(5) {
            return Err(format!("in {}: {got}, expected {want}", zone.name));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn script() -> Result<(), String> {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("bevy_container_zones")?;
    let mut zones = [Zone::start("north", &url)?, Zone::start("south", &url)?];
    let id = "pack-of-ilsa";
    let mut want: BTreeMap<&str, u64> = BTreeMap::new();
    zones[0].ask(&format!("spawn {id}"))?;
    zones[0].wait_for(id)?;
    zones[0].ask(&format!("deliver {id} berries 25"))?;
    zones[0].ask(&format!("deliver {id} axe 1"))?;
    want.insert("berries", 25);
    want.insert("axe", 1);
    expect(&mut zones[0], id, &want)?;
    for crossing in 0..6 {
        let (from, to) = if crossing % 2 == 0 { (0, 1) } else { (1, 0) };
        let to_name = zones[to].name;
        zones[from].ask(&format!("cross {id} {to_name}"))?;
        expect(&mut zones[to], id, &want)?;
        // it is in one zone only
        let there = zones[from].ask(&format!("show {id}"))?;
        if !there.ends_with("not here") {
            return Err(format!("{id} is still in {}: {there}", zones[from].name));
        }
        // the player eats a berry and picks two in this zone
        zones[to].ask(&format!("take {id} berries 1"))?;
        zones[to].ask(&format!("deliver {id} berries 2"))?;
        *want.entry("berries").or_default() += 1;
        expect(&mut zones[to], id, &want)?;
    }
    mail_to_the_guild_chest(&mut zones, id, want)
}

/// The player, in the north, mails the 20 berries of the pack's first slot
/// to the guild chest in the south, which has room for 15: 15 land, 5 come
/// back into the pack.
fn mail_to_the_guild_chest(
    zones: &mut [Zone; 2],
    id: &str,
    mut want: BTreeMap<&str, u64>,
) -> Result<(), String> {
    let chest = "guild-chest";
    zones[1].ask(&format!("chest {chest}"))?;
    zones[1].wait_for(chest)?;
    zones[1].ask(&format!("deliver {chest} berries 25"))?;
    let mut in_chest: BTreeMap<&str, u64> = BTreeMap::from([("berries", 25)]);
    expect(&mut zones[1], chest, &in_chest)?;
    expect(&mut zones[0], id, &want)?;
    zones[0].ask(&format!("mail {id} {chest} berries 20"))?;
    *want.entry("berries").or_default() -= 15;
    in_chest.insert("berries", 40);
    expect(&mut zones[1], chest, &in_chest)?;
    expect(&mut zones[0], id, &want)?;
    println!("mail: 15 berries landed in the south's {chest}, 5 came back to {id}");
    Ok(())
}
