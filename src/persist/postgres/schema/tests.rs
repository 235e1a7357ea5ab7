//! The schema check's reading of errors, against a real cluster.

use super::*;
use crate::persist::ThrowawayPostgres;

/// A session ended while it read the version is a lost connection, not
/// a damaged database; a version row missing is a damaged one.
#[test]
fn a_lost_connection_is_not_a_damaged_schema() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("schema_lost").expect("a cluster");
    let config: Config = url.parse().expect("a URL");
    let mut lost = connect_plain(&config, "test").expect("connects");
    let mut other = connect_plain(&config, "test").expect("connects");
    lost.batch_execute("CREATE TABLE container_schema (version BIGINT NOT NULL)")
        .expect("creates");
    let empty = lost
        .query_one("SELECT version FROM container_schema", &[])
        .expect_err("no row");
    assert!(
        matches!(
            version_unread("test", &empty),
            DatabaseError::Damaged { .. }
        ),
        "{:?}",
        version_unread("test", &empty)
    );
    other
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()",
        )
        .expect("ends the other session");
    let cut = lost
        .query_one("SELECT version FROM container_schema", &[])
        .expect_err("the session was ended");
    let why = version_unread("test", &cut);
    assert!(
        !matches!(why, DatabaseError::Damaged { .. }),
        "a lost connection read as {why}"
    );
}
