//! Write statements are kept prepared on their connection (`infrastructure::prepared`): run again on
//! the same connection, an insert is not parsed again, whatever the number of rows it writes. A
//! single order's reads settle on one plan instead of being planned on every run.

use actix_web::test::init_service;
use api::build_app;
use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use infrastructure::db::{build_pool, PoolSettings};
use infrastructure::events::record_event;
use infrastructure::orders::PgOrderRepository;
use order_domain::OrderRepository;
use serde_json::json;
use shared_kernel::EventEnvelope;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::commerce_support::{customer, line, order, product};

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

#[derive(QueryableByName)]
struct Plans {
    #[diesel(sql_type = diesel::sql_types::Text)]
    statement: String,
    #[diesel(sql_type = BigInt)]
    generic_plans: i64,
}

#[actix_web::test]
async fn a_single_order_read_settles_on_a_generic_plan() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "PLAN-1").await;
    let created = order(&app, &admin, buyer, json!({})).await;
    let id = created["id"].as_str().expect("order id");
    line(&app, &admin, id, widget["id"].as_str().expect("product id"), 2, 500).await;
    let id = uuid::Uuid::parse_str(id).expect("order id");
    // Other orders, with statistics: over a handful of rows any plan is as cheap as another, and the
    // `= ANY` form would settle on a generic plan as well.
    let mut setup = t.state.pool.get().await.expect("connection");
    diesel::sql_query(
        "INSERT INTO orders (id, order_number, customer_id, currency, subtotal, total) \
         SELECT gen_random_uuid(), 'ORD-2099-' || lpad(n::text, 6, '0'), $1, 'USD', 0, 0 \
         FROM generate_series(1, 5000) AS n",
    )
    .bind::<diesel::sql_types::Uuid, _>(buyer)
    .execute(&mut setup)
    .await
    .expect("other orders");
    diesel::sql_query("ANALYZE orders, order_lines").execute(&mut setup).await.expect("analyze");
    drop(setup);

    // One connection, so every read below runs on it and its prepared statements can be read back.
    let pool = build_pool(&PoolSettings::new(&t.db.url, 1)).expect("pool");
    let orders = PgOrderRepository::new(pool.clone());
    for _ in 0..8 {
        let read = orders.get(id).await.expect("order");
        assert_eq!(read.record().lines.len(), 1, "the order's line comes with it");
    }
    let mut conn = pool.get().await.expect("connection");
    let plans: Vec<Plans> = diesel::sql_query(
        "SELECT statement, generic_plans FROM pg_prepared_statements \
         WHERE statement LIKE 'SELECT \"orders\".\"id\"%' OR statement LIKE 'SELECT \"order_lines\".\"id\"%' \
         ORDER BY statement",
    )
    .load(&mut conn)
    .await
    .expect("prepared statements");
    assert_eq!(plans.len(), 2, "the order's row and its lines, one statement each");
    for plan in &plans {
        // PostgreSQL tries custom plans for five runs, then keeps a generic one if it is no dearer; a
        // `= ANY($1)` of one id never gets there and is planned on every run.
        assert!(plan.generic_plans >= 1, "planned on every run: {}", plan.statement);
    }
    t.stop().await;
}
