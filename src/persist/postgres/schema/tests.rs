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

/// An error whose code says the session ended, or that the server takes
/// no writes, names the connection (`Connect`: check that the server
/// runs, and the URL), not the database (`Open`'s fix is a path); other
/// refusals keep PostgreSQL's message under `Open`.
#[test]
fn a_session_lost_by_its_code_names_the_connection() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("schema_codes").expect("a cluster");
    let config: Config = url.parse().expect("a URL");
    let mut client = connect_plain(&config, "test").expect("connects");
    client
        .batch_execute("SET default_transaction_read_only = on")
        .expect("sets");
    let read_only = client
        .batch_execute("CREATE TABLE t (x BIGINT)")
        .expect_err("a read-only session");
    let why = error("test", &read_only);
    assert!(
        matches!(why, DatabaseError::Connect { .. }),
        "a standby's refusal read as {why}"
    );
    client
        .batch_execute("SET default_transaction_read_only = off")
        .expect("sets");
    let syntax = client.batch_execute("SELEC 1").expect_err("not SQL");
    let why = error("test", &syntax);
    assert!(
        matches!(why, DatabaseError::Open { .. }),
        "a refused statement read as {why}"
    );
}
