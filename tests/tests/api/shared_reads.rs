//! Reads of one statement that share a pooled connection (`DbPool::get_shared`,
//! `storage::connect_shared`): they join one only when their part has none free, never one a
//! transaction holds, inside a request transaction they read through it, and the last to finish
//! gives the connection back.

use std::time::Duration;

use diesel::sql_types::{Integer, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::db::{build_pool, DbPool, PoolSettings};
use postgres_toolkit::request_tx::RequestTransaction;
use postgres_toolkit::storage::{connect, connect_shared};
use tally_tests::TestDb;

#[derive(QueryableByName)]
struct Backend {
    #[diesel(sql_type = Integer)]
    pid: i32,
}

/// The server process behind `conn`, asked on it (so through the pipeline when it is shared).
async fn backend(mut conn: &AsyncPgConnection) -> i32 {
    diesel::sql_query("SELECT pg_backend_pid() AS pid").get_result::<Backend>(&mut conn).await.expect("pid").pid
}

fn pool_of(db: &TestDb, size: usize) -> DbPool {
    let settings = PoolSettings { wait_timeout: Duration::from_secs(2), ..PoolSettings::new(&db.url, size) };
    build_pool(&settings).expect("pool")
}

#[tokio::test]
async fn a_read_joins_a_held_connection_only_when_its_part_has_none_free() {
    let db = TestDb::new().await;
    let pool = pool_of(&db, 2);
    let first = pool.get_shared().await.expect("first");
    let second = pool.get_shared().await.expect("second");
    assert_ne!(backend(&first).await, backend(&second).await, "a free connection is taken, not shared");
    // Both connections are held now: the next reads join them, and run at once on them.
    let third = pool.get_shared().await.expect("third");
    let fourth = pool.get_shared().await.expect("fourth");
    let (pids, third_pid, fourth_pid) =
        tokio::join!(async { [backend(&first).await, backend(&second).await] }, backend(&third), backend(&fourth));
    assert!(pids.contains(&third_pid) && pids.contains(&fourth_pid), "joined a held connection");
    assert_ne!(third_pid, fourth_pid, "the read joins the connection with the fewest reads on it");
    assert_eq!(pool.status().size, 2, "no connection beyond the pool's size");
}

#[tokio::test]
async fn a_read_never_joins_a_connection_checked_out_whole() {
    let db = TestDb::new().await;
    let pool = pool_of(&db, 1);
    let whole = pool.get().await.expect("exclusive");
    let waited = tokio::time::timeout(Duration::from_millis(300), pool.get_shared()).await;
    assert!(waited.is_err(), "a read waits for the connection a transaction may hold");
    drop(whole);
    let shared = pool.get_shared().await.expect("given back");
    backend(&shared).await;
}

#[tokio::test]
async fn the_last_read_to_finish_gives_the_connection_back() {
    let db = TestDb::new().await;
    let pool = pool_of(&db, 1);
    let first = pool.get_shared().await.expect("first");
    let joined = pool.get_shared().await.expect("joined");
    let pid = backend(&joined).await;
    drop(first);
    let waited = tokio::time::timeout(Duration::from_millis(300), pool.get()).await;
    assert!(waited.is_err(), "still held by the read that joined");
    drop(joined);
    let whole = pool.get().await.expect("back in the pool");
    assert_eq!(backend(&whole).await, pid, "the same connection, reused");
    assert_eq!(pool.status().available, 0);
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[tokio::test]
async fn inside_a_request_transaction_a_read_goes_through_it() {
    let db = TestDb::new().await;
    let pool = pool_of(&db, 2);
    diesel::sql_query("CREATE TABLE scratch (name text)")
        .execute(&mut pool.get().await.expect("conn"))
        .await
        .expect("ddl");
    let request = RequestTransaction::begin(&pool).await.expect("begin");
    let seen = request
        .run(async {
            let mut conn = connect(&pool).await.expect("the request's connection");
            diesel::sql_query("INSERT INTO scratch VALUES ('uncommitted')").execute(&mut conn).await.expect("insert");
            drop(conn);
            let mut read = &*connect_shared(&pool).await.expect("read");
            diesel::sql_query("SELECT name FROM scratch").load::<Name>(&mut read).await.expect("select")
        })
        .await;
    assert_eq!(seen.iter().map(|row| row.name.as_str()).collect::<Vec<_>>(), ["uncommitted"]);
    request.rollback().await;
    let mut outside = &*connect_shared(&pool).await.expect("read");
    let after: Vec<Name> = diesel::sql_query("SELECT name FROM scratch").load(&mut outside).await.expect("select");
    assert!(after.is_empty(), "rolled back with the transaction it was read in");
}
