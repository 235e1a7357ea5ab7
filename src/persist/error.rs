//! What can go wrong with a container database, each error naming the
//! file (or the PostgreSQL URL, password hidden), the table and key where
//! there is one, and what to do.

/// Why a database could not be opened, read or written. Each names the
/// file, the table and key where there is one, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DatabaseError {
    /// The file could not be opened or created.
    #[error(
        "{path}: cannot open the container database ({message}); check the path and its folder"
    )]
    Open {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// Another process (another server?) holds the file.
    #[error(
        "{path}: the container database is in use by another process; stop the other server or use another file"
    )]
    Locked {
        /// The file.
        path: String,
    },
    /// The file or its folder cannot be written.
    #[error(
        "{path}: the container database cannot be written ({message}); make the file and its folder writable"
    )]
    ReadOnly {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// The file is not a SQLite database, or is damaged (truncated,
    /// overwritten).
    #[error(
        "{path}: not a container database, or a damaged one ({message}); restore it from a backup or move it away to start a new world"
    )]
    Damaged {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
    /// The file was written by a newer version of this crate.
    #[error(
        "{path}: the container database has schema version {found}, newer than this build reads ({supported}); use a newer bevy_container"
    )]
    Newer {
        /// The file.
        path: String,
        /// The file's schema version.
        found: i64,
        /// The newest this build reads.
        supported: i64,
    },
    /// A row does not read; nothing was loaded.
    #[error(
        "{path}: table {table}, row \"{key}\": {message}; fix or delete the row, or restore the file from a backup"
    )]
    Row {
        /// The file.
        path: String,
        /// The table.
        table: &'static str,
        /// The row's key (a persistent id).
        key: String,
        /// What is wrong, with the column.
        message: String,
    },
    /// PostgreSQL could not be reached (refused, unknown host, timed out).
    #[error(
        "{path}: cannot connect to PostgreSQL ({message}); check that the server runs and the URL's host, port and database name"
    )]
    Connect {
        /// The URL, password hidden.
        path: String,
        /// What the client said.
        message: String,
    },
    /// PostgreSQL refused the login.
    #[error(
        "{path}: PostgreSQL refused the login ({message}); check the user and password in the URL (or PGPASSWORD) and pg_hba.conf"
    )]
    Authentication {
        /// The URL, password hidden.
        path: String,
        /// What the server said.
        message: String,
    },
    /// Another process runs as the same server on this database.
    #[error(
        "{path}: server \"{server}\" already runs on this database (another process holds its lock); stop it, or give each server process its own ServerId"
    )]
    ServerInUse {
        /// The URL, password hidden.
        path: String,
        /// The server's id.
        server: String,
    },
    /// Writing a frame failed; the file holds the frame before.
    #[error(
        "{path}: writing frame {frame} failed ({message}); the file holds the last frame written, and no later frame is written: free disk space or fix the file's permissions, then restart the server to go on from that frame"
    )]
    Write {
        /// The file.
        path: String,
        /// The frame that was not written.
        frame: u64,
        /// What SQLite said.
        message: String,
    },
}

/// `url` with its password (if any) hidden, for errors and logs.
///
/// `postgresql://game:secret@db/world` reads `postgresql://game:***@db/world`.
pub(super) fn hide_password(url: &str) -> String {
    let Some(scheme) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme + 3..];
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => format!(
            "{}{}:***{}",
            &url[..scheme + 3],
            &authority[..colon],
            &rest[at..]
        ),
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::hide_password;

    #[test]
    fn a_password_in_a_url_is_hidden() {
        assert_eq!(
            hide_password("postgresql://game:secret@db:5432/world"),
            "postgresql://game:***@db:5432/world"
        );
        assert_eq!(
            hide_password("postgresql://game@db/world"),
            "postgresql://game@db/world"
        );
        assert_eq!(
            hide_password("postgresql:///world?host=/tmp/pg"),
            "postgresql:///world?host=/tmp/pg"
        );
    }
}
