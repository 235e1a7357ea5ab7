//! Reading a SQLite file's rows, every one checked before anything loads.

use std::collections::BTreeSet;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};

use super::schema::error;
use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::rows::{self, ContainerRow, PickupRow, row_error};

/// A column read as `T`, or an error naming the column and what it holds.
fn column<T: rusqlite::types::FromSql>(row: &Row, name: &str) -> Result<T, String> {
    row.get::<_, T>(name).map_err(|e| {
        let found = match row.get_ref(name) {
            Ok(ValueRef::Null) => "nothing (NULL)",
            Ok(ValueRef::Integer(_)) => "an integer",
            Ok(ValueRef::Real(_)) => "a real number",
            Ok(ValueRef::Text(_)) => "text",
            Ok(ValueRef::Blob(_)) => "a blob",
            Err(_) => "nothing readable",
        };
        format!("column {name} holds {found} ({e})")
    })
}

/// What SQLite said while reading `table`: a table or column missing, or
/// a page that does not read, is a damaged file, named with the table.
fn table_error(path: &str, table: &str, e: rusqlite::Error) -> DatabaseError {
    // SQLite's plain error (no such table or column), not an input or
    // output failure, which says to check the file where it is
    let schema = e.sqlite_error_code() == Some(rusqlite::ErrorCode::Unknown);
    let (path, message) = match error(path, e) {
        DatabaseError::Damaged { path, message } => (path, message),
        DatabaseError::Open { path, message } if schema => (path, message),
        other => return other,
    };
    DatabaseError::Damaged {
        path,
        message: format!("table {table}: {message}"),
    }
}

/// The key of a row, for its errors, even when it is not text.
fn key_of(row: &Row) -> String {
    match row.get_ref("id") {
        Ok(ValueRef::Text(t)) => String::from_utf8_lossy(t).into_owned(),
        Ok(ValueRef::Integer(i)) => i.to_string(),
        Ok(ValueRef::Real(f)) => f.to_string(),
        _ => "?".to_string(),
    }
}

/// The last frame written and the next pickup number.
pub(super) fn read_frame(c: &Connection, path: &str) -> Result<(u64, u64), DatabaseError> {
    let read = c.query_row(
        "SELECT frame, next_pickup FROM frame WHERE only = 0",
        [],
        |r| Ok((column::<i64>(r, "frame"), column::<i64>(r, "next_pickup"))),
    );
    let (frame, next) = match read {
        Ok(pair) => pair,
        Err(rusqlite::Error::QueryReturnedNoRows) => {
            return Err(row_error(path, "frame", "0", "the row is missing".into()));
        }
        Err(e) => return Err(table_error(path, "frame", e)),
    };
    let bad = |m: String| row_error(path, "frame", "0", m);
    let frame = frame.map_err(bad)?;
    let next = next.map_err(bad)?;
    if frame < 0 || next < 1 {
        return Err(bad(format!(
            "frame {frame} and next_pickup {next}: the frame is at least 0, the next pickup at least 1"
        )));
    }
    Ok((frame as u64, next as u64))
}

/// Every container, sorted by id; store links must name a container.
pub(super) fn read_containers(
    c: &Connection,
    path: &str,
) -> Result<Vec<ContainerRow>, DatabaseError> {
    let mut statement = c
        .prepare("SELECT id, adoption, contents, store FROM containers ORDER BY id")
        .map_err(|e| table_error(path, "containers", e))?;
    let mut rows = statement
        .query([])
        .map_err(|e| table_error(path, "containers", e))?;
    let mut out = Vec::new();
    while let Some(row) = rows
        .next()
        .map_err(|e| table_error(path, "containers", e))?
    {
        let key = key_of(row);
        out.push(container(row).map_err(|m| row_error(path, "containers", &key, m))?);
    }
    let ids: BTreeSet<&str> = out.iter().map(|r| r.id.as_str()).collect();
    for r in &out {
        if let Some(store) = &r.store
            && !ids.contains(store.as_str())
        {
            return Err(row_error(
                path,
                "containers",
                &r.id,
                format!("column store names \"{store}\", which is not a container in the file"),
            ));
        }
    }
    Ok(out)
}

fn container(row: &Row) -> Result<ContainerRow, String> {
    let text: String = column(row, "contents")?;
    rows::container(
        column(row, "id")?,
        column(row, "adoption")?,
        &text,
        column(row, "store")?,
    )
}

/// Every loose pickup, sorted by id; no id may also be a container's
/// (`containers`, sorted by id): one id names one entity.
pub(super) fn read_pickups(
    c: &Connection,
    path: &str,
    containers: &[ContainerRow],
) -> Result<Vec<PickupRow>, DatabaseError> {
    let mut statement = c
        .prepare("SELECT id, item, amount, props, x, y, z FROM pickups ORDER BY id")
        .map_err(|e| table_error(path, "pickups", e))?;
    let mut rows = statement
        .query([])
        .map_err(|e| table_error(path, "pickups", e))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| table_error(path, "pickups", e))? {
        let key = key_of(row);
        out.push(pickup(row).map_err(|m| row_error(path, "pickups", &key, m))?);
    }
    for p in &out {
        if containers
            .binary_search_by(|r| r.id.as_str().cmp(&p.id))
            .is_ok()
        {
            return Err(row_error(
                path,
                "pickups",
                &p.id,
                format!("column id \"{}\" is also a container's id", p.id),
            ));
        }
    }
    Ok(out)
}

fn pickup(row: &Row) -> Result<PickupRow, String> {
    let props: String = column(row, "props")?;
    rows::pickup(
        column(row, "id")?,
        column(row, "item")?,
        column(row, "amount")?,
        &props,
        [column(row, "x")?, column(row, "y")?, column(row, "z")?],
    )
}
