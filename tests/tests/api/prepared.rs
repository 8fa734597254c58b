//! Write statements are kept prepared on their connection (`postgres_toolkit::prepared`): run again on
//! the same connection, an insert is not parsed again, whatever the number of rows it writes. A
//! single order's reads settle on one plan instead of being planned on every run, and reads by id
//! select by `id` alone, so no plan can take a list index for them.

use actix_web::test::init_service;
use api::build_app;
use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use order_domain::OrderRepository;
use order_postgres::PgOrderRepository;
use postgres_toolkit::db::{build_pool, PoolSettings};
use postgres_toolkit::events::record_event;
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

/// The reads of rows of `first` or `second` kept prepared on `pool`'s one connection, by text.
async fn reads_kept(pool: &postgres_toolkit::DbPool, first: &str, second: &str) -> Vec<Plans> {
    let mut conn = pool.get().await.expect("connection");
    diesel::sql_query(
        "SELECT statement, generic_plans FROM pg_prepared_statements \
         WHERE statement LIKE 'SELECT \"' || $1 || '\".\"id\"%' OR statement LIKE 'SELECT \"' || $2 || '\".\"id\"%' \
         ORDER BY statement",
    )
    .bind::<diesel::sql_types::Text, _>(first)
    .bind::<diesel::sql_types::Text, _>(second)
    .load(&mut conn)
    .await
    .expect("prepared statements")
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
    let plans = reads_kept(&pool, "orders", "order_lines").await;
    assert_eq!(plans.len(), 1, "the order's row and its lines, one statement (one snapshot)");
    for plan in &plans {
        // PostgreSQL tries custom plans for five runs, then keeps a generic one if it is no dearer; a
        // `= ANY($1)` of one id never gets there and is planned on every run.
        assert!(plan.generic_plans >= 1, "planned on every run: {}", plan.statement);
    }
    t.stop().await;
}

#[actix_web::test]
async fn reads_by_id_select_by_id_alone_so_no_list_index_can_serve_them() {
    use crm_domain::CustomerRepository;
    use crm_postgres::PgCustomerRepository;

    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let created = order(&app, &admin, buyer, json!({})).await;
    let order_id = uuid::Uuid::parse_str(created["id"].as_str().expect("order id")).expect("order id");
    // One connection, so the reads' prepared statements can be read back.
    let pool = build_pool(&PoolSettings::new(&t.db.url, 1)).expect("pool");
    let customers = PgCustomerRepository::new(pool.clone());
    let orders = PgOrderRepository::new(pool.clone());
    assert!(customers.find_by_id(buyer).await.expect("read").is_some());
    assert!(customers.find_by_id(uuid::Uuid::now_v7()).await.expect("read").is_none());
    orders.get(order_id).await.expect("order");

    let reads = reads_kept(&pool, "customers", "orders").await;
    assert_eq!(reads.len(), 2, "a customer's read and an order's row");
    for read in &reads {
        // `deleted_at IS NULL` in the condition would let the partial list indexes (ending in `id`)
        // match it, and a plan made without statistics may walk one of them whole.
        let condition = read.statement.split(" WHERE ").nth(1).expect("a condition");
        assert!(!condition.contains("deleted_at"), "the deletion is checked after the read: {}", read.statement);
        assert!(
            condition.starts_with(r#"("customers"."id" = $1)"#) || condition.starts_with(r#"("orders"."id" = $1)"#)
        );
    }
    t.stop().await;
}

/// The customer list statements kept prepared on this connection.
async fn kept_list_statements(conn: &mut diesel_async::AsyncPgConnection) -> Vec<String> {
    let kept: Vec<Plans> = diesel::sql_query(
        "SELECT statement, generic_plans FROM pg_prepared_statements \
         WHERE statement LIKE 'SELECT count(*) FROM (SELECT  FROM \"customers\"%' \
            OR statement LIKE 'SELECT count(*) FROM (SELECT  FROM \"customer_tags\"%' \
            OR statement LIKE 'SELECT \"customers\".\"id\"%OFFSET%' ORDER BY statement",
    )
    .load(conn)
    .await
    .expect("prepared statements");
    kept.into_iter().map(|s| s.statement).collect()
}

#[actix_web::test]
async fn a_customer_list_keeps_its_statements_only_where_every_value_takes_the_same_index() {
    use crm_domain::{CustomerFilter, CustomerQuery, CustomerRepository};
    use crm_postgres::PgCustomerRepository;
    use shared_kernel::PageRequest;

    let t = TestApp::start().await;
    for _ in 0..3 {
        customer(&t.state.pool).await;
    }
    // One connection, so every list below runs on it and its prepared statements can be read back.
    let pool = build_pool(&PoolSettings::new(&t.db.url, 1)).expect("pool");
    let customers = PgCustomerRepository::new(pool.clone());
    let list = |query: CustomerQuery| {
        let customers = &customers;
        async move {
            let filter = CustomerFilter::from_query(&query).expect("valid filter");
            customers.list(&filter, PageRequest::default()).await.expect("list")
        }
    };
    // Planned for their values: a search, two tags, two filters, another sort (one tag's too).
    let per_run = [
        CustomerQuery { search: Some("buyer".into()), ..Default::default() },
        CustomerQuery { tags: Some("vip,eu".into()), ..Default::default() },
        CustomerQuery { tags: Some("vip".into()), sort: Some("name".into()), ..Default::default() },
        CustomerQuery { status: Some("lead".into()), tier: Some("free".into()), ..Default::default() },
        CustomerQuery { status: Some("lead".into()), sort: Some("name".into()), ..Default::default() },
    ];
    for query in per_run {
        list(query).await;
    }
    let mut conn = pool.get().await.expect("connection");
    assert_eq!(kept_list_statements(&mut conn).await, Vec::<String>::new(), "nothing kept for these shapes");
    drop(conn);

    // Kept: no filter, or one that an index serves in the default order; each a count and a page.
    let all = list(CustomerQuery::default()).await;
    assert_eq!(all.total, 3, "every customer counted");
    for _ in 0..2 {
        let leads = list(CustomerQuery { status: Some("lead".into()), ..Default::default() }).await;
        assert_eq!(leads.items.len(), leads.total as usize, "the page and its total agree");
    }
    list(CustomerQuery { status: Some("customer".into()), ..Default::default() }).await;
    // One tag, alone or with a status: `customer_tags`' index in the list's order.
    for tags in ["vip", "eu"] {
        list(CustomerQuery { tags: Some(tags.into()), ..Default::default() }).await;
        list(CustomerQuery { tags: Some(tags.into()), status: Some("lead".into()), ..Default::default() }).await;
    }
    let mut conn = pool.get().await.expect("connection");
    let kept = kept_list_statements(&mut conn).await;
    assert_eq!(
        kept.len(),
        8,
        "the unfiltered, status, tag and tag-with-status shapes, a count and a page each: {kept:#?}"
    );
    assert!(kept.iter().any(|s| s.contains("\"status_rank\" = $1") && s.starts_with("SELECT count(*)")), "{kept:#?}");
    let tag_pages =
        kept.iter().filter(|s| s.contains(" = ANY(ARRAY(SELECT ") && s.contains("\"customer_tags\".\"tag\" = $1"));
    assert_eq!(tag_pages.count(), 2, "{kept:#?}");
    t.stop().await;
}
