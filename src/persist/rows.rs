//! The rows: what a container and a loose pickup are in the file, read and
//! checked whole before anything is loaded.

use std::collections::BTreeSet;

use bevy::math::Vec3;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};

use super::DatabaseError;
use super::schema::error;
use crate::adoption::Format;
use crate::props::Props;
use crate::save::SavedContents;

/// The longest persistent id, in bytes.
pub(super) const LONGEST_ID: usize = 256;

/// A container as the file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerRow {
    /// Its persistent id.
    pub id: String,
    /// The asset path of its adoption.
    pub adoption: String,
    /// Its contents, as a save (JSON in the file).
    pub contents: SavedContents,
    /// The persistent id of its store, if it has one.
    pub store: Option<String>,
}

/// A loose pickup as the file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct PickupRow {
    /// Its persistent id.
    pub id: String,
    /// The item type.
    pub item: String,
    /// How many (at least 1).
    pub amount: u32,
    /// The items' properties.
    pub props: Props,
    /// Where it lies.
    pub translation: Vec3,
}

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

fn row_error(path: &str, table: &'static str, key: &str, message: String) -> DatabaseError {
    DatabaseError::Row {
        path: path.to_string(),
        table,
        key: key.to_string(),
        message,
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

/// Whether the file can hold `id`: 1 to [`LONGEST_ID`] bytes. The reader
/// refuses any other, so the hand-over never writes one.
pub(super) fn id_fits(id: &str) -> bool {
    !id.is_empty() && id.len() <= LONGEST_ID
}

fn check_id(id: &str) -> Result<(), String> {
    if !id_fits(id) {
        return Err(format!("column id must be 1 to {LONGEST_ID} bytes of text"));
    }
    Ok(())
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
    let id: String = column(row, "id")?;
    check_id(&id)?;
    let adoption: String = column(row, "adoption")?;
    if adoption.is_empty() {
        return Err("column adoption is empty; it is the adoption file's asset path".into());
    }
    let text: String = column(row, "contents")?;
    let contents = SavedContents::read(text.as_bytes(), Format::Json).map_err(|report| {
        format!(
            "column contents is not a save: {}",
            report.render("contents")
        )
    })?;
    let store: Option<String> = column(row, "store")?;
    if let Some(s) = &store {
        check_id(s).map_err(|m| m.replace("column id", "column store"))?;
    }
    Ok(ContainerRow {
        id,
        adoption,
        contents,
        store,
    })
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
    let id: String = column(row, "id")?;
    check_id(&id)?;
    let item: String = column(row, "item")?;
    if !crate::adoption::source::fields::is_kebab(&item) {
        return Err(format!(
            "column item \"{item}\" is not a kebab-case item type"
        ));
    }
    let amount: i64 = column(row, "amount")?;
    let amount = u32::try_from(amount)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!(
                "column amount is {amount}; a pickup holds 1 to {} items",
                u32::MAX
            )
        })?;
    let text: String = column(row, "props")?;
    let props = if text.is_empty() {
        Props::default()
    } else {
        Props::parse(&text).map_err(|e| format!("column props: {e}"))?
    };
    let mut at = [0f32; 3];
    for (v, name) in at.iter_mut().zip(["x", "y", "z"]) {
        let f: f64 = column(row, name)?;
        if !f.is_finite() || f.abs() > f64::from(f32::MAX) {
            return Err(format!("column {name} is {f}, not a finite position"));
        }
        *v = f as f32;
    }
    Ok(PickupRow {
        id,
        item,
        amount,
        props,
        translation: Vec3::from_array(at),
    })
}
