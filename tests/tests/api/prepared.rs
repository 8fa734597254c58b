//! Write statements are kept prepared on their connection (`infrastructure::prepared`): run again on
//! the same connection, an insert is not parsed again; a batch whose size the caller chooses is not
//! kept (one text per size would fill the cache).

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

#[actix_web::test]
async fn an_event_insert_stays_prepared_on_its_connection() {
    let t = TestApp::start().await;
    let pool = build_pool(&PoolSettings::new(&t.db.url, 1)).expect("pool");
    let mut conn = pool.get().await.expect("connection");
    let event = || EventEnvelope::new("test.prepared", uuid::Uuid::now_v7(), serde_json::json!({}));
    for _ in 0..3 {
        record_event(&conn, &[event()]).await.expect("one event");
    }
    record_event(&conn, &(0..9).map(|_| event()).collect::<Vec<_>>()).await.expect("nine events");
    let kept = |like: &'static str| {
        diesel::sql_query("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE $1")
            .bind::<diesel::sql_types::Text, _>(like)
    };
    let inserts = kept("INSERT INTO \"outbox_events\"%").get_result::<Count>(&mut conn).await.expect("count").n;
    assert_eq!(inserts, 1, "the one-event insert stays prepared; the nine-event one was closed after its run");
    t.stop().await;
}
