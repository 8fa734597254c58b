//! Transactions whose `BEGIN` is pipelined with their first statements (`infrastructure::pipeline`):
//! everything the work sends runs inside the transaction, a failure or a rollback leaves nothing, and
//! a transaction dropped half-way never goes back to the pool open.

use std::time::Duration;

use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use infrastructure::db::{build_pool, PoolSettings};
use infrastructure::events::record_event;
use infrastructure::pipeline::transaction;
use shared_kernel::EventEnvelope;
use tally_tests::TestDb;

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

async fn fail(mut conn: &AsyncPgConnection) -> Result<(), DieselError> {
    diesel::sql_query("SELECT 1 / 0").execute(&mut conn).await.map(|_| ())
}

#[actix_web::test]
async fn a_transaction_commits_what_its_work_sent_and_nothing_when_a_statement_fails() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");

    let kept = transaction(&mut conn, async |conn| record_event(conn, &[event("test.kept")]).await).await;
    assert!(kept.is_ok(), "{kept:?}");
    assert_eq!(events_named(&conn, "test.kept").await, 1);

    // The insert is sent together with BEGIN and runs before the failing statement: had it run
    // outside the transaction, it would have stayed.
    let failed = transaction(&mut conn, async |conn| {
        record_event(conn, &[event("test.failed")]).await?;
        fail(conn).await
    })
    .await;
    assert!(matches!(failed, Err(DieselError::DatabaseError(..))), "{failed:?}");
    assert_eq!(events_named(&conn, "test.failed").await, 0, "the insert before the failure rolled back");

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

    // The connection is out of any transaction afterwards: a later write outside one is visible to others.
    record_event(&conn, &[event("test.after")]).await.expect("insert");
    let other = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    assert_eq!(events_named(&other.get().await.expect("connection"), "test.after").await, 1);
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
        let stuck = transaction(&mut conn, async |conn| {
            record_event(conn, &[event("test.dropped")]).await?;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok::<(), DieselError>(())
        });
        assert!(tokio::time::timeout(Duration::from_millis(200), stuck).await.is_err(), "still running");
    }
    // The pool's one connection: had the open transaction come back with it, its own insert would
    // be visible here.
    let conn = pool.get().await.expect("a connection");
    assert_eq!(events_named(&conn, "test.dropped").await, 0);
}
