//! Where PostgreSQL runs without autovacuum, Tally analyses the tables that changed, so that a plan
//! made while a table was nearly empty is made again as it grows (`db::analyse_changed_tables`).

use diesel::sql_types::{Bool, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use infrastructure::db::{analyse_changed_tables, build_pool, who_analyses_tables, Analysis, PoolSettings};
use tally_tests::db::TestDb;
use tally_tests::TestApp;

#[derive(QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

async fn plan(conn: &mut AsyncPgConnection) -> String {
    let lines: Vec<PlanLine> =
        diesel::sql_query("EXPLAIN EXECUTE by_key(NULL)").load(conn).await.expect("the kept statement's plan");
    lines.into_iter().map(|l| l.line).collect::<Vec<_>>().join("\n")
}

/// `n` customers, written as a bulk load would.
async fn load_customers(conn: &mut AsyncPgConnection, n: i32) {
    diesel::sql_query(
        "INSERT INTO customers (id, name, email, status, tier, created_at, updated_at) \
         SELECT md5('bulk' || n)::uuid, 'Bulk ' || n, 'bulk' || n || '@stats.test', 'lead', 'free', now(), now() \
         FROM generate_series(1, $1) AS n",
    )
    .bind::<diesel::sql_types::Integer, _>(n)
    .execute(conn)
    .await
    .expect("bulk load");
    // The rows counted in the table's activity now, not at this backend's next report, which may come
    // seconds later: the report after this statement is forced.
    conn.batch_execute("SELECT pg_stat_force_next_flush()").await.expect("flush");
}

#[actix_web::test]
async fn a_plan_made_on_an_empty_table_is_made_again_once_the_table_is_analysed() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 3)).expect("pool");
    let mut kept = pool.get().await.expect("connection");
    // As PostgreSQL settles a kept statement after its first runs: one plan, made now, reused.
    kept.batch_execute(
        "SET plan_cache_mode = force_generic_plan; \
         PREPARE by_key(uuid) AS SELECT id FROM customers WHERE id = $1 AND deleted_at IS NULL",
    )
    .await
    .expect("prepare");
    let on_empty = plan(&mut kept).await;
    // An empty, never analysed table is priced at a few pages, where a walk of a whole partial list
    // index costs no more than a probe of the primary key.
    assert!(!on_empty.contains("customers_pkey"), "the motivating plan: {on_empty}");

    let mut loader = pool.get().await.expect("connection");
    load_customers(&mut loader, 5_000).await;
    assert_eq!(plan(&mut kept).await, on_empty, "nothing makes the plan again by itself");

    let analysed = analyse_changed_tables(&pool).await.expect("analyse");
    assert!(analysed.contains(&"public.customers".to_owned()), "{analysed:?}");
    let analysed_plan = plan(&mut kept).await;
    assert!(analysed_plan.contains("Index Scan using customers_pkey"), "made again: {analysed_plan}");

    // Analysed, the table has nothing more to report until it changes again.
    let again = analyse_changed_tables(&pool).await.expect("analyse");
    assert!(!again.contains(&"public.customers".to_owned()), "{again:?}");
}

#[actix_web::test]
async fn instances_analysing_at_once_take_turns() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 4)).expect("pool");
    load_customers(&mut pool.get().await.expect("connection"), 500).await;
    let (first, second) = futures_util::join!(analyse_changed_tables(&pool), analyse_changed_tables(&pool));
    let (first, second) = (first.expect("analyse"), second.expect("analyse"));
    let customers = |tables: &[String]| tables.iter().filter(|t| *t == "public.customers").count();
    assert_eq!(customers(&first) + customers(&second), 1, "analysed once: {first:?} {second:?}");
}

#[actix_web::test]
async fn a_table_another_session_holds_fails_the_round_instead_of_holding_it() {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 3)).expect("pool");
    load_customers(&mut pool.get().await.expect("connection"), 500).await;
    // As a migration or a `VACUUM FULL` would: a lock `ANALYZE` must wait for.
    let mut holder = pool.get().await.expect("connection");
    holder.batch_execute("BEGIN; LOCK TABLE customers IN SHARE UPDATE EXCLUSIVE MODE").await.expect("lock");
    let refused = analyse_changed_tables(&pool).await;
    assert!(refused.is_err(), "gave up on the lock: {refused:?}");
    holder.batch_execute("ROLLBACK").await.expect("unlock");
    let analysed = analyse_changed_tables(&pool).await.expect("analyse");
    assert!(analysed.contains(&"public.customers".to_owned()), "the next round analyses it: {analysed:?}");
}

#[actix_web::test]
async fn an_instance_analyses_tables_exactly_where_the_server_does_not() {
    #[derive(QueryableByName)]
    struct Settings {
        #[diesel(sql_type = Bool)]
        autovacuum: bool,
        #[diesel(sql_type = Bool)]
        track_counts: bool,
    }
    let t = TestApp::start().await;
    let who = who_analyses_tables(&t.state.pool).await.expect("settings");
    let mut conn = t.state.pool.get().await.expect("connection");
    let settings: Settings = diesel::sql_query(
        "SELECT current_setting('autovacuum') = 'on' AS autovacuum, current_setting('track_counts') = 'on' AS track_counts",
    )
    .get_result(&mut conn)
    .await
    .expect("settings");
    drop(conn);
    let expected = match (settings.track_counts, settings.autovacuum) {
        (false, _) => Analysis::Nobody,
        (true, true) => Analysis::Server,
        (true, false) => Analysis::Tally,
    };
    assert_eq!(who, expected, "read from the server's own settings");
    let services = t.services.as_ref().expect("services");
    assert_eq!(services.analyses_tables(), who == Analysis::Tally, "Tally analyses only where the server does not");
    t.stop().await;
}
