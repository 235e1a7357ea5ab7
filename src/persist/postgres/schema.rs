//! Connecting, the schema's version and its migrations, and what the
//! server said, as errors a game can act on.

use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};

use crate::persist::frame::error::DatabaseError;
use crate::persist::servers::ServerId;

/// The schema version this build writes, in the table `container_schema`.
/// An older one is migrated when a server opens the database; a newer one
/// is refused.
///
/// | version | what it added |
/// | --- | --- |
/// | 1 | `servers` (each server's last frame and next pickup number), `containers` and `pickups` (as in SQLite, with `owner` and `epoch`), `handovers` (containers given to a server that has not spawned them yet) |
/// | 2 | `mail` (items in flight to a container, and the answers coming back) |
/// | 3 | `servers.generation`: raised each time a server id opens the database; every write of that id checks it, so an older process of the id writes nothing |
/// | 4 | `containers` and `pickups` leave half of each page free (`fillfactor = 50`): a frame's update of a row stays on its page, with no index written (a HOT update); 1,000 rows updated in half the time |
pub const SCHEMA_VERSION: i64 = 4;

/// Migration `i` takes a database from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    "
    CREATE TABLE servers (
        id TEXT PRIMARY KEY,
        frame BIGINT NOT NULL CHECK (frame >= 0),
        next_pickup BIGINT NOT NULL CHECK (next_pickup >= 1)
    );
    CREATE TABLE containers (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        adoption TEXT NOT NULL,
        contents TEXT NOT NULL,
        store TEXT
    );
    CREATE INDEX containers_owner ON containers (owner);
    CREATE TABLE pickups (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        item TEXT NOT NULL,
        amount BIGINT NOT NULL,
        props TEXT NOT NULL,
        x DOUBLE PRECISION NOT NULL,
        y DOUBLE PRECISION NOT NULL,
        z DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX pickups_owner ON pickups (owner);
    CREATE TABLE handovers (
        id TEXT PRIMARY KEY,
        to_server TEXT NOT NULL,
        epoch BIGINT NOT NULL
    );
    CREATE INDEX handovers_to ON handovers (to_server);
",
    "
    CREATE TABLE mail (
        id TEXT PRIMARY KEY,
        seq BIGSERIAL NOT NULL,
        target TEXT NOT NULL,
        item TEXT NOT NULL,
        props TEXT NOT NULL,
        amount BIGINT NOT NULL CHECK (amount >= 0),
        reply_to TEXT,
        origin TEXT NOT NULL,
        answers TEXT,
        landed BIGINT NOT NULL CHECK (landed >= 0)
    );
    CREATE INDEX mail_target ON mail (target);
    CREATE INDEX mail_origin ON mail (origin);
",
    "
    ALTER TABLE servers ADD COLUMN generation BIGINT NOT NULL DEFAULT 0 CHECK (generation >= 0);
",
    "
    ALTER TABLE containers SET (fillfactor = 50);
    ALTER TABLE pickups SET (fillfactor = 50);
",
];

/// How long a session may sit in an open transaction before PostgreSQL
/// ends it: a server paused (or stuck) inside its frame's transaction
/// holds row locks, and a claim must not wait for it for ever.
pub(super) const IDLE_IN_TRANSACTION: Duration = Duration::from_secs(5);

/// How long a statement waits for a row lock before it fails.
pub(super) const LOCK_TIMEOUT: Duration = Duration::from_secs(15);

/// What went wrong, in words: the server's code and message, or the
/// client's own error and its cause.
pub(super) fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

/// `url` read as a connection's settings, and its name for errors (the
/// password hidden).
pub(super) fn parse_url(url: &str) -> Result<(Config, String), DatabaseError> {
    let name = super::hide_password(url);
    match url.parse() {
        Ok(config) => Ok((config, name)),
        Err(e) => Err(DatabaseError::Invalid {
            path: name,
            message: format!("not a PostgreSQL URL: {}", describe(&e)),
            fix: "write it as postgresql://USER@HOST:PORT/DATABASE (or postgresql://USER@/DATABASE?host=SOCKET_DIR)".into(),
        }),
    }
}

/// The error a game can act on.
pub(super) fn error(name: &str, e: &postgres::Error) -> DatabaseError {
    let path = name.to_string();
    let message = describe(e);
    if let Some(fix) = e.code().and_then(|c| advice(c, &message)) {
        return DatabaseError::Refused { path, message, fix };
    }
    match e.code() {
        Some(c)
            if *c == SqlState::INVALID_PASSWORD
                || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
        {
            DatabaseError::Authentication { path, message }
        }
        Some(c) if *c == SqlState::UNDEFINED_TABLE || *c == SqlState::UNDEFINED_COLUMN => {
            DatabaseError::Damaged { path, message }
        }
        // the session ended under it (a failover, a restart, an operator's
        // pg_terminate_backend, the idle timeout) or the server is a
        // standby: the connection's error, not the database's
        Some(c) if session_lost(c) => DatabaseError::Connect { path, message },
        Some(_) => DatabaseError::Open { path, message },
        // a cell the crate's schema does not allow (a null, another type):
        // the schema was changed by hand, not the connection lost
        None if e.to_string().starts_with("error deserializing column") => {
            DatabaseError::Damaged { path, message }
        }
        None => DatabaseError::Connect { path, message },
    }
}

/// Whether PostgreSQL's code says the session ended or the server cannot
/// take writes (a standby, or a primary demoted under the connection):
/// what a new connection, to the primary, mends.
fn session_lost(code: &SqlState) -> bool {
    *code == SqlState::ADMIN_SHUTDOWN
        || *code == SqlState::CRASH_SHUTDOWN
        || *code == SqlState::CANNOT_CONNECT_NOW
        || *code == SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT
        || *code == SqlState::READ_ONLY_SQL_TRANSACTION
}

/// PostgreSQL's own fix for the refusals a first setup meets: a database
/// or a role that does not exist, a permission missing.
fn advice(code: &SqlState, message: &str) -> Option<String> {
    if *code == SqlState::INVALID_CATALOG_NAME {
        return Some(
            "create the database (`createdb NAME`, or `CREATE DATABASE name;` in psql) or fix the database name at the end of the URL".into(),
        );
    }
    if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION && message.contains("does not exist")
    {
        return Some(
            "create the role (`createuser NAME`, or `CREATE ROLE name LOGIN;` in psql) or fix the user in the URL".into(),
        );
    }
    if *code == SqlState::INSUFFICIENT_PRIVILEGE {
        return Some(
            "grant the URL's role what the crate needs: `GRANT CONNECT, CREATE ON DATABASE name TO role;` and `GRANT ALL ON SCHEMA public TO role;` (the crate creates and migrates its tables), or use the database's owner".into(),
        );
    }
    None
}

/// Whether `e` means the connection is gone (the server restarted, the
/// session was ended), not that a statement was wrong.
pub(super) fn is_disconnect(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(c) => {
            // the session ended, or a primary was demoted under the
            // connection (a failover): the next connection finds the
            // read-write one
            session_lost(c)
                // a lock waited for too long, a deadlock, a serialization
                // failure: nothing was written, the frame is tried again
                // (on a new connection, after reading whether it committed)
                || *c == SqlState::LOCK_NOT_AVAILABLE
                || *c == SqlState::T_R_DEADLOCK_DETECTED
                || *c == SqlState::T_R_SERIALIZATION_FAILURE
        }
        None => true,
    }
}

/// Connects as `server`: the session's timeouts set, and the server's lock
/// taken (one process per server id).
pub(super) fn connect(
    config: &Config,
    name: &str,
    server: &ServerId,
) -> Result<Client, DatabaseError> {
    let mut client = connect_plain(config, name)?;
    name_session(&mut client, name, server)?;
    lock(&mut client, name, server)?;
    Ok(client)
}

/// Names the session after the server (`bevy_container north`), as an
/// operator sees it in `pg_stat_activity`.
pub(super) fn name_session(
    client: &mut Client,
    name: &str,
    server: &ServerId,
) -> Result<(), DatabaseError> {
    client
        .batch_execute(&format!(
            "SET application_name = 'bevy_container {}'",
            server.as_str().replace('\'', "")
        ))
        .map_err(|e| error(name, &e))
}

/// Takes the server's lock on `client`'s session: one process per server
/// id at a time (the generation fences a process whose session was cut).
pub(super) fn lock(
    client: &mut Client,
    name: &str,
    server: &ServerId,
) -> Result<(), DatabaseError> {
    let locked: bool = client
        .query_one(
            "SELECT pg_try_advisory_lock(hashtext('bevy_container'), hashtext($1))",
            &[&server.as_str()],
        )
        .and_then(|row| row.try_get(0))
        .map_err(|e| error(name, &e))?;
    if !locked {
        return Err(DatabaseError::ServerInUse {
            path: name.to_string(),
            server: server.to_string(),
        });
    }
    Ok(())
}

/// Connects for listening: the timeouts, no lock.
pub(super) fn connect_plain(config: &Config, name: &str) -> Result<Client, DatabaseError> {
    let mut client = config.connect(NoTls).map_err(|e| error(name, &e))?;
    client
        .batch_execute(&format!(
            "SET idle_in_transaction_session_timeout = {}; SET lock_timeout = {}",
            IDLE_IN_TRANSACTION.as_millis(),
            LOCK_TIMEOUT.as_millis()
        ))
        .map_err(|e| error(name, &e))?;
    Ok(client)
}

/// Registers `server` as opened once more: its generation goes up by one
/// (a new id starts at generation 1, frame 0), committed before anything
/// is read, so from here on every write of an older process of the id is
/// refused. Returns the generation this process holds.
pub(super) fn register(
    client: &mut Client,
    name: &str,
    server: &ServerId,
) -> Result<i64, DatabaseError> {
    client
        .query_one(
            "INSERT INTO servers (id, frame, next_pickup, generation) VALUES ($1, 0, 1, 1)
             ON CONFLICT (id) DO UPDATE SET generation = servers.generation + 1 RETURNING generation",
            &[&server.as_str()],
        )
        .and_then(|row| row.try_get(0))
        .map_err(|e| error(name, &e))
}

/// What the database holds for a server: its last frame and generation
/// (`None`: no row, the database never saw it or forgot it).
pub(super) fn standing(
    client: &mut impl postgres::GenericClient,
    server: &ServerId,
    for_update: bool,
) -> Result<Option<(u64, i64)>, postgres::Error> {
    let sql = if for_update {
        "SELECT frame, generation FROM servers WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT frame, generation FROM servers WHERE id = $1"
    };
    let Some(row) = client.query_opt(sql, &[&server.as_str()])? else {
        return Ok(None);
    };
    Ok(Some(standing_of(row.try_get(0)?, row.try_get(1)?)))
}

/// A server's row as [`standing`] answers it: its frame (never below 0)
/// and its generation.
pub(super) fn standing_of(frame: i64, generation: i64) -> (u64, i64) {
    (frame.max(0) as u64, generation)
}

/// Brings the schema to [`SCHEMA_VERSION`]; a newer schema, or tables of
/// another program under this crate's names, are refused before anything
/// changes. Servers starting together migrate one at a time.
pub(super) fn migrate(client: &mut Client, name: &str) -> Result<(), DatabaseError> {
    let e = |e: postgres::Error| error(name, &e);
    let mut tx = client.transaction().map_err(e)?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('bevy_container'), 0)",
        &[],
    )
    .map_err(e)?;
    let tables: Vec<String> = tx
        .query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('container_schema', 'servers', 'containers', 'pickups', 'handovers', 'mail')",
            &[],
        )
        .map_err(e)?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(e)?;
    let version: i64 = if tables.iter().any(|t| t == "container_schema") {
        tx.query_one("SELECT version FROM container_schema", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|err| version_unread(name, &err))?
    } else if !tables.is_empty() {
        return Err(DatabaseError::Damaged {
            path: name.to_string(),
            message: format!(
                "it holds tables named {} that are not this crate's (no table container_schema)",
                tables.join(", ")
            ),
        });
    } else {
        tx.batch_execute("CREATE TABLE container_schema (version BIGINT NOT NULL); INSERT INTO container_schema VALUES (0)")
            .map_err(e)?;
        0
    };
    if version > SCHEMA_VERSION {
        return Err(DatabaseError::Newer {
            path: name.to_string(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        tx.batch_execute(sql).map_err(e)?;
        tx.execute(
            "UPDATE container_schema SET version = $1",
            &[&(from as i64 + 1)],
        )
        .map_err(e)?;
    }
    tx.commit().map_err(e)
}

/// Why the schema's version could not be read: the connection lost on
/// the way (a failover, a session ended: start again), or a table
/// `container_schema` without its one row of a number (damaged). A
/// failover while a server started was once called a damaged database,
/// whose fix is a backup.
fn version_unread(name: &str, err: &postgres::Error) -> DatabaseError {
    // the server's goodbye read (a code), the socket found closed, or a
    // write to it failed (`Broken pipe`): which one a cut session gives
    // depends on when the client next writes
    let io = std::error::Error::source(err).is_some_and(|s| s.is::<std::io::Error>());
    let lost = err.is_closed() || io || (err.code().is_some() && is_disconnect(err));
    if lost {
        return error(name, err);
    }
    DatabaseError::Damaged {
        path: name.to_string(),
        message: format!("table container_schema: {}", describe(err)),
    }
}

#[cfg(test)]
mod tests;
