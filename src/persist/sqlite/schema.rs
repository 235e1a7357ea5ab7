//! The file: opening it for this process alone, its schema version and the
//! migrations from each older version.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::Synchronous;
use crate::persist::frame::error::DatabaseError;

/// The schema version this build writes (SQLite's `user_version`). Files
/// of an older version are migrated when opened; a newer one is refused.
///
/// | version | what it added |
/// | --- | --- |
/// | 1 | `containers` (id, adoption, contents as save JSON, store id), `pickups` (id, item, amount, x, y, z), `frame` (the last frame written, the next pickup number) |
/// | 2 | `pickups.props`: a loose pickup's item properties (a container's are in its save) |
pub const SCHEMA_VERSION: i64 = 2;

/// Migration `i` takes a file from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    "CREATE TABLE frame (
         only INTEGER PRIMARY KEY CHECK (only = 0),
         frame INTEGER NOT NULL,
         next_pickup INTEGER NOT NULL
     );
     INSERT INTO frame VALUES (0, 0, 1);
     CREATE TABLE containers (
         id TEXT PRIMARY KEY NOT NULL,
         adoption TEXT NOT NULL,
         contents TEXT NOT NULL,
         store TEXT
     );
     CREATE TABLE pickups (
         id TEXT PRIMARY KEY NOT NULL,
         item TEXT NOT NULL,
         amount INTEGER NOT NULL,
         x REAL NOT NULL,
         y REAL NOT NULL,
         z REAL NOT NULL
     );",
    "ALTER TABLE pickups ADD COLUMN props TEXT NOT NULL DEFAULT '';",
];

/// What SQLite said, as the error a game can act on.
pub(super) fn error(path: &str, e: rusqlite::Error) -> DatabaseError {
    let path = path.to_string();
    let message = e.to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => DatabaseError::Locked { path },
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => {
            DatabaseError::ReadOnly { path, message }
        }
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            DatabaseError::Damaged { path, message }
        }
        _ => DatabaseError::Open { path, message },
    }
}

/// Opens (or creates) the file, takes it for this connection alone, and
/// brings its schema to [`SCHEMA_VERSION`].
pub(super) fn open(path: &Path) -> Result<Connection, DatabaseError> {
    let name = path.display().to_string();
    let e = |e| error(&name, e);
    // a `file:` URI is read as one (`file:world.db?mode=ro`)
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut connection = Connection::open_with_flags(path, flags).map_err(e)?;
    // SQLite opens a file it may not write read-only, without a word
    if connection.is_readonly(rusqlite::MAIN_DB).map_err(e)? {
        return Err(DatabaseError::ReadOnly {
            path: name,
            message: "SQLite could open it for reading only".into(),
        });
    }
    // a file another process holds is refused at once, not waited for
    connection.busy_timeout(Duration::ZERO).map_err(e)?;
    // set before the first access: the lock is taken by the first
    // transaction and held until the connection closes, and WAL needs no
    // shared memory file
    connection
        .pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(e)?;
    // a file this build will not use is refused before anything in it
    // changes (entering WAL rewrites the file's header)
    check_version(&connection, &name)?;
    let mode: String = connection
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(e)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(DatabaseError::Open {
            path: name,
            message: format!("SQLite kept journal mode {mode} instead of WAL"),
        });
    }
    migrate(&mut connection, &name)?;
    Ok(connection)
}

/// The file's schema version, when this build can use the file: not a
/// newer version, not another program's tables.
fn check_version(connection: &Connection, name: &str) -> Result<i64, DatabaseError> {
    let e = |e| error(name, e);
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(e)?;
    if version > SCHEMA_VERSION {
        return Err(DatabaseError::Newer {
            path: name.to_string(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 0 {
        return Err(DatabaseError::Damaged {
            path: name.to_string(),
            message: format!("schema version {version}"),
        });
    }
    if version == 0 {
        let tables: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(e)?;
        if tables > 0 {
            return Err(DatabaseError::Damaged {
                path: name.to_string(),
                message: format!(
                    "it holds {tables} tables of something else, and no schema version"
                ),
            });
        }
    }
    Ok(version)
}

fn migrate(connection: &mut Connection, name: &str) -> Result<(), DatabaseError> {
    let e = |e| error(name, e);
    let tx = connection
        .transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)
        .map_err(e)?;
    // checked again inside the transaction that migrates
    let version = check_version(&tx, name)?;
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql).map_err(e)?;
        tx.pragma_update(None, "user_version", from as i64 + 1)
            .map_err(e)?;
    }
    tx.commit().map_err(e)
}

/// Applies the durability setting.
pub(super) fn set_synchronous(
    connection: &Connection,
    name: &str,
    synchronous: Synchronous,
) -> Result<(), DatabaseError> {
    connection
        .pragma_update(None, "synchronous", synchronous.pragma())
        .map_err(|e| error(name, e))
}
