//! Transactions whose `BEGIN` is pipelined with their first statements (`postgres_toolkit::pipeline`):
//! everything the work sends runs inside the transaction, a failure or a rollback leaves nothing, and
//! a transaction dropped half-way never goes back to the pool open.

use std::time::Duration;

use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager};
use postgres_toolkit::db::{build_pool, PoolSettings};
use postgres_toolkit::events::record_event;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::request_tx::RequestTransaction;
use postgres_toolkit::storage::connect;
use shared_kernel::EventEnvelope;
use tally_tests::TestDb;
use tokio::sync::oneshot;

type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;

/// Out of any transaction, as diesel's transaction manager sees it (the pool's test for reuse).
fn settled(conn: &mut AsyncPgConnection) -> bool {
    matches!(TxManager::transaction_manager_status_mut(conn).transaction_depth(), Ok(None))
        && !TxManager::is_broken_transaction_manager(conn)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn event(name: &str) -> EventEnvelope {
    EventEnvelope::new(name, uuid::Uuid::now_v7(), serde_json::json!({}))
}

async fn events_named(mut conn: &AsyncPgConnection, name: &str) -> i64 {
    diesel::sql_query("SELECT count(*) AS n FROM outbox_events WHERE name = $1")
        .bind::<Text, _>(name)
        .get_result::<Count>(&mut conn)
        .await
        .expect("count")
        .n
}

/// Work that inserts an event, says so, and never ends (a client that went away meanwhile).
async fn insert_then_hang(
    conn: &AsyncPgConnection,
    name: &str,
    inserted: oneshot::Sender<()>,
) -> Result<(), DieselError> {
    record_event(conn, &[event(name)]).await?;
    let _ = inserted.send(());
    std::future::pending().await
}

/// Drops `work` once its insert has answered, so the open transaction really holds the row.
async fn drop_once_inserted(work: impl std::future::Future, inserted: oneshot::Receiver<()>) {
    let dropped = async {
        tokio::select! {
            _ = work => panic!("the work never ends"),
            answered = inserted => answered.expect("inserted"),
        }
    };
    tokio::time::timeout(Duration::from_secs(10), dropped).await.expect("the insert answered");
}

async fn fail(mut conn: &AsyncPgConnection) -> Result<(), DieselError> {
    diesel::sql_query("SELECT 1 / 0").execute(&mut conn).await.map(|_| ())
}

#[actix_web::test]
async fn a_transaction_commits_what_its_work_sent_and_nothing_when_a_statement_fails() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");

    let other = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let other = other.get().await.expect("connection");
    let kept = transaction(&mut conn, async |conn| record_event(conn, &[event("test.kept")]).await).await;
    assert!(kept.is_ok(), "{kept:?}");
    assert_eq!(events_named(&other, "test.kept").await, 1, "committed: another session sees it");
    assert!(settled(&mut conn));

    // The insert is sent together with BEGIN and runs before the failing statement: had it run
    // outside the transaction, it would have stayed. (The one-event insert is prepared by now, so
    // its Bind and Execute are what travel behind BEGIN; a first Parse would travel behind it too.)
    let failed = transaction(&mut conn, async |conn| {
        record_event(conn, &[event("test.failed")]).await?;
        fail(conn).await
    })
    .await;
    assert!(matches!(failed, Err(DieselError::DatabaseError(..))), "{failed:?}");
    assert_eq!(events_named(&conn, "test.failed").await, 0, "the insert before the failure rolled back");
    assert!(settled(&mut conn));

    // Sent at once with the failing statement (pipelined), the insert rolls back too.
    let failed = transaction(&mut conn, async |conn| {
        futures_util::future::try_join(record_event(conn, &[event("test.together")]), fail(conn)).await.map(|_| ())
    })
    .await;
    assert!(failed.is_err());
    assert_eq!(events_named(&conn, "test.together").await, 0);

    // Work that answers an error of its own (a compare-and-set that missed) rolls back as well.
    let refused = transaction(&mut conn, async |conn| {
        record_event(conn, &[event("test.refused")]).await?;
        Err::<(), _>(DieselError::RollbackTransaction)
    })
    .await;
    assert!(matches!(refused, Err(DieselError::RollbackTransaction)), "{refused:?}");
    assert_eq!(events_named(&conn, "test.refused").await, 0);
    assert!(settled(&mut conn));

    // The connection is out of any transaction afterwards: a later write outside one is visible to others.
    record_event(&conn, &[event("test.after")]).await.expect("insert");
    assert_eq!(events_named(&other, "test.after").await, 1);
}

#[actix_web::test]
async fn a_commit_that_fails_is_an_error_and_leaves_the_connection_usable() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");
    diesel::sql_query("CREATE TABLE deferred_check (v int UNIQUE DEFERRABLE INITIALLY DEFERRED)")
        .execute(&mut conn)
        .await
        .expect("table");
    // Both rows go in; the unique key is checked at COMMIT, which fails.
    let failed = transaction(&mut conn, async |mut conn| {
        record_event(conn, &[event("test.deferred")]).await?;
        diesel::sql_query("INSERT INTO deferred_check VALUES (1), (1)").execute(&mut conn).await.map(|_| ())
    })
    .await;
    assert!(matches!(failed, Err(DieselError::DatabaseError(..))), "{failed:?}");
    assert!(settled(&mut conn));
    assert_eq!(events_named(&conn, "test.deferred").await, 0, "nothing of the failed commit stayed");
    let kept = transaction(&mut conn, async |conn| record_event(conn, &[event("test.next")]).await).await;
    assert!(kept.is_ok(), "the next transaction runs on the same connection: {kept:?}");
    assert_eq!(events_named(&conn, "test.next").await, 1);
}

#[actix_web::test]
async fn inside_a_transaction_the_work_runs_in_a_savepoint() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");
    conn.transaction::<(), DieselError, _>(async |outer| {
        record_event(outer, &[event("test.outer")]).await?;
        let inner = transaction(outer, async |conn| {
            record_event(conn, &[event("test.inner")]).await?;
            fail(conn).await
        })
        .await;
        assert!(inner.is_err());
        // The outer transaction goes on: only the savepoint rolled back.
        assert_eq!(events_named(outer, "test.inner").await, 0);
        assert_eq!(events_named(outer, "test.outer").await, 1);
        // A rollback the work asks for ends its savepoint only, with the work's own error.
        let refused = transaction(outer, async |conn| {
            record_event(conn, &[event("test.inner-refused")]).await?;
            Err::<(), _>(DieselError::RollbackTransaction)
        })
        .await;
        assert!(matches!(refused, Err(DieselError::RollbackTransaction)), "{refused:?}");
        assert_eq!(events_named(outer, "test.inner-refused").await, 0);
        assert_eq!(events_named(outer, "test.outer").await, 1);
        transaction(outer, async |conn| record_event(conn, &[event("test.inner-kept")]).await).await
    })
    .await
    .expect("outer transaction");
    assert_eq!(events_named(&conn, "test.outer").await, 1);
    assert_eq!(events_named(&conn, "test.inner-kept").await, 1);
}

#[actix_web::test]
async fn a_transaction_dropped_half_way_does_not_go_back_to_the_pool_open() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    {
        let mut conn = pool.get().await.expect("connection");
        let (inserted, was_inserted) = oneshot::channel();
        let stuck = transaction(&mut conn, async |conn| insert_then_hang(conn, "test.dropped", inserted).await);
        drop_once_inserted(stuck, was_inserted).await;
    }
    // The pool's one connection: had the open transaction come back with it, its own insert would
    // be visible here.
    let conn = pool.get().await.expect("a connection");
    assert_eq!(events_named(&conn, "test.dropped").await, 0);
}

#[actix_web::test]
async fn a_request_transaction_abandoned_inside_a_savepoint_rolls_back_every_level() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 2)).expect("pool");
    let request = RequestTransaction::begin(&pool).await.expect("begin");
    let (inserted, was_inserted) = oneshot::channel();
    let work = request.run(async {
        let mut conn = connect(&pool).await.expect("the request's connection");
        transaction(&mut conn, async |conn| insert_then_hang(conn, "test.abandoned", inserted).await).await
    });
    drop_once_inserted(work, was_inserted).await;
    drop(request);
    // Watched from a session of its own: no session of this database stays idle in a transaction.
    let mut watcher = AsyncPgConnection::establish(&db.url).await.expect("watcher");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let open = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() \
             AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'",
        )
        .get_result::<Count>(&mut watcher)
        .await
        .expect("watch")
        .n;
        if open == 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the abandoned transaction is still open");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(events_named(&watcher, "test.abandoned").await, 0);
}
