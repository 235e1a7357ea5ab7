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
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdoptionLoadError {
    /// The file could not be read.
    #[error("could not read the adoption file: {0}")]
    Io(#[from] std::io::Error),
    /// The file has errors; every problem is in the report.
    #[error("{path}: the adoption has errors and was not loaded:\n{}", .report.render(.path))]
    Invalid {
        /// The asset path.
        path: String,
        /// Every problem found.
        report: Report,
    },
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
