//! The item catalog: how each item type looks in grids and tooltips.
//!
//! A catalog file (`*.items.ron` or `*.items.json`) gives, per item type, a
//! display name, an icon image or a colour (or both: the colour is the
//! cell behind the icon), a description and an optional category:
//!
//! ```ron
//! (
//!     items: [
//!         (id: "berries", name: "Berries", colour: "#8c2452",
//!          description: "Sweet, and gone by tomorrow.", category: "food"),
//!         (id: "axe", name: "Axe", icon: "icons/axe.png", description: "Fells a tree."),
//!     ],
//! )
//! ```
//!
//! It is read as strictly as an adoption file, with the same report: an
//! unknown field, a type listed twice, a colour that is not one, and an
//! icon file that does not exist under the asset folder are each an error
//! with its path in the file and the fix, and a file with errors does not
//! load (on hot reload the previous version stays in force, and
//! [`CatalogRejected`] says why). A type the catalog lacks falls back to
//! its id as its name and a colour derived from the id.

use std::collections::BTreeMap;

use bevy::asset::io::{AssetReaderError, Reader};
use bevy::asset::{
    AssetLoadError, AssetLoadFailedEvent, AssetLoader, AssetPath, LoadContext, ReadAssetBytesError,
};
use bevy::color::Srgba;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use serde_json::Value;

use crate::adoption::source;
use crate::adoption::source::fields::{
    Any, Kebab, List, NonEmptyText, Obj, Text as TextField, key_path, kind_of, wrong_type,
};
use crate::adoption::{Format, ProblemKind, Report};
use crate::props::{PlayerLabel, PlayerProp};

/// The longest item id read, as in saves.
const MAX_ID_BYTES: usize = 256;

/// The fields of the file.
const FILE_FIELDS: &[&str] = &["items"];

/// The fields of one item's look.
const LOOK_FIELDS: &[&str] = &[
    "id",
    "name",
    "description",
    "icon",
    "colour",
    "category",
    "props",
];

/// The fields of how one property shows.
const PROP_FIELDS: &[&str] = &["key", "label", "unit", "max"];

/// What a colour is, in a designer's words.
const COLOUR_WANT: &str =
    "a colour: \"#rrggbb\" or \"#rrggbbaa\", or [red, green, blue] with each from 0 to 1";

/// How one item type looks.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemLook {
    /// The name players read (`Berries`).
    pub name: String,
    /// The icon, as an asset path from the asset folder (`icons/axe.png`).
    pub icon: Option<String>,
    /// The colour of its cells: as the catalog gives it, or derived from the
    /// id when the catalog gives none.
    pub colour: Color,
    /// What the tooltip says about it (may be empty).
    pub description: String,
    /// Its category (`food`), if the catalog names one.
    pub category: Option<String>,
    /// How its items' properties show, in the order listed (properties
    /// not listed show as `key: value`).
    pub props: Vec<PropLook>,
}

/// How one item property shows in tooltips and cells: a label, a unit, and
/// for a number between 0 and `max` (a durability) a bar.
///
/// ```
/// use bevy_container::props::Props;
/// use bevy_container::ui::PropLook;
/// let look = PropLook { key: "durability".into(), label: "Durability".into(), unit: None, max: Some(40.0) };
/// let axe = Props::new([("durability", 30)]).unwrap();
/// assert_eq!(look.line(&axe).as_deref(), Some("Durability: 30 / 40"));
/// assert_eq!(look.fill(&axe), Some(0.75));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PropLook {
    /// The property's key (`durability`).
    pub key: String,
    /// What players read (`Durability`); the key when the catalog gives none.
    pub label: String,
    /// A unit written after the value (`kg`), if any.
    pub unit: Option<String>,
    /// The largest value of a number shown as a bar (from 0), if any.
    pub max: Option<f64>,
}

impl PropLook {
    /// The property as a plain `key: value` line, for properties the
    /// catalog does not list.
    pub fn plain(key: &str) -> PropLook {
        PropLook {
            key: key.to_string(),
            label: key.to_string(),
            unit: None,
            max: None,
        }
    }

    /// The tooltip line for this property of `props` (`Durability: 30 /
    /// 40`, `to: Ilsa`), or `None` when the item lacks it.
    pub fn line(&self, props: &crate::props::Props) -> Option<String> {
        let value = props.get(&self.key)?;
        let mut line = format!("{}: {value}", self.label);
        if let Some(unit) = &self.unit {
            line.push(' ');
            line.push_str(unit);
        }
        if let (Some(max), crate::props::PropValue::Number(_)) = (self.max, value) {
            line.push_str(&format!(" / {max}"));
        }
        Some(line)
    }

    /// The property as a label shows it, in parentheses after the item's
    /// name (`Durability 30 / 40`, `Oil 3 l`; a yes/no property its label
    /// when yes, `not` and its label when no), or `None` when the item
    /// lacks it.
    ///
    /// ```
    /// use bevy_container::props::Props;
    /// use bevy_container::ui::PropLook;
    /// let look = PropLook { key: "oil".into(), label: "Oil".into(), unit: Some("l".into()), max: None };
    /// let lantern = Props::new([("oil", 3)]).unwrap();
    /// assert_eq!(look.short(&lantern).as_deref(), Some("Oil 3 l"));
    /// assert_eq!(look.short(&Props::EMPTY), None);
    /// ```
    pub fn short(&self, props: &crate::props::Props) -> Option<String> {
        use crate::props::PropValue;
        let value = props.get(&self.key)?;
        let mut text = match value {
            PropValue::Bool(true) => return Some(self.label.clone()),
            PropValue::Bool(false) => return Some(format!("not {}", self.label)),
            value => format!("{} {value}", self.label),
        };
        if let Some(unit) = &self.unit {
            text.push(' ');
            text.push_str(unit);
        }
        if let (Some(max), PropValue::Number(_)) = (self.max, value) {
            text.push_str(&format!(" / {max}"));
        }
        Some(text)
    }

    /// How full this property's bar is (0 to 1), when it is a number shown
    /// as a bar.
    pub fn fill(&self, props: &crate::props::Props) -> Option<f32> {
        let max = self.max.filter(|m| *m > 0.0)?;
        let n = props.number(&self.key)?.to_f64();
        Some((n / max).clamp(0.0, 1.0) as f32)
    }
}

impl ItemLook {
    /// The tooltip lines for `props`: the listed properties first, in the
    /// catalog's order, then the others as `key: value`.
    pub fn prop_lines(&self, props: &crate::props::Props) -> Vec<String> {
        let mut lines: Vec<String> = self.props.iter().filter_map(|p| p.line(props)).collect();
        for (key, _) in props.iter() {
            if !self.props.iter().any(|p| p.key == key) {
                lines.extend(PropLook::plain(key).line(props));
            }
        }
        lines
    }

    /// A label players read for an item of this type with `props`: the
    /// catalog's name, then the properties in parentheses, the listed ones
    /// first in the catalog's order as [`PropLook::short`] writes them,
    /// then the others in plain words ([`PlayerProp`]).
    ///
    /// ```
    /// use bevy_container::props::Props;
    /// use bevy_container::ui::{ItemLook, PropLook};
    /// let mut axe = ItemLook::fallback("axe");
    /// axe.name = "Axe".into();
    /// axe.props = vec![PropLook { key: "durability".into(), label: "Durability".into(), unit: None, max: Some(40.0) }];
    /// let worn = Props::new([("durability", 30), ("made-by", 7)]).unwrap();
    /// assert_eq!(axe.label(&worn), "Axe (Durability 30 / 40, made by 7)");
    /// assert_eq!(axe.label(&Props::EMPTY), "Axe");
    /// ```
    pub fn label(&self, props: &crate::props::Props) -> String {
        let mut parts: Vec<String> = self.props.iter().filter_map(|p| p.short(props)).collect();
        for (key, value) in props.iter() {
            if !self.props.iter().any(|p| p.key == key) {
                parts.push(PlayerProp(key, value).to_string());
            }
        }
        if parts.is_empty() {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, parts.join(", "))
        }
    }

    /// The first listed property of `props` shown as a bar, and how full.
    pub fn bar(&self, props: &crate::props::Props) -> Option<f32> {
        self.props.iter().find_map(|p| p.fill(props))
    }
}

impl ItemLook {
    /// The look of a type the catalog lacks: its id as its name and a colour
    /// derived from the id, the same on every run.
    ///
    /// ```
    /// use bevy_container::ui::ItemLook;
    /// let look = ItemLook::fallback("gem");
    /// assert_eq!(look.name, "gem");
    /// assert_eq!(look.colour, ItemLook::fallback("gem").colour);
    /// ```
    pub fn fallback(id: &str) -> ItemLook {
        ItemLook {
            name: id.to_string(),
            icon: None,
            colour: colour_of_id(id),
            description: String::new(),
            category: None,
            props: Vec::new(),
        }
    }
}

/// A colour derived from an item id (FNV-1a of its bytes): the same id
/// always gets the same colour, whatever the platform or run.
pub fn colour_of_id(id: &str) -> Color {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let hue = (hash % 360) as f32;
    let lightness = 0.28 + ((hash >> 20) % 10) as f32 * 0.012;
    Color::hsl(hue, 0.45, lightness)
}

/// The item catalog asset: every listed type's [`ItemLook`], by id.
///
/// ```
/// use bevy_container::adoption::Format;
/// use bevy_container::ui::ItemCatalog;
///
/// let text = br##"{"items": [{"id": "berries", "name": "Berries",
///     "colour": "#8c2452", "description": "Sweet."}]}"##;
/// let catalog = ItemCatalog::read(text, Format::Json).unwrap();
/// assert_eq!(catalog.look("berries").name, "Berries");
/// assert_eq!(catalog.look("flint").name, "flint"); // not listed: its id
/// ```
#[derive(Asset, TypePath, Debug, Clone, Default)]
pub struct ItemCatalog {
    /// The looks, by type id (sorted, so iteration is deterministic).
    looks: BTreeMap<String, ItemLook>,
    /// Warnings found while reading (a catalog with errors does not load).
    pub warnings: Report,
}

impl ItemCatalog {
    /// A catalog of these looks, for catalogs built in code and tests.
    pub fn from_looks<S: Into<String>>(looks: impl IntoIterator<Item = (S, ItemLook)>) -> Self {
        ItemCatalog {
            looks: looks.into_iter().map(|(k, v)| (k.into(), v)).collect(),
            warnings: Report::default(),
        }
    }

    /// How `id` looks: its entry, or the fallback (its id as its name, a
    /// colour derived from the id).
    pub fn look(&self, id: &str) -> ItemLook {
        self.looks
            .get(id)
            .cloned()
            .unwrap_or_else(|| ItemLook::fallback(id))
    }

    /// The entry of `id`, if the catalog lists it.
    pub fn get(&self, id: &str) -> Option<&ItemLook> {
        self.looks.get(id)
    }

    /// The label players read for an item of `id` with `props`: its look's
    /// [`ItemLook::label`] (`Axe (Durability 40 / 40)`), or for a type the
    /// catalog lacks the plain [`PlayerLabel`] (`Axe (durability 40)`).
    ///
    /// ```
    /// use bevy_container::adoption::Format;
    /// use bevy_container::props::Props;
    /// use bevy_container::ui::ItemCatalog;
    ///
    /// let text = br##"{"items": [{"id": "axe", "name": "Woodcutter's axe", "colour": "#808080",
    ///     "description": "Fells a tree.", "props": [{"key": "durability", "label": "Durability"}]}]}"##;
    /// let catalog = ItemCatalog::read(text, Format::Json).unwrap();
    /// let worn = Props::new([("durability", 40)]).unwrap();
    /// assert_eq!(catalog.label("axe", &worn), "Woodcutter's axe (Durability 40)");
    /// assert_eq!(catalog.label("hand-saw", &worn), "Hand saw (durability 40)");
    /// ```
    pub fn label(&self, id: &str, props: &crate::props::Props) -> String {
        match self.get(id) {
            Some(look) => look.label(props),
            None => PlayerLabel(id, props).to_string(),
        }
    }

    /// Every listed type and its look, sorted by id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ItemLook)> {
        self.looks.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many types are listed.
    pub fn len(&self) -> usize {
        self.looks.len()
    }

    /// Whether no type is listed.
    pub fn is_empty(&self) -> bool {
        self.looks.is_empty()
    }

    /// Reads a catalog file's bytes strictly; the report when it has
    /// errors. Icon files are not looked for (the asset loader does that).
    pub fn read(bytes: &[u8], format: Format) -> Result<ItemCatalog, Report> {
        let (report, catalog, _) = check(bytes, format);
        catalog.ok_or(report)
    }
}

/// Reads and checks a catalog's bytes: the whole report, the catalog when
/// it has no errors, and each icon with the path of its field.
fn check(bytes: &[u8], format: Format) -> (Report, Option<ItemCatalog>, Icons) {
    let tree = match source::parse(bytes, format) {
        Ok(tree) => tree,
        Err(report) => return (report, None, Vec::new()),
    };
    let mut report = Report::default();
    let (looks, icons) = read_tree(&tree, &mut report);
    if report.has_errors() {
        return (report, None, icons);
    }
    let catalog = ItemCatalog {
        looks,
        warnings: report.clone(),
    };
    (report, Some(catalog), icons)
}

/// The looks read, by id.
type Looks = BTreeMap<String, ItemLook>;

/// Each icon named, with the path of its field (`/items/1/icon`).
type Icons = Vec<(String, String)>;

/// Reads the file's tree: the looks, and each icon with its field's path.
fn read_tree(tree: &Value, r: &mut Report) -> (Looks, Icons) {
    let mut looks = BTreeMap::new();
    let mut icons = Vec::new();
    let what = "an item catalog is an object: {\"items\": [a look per item type]}";
    let Some(file) = Obj::of(tree, "", what, r) else {
        return (looks, icons);
    };
    file.refuse_unknown(FILE_FIELDS, r);
    let want = List("a list of item looks, each {id, name, description, and icon or colour}");
    let Some(items) = file.required("items", want, r) else {
        return (looks, icons);
    };
    let mut first_at: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, entry) in items.iter().enumerate() {
        let at = format!("/items/{i}");
        let Some((id, look)) = read_look(entry, &at, r) else {
            continue;
        };
        if let Some(first) = first_at.get(id) {
            r.error(
                ProblemKind::Duplicate,
                key_path(&at, "id"),
                format!(
                    "\"{id}\" is listed twice (first at /items/{first}); keep one look per type"
                ),
            );
            continue;
        }
        first_at.insert(id, i);
        if let Some(icon) = &look.icon {
            icons.push((key_path(&at, "icon"), icon.clone()));
        }
        looks.insert(id.to_string(), look);
    }
    (looks, icons)
}

/// Reads one item's look at `at`: its id and look, or `None` with every
/// problem reported.
fn read_look<'v>(entry: &'v Value, at: &str, r: &mut Report) -> Option<(&'v str, ItemLook)> {
    let what = "an item look is an object: {id, name, description, and icon or colour}";
    let obj = Obj::of(entry, at, what, r)?;
    obj.refuse_unknown(LOOK_FIELDS, r);
    let id = obj.required("id", Kebab(MAX_ID_BYTES), r);
    let name = obj.required("name", NonEmptyText, r);
    let description = obj.required("description", TextField, r);
    let icon = read_icon(&obj, r);
    let colour = match obj.optional("colour", Any(COLOUR_WANT), r) {
        Some(Some(v)) => read_colour(v, &obj.path("colour"), r).map(Some),
        Some(None) => Some(None),
        None => None,
    };
    let category = obj.optional("category", NonEmptyText, r);
    let props = match obj.optional("props", List("a list of property looks"), r) {
        Some(Some(list)) => {
            let at = obj.path("props");
            let read: Vec<Option<PropLook>> = list
                .iter()
                .enumerate()
                .map(|(i, v)| read_prop_look(v, &format!("{at}/{i}"), r))
                .collect();
            read.into_iter().collect::<Option<Vec<_>>>()
        }
        Some(None) => Some(Vec::new()),
        None => None,
    };
    let (id, name, description) = (id?, name?, description?);
    let props = props?;
    let (icon, colour, category) = (icon?, colour?, category?);
    if icon.is_none() && colour.is_none() {
        r.error(
            ProblemKind::Missing,
            at,
            format!(
                "\"{id}\" has neither an icon nor a colour; add \"icon\": an image path under the asset folder (like \"icons/{id}.png\") or \"colour\": \"#rrggbb\""
            ),
        );
        return None;
    }
    let look = ItemLook {
        name: name.to_string(),
        icon: icon.map(str::to_string),
        colour: colour.unwrap_or_else(|| colour_of_id(id)),
        description: description.to_string(),
        category: category.map(str::to_string),
        props,
    };
    Some((id, look))
}

/// Reads how one property shows: `{key, label?, unit?, max?}`.
fn read_prop_look(v: &Value, at: &str, r: &mut Report) -> Option<PropLook> {
    let what = "a property look is an object: {key, and label, unit or max}";
    let obj = Obj::of(v, at, what, r)?;
    obj.refuse_unknown(PROP_FIELDS, r);
    let key = obj.required("key", Kebab(crate::props::MAX_KEY_BYTES), r);
    let label = obj.optional("label", NonEmptyText, r);
    let unit = obj.optional("unit", NonEmptyText, r);
    let max = obj.optional("max", crate::adoption::source::fields::DecimalNumber, r);
    let (key, label, unit, max) = (key?, label?, unit?, max?);
    if max.is_some_and(|m| m.is_zero()) {
        r.error(
            ProblemKind::OutOfRange,
            obj.path("max"),
            "a bar's \"max\" is above 0; leave it out to show the number without a bar",
        );
        return None;
    }
    Some(PropLook {
        key: key.to_string(),
        label: label.unwrap_or(key).to_string(),
        unit: unit.map(str::to_string),
        max: max.map(|m| m.to_f64()),
    })
}

/// Reads `"icon"`: `Some(None)` when left out, `None` when wrong (reported).
fn read_icon<'v>(obj: &Obj<'v>, r: &mut Report) -> Option<Option<&'v str>> {
    let icon = obj.optional("icon", NonEmptyText, r)?;
    if let Some(path) = icon
        && let Err(e) = AssetPath::try_parse(path)
    {
        r.error(
            ProblemKind::Pattern,
            obj.path("icon"),
            format!("\"icon\" is \"{path}\", which is not an asset path ({e}); write the image's path from the asset folder, like \"icons/axe.png\""),
        );
        return None;
    }
    Some(icon)
}

/// Reads a colour written as hex text or as a list of three or four
/// numbers from 0 to 1; `None` with the problem reported.
fn read_colour(v: &Value, path: &str, r: &mut Report) -> Option<Color> {
    match v {
        Value::String(s) => {
            let colour = hex_colour(s);
            if colour.is_none() {
                r.error(
                    ProblemKind::Pattern,
                    path,
                    format!("\"colour\" is \"{s}\"; write \"#rrggbb\" or \"#rrggbbaa\" with hexadecimal digits, like \"#8c2452\""),
                );
            }
            colour
        }
        Value::Array(parts) => {
            let colour = list_colour(parts);
            if colour.is_none() {
                r.error(
                    ProblemKind::OutOfRange,
                    path,
                    "\"colour\" must be three or four numbers from 0 to 1 ([red, green, blue] or [red, green, blue, alpha]), like [0.55, 0.14, 0.32]",
                );
            }
            colour
        }
        other => {
            wrong_type(r, path, "\"colour\"", COLOUR_WANT, kind_of(other));
            None
        }
    }
}

/// `#rrggbb` or `#rrggbbaa`, nothing else.
fn hex_colour(s: &str) -> Option<Color> {
    let digits = s.strip_prefix('#')?;
    let well_formed =
        matches!(digits.len(), 6 | 8) && digits.bytes().all(|b| b.is_ascii_hexdigit());
    if !well_formed {
        return None;
    }
    Srgba::hex(digits).ok().map(Color::from)
}

/// `[r, g, b]` or `[r, g, b, a]`, each from 0 to 1.
fn list_colour(parts: &[Value]) -> Option<Color> {
    let mut channels = Vec::with_capacity(4);
    for p in parts {
        let c = p.as_f64().filter(|c| (0.0..=1.0).contains(c))?;
        channels.push(c as f32);
    }
    match channels.as_slice() {
        [r, g, b] => Some(Color::srgb(*r, *g, *b)),
        [r, g, b, a] => Some(Color::srgba(*r, *g, *b, *a)),
        _ => None,
    }
}

/// Why an item catalog did not load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogLoadError {
    /// The file could not be read.
    #[error("could not read the item catalog: {0}")]
    Io(#[from] std::io::Error),
    /// The file has errors; every problem is in the report.
    #[error("{path}: the item catalog has errors and was not loaded:\n{}", .report.render(.path))]
    Invalid {
        /// The asset path.
        path: String,
        /// Every problem found.
        report: Report,
    },
}

/// Loads `*.items.ron` and `*.items.json` catalogs, checking that every
/// icon exists in the catalog's asset source (an icon that changes
/// reloads the catalog, as a dependency).
#[derive(Default, TypePath)]
pub struct ItemCatalogLoader;

impl AssetLoader for ItemCatalogLoader {
    type Asset = ItemCatalog;
    type Settings = ();
    type Error = CatalogLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<ItemCatalog, CatalogLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let path = ctx.path().to_string();
        let format = Format::of_path(ctx.path().path());
        let (mut report, catalog, icons) = check(&bytes, format);
        for (at, icon) in &icons {
            if let Some(problem) = missing_icon(ctx, icon).await {
                report.error(ProblemKind::Missing, at.as_str(), problem);
            }
        }
        match catalog {
            Some(mut catalog) if !report.has_errors() => {
                catalog.warnings = report;
                Ok(catalog)
            }
            _ => Err(CatalogLoadError::Invalid { path, report }),
        }
    }

    fn extensions(&self) -> &[&str] {
        &["items.ron", "items.json"]
    }
}

/// What is wrong with `icon`, if it cannot be read from the asset source.
async fn missing_icon(ctx: &mut LoadContext<'_>, icon: &str) -> Option<String> {
    let path = match AssetPath::try_parse(icon) {
        Ok(path) => path,
        Err(e) => return Some(format!("\"icon\" \"{icon}\" is not an asset path ({e})")),
    };
    match ctx.read_asset_bytes(path).await {
        Ok(_) => None,
        Err(ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_))) => Some(format!(
            "the icon \"{icon}\" does not exist under the asset folder; add the image there or fix the path (it starts at the asset folder, like \"icons/axe.png\")"
        )),
        Err(e) => Some(format!(
            "the icon \"{icon}\" could not be read ({e}); check the path and the file"
        )),
    }
}

/// The catalog the grids and tooltips draw with. Until it is loaded (and
/// for types it lacks) items show their ids and derived colours.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::ui::UiCatalog;
///
/// fn use_catalog(mut commands: Commands, server: Res<AssetServer>) {
///     commands.insert_resource(UiCatalog(server.load("demo.items.ron")));
/// }
/// # let _ = use_catalog;
/// ```
#[derive(Resource, Debug, Clone, Default)]
pub struct UiCatalog(pub Handle<ItemCatalog>);

/// Reads item looks from the catalog in use ([`UiCatalog`]), for a game's
/// own systems that draw items the way the grids do.
#[derive(SystemParam)]
pub struct ItemLooks<'w> {
    active: Res<'w, UiCatalog>,
    catalogs: Res<'w, Assets<ItemCatalog>>,
}

impl ItemLooks<'_> {
    /// The catalog in use, once loaded.
    pub fn catalog(&self) -> Option<&ItemCatalog> {
        self.catalogs.get(&self.active.0)
    }

    /// How `id` looks (the fallback while no catalog is loaded).
    pub fn look(&self, id: &str) -> ItemLook {
        self.catalog()
            .map_or_else(|| ItemLook::fallback(id), |c| c.look(id))
    }

    /// The label players read for an item of `id` with `props`
    /// ([`ItemCatalog::label`]; the plain [`PlayerLabel`] while no catalog
    /// is loaded).
    pub fn label(&self, id: &str, props: &crate::props::Props) -> String {
        self.catalog().map_or_else(
            || PlayerLabel(id, props).to_string(),
            |c| c.label(id, props),
        )
    }

    /// The id of the catalog in use, to match its asset events.
    pub(crate) fn active_id(&self) -> AssetId<ItemCatalog> {
        self.active.0.id()
    }

    /// Whether another catalog was put in use since the system last ran.
    pub(crate) fn in_use_changed(&self) -> bool {
        self.active.is_changed()
    }
}

/// An item catalog failed to (re)load: grids keep the previous version (or
/// the fallbacks).
#[derive(Message, Debug, Clone)]
pub struct CatalogRejected {
    /// The asset path.
    pub path: String,
    /// Every problem, rendered.
    pub message: String,
    /// The report, when the file was read but invalid.
    pub report: Option<Report>,
}

/// Reports catalogs that failed to load, with their reports.
pub(crate) fn report_rejected_catalogs(
    mut failures: MessageReader<AssetLoadFailedEvent<ItemCatalog>>,
    mut rejected: MessageWriter<CatalogRejected>,
) {
    for failure in failures.read() {
        let message = failure.error.to_string();
        let report = match &failure.error {
            AssetLoadError::AssetLoaderError(e) => {
                match e.error().downcast_ref::<CatalogLoadError>() {
                    Some(CatalogLoadError::Invalid { report, .. }) => Some(report.clone()),
                    _ => None,
                }
            }
            _ => None,
        };
        warn!("{message}; grids keep the catalog they had");
        rejected.write(CatalogRejected {
            path: failure.path.to_string(),
            message,
            report,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RON: &str = r##"// the demo's types
(
    items: [
        (id: "berries", name: "Berries", colour: "#8c2452",
         description: "Sweet.", category: "food"),
        (id: "axe", name: "Axe", icon: "icons/axe.png", description: "Fells a tree."),
        (id: "flint", name: "Flint", colour: [0.3, 0.3, 0.35], description: ""),
    ],
)"##;

    const JSON: &str = r##"{"items": [
        {"id": "berries", "name": "Berries", "colour": "#8c2452", "description": "Sweet.", "category": "food"},
        {"id": "axe", "name": "Axe", "icon": "icons/axe.png", "description": "Fells a tree."},
        {"id": "flint", "name": "Flint", "colour": [0.3, 0.3, 0.35], "description": ""}
    ]}"##;

    fn problems(r: &Report) -> Vec<(ProblemKind, &str)> {
        r.problems
            .iter()
            .map(|p| (p.kind, p.path.as_str()))
            .collect()
    }

    fn errors(text: &str) -> Report {
        match ItemCatalog::read(text.as_bytes(), Format::Json) {
            Ok(c) => panic!("read, but should not have: {c:?}"),
            Err(r) => r,
        }
    }

    #[test]
    fn ron_and_json_read_to_the_same_catalog() {
        let ron = ItemCatalog::read(RON.as_bytes(), Format::Ron).unwrap();
        let json = ItemCatalog::read(JSON.as_bytes(), Format::Json).unwrap();
        assert_eq!(ron.looks, json.looks);
        assert_eq!(ron.len(), 3);
        let berries = ron.look("berries");
        assert_eq!(berries.name, "Berries");
        assert_eq!(berries.category.as_deref(), Some("food"));
        assert_eq!(berries.colour, Color::from(Srgba::hex("8c2452").unwrap()));
        let axe = ron.look("axe");
        assert_eq!(axe.icon.as_deref(), Some("icons/axe.png"));
        assert_eq!(axe.colour, colour_of_id("axe")); // no colour given
        assert_eq!(ron.look("flint").colour, Color::srgb(0.3, 0.3, 0.35));
        let ids: Vec<&str> = ron.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, ["axe", "berries", "flint"]);
    }

    #[test]
    fn a_type_it_lacks_falls_back_to_its_id_and_a_derived_colour() {
        let catalog = ItemCatalog::read(JSON.as_bytes(), Format::Json).unwrap();
        let gem = catalog.look("gem");
        assert_eq!(gem, ItemLook::fallback("gem"));
        assert_eq!(gem.name, "gem");
        assert!(gem.description.is_empty());
        assert_eq!(colour_of_id("gem"), colour_of_id("gem"));
        assert_ne!(colour_of_id("gem"), colour_of_id("ore"));
    }

    #[test]
    fn unknown_fields_are_refused_with_their_path_and_the_fix() {
        let r = errors(
            r##"{"items": [{"id": "axe", "name": "Axe", "color": "#808080", "description": ""}],
                "version": 1}"##,
        );
        assert_eq!(
            problems(&r),
            [
                (ProblemKind::Unknown, "/version"),
                (ProblemKind::Unknown, "/items/0/color"),
                (ProblemKind::Missing, "/items/0"),
            ]
        );
        let color = r.at("/items/0/color").unwrap();
        assert!(
            color.message.contains("did you mean \"colour\"?"),
            "{}",
            color.message
        );
        let rendered = r.render("demo.items.json");
        assert!(
            rendered.contains("demo.items.json: error at /items/0/color: unknown field \"color\""),
            "{rendered}"
        );
    }

    #[test]
    fn a_type_listed_twice_is_refused_at_the_second() {
        let r = errors(
            r##"{"items": [
                {"id": "axe", "name": "Axe", "colour": "#808080", "description": ""},
                {"id": "axe", "name": "Other axe", "colour": "#808080", "description": ""}
            ]}"##,
        );
        assert_eq!(problems(&r), [(ProblemKind::Duplicate, "/items/1/id")]);
        assert!(r.problems[0].message.contains("first at /items/0"));
    }

    #[test]
    fn wrong_values_are_each_reported() {
        let r = errors(
            r##"{"items": [
                {"id": "Axe", "name": "", "colour": "#80808", "description": 3},
                {"id": "gem", "name": "Gem", "colour": [1.5, 0, 0], "description": ""},
                {"id": "ore", "name": "Ore", "colour": true, "description": ""},
                {"id": "rope", "name": "Rope", "icon": "://axe.png", "description": ""},
                "flint"
            ]}"##,
        );
        assert_eq!(
            problems(&r),
            [
                (ProblemKind::Pattern, "/items/0/id"),
                (ProblemKind::WrongType, "/items/0/name"),
                (ProblemKind::WrongType, "/items/0/description"),
                (ProblemKind::Pattern, "/items/0/colour"),
                (ProblemKind::OutOfRange, "/items/1/colour"),
                (ProblemKind::WrongType, "/items/2/colour"),
                (ProblemKind::Pattern, "/items/3/icon"),
                (ProblemKind::WrongType, "/items/4"),
            ]
        );
    }

    #[test]
    fn broken_text_is_a_syntax_error_with_a_position() {
        let r = match ItemCatalog::read(b"(items: [", Format::Ron) {
            Ok(_) => panic!("read broken RON"),
            Err(r) => r,
        };
        assert_eq!(r.problems[0].kind, ProblemKind::Syntax);
        assert!(r.problems[0].position.is_some());
    }

    #[test]
    fn the_loader_collects_each_icon_with_its_field() {
        let (report, catalog, icons) = check(RON.as_bytes(), Format::Ron);
        assert!(!report.has_errors());
        assert!(catalog.is_some());
        assert_eq!(
            icons,
            [("/items/1/icon".to_string(), "icons/axe.png".to_string())]
        );
    }
}
