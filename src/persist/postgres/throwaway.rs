//! A PostgreSQL cluster of its own, in a temporary folder, for tests and
//! examples: started with the machine's PostgreSQL binaries, reached over
//! a Unix socket in that folder, removed when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

/// A throwaway PostgreSQL cluster (feature `postgres`): `initdb` into a
/// temporary folder and `pg_ctl start` with a Unix socket in it, no TCP.
/// Stopped and removed when dropped. As root, it runs as the `postgres`
/// user (PostgreSQL refuses to run as root).
///
/// [`ThrowawayPostgres::url_for_tests`] is what the crate's tests and
/// examples use: the URL in `BEVY_CONTAINER_PG` when it is set, a
/// throwaway cluster otherwise.
///
/// ```no_run
/// use bevy_container::persist::{ContainerDatabase, ServerId, ThrowawayPostgres};
/// let pg = ThrowawayPostgres::start()?;
/// let url = pg.database("zones")?;
/// let north = ContainerDatabase::open_as(&url, ServerId::new("north"))?;
/// # drop(north);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// With a standby ([`ThrowawayPostgres::start_with`]), the cluster is a
/// primary and a streaming standby on two ports of the same socket
/// folder, and its URL names both with `target_session_attrs=read-write`,
/// as a game's URL names the hosts a failover manager moves the primary
/// between. [`ThrowawayPostgres::fail_over`] stops the primary at once
/// and promotes the standby; [`ThrowawayPostgres::make_standby`] makes a
/// new standby from the new primary.
///
/// ```no_run
/// use bevy_container::persist::{Replication, ThrowawayOptions, ThrowawayPostgres};
/// let pg = ThrowawayPostgres::start_with(ThrowawayOptions {
///     standby: Some(Replication::Synchronous),
///     ..ThrowawayOptions::default()
/// })?;
/// let url = pg.database("world")?; // both hosts, the read-write one chosen
/// pg.fail_over()?; // the primary gone, the standby promoted
/// pg.make_standby()?; // and a new standby behind it
/// # let _ = url;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ThrowawayPostgres {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
    options: ThrowawayOptions,
    /// The nodes' state: which is the primary, which run.
    nodes: Mutex<Nodes>,
}

/// How a standby follows its primary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replication {
    /// A commit returns once the standby has it
    /// (`synchronous_standby_names = '*'`): a failover loses no committed
    /// frame; every commit waits for the standby.
    Synchronous,
    /// A commit returns at once; the standby follows behind. A failover
    /// can lose the last committed frames (the servers detect it:
    /// [`DatabaseError::Behind`](crate::persist::DatabaseError::Behind)).
    Asynchronous,
}

/// What a [`ThrowawayPostgres`] is made of.
///
/// ```
/// use bevy_container::persist::ThrowawayOptions;
/// let options = ThrowawayOptions::default();
/// assert!(options.standby.is_none() && !options.fsync);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThrowawayOptions {
    /// A standby beside the primary, and how it follows.
    pub standby: Option<Replication>,
    /// Whether the cluster flushes to disk (PostgreSQL's default, `true`,
    /// is what a game's database does; off by default here, for tests).
    pub fsync: bool,
}

/// A node: its data folder and port.
#[derive(Debug, Clone, Copy)]
struct Node {
    port: u16,
    running: bool,
}

#[derive(Debug)]
struct Nodes {
    list: Vec<Node>,
    primary: usize,
}

/// Where the PostgreSQL binaries are: on the `PATH`, or the newest under
/// `/usr/lib/postgresql/*/bin`.
fn binaries() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file());
    if let Some(dir) = on_path {
        // a link on the PATH (/usr/local/bin/initdb) stands for the
        // folder of every binary, pg_basebackup included
        let real = std::fs::canonicalize(dir.join("initdb"))
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        return Ok(real.unwrap_or(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|d| d.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().ok_or_else(|| {
        "no PostgreSQL binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql/*/bin: install the Debian package `postgresql` (apt-get install postgresql), or set BEVY_CONTAINER_PG to the URL of a database to use".to_string()
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

impl ThrowawayPostgres {
    /// Starts a new cluster (one node, `fsync` off); the error says what
    /// is missing and how to install it.
    pub fn start() -> Result<ThrowawayPostgres, String> {
        ThrowawayPostgres::start_with(ThrowawayOptions::default())
    }

    /// Starts a new cluster as `options` say: with a standby, both are up
    /// when this returns.
    pub fn start_with(options: ThrowawayOptions) -> Result<ThrowawayPostgres, String> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let bin = binaries()?;
        let dir = std::env::temp_dir().join(format!(
            "bevy_container-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let pg = ThrowawayPostgres {
            dir,
            bin,
            as_postgres: is_root(),
            options,
            nodes: Mutex::new(Nodes {
                list: vec![Node {
                    port: 5432,
                    running: false,
                }],
                primary: 0,
            }),
        };
        if pg.as_postgres {
            pg.run(Command::new("chown").arg("postgres").arg(&pg.dir))?;
        }
        pg.run(
            pg.command("initdb")
                .args([
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "-D",
                ])
                .arg(pg.data(0)),
        )?;
        pg.pg_ctl(0, "start")?;
        pg.nodes().list[0].running = true;
        if options.standby.is_some() {
            pg.nodes().list.push(Node {
                port: 5433,
                running: false,
            });
            pg.make_standby()?;
        }
        Ok(pg)
    }

    fn nodes(&self) -> std::sync::MutexGuard<'_, Nodes> {
        self.nodes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The data folder of node `i`.
    fn data(&self, i: usize) -> PathBuf {
        match i {
            0 => self.dir.join("data"),
            i => self.dir.join(format!("data{i}")),
        }
    }

    /// The command `name` of the binaries, as the `postgres` user when
    /// this process is root.
    fn command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    fn run(&self, command: &mut Command) -> Result<(), String> {
        let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{command:?} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// `pg_ctl start`, `stop`, `restart` or `promote` of node `i`, waiting
    /// for it.
    fn pg_ctl(&self, i: usize, what: &str) -> Result<(), String> {
        let port = self.nodes().list[i].port;
        let mut options = format!(
            "-k {} -c listen_addresses='' -p {port} -c max_connections=200",
            self.dir.display()
        );
        if !self.options.fsync {
            options.push_str(" -c fsync=off");
        }
        let mut c = self.command("pg_ctl");
        c.arg("-D").arg(self.data(i)).args(["-w", "-l"]);
        c.arg(self.dir.join(format!("log{i}")))
            .args(["-o", &options, "-m", "fast", what]);
        self.run(&mut c)
    }

    /// Stops node `i` at once (as a crash does: no checkpoint, every
    /// session cut).
    fn stop_now(&self, i: usize) -> Result<(), String> {
        let mut c = self.command("pg_ctl");
        c.arg("-D")
            .arg(self.data(i))
            .args(["-w", "-m", "immediate", "stop"]);
        self.run(&mut c)?;
        self.nodes().list[i].running = false;
        Ok(())
    }

    /// Restarts the primary (every connection is ended).
    pub fn restart(&self) -> Result<(), String> {
        let primary = self.nodes().primary;
        self.pg_ctl(primary, "restart")
    }

    /// The primary dies (stopped at once) and the standby is promoted in
    /// its place; the URL's read-write host is the standby's from here.
    /// Until [`ThrowawayPostgres::make_standby`], the new primary has no
    /// standby, and commits do not wait for one.
    pub fn fail_over(&self) -> Result<(), String> {
        let (old, new) = {
            let nodes = self.nodes();
            if nodes.list.len() < 2 {
                return Err(
                    "this cluster has no standby to fail over to (ThrowawayOptions::standby)"
                        .into(),
                );
            }
            (nodes.primary, 1 - nodes.primary)
        };
        self.stop_now(old)?;
        if !self.nodes().list[new].running {
            // an asynchronous standby stopped to lag behind: it starts as
            // it is (its primary gone), missing what it never received
            self.pg_ctl(new, "start")?;
            self.nodes().list[new].running = true;
        }
        self.pg_ctl(new, "promote")?;
        self.nodes().primary = new;
        // a promoted synchronous standby carries the setting: commits
        // would wait for a standby that is not there yet
        self.psql(
            new,
            &[
                "ALTER SYSTEM SET synchronous_standby_names = ''",
                "SELECT pg_reload_conf()",
            ],
        )?;
        Ok(())
    }

    /// Makes a new standby from the primary (`pg_basebackup -R`) where the
    /// other node was, starts it, and (when synchronous) has the primary's
    /// commits wait for it from here on.
    pub fn make_standby(&self) -> Result<(), String> {
        let (standby, primary_port) = {
            let nodes = self.nodes();
            if nodes.list.len() < 2 {
                return Err("this cluster has no standby (ThrowawayOptions::standby)".into());
            }
            (1 - nodes.primary, nodes.list[nodes.primary].port)
        };
        if self.nodes().list[standby].running {
            self.stop_now(standby)?;
        }
        let data = self.data(standby);
        let _ = std::fs::remove_dir_all(&data);
        self.run(
            self.command("pg_basebackup")
                .arg("-D")
                .arg(&data)
                .args([
                    "-R",
                    "-X",
                    "stream",
                    "-c",
                    "fast",
                    "--no-sync",
                    "-U",
                    "postgres",
                    "-h",
                ])
                .arg(&self.dir)
                .args(["-p", &primary_port.to_string()]),
        )?;
        self.pg_ctl(standby, "start")?;
        self.nodes().list[standby].running = true;
        let primary = self.nodes().primary;
        if self.options.standby == Some(Replication::Synchronous) {
            self.psql(
                primary,
                &[
                    "ALTER SYSTEM SET synchronous_standby_names = '*'",
                    "SELECT pg_reload_conf()",
                ],
            )?;
        }
        Ok(())
    }

    /// Waits until the standby has replayed everything the primary
    /// committed so far, then stops it: an asynchronous standby then lags
    /// by exactly what the primary commits from here.
    /// [`ThrowawayPostgres::fail_over`] starts it again as it is.
    pub fn stop_standby(&self) -> Result<(), String> {
        let (standby, primary) = {
            let nodes = self.nodes();
            if nodes.list.len() < 2 {
                return Err("this cluster has no standby (ThrowawayOptions::standby)".into());
            }
            (1 - nodes.primary, nodes.primary)
        };
        let mut client = self.client(primary)?;
        let since = std::time::Instant::now();
        loop {
            let caught_up: bool = client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_stat_replication WHERE replay_lsn >= pg_current_wal_lsn())",
                    &[],
                )
                .and_then(|r| r.try_get(0))
                .map_err(|e| super::schema::describe(&e))?;
            if caught_up {
                break;
            }
            if since.elapsed() > std::time::Duration::from_secs(30) {
                return Err("the standby did not catch up within 30 s".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.stop_now(standby)
    }

    /// A connection to node `i`'s `postgres` database.
    fn client(&self, i: usize) -> Result<postgres::Client, String> {
        let port = self.nodes().list[i].port;
        let url = format!(
            "postgresql://postgres@/postgres?host={}&port={port}",
            self.dir.display()
        );
        postgres::Client::connect(&url, postgres::NoTls)
            .map_err(|e| format!("{url}: {}", super::schema::describe(&e)))
    }

    /// Runs each of `statements` on node `i` as `postgres`, one at a time
    /// (`ALTER SYSTEM` refuses to run inside a transaction).
    fn psql(&self, i: usize, statements: &[&str]) -> Result<(), String> {
        let mut client = self.client(i)?;
        for sql in statements {
            client
                .batch_execute(sql)
                .map_err(|e| format!("{sql}: {}", super::schema::describe(&e)))?;
        }
        Ok(())
    }

    /// The folder of the cluster's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of the cluster's `postgres` database: with a standby, both
    /// nodes, the read-write one chosen at each connection.
    pub fn url(&self) -> String {
        let nodes = self.nodes();
        let dir = self.dir.display().to_string();
        if nodes.list.len() == 1 {
            return format!(
                "postgresql://postgres@/postgres?host={dir}&port={}",
                nodes.list[0].port
            );
        }
        // a URL's `host` parameter is one socket folder: one per node
        let hosts: Vec<String> = nodes.list.iter().map(|_| format!("host={dir}")).collect();
        let ports: Vec<String> = nodes.list.iter().map(|n| n.port.to_string()).collect();
        format!(
            "postgresql://postgres@/postgres?{}&port={}&target_session_attrs=read-write",
            hosts.join("&"),
            ports.join(",")
        )
    }

    /// A new, empty database `name` in the cluster; its URL.
    pub fn database(&self, name: &str) -> Result<String, String> {
        fresh_database(&self.url(), name)
    }

    /// A new, empty database named `name` for a test or an example: in the
    /// PostgreSQL at `BEVY_CONTAINER_PG` when that is set (the cluster is
    /// `None` then), or in a throwaway cluster started here, which lives as
    /// long as the returned value.
    pub fn url_for_tests(name: &str) -> Result<(Option<ThrowawayPostgres>, String), String> {
        match std::env::var("BEVY_CONTAINER_PG") {
            Ok(base) if !base.is_empty() => Ok((None, fresh_database(&base, name)?)),
            _ => {
                let pg = ThrowawayPostgres::start()?;
                let url = pg.database(name)?;
                Ok((Some(pg), url))
            }
        }
    }
}

/// Drops and creates the database `name` through `base`; the URL of the
/// new one.
fn fresh_database(base: &str, name: &str) -> Result<String, String> {
    let mut client = postgres::Client::connect(base, postgres::NoTls).map_err(|e| {
        format!(
            "{}: {}",
            super::hide_password(base),
            super::schema::describe(&e)
        )
    })?;
    let quoted = name.replace('"', "");
    for sql in [
        format!("DROP DATABASE IF EXISTS \"{quoted}\""),
        format!("CREATE DATABASE \"{quoted}\""),
    ] {
        client
            .batch_execute(&sql)
            .map_err(|e| super::schema::describe(&e))?;
    }
    Ok(with_database(base, &quoted))
}

/// `url` naming the database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let Some(scheme) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme + 3..];
    let query = rest.find('?').map_or("", |q| &rest[q..]);
    let before_query = &rest[..rest.len() - query.len()];
    let authority = before_query.split('/').next().unwrap_or("");
    format!("{}{authority}/{name}{query}", &url[..scheme + 3])
}

impl Drop for ThrowawayPostgres {
    fn drop(&mut self) {
        let count = self.nodes().list.len();
        for i in 0..count {
            let _ = self.stop_now(i);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_names_another_database() {
        assert_eq!(
            super::with_database("postgresql://postgres@/postgres?host=/tmp/x", "zones"),
            "postgresql://postgres@/zones?host=/tmp/x"
        );
        assert_eq!(
            super::with_database("postgresql://u:p@db:5432/main", "t1"),
            "postgresql://u:p@db:5432/t1"
        );
    }
}
