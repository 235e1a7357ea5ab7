//! A PostgreSQL cluster of its own, in a temporary folder, for tests and
//! examples: started with the machine's PostgreSQL binaries, reached over
//! a Unix socket in that folder, removed when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

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
pub struct ThrowawayPostgres {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
}

/// Where the PostgreSQL binaries are: on the `PATH`, or the newest under
/// `/usr/lib/postgresql/*/bin`.
fn binaries() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file());
    if let Some(dir) = on_path {
        return Ok(dir);
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
    /// Starts a new cluster; the error says what is missing and how to
    /// install it.
    pub fn start() -> Result<ThrowawayPostgres, String> {
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
        };
        if pg.as_postgres {
            pg.run(Command::new("chown").arg("postgres").arg(&pg.dir))?;
        }
        let data = pg.dir.join("data");
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
                .arg(&data),
        )?;
        pg.pg_ctl("start")?;
        Ok(pg)
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

    /// `pg_ctl start`, `stop` or `restart`, waiting for it.
    fn pg_ctl(&self, what: &str) -> Result<(), String> {
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=200",
            self.dir.display()
        );
        let mut c = self.command("pg_ctl");
        c.arg("-D").arg(self.dir.join("data")).args(["-w", "-l"]);
        c.arg(self.dir.join("log"))
            .args(["-o", &options, "-m", "fast", what]);
        self.run(&mut c)
    }

    /// Restarts the cluster (every connection is ended).
    pub fn restart(&self) -> Result<(), String> {
        self.pg_ctl("restart")
    }

    /// The folder of the cluster's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!(
            "postgresql://postgres@/postgres?host={}",
            self.dir.display()
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
        let mut c = self.command("pg_ctl");
        c.arg("-D")
            .arg(self.dir.join("data"))
            .args(["-w", "-m", "immediate", "stop"]);
        let _ = c.output();
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
