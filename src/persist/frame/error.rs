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
    /// What was asked cannot be done as asked: a malformed URL, a server id
    /// too long, a claim naming a server the database does not know. The
    /// database is as it was.
    #[error("{path}: {message}; {fix}")]
    Invalid {
        /// The file, or the URL (password hidden).
        path: String,
        /// What is wrong with what was asked.
        message: String,
        /// What to do.
        fix: String,
    },
    /// PostgreSQL refused what was asked (the database or role does not
    /// exist, a permission is missing); the fix is PostgreSQL's own.
    #[error("{path}: PostgreSQL refused it ({message}); {fix}")]
    Refused {
        /// The URL, password hidden.
        path: String,
        /// What the server said.
        message: String,
        /// What to do, for this refusal.
        fix: String,
    },
    /// The server id was opened again by another process (an
    /// orchestrator restarted it while this one was paused or cut off):
    /// this process writes nothing more, ever, and lets go of everything
    /// it held ([`ServerReplaced`](crate::persist::ServerReplaced)).
    #[error(
        "{path}: server \"{server}\" was opened again by another process (generation {now}, this process holds {mine}); this process writes nothing more: stop it, and keep one process per server id (the newer one has loaded what the database holds)"
    )]
    Replaced {
        /// The URL, password hidden.
        path: String,
        /// The server's id.
        server: String,
        /// The generation this process opened.
        mine: i64,
        /// The generation the database holds now.
        now: i64,
    },
    /// The database holds less than this server saw committed: it forgot
    /// frames (an asynchronous standby promoted, a restore from a backup).
    /// Nothing is written on top of the past it lost.
    #[error(
        "{path}: the database forgot frames of server \"{server}\": it holds frame {holds}, and this server saw frames up to {seen} committed (frames {first_missing} to {seen} are missing{generation}); nothing more is written on top of them: restart the server so it loads what the database holds (every frame was one transaction, so it is consistent), and replicate synchronously (synchronous_standby_names) so a failover cannot forget committed frames"
    )]
    Behind {
        /// The URL, password hidden.
        path: String,
        /// The server's id.
        server: String,
        /// The last frame the database holds for this server.
        holds: u64,
        /// The first frame it lacks.
        first_missing: u64,
        /// The last frame this server saw committed.
        seen: u64,
        /// What it says of the server's generation, if that is behind too.
        generation: String,
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
pub(crate) fn hide_password(url: &str) -> String {
    let Some(scheme) = url.find("://") else {
        // libpq's key-value form: `host=db password=secret`
        return url
            .split(' ')
            .map(|part| match part.split_once('=') {
                Some(("password", _)) => "password=***",
                _ => part,
            })
            .collect::<Vec<_>>()
            .join(" ");
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
        assert_eq!(
            hide_password("host=db1,db2 password=secret dbname=world"),
            "host=db1,db2 password=*** dbname=world"
        );
    }
}
