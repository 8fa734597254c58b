//! Write statements are kept prepared on their connection (`infrastructure::prepared`): run again on
//! the same connection, an insert is not parsed again, whatever the number of rows it writes.

use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use infrastructure::db::{build_pool, PoolSettings};
use infrastructure::events::record_event;
use shared_kernel::EventEnvelope;
use tally_tests::TestApp;

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Kept {
    #[diesel(sql_type = BigInt)]
    statements: i64,
    #[diesel(sql_type = BigInt)]
    runs: i64,
}

#[actix_web::test]
async fn an_event_insert_stays_prepared_whatever_its_number_of_events() {
    let t = TestApp::start().await;
    let pool = build_pool(&PoolSettings::new(&t.db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");
    let event = || EventEnvelope::new("test.prepared", uuid::Uuid::now_v7(), serde_json::json!({}));
    for _ in 0..3 {
        record_event(&conn, &[event()]).await.expect("one event");
    }
    record_event(&conn, &(0..9).map(|_| event()).collect::<Vec<_>>()).await.expect("nine events");
    // Each run of a prepared statement uses a generic or a custom plan: their sum counts its runs.
    let kept: Kept = diesel::sql_query(
        "SELECT count(*) AS statements, coalesce(sum(generic_plans + custom_plans), 0)::int8 AS runs \
         FROM pg_prepared_statements WHERE statement LIKE 'WITH in_flight AS %INSERT INTO outbox_events %'",
    )
    .get_result(&mut conn)
    .await
    .expect("prepared statements");
    assert_eq!((kept.statements, kept.runs), (1, 4), "one insert ran the three single events and the nine");
    let written: Count = diesel::sql_query("SELECT count(*) AS n FROM outbox_events WHERE name = 'test.prepared'")
        .get_result(&mut conn)
        .await
        .expect("events");
    assert_eq!(written.n, 12, "every event written");
    t.stop().await;
}
