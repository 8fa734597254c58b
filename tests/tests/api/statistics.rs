//! Where PostgreSQL runs without autovacuum, Tally analyses the tables that changed, so that a plan
//! made while a table was nearly empty is made again as it grows (`db::analyse_changed_tables`).

use diesel::sql_types::{Bool, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use postgres_toolkit::db::{
    analyse_changed_tables, build_pool, who_analyses_tables, Analysis, DbPool, PoolSettings, ANALYSIS_LOCK,
};
use tally_tests::db::TestDb;

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

/// A database whose `customers` and `companies` autovacuum, where the server runs it, leaves alone: the
/// tests say when they are analysed. (Set before any plan is made: a change of a table's options makes
/// its plans again.)
async fn database() -> (TestDb, DbPool) {
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 3)).expect("pool");
    pool.get()
        .await
        .expect("connection")
        .batch_execute(
            "ALTER TABLE customers SET (autovacuum_enabled = off); \
             ALTER TABLE companies SET (autovacuum_enabled = off)",
        )
        .await
        .expect("no autovacuum");
    (db, pool)
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
    counted_now(conn).await;
}

/// `n` companies, as [`load_customers`].
async fn load_companies(conn: &mut AsyncPgConnection, n: i32) {
    diesel::sql_query(
        "INSERT INTO companies (id, name, created_at, updated_at) \
         SELECT md5('co' || n)::uuid, 'Company ' || n, now(), now() FROM generate_series(1, $1) AS n",
    )
    .bind::<diesel::sql_types::Integer, _>(n)
    .execute(conn)
    .await
    .expect("bulk load");
    counted_now(conn).await;
}

/// The rows written counted in their tables' activity now, not at this backend's next report, which
/// may come seconds later: the report after this statement is forced.
async fn counted_now(conn: &mut AsyncPgConnection) {
    conn.batch_execute("SELECT pg_stat_force_next_flush()").await.expect("flush");
}

#[actix_web::test]
async fn a_plan_made_on_an_empty_table_is_made_again_once_the_table_is_analysed() {
    let (_db, pool) = database().await;
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

    let analysed = analyse_changed_tables(&pool).await.expect("analyse").analysed;
    assert!(analysed.contains(&"public.customers".to_owned()), "{analysed:?}");
    let analysed_plan = plan(&mut kept).await;
    assert!(analysed_plan.contains("Index Scan using customers_pkey"), "made again: {analysed_plan}");

    // Analysed, the table has nothing more to report until it changes again.
    let again = analyse_changed_tables(&pool).await.expect("analyse").analysed;
    assert!(!again.contains(&"public.customers".to_owned()), "{again:?}");
}

#[actix_web::test]
async fn a_table_another_instance_is_analysing_is_left_to_it() {
    let (_db, pool) = database().await;
    load_customers(&mut pool.get().await.expect("connection"), 500).await;
    // Another instance, in the middle of analysing the table: it holds the table's lock.
    let mut other = pool.get().await.expect("connection");
    other
        .batch_execute(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({ANALYSIS_LOCK}, 'customers'::regclass::oid::int4)"
        ))
        .await
        .expect("the other instance's lock");
    let round = analyse_changed_tables(&pool).await.expect("analyse");
    assert!(!round.analysed.contains(&"public.customers".to_owned()), "left to the other: {:?}", round.analysed);
    assert!(round.failed.is_empty(), "not a failure: {:?}", round.failed);
    other.batch_execute("ROLLBACK").await.expect("the other instance gives up");
    let round = analyse_changed_tables(&pool).await.expect("analyse");
    assert_eq!(round.analysed, ["public.customers"], "the next round analyses it");
}

#[actix_web::test]
async fn a_table_held_by_another_session_waits_for_the_next_round_and_the_others_keep_theirs() {
    let (_db, pool) = database().await;
    let mut loader = pool.get().await.expect("connection");
    load_companies(&mut loader, 500).await;
    load_customers(&mut loader, 500).await;
    drop(loader);
    // As a migration or a `VACUUM FULL` would: a lock `ANALYZE` must wait for.
    let mut holder = pool.get().await.expect("connection");
    holder.batch_execute("BEGIN; LOCK TABLE customers IN SHARE UPDATE EXCLUSIVE MODE").await.expect("lock");
    let round = analyse_changed_tables(&pool).await.expect("analyse");
    assert_eq!(round.analysed, ["public.companies"], "analysed before the held one, and kept");
    let [(table, error)] = &round.failed[..] else { panic!("one table failed: {:?}", round.failed) };
    assert_eq!(table, "public.customers");
    assert!(error.to_string().contains("lock timeout"), "gave up on the lock: {error}");
    holder.batch_execute("ROLLBACK").await.expect("unlock");
    let round = analyse_changed_tables(&pool).await.expect("analyse");
    assert_eq!(round.analysed, ["public.customers"], "the next round analyses it, and only it");
    assert!(round.failed.is_empty(), "{:?}", round.failed);
}

#[actix_web::test]
async fn who_analyses_is_read_from_the_servers_settings() {
    #[derive(QueryableByName)]
    struct Settings {
        #[diesel(sql_type = Bool)]
        autovacuum: bool,
        #[diesel(sql_type = Bool)]
        track_counts: bool,
    }
    let db = TestDb::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let who = who_analyses_tables(&pool).await.expect("settings");
    let settings: Settings = diesel::sql_query(
        "SELECT setting = 'on' AS autovacuum, (SELECT setting = 'on' FROM pg_settings WHERE name = 'track_counts') \
         AS track_counts FROM pg_settings WHERE name = 'autovacuum'",
    )
    .get_result(&mut pool.get().await.expect("connection"))
    .await
    .expect("settings");
    assert_eq!(who, Analysis::by_settings(settings.autovacuum, settings.track_counts));
}
