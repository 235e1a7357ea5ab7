//! The adoption file as a Bevy asset, with loaders for `.adoption.json` and
//! `.adoption.ron`.

use bevy::asset::{AssetLoader, LoadContext, io::Reader};
use bevy::prelude::*;

use crate::adoption::{self, Adoption, Context, Format, Report};
use crate::save::AdoptionId;

/// A validated adoption file, loaded by the asset server.
///
/// Warnings found while loading are kept in `warnings`; a file with errors
/// does not load (and on hot reload the previous version stays in force).
/// Reflected as one opaque value, so a `Handle<AdoptionAsset>` in a saved
/// world is written as its asset path.
#[derive(Asset, Reflect, Debug, Clone)]
#[reflect(opaque)]
#[reflect(Debug)]
pub struct AdoptionAsset {
    /// The adoption.
    pub adoption: Adoption,
    /// Warnings the validation found.
    pub warnings: Report,
    /// The file's path and content hash, recorded in saves.
    pub id: AdoptionId,
}

impl AdoptionAsset {
    /// An asset from an adoption already read (for tests and tools); its
    /// id hashes the adoption's JSON form.
    pub fn new(adoption: Adoption) -> AdoptionAsset {
        let json = serde_json::to_vec(&adoption).unwrap_or_default();
        AdoptionAsset {
            adoption,
            warnings: Report::default(),
            id: AdoptionId::of("(in memory)", &json),
        }
    }
}

/// Why an adoption file did not load.
///
/// The asset server logs a loader's error itself, so an invalid file's
/// error says only where its errors are (`FILE: the adoption has 1 error,
/// at /answers/fill-order, and was not loaded`); each problem with its fix
/// is in `report`, and the [`ContainerPlugin`](super::ContainerPlugin)
/// reports them once ([`AdoptionRejected`](super::AdoptionRejected), logged,
/// or on stderr when no log is installed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdoptionLoadError {
    /// The file could not be read.
    #[error("could not read the adoption file: {0}")]
    Io(#[from] std::io::Error),
    /// The file has errors; every problem is in the report.
    #[error(
        "{}; the ContainerPlugin reports each problem with its fix",
        invalid_headline(.path, .report)
    )]
    Invalid {
        /// The asset path.
        path: String,
        /// Every problem found.
        report: Report,
    },
}

/// How many errors `report` has and where, for a headline: `1 error, at
/// /answers/fill-order` (the first four places, then how many more).
pub(crate) fn errors_at(report: &Report) -> String {
    const NAMED: usize = 4;
    let errors: Vec<String> = report
        .errors()
        .map(|p| match p.position {
            Some((line, column)) => format!("line {line}, column {column}"),
            None if p.path.is_empty() => "the top of the file".to_string(),
            None => p.path.clone(),
        })
        .collect();
    let count = match errors.len() {
        1 => "1 error".to_string(),
        n => format!("{n} errors"),
    };
    if errors.is_empty() {
        return count;
    }
    let mut places = errors[..errors.len().min(NAMED)].join("; ");
    if errors.len() > NAMED {
        places.push_str(&format!(" and {} more", errors.len() - NAMED));
    }
    format!("{count}, at {places}")
}

/// The first line of an invalid file's refusal: the file and where its
/// errors are, not the problems themselves (`FILE: the adoption has 1
/// error, at /answers/fill-order, and was not loaded`).
pub(crate) fn invalid_headline(path: &str, report: &Report) -> String {
    format!(
        "{path}: the adoption has {}, and was not loaded",
        errors_at(report)
    )
}

/// Loads `*.adoption.json` and `*.adoption.ron` files.
#[derive(Default, TypePath)]
pub struct AdoptionLoader;

impl AssetLoader for AdoptionLoader {
    type Asset = AdoptionAsset;
    type Settings = ();
    type Error = AdoptionLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<AdoptionAsset, AdoptionLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let path = ctx.path().to_string();
        let format = Format::of_path(ctx.path().path());
        let (report, adoption) = adoption::check(&bytes, format, Context::default());
        match adoption {
            Some(adoption) => Ok(AdoptionAsset {
                adoption,
                warnings: report,
                id: AdoptionId::of(path, &bytes),
            }),
            None => Err(AdoptionLoadError::Invalid { path, report }),
        }
    }

    fn extensions(&self) -> &[&str] {
        &["adoption.json", "adoption.ron"]
    }
}
