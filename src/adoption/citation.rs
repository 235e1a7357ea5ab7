//! Citations: `path#anchor` pointers into the game's prose.

use std::path::Path;

/// A parsed citation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Citation<'a> {
    /// The prose file, relative to the prose folder.
    pub file: &'a str,
    /// The heading's slug, if given.
    pub anchor: Option<&'a str>,
}

/// Why a citation does not resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CitationError {
    /// Not of the form `path#anchor`.
    #[error(
        "\"{0}\" is not a citation; write a prose file and optionally a heading, like 02-mechanics.md#the-backpack"
    )]
    Malformed(String),
    /// The file is not in the prose folder.
    #[error("the prose folder has no file \"{0}\"")]
    NoFile(String),
    /// The file has no heading with that slug.
    #[error("\"{file}\" has no heading whose slug is \"{anchor}\"; its headings are: {known}")]
    NoHeading {
        /// The file.
        file: String,
        /// The anchor looked for.
        anchor: String,
        /// The slugs it does have.
        known: String,
    },
}

impl<'a> Citation<'a> {
    /// Parses `path#anchor`.
    ///
    /// ```
    /// use bevy_container::adoption::citation::Citation;
    ///
    /// let c = Citation::parse("02-mechanics.md#the-backpack").unwrap();
    /// assert_eq!(c.file, "02-mechanics.md");
    /// assert_eq!(c.anchor, Some("the-backpack"));
    /// assert!(Citation::parse("see the design doc").is_err());
    /// ```
    pub fn parse(text: &'a str) -> Result<Citation<'a>, CitationError> {
        let (file, anchor) = match text.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (text, None),
        };
        let file_ok = !file.is_empty()
            && !file.chars().any(char::is_whitespace)
            && !file.starts_with('/')
            && !file.split('/').any(|p| p == "..")
            && file.contains('.');
        let anchor_ok = anchor.is_none_or(|a| {
            !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        });
        if file_ok && anchor_ok {
            Ok(Citation { file, anchor })
        } else {
            Err(CitationError::Malformed(text.to_string()))
        }
    }

    /// Checks the citation against a prose folder.
    pub fn resolve(&self, prose: &Path) -> Result<(), CitationError> {
        let text = std::fs::read_to_string(prose.join(self.file))
            .map_err(|_| CitationError::NoFile(self.file.to_string()))?;
        let Some(anchor) = self.anchor else {
            return Ok(());
        };
        let slugs = headings(&text);
        if slugs.iter().any(|s| s == anchor) {
            Ok(())
        } else {
            Err(CitationError::NoHeading {
                file: self.file.to_string(),
                anchor: anchor.to_string(),
                known: if slugs.is_empty() {
                    "none".into()
                } else {
                    slugs.join(", ")
                },
            })
        }
    }
}

/// The slugs of a Markdown text's headings, in order.
pub fn headings(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let hashes = t.chars().take_while(|c| *c == '#').count();
            (1..=6)
                .contains(&hashes)
                .then(|| &t[hashes..])
                .filter(|rest| rest.starts_with(' '))
                .map(slug)
        })
        .collect()
}

/// A heading's slug: lower case, spaces to `-`, punctuation dropped.
///
/// ```
/// assert_eq!(bevy_container::adoption::citation::slug("The backpack"), "the-backpack");
/// assert_eq!(bevy_container::adoption::citation::slug(" Drops, & pickups! "), "drops--pickups");
/// ```
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}
