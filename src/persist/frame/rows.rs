//! The rows: what a container and a loose pickup are in a store, and the
//! checks every store makes of a row before anything is loaded (the same
//! in SQLite and PostgreSQL).

use bevy::math::Vec3;

use crate::adoption::Format;
use crate::persist::frame::error::DatabaseError;
use crate::props::Props;
use crate::save::SavedContents;

/// The longest persistent id, in bytes.
pub(crate) const LONGEST_ID: usize = 256;

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

/// A row that does not read, named by its table and key.
pub(crate) fn row_error(
    path: &str,
    table: &'static str,
    key: &str,
    message: String,
) -> DatabaseError {
    DatabaseError::Row {
        path: path.to_string(),
        table,
        key: key.to_string(),
        message,
    }
}

/// Whether the file can hold `id`: 1 to [`LONGEST_ID`] bytes. The reader
/// refuses any other, so the hand-over never writes one.
pub(crate) fn id_fits(id: &str) -> bool {
    !id.is_empty() && id.len() <= LONGEST_ID
}

pub(crate) fn check_id(id: &str) -> Result<(), String> {
    if !id_fits(id) {
        return Err(format!("column id must be 1 to {LONGEST_ID} bytes of text"));
    }
    Ok(())
}

/// A container row from its columns, checked: the id, the adoption's path,
/// the save, the store's id. The error names the column.
pub(crate) fn container(
    id: String,
    adoption: String,
    text: &str,
    store: Option<String>,
) -> Result<ContainerRow, String> {
    check_id(&id)?;
    if adoption.is_empty() {
        return Err("column adoption is empty; it is the adoption file's asset path".into());
    }
    let contents = SavedContents::read(text.as_bytes(), Format::Json).map_err(|report| {
        format!(
            "column contents is not a save: {}",
            report.render("contents")
        )
    })?;
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

/// A pickup row from its columns, checked: a kebab-case item, 1 or more
/// items, properties that parse, a finite position.
pub(crate) fn pickup(
    id: String,
    item: String,
    amount: i64,
    props: &str,
    at: [f64; 3],
) -> Result<PickupRow, String> {
    check_id(&id)?;
    if !crate::adoption::source::fields::is_kebab(&item) {
        return Err(format!(
            "column item \"{item}\" is not a kebab-case item type"
        ));
    }
    let amount = u32::try_from(amount)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!(
                "column amount is {amount}; a pickup holds 1 to {} items",
                u32::MAX
            )
        })?;
    let props = if props.is_empty() {
        Props::default()
    } else {
        Props::parse(props).map_err(|e| format!("column props: {e}"))?
    };
    let mut translation = [0f32; 3];
    for ((v, f), name) in translation.iter_mut().zip(at).zip(["x", "y", "z"]) {
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
        translation: Vec3::from_array(translation),
    })
}

/// A row of the `mail` table: items in flight to a container.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MailRow {
    /// Its id, unique in the database (`mail-SERVER-N`).
    pub(crate) id: String,
    /// The container it goes to.
    pub(crate) target: String,
    pub(crate) item: String,
    pub(crate) props: Props,
    pub(crate) amount: u32,
    /// The container that sent it, which its answer goes to (`None` on an
    /// answer).
    pub(crate) reply_to: Option<String>,
    /// The server that sent the mail: it handles the row when its target
    /// has no container row.
    pub(crate) origin: crate::persist::frame::server_id::ServerId,
    /// On an answer: the mail it answers.
    pub(crate) answers: Option<String>,
    /// On an answer: how many of the mail landed in its target.
    pub(crate) landed: u32,
}

/// A row as the listener read it, and whether its target has a row.
#[derive(Debug, Clone)]
pub(crate) struct Letter {
    pub(crate) row: MailRow,
    pub(crate) target_exists: bool,
}
