use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use actix_web::web;
use api::metrics::Metrics;
use api::{build_app, AppState};
use postgres_toolkit::bus::{InProcessBus, PgDeliveryObserver, RetryPolicy};
use postgres_toolkit::db::{build_pool, PoolSettings};
use postgres_toolkit::events::{OutboxSignal, PgDeadLetterStore};
use postgres_toolkit::kv::MemoryStore;
use tally_tests::app::settings_for;
use tally_tests::{call, TestApp};

#[actix_web::test]
async fn health_reports_all_three_checks() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, _, body) = call(&app, TestRequest::get().uri("/health")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert!(body["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    for check in ["database", "kvstore", "event_bus"] {
        let result = &body["checks"][check];
        assert_eq!(result["status"], "healthy", "{check}: {result}");
        for field in ["name", "message", "timestamp"] {
            assert!(result[field].is_string(), "{check}.{field}");
        }
        assert!(result["duration_ms"].is_u64(), "{check}.duration_ms");
    }
    assert!(body["checks"]["kvstore"]["message"].as_str().is_some_and(|m| m.contains("in-memory")));

    for path in ["/health/db", "/health/kvstore", "/health/bus"] {
        let (status, _, body) = call(&app, TestRequest::get().uri(path)).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(body["status"], "healthy", "{path}");
        assert!(body.get("data").is_none(), "health is not enveloped");
    }
    t.stop().await;
}

#[actix_web::test]
async fn a_broken_schema_is_degraded_not_unhealthy() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    {
        let mut conn = t.state.pool.get().await.expect("conn");
        diesel_async::RunQueryDsl::execute(
            diesel::sql_query("ALTER TABLE outbox_events RENAME TO outbox_moved"),
            &mut conn,
        )
        .await
        .expect("rename");
    }
    let (status, _, body) = call(&app, TestRequest::get().uri("/health/db")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "degraded");
    let (status, _, body) = call(&app, TestRequest::get().uri("/health")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "degraded");
    {
        let mut conn = t.state.pool.get().await.expect("conn");
        diesel_async::RunQueryDsl::execute(
            diesel::sql_query("ALTER TABLE outbox_moved RENAME TO outbox_events"),
            &mut conn,
        )
        .await
        .expect("rename back");
    }
    t.stop().await;
}

#[actix_web::test]
async fn a_dead_database_is_unhealthy_with_503_within_the_budget() {
    // Nothing listens on port 1: every connection attempt fails.
    let dead_url = "postgres://postgres@127.0.0.1:1/tally";
    let pool = build_pool(&PoolSettings::new(dead_url, 2)).expect("lazy pool");
    let settings = settings_for(dead_url, &[]);
    let observer = Arc::new(PgDeliveryObserver::new(pool.clone()));
    let kv: Arc<dyn shared_kernel::ports::KeyValueStore> = Arc::new(MemoryStore::new());
    let state = web::Data::new(AppState {
        identity: api::app::IdentityServices::new(&settings, &pool, kv.clone()),
        commerce: api::commerce::CommerceServices::new(&pool),
        crm: api::routes::crm::CrmServices::new(&pool),
        webhooks: api::routes::webhooks::WebhookServices::new(&settings, &pool, Default::default())
            .expect("webhook services"),
        settings: Arc::new(settings),
        dead_letters: PgDeadLetterStore::new(pool.clone()),
        kv,
        bus: Arc::new(InProcessBus::new(2, 10, RetryPolicy::default(), observer)),
        outbox: OutboxSignal::default(),
        metrics: Arc::new(Metrics::new().expect("metrics")),
        event_pool: pool.clone(),
        health: api::routes::health::HealthProbe::new(pool.clone()),
        imports: import_postgres::ImportStore::new(pool.clone()),
        import_runner: Default::default(),
        pool,
    });
    state.bus.start().await.expect("bus");
    let app = init_service(build_app(state)).await;
    let started = Instant::now();
    let (status, _, body) = call(&app, TestRequest::get().uri("/health")).await;
    assert!(started.elapsed() < Duration::from_secs(6), "health must answer within its 5 s budget");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(body["checks"]["database"]["status"], "unhealthy");
    assert!(!body.to_string().contains("127.0.0.1:1"), "no connection details leak: {body}");
    let (status, _, body) = call(&app, TestRequest::get().uri("/health/db")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["status"], "unhealthy");
    // A read endpoint answers 503 in the envelope, without internals.
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["status"], "error");
    assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE");
}

#[actix_web::test]
async fn metrics_and_openapi_are_served() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let _ = call(&app, TestRequest::get().uri("/api/v1/shared/currencies/usd")).await;
    // Without METRICS_TOKEN, metrics are served to loopback peers only.
    let scrape = TestRequest::get().uri("/metrics").peer_addr("127.0.0.1:40000".parse().expect("addr"));
    let response = actix_web::test::call_service(&app, scrape.to_request()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = String::from_utf8(actix_web::test::read_body(response).await.to_vec()).expect("utf-8");
    assert!(
        text.contains(
            "tally_http_requests_total{method=\"GET\",route=\"/api/v1/shared/currencies/{code}\",status=\"200\"} 1"
        ),
        "{text}"
    );
    for metric in [
        "tally_http_request_duration_seconds_bucket",
        // Requests and event work each have their own connections (the tests ask for 8; events get half).
        "tally_db_pool_connections{pool=\"requests\",state=\"max\"} 8",
        "tally_db_pool_connections{pool=\"events\",state=\"max\"} 4",
        "tally_bus_queue_depth",
        "tally_outbox_lag_milliseconds",
        "tally_dead_letters",
        "tally_webhook_deliveries_pending 0",
        "tally_webhook_endpoints_failing 0",
    ] {
        assert!(text.contains(metric), "missing {metric}");
    }

    let (status, _, doc) = call(&app, TestRequest::get().uri("/api/v1/openapi.json")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    let paths = doc["paths"].as_object().expect("paths");
    for path in [
        "/health",
        "/health/db",
        "/health/kvstore",
        "/health/bus",
        "/metrics",
        "/api/v1/shared/countries",
        "/api/v1/shared/countries/{code}",
        "/api/v1/shared/countries/region/{region}",
        "/api/v1/shared/currencies",
        "/api/v1/shared/currencies/{code}",
        "/api/v1/shared/currencies/active",
        "/api/v1/shared/languages",
        "/api/v1/shared/languages/{code}",
        "/api/v1/shared/languages/active",
        "/api/v1/shared/timezones",
        "/api/v1/shared/timezones/{code}",
        "/api/v1/shared/timezones/region/{region}",
        "/api/v1/events",
        "/api/v1/events/dead-letters",
        "/api/v1/events/dead-letters/{id}/retry",
    ] {
        assert!(paths.contains_key(path), "OpenAPI lacks {path}");
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());

    let response = actix_web::test::call_service(&app, TestRequest::get().uri("/docs/").to_request()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = String::from_utf8(actix_web::test::read_body(response).await.to_vec()).expect("utf-8");
    assert!(html.contains("swagger"), "docs page renders Swagger UI");
    assert!(!html.contains("cdn"), "assets come from the binary");
    let response =
        actix_web::test::call_service(&app, TestRequest::get().uri("/docs/swagger-ui-bundle.js").to_request()).await;
    assert_eq!(response.status(), StatusCode::OK, "bundled script is served");
    t.stop().await;
}

/// `serve` splits the request connections among its HTTP workers: each worker thread draws from a
/// part of its own (so its connections are driven on its own thread), every other thread from a
/// small shared part, and the pool's figures add the parts up.
#[actix_web::test]
async fn a_split_pool_gives_each_worker_thread_a_part_of_its_own() {
    use postgres_toolkit::db::{DbPool, SHARED_PART_SIZE};
    let t = TestApp::start().await;
    let pool = build_pool(&PoolSettings::new(&t.db.url, 4).split_among(2)).expect("pool");
    assert_eq!(pool.status().max_size, 4 + SHARED_PART_SIZE);
    // Two worker threads alive at once (a worker's part is given back when its thread ends), each
    // holding both connections of its part at once: were they given the same part, the third
    // checkout would wait and fail.
    let both_bound = Arc::new(std::sync::Barrier::new(2));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (pool, both_bound) = (pool.clone(), both_bound.clone());
            std::thread::spawn(move || {
                DbPool::bind_this_thread();
                both_bound.wait();
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                runtime.block_on(async {
                    let first = pool.get().await.expect("first connection of the part");
                    let second = pool.get().await.expect("second connection of the part");
                    drop((first, second));
                });
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker thread");
    }
    assert_eq!(pool.status().size, 4, "both parts opened, the shared one untouched");
    // This thread is not a worker: it draws from the shared part.
    let mut conn = pool.get().await.expect("shared part");
    diesel_async::RunQueryDsl::execute(diesel::sql_query("SELECT 1"), &mut conn).await.expect("query");
    assert_eq!(pool.status().size, 5);
    drop(conn);
    t.stop().await;
}

/// The server refuses a third connection to the role (its connection limit, as a full
/// `max_connections` would): the pool works with the two it holds, and a checkout waits for one of
/// them instead of failing (`db::pool`'s admissions). With no connection at all, the refusal is the
/// answer at once.
#[actix_web::test]
async fn a_pool_refused_more_connections_works_with_those_it_has() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let db = tally_tests::TestDb::new().await;
    let role = format!("tally_limited_{}", uuid::Uuid::now_v7().simple());
    let mut admin = AsyncPgConnection::establish(&db.url).await.expect("admin connection");
    let sql = |statement: String| diesel::sql_query(statement);
    sql(format!("CREATE ROLE {role} LOGIN CONNECTION LIMIT 2")).execute(&mut admin).await.expect("role");
    let limited_url = db.url.replacen("://postgres@", &format!("://{role}@"), 1);
    assert_ne!(limited_url, db.url, "the test database URL names the postgres role");

    let pool = build_pool(&PoolSettings::new(&limited_url, 4)).expect("pool");
    let first = pool.get().await.expect("first connection");
    let mut second = pool.get().await.expect("second connection");
    let waiting = tokio::spawn({
        let pool = pool.clone();
        async move {
            let mut third = pool.get().await.map_err(|e| e.to_string())?;
            diesel::sql_query("SELECT 1").execute(&mut third).await.map_err(|e| e.to_string())?;
            Ok::<_, String>(())
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "the third checkout waits for a connection instead of failing");
    assert_eq!(pool.status().waiting, 1, "and the pool's figures show it waiting");
    drop(first);
    waiting.await.expect("task").expect("the third checkout got the connection given back");
    sql("SELECT 1".into()).execute(&mut second).await.expect("the other connection still works");
    drop((second, pool));

    sql(format!("ALTER ROLE {role} CONNECTION LIMIT 0")).execute(&mut admin).await.expect("limit");
    let empty = build_pool(&PoolSettings::new(&limited_url, 4)).expect("pool");
    assert!(empty.get().await.is_err(), "holding no connection, a refusal is answered at once");
    drop(empty);
    // Sessions of the role may still be closing; the role goes with the cluster's next clean-up if not.
    let _ = sql(format!("DROP ROLE {role}")).execute(&mut admin).await;
}
