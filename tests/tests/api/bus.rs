//! Outbox, relay, in-process bus, retries, dead letters, inbox.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use api::startup::start_services;
use async_trait::async_trait;
use diesel_async::{AsyncConnection, RunQueryDsl};
use postgres_toolkit::events::{record_event, Delivery};
use postgres_toolkit::DbPool;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use tally_tests::app::settings_for;
use tally_tests::{call, TestApp, TestDb, TestOptions};

use crate::support::{eventually, RecordingHandler};

async fn outbox_count(pool: &DbPool) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = pool.get().await.expect("conn");
    let row: N = diesel::sql_query("SELECT count(*) AS n FROM outbox_events WHERE name LIKE 'test.%'")
        .get_result(&mut conn)
        .await
        .expect("count");
    row.n
}

#[actix_web::test]
async fn an_event_commits_and_rolls_back_with_its_transaction() {
    let handler = RecordingHandler::new("test.recorder", "test.happened");
    let t = TestApp::start_with(TestOptions::default().with_handler(handler.clone())).await;
    let rolled_back = EventEnvelope::new("test.happened", shared_kernel::new_id(), serde_json::json!({"n": 1}));
    let committed = EventEnvelope::new("test.happened", shared_kernel::new_id(), serde_json::json!({"n": 2}));
    {
        let mut conn = t.state.pool.get().await.expect("conn");
        let event = rolled_back.clone();
        let outcome = conn
            .transaction::<(), diesel::result::Error, _>(async |conn| {
                record_event(conn, &[event]).await?;
                Err(diesel::result::Error::RollbackTransaction)
            })
            .await;
        assert!(outcome.is_err());
        let event = committed.clone();
        conn.transaction::<(), diesel::result::Error, _>(async |conn| record_event(conn, &[event]).await)
            .await
            .expect("commit");
    }
    t.state.outbox.notify();
    eventually(Duration::from_secs(10), "committed event delivered", || handler.received_ids().contains(&committed.id))
        .await;
    assert_eq!(outbox_count(&t.state.pool).await, 1, "the rolled-back event never reached the outbox");
    assert!(!handler.received_ids().contains(&rolled_back.id));

    let app = init_service(build_app(t.state.clone())).await;
    let token = tally_tests::login(&app, tally_tests::ADMIN_EMAIL, tally_tests::ADMIN_PASSWORD).await;
    let uri = format!("/api/v1/events?name=test.happened&aggregate_id={}", committed.aggregate_id);
    let (status, _, body) = call(&app, TestRequest::get().uri(&uri).insert_header(tally_tests::bearer(&token))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["pagination"]["total"], 1);
    assert_eq!(body["data"][0]["id"], committed.id.to_string());
    assert_eq!(body["data"][0]["data"]["n"], 2);
    let (_, _, none) = call(
        &app,
        TestRequest::get().uri("/api/v1/events?name=other.event").insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_eq!(none["pagination"]["total"], 0);
    t.stop().await;
}

#[actix_web::test]
async fn a_failing_handler_is_retried_with_back_off_then_dead_lettered_and_can_be_retried() {
    let handler = RecordingHandler::failing("test.flaky", "test.flaky_event", 3);
    let options = TestOptions::default()
        .with_handler(handler.clone())
        .with_env("BUS_RETRY_ATTEMPTS", "3")
        .with_env("BUS_RETRY_DELAY", "40ms")
        .with_env("BUS_RETRY_MULTIPLIER", "2.0");
    let t = TestApp::start_with(options).await;
    let event = EventEnvelope::new("test.flaky_event", shared_kernel::new_id(), serde_json::json!({}));
    t.state.bus.publish(&event).await.expect("publish");
    let app = init_service(build_app(t.state.clone())).await;
    let token = tally_tests::login(&app, tally_tests::ADMIN_EMAIL, tally_tests::ADMIN_PASSWORD).await;
    let mut letters = serde_json::Value::Null;
    for _ in 0..250 {
        let (_, _, body) = call(
            &app,
            TestRequest::get().uri("/api/v1/events/dead-letters").insert_header(tally_tests::bearer(&token)),
        )
        .await;
        if body["pagination"]["total"] == 1 {
            letters = body;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(letters["pagination"]["total"], 1, "dead letter recorded: {letters}");
    assert_eq!(handler.attempts(), 3, "exactly BUS_RETRY_ATTEMPTS attempts");
    let letter = &letters["data"][0];
    assert_eq!(letter["attempts"], 3);
    assert_eq!(letter["handler"], "test.flaky");
    assert_eq!(letter["event_id"], event.id.to_string());
    assert_eq!(letter["last_error"], "deliberate failure");
    let times: Vec<_> = handler.received.lock().expect("lock").iter().map(|(_, at)| *at).collect();
    assert!(times[1] - times[0] >= Duration::from_millis(40), "first back-off");
    assert!(times[2] - times[1] >= Duration::from_millis(80), "back-off grows by the multiplier");

    // The handler works again; re-queueing delivers the event to it alone.
    let id = letter["id"].as_str().expect("id").to_owned();
    let (status, _, body) = call(
        &app,
        TestRequest::post()
            .uri(&format!("/api/v1/events/dead-letters/{id}/retry"))
            .insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    eventually(Duration::from_secs(10), "re-queued event handled", || handler.attempts() == 4).await;
    let (_, _, after) =
        call(&app, TestRequest::get().uri("/api/v1/events/dead-letters").insert_header(tally_tests::bearer(&token)))
            .await;
    assert_eq!(after["pagination"]["total"], 0);
    let (status, _, _) = call(
        &app,
        TestRequest::post()
            .uri(&format!("/api/v1/events/dead-letters/{id}/retry"))
            .insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a dead letter is re-queued once");
    t.stop().await;
}

/// Does its work through the inbox, as every real handler does.
struct InboxCounter {
    pool: std::sync::OnceLock<DbPool>,
    effects: AtomicUsize,
}

impl InboxCounter {
    fn effects(&self) -> usize {
        AtomicUsize::load(&self.effects, Ordering::SeqCst)
    }
}

#[async_trait]
impl EventHandler for InboxCounter {
    fn name(&self) -> &'static str {
        "test.inbox_counter"
    }

    fn handles(&self, event_name: &str) -> bool {
        event_name == "test.counted"
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let pool = self.pool.get().ok_or_else(|| HandlerError::new("no pool yet"))?;
        let mut conn = pool.get().await.map_err(|e| HandlerError::new(e.to_string()))?;
        let id = event.id;
        let first = conn
            .transaction::<bool, diesel::result::Error, _>(async |conn| {
                Delivery::new(id, "test.inbox_counter").claim(conn).await
            })
            .await
            .map_err(|e| HandlerError::new(e.to_string()))?;
        if first {
            self.effects.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

#[actix_web::test]
async fn a_redelivered_event_is_handled_once() {
    let handler = Arc::new(InboxCounter { pool: std::sync::OnceLock::new(), effects: AtomicUsize::new(0) });
    let t = TestApp::start_with(TestOptions::default().with_handler(handler.clone())).await;
    let _ = handler.pool.set(t.state.pool.clone());
    let event = EventEnvelope::new("test.counted", shared_kernel::new_id(), serde_json::json!({}));
    for _ in 0..3 {
        t.state.bus.publish(&event).await.expect("publish");
    }
    let other = EventEnvelope::new("test.counted", shared_kernel::new_id(), serde_json::json!({}));
    t.state.bus.publish(&other).await.expect("publish");
    eventually(Duration::from_secs(10), "both events handled", || handler.effects() >= 2).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(handler.effects(), 2, "three deliveries of one event had one effect");
    t.stop().await;
}

#[actix_web::test]
async fn events_lost_in_a_crash_are_handed_over_again_at_start() {
    let db = TestDb::new().await;
    let crashed = EventEnvelope::new("test.after_crash", shared_kernel::new_id(), serde_json::json!({}));
    {
        let pool =
            postgres_toolkit::db::build_pool(&postgres_toolkit::db::PoolSettings::new(&db.url, 1)).expect("pool");
        let mut conn = pool.get().await.expect("conn");
        record_event(&conn, std::slice::from_ref(&crashed)).await.expect("record");
        // The relay had handed it to the in-process bus, then the process died.
        diesel::sql_query(
            "WITH claimed AS (UPDATE outbox_events SET published_at = now() RETURNING id) \
             INSERT INTO outbox_in_flight (event_id) SELECT id FROM claimed",
        )
        .execute(&mut conn)
        .await
        .expect("mark");
    }
    let handler = RecordingHandler::new("test.recovery", "test.after_crash");
    let settings = settings_for(&db.url, &TestOptions::default().env);
    let services = start_services(settings, vec![handler.clone()]).await.expect("start");
    eventually(Duration::from_secs(10), "replayed after restart", || handler.received_ids() == vec![crashed.id]).await;
    let pool = services.state.pool.clone();
    services.shutdown().await;
    #[derive(diesel::QueryableByName)]
    struct Done {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        done: bool,
    }
    let mut conn = pool.get().await.expect("conn");
    // The replayed event's row (the start-up's own events, such as the admin's, may still be on their way).
    let row: Done = diesel::sql_query(
        "SELECT published_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM outbox_in_flight WHERE event_id = id) AS done \
         FROM outbox_events WHERE id = $1",
    )
    .bind::<diesel::sql_types::Uuid, _>(crashed.id)
    .get_result(&mut conn)
    .await
    .expect("row");
    assert!(row.done, "handled events are marked complete");
}

/// Holds every event until the gate opens, then counts it.
struct GatedHandler {
    gate: Arc<tokio::sync::Semaphore>,
    handled: AtomicUsize,
}

#[async_trait]
impl EventHandler for GatedHandler {
    fn name(&self) -> &'static str {
        "test.gated"
    }

    fn handles(&self, event_name: &str) -> bool {
        event_name == "test.backlog"
    }

    async fn handle(&self, _event: &EventEnvelope) -> Result<(), HandlerError> {
        let permit = self.gate.acquire().await.map_err(|e| HandlerError::new(e.to_string()))?;
        drop(permit);
        self.handled.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

/// A backlog the handlers cannot keep up with waits in the outbox, not in the process's memory: the
/// relay stops handing events to the in-process bus while 1 000 wait there, and goes on as they finish.
#[actix_web::test]
async fn a_backlog_waits_in_the_outbox_not_in_memory() {
    let handler =
        Arc::new(GatedHandler { gate: Arc::new(tokio::sync::Semaphore::new(0)), handled: AtomicUsize::new(0) });
    let t = TestApp::start_with(TestOptions::default().with_handler(handler.clone())).await;
    let events: Vec<EventEnvelope> = (0..1_500)
        .map(|n| EventEnvelope::new("test.backlog", shared_kernel::new_id(), serde_json::json!({ "n": n })))
        .collect();
    {
        let conn = t.state.pool.get().await.expect("conn");
        record_event(&conn, &events).await.expect("record");
    }
    t.state.outbox.notify();
    let high_water = postgres_toolkit::events::relay::IN_MEMORY_HIGH_WATER;
    eventually(Duration::from_secs(10), "the bus fills to the mark", || t.state.bus.queue_depth() >= high_water).await;
    // Give the relay time to (wrongly) hand over more.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let queued = t.state.bus.queue_depth();
    assert!(queued < high_water + 100, "at most one batch past the mark, not {queued}");
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let waiting = |pool: DbPool| async move {
        let mut conn = pool.get().await.expect("conn");
        let row: N = diesel::sql_query(
            "SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL AND name = 'test.backlog'",
        )
        .get_result(&mut conn)
        .await
        .expect("count");
        row.n
    };
    let left = waiting(t.state.pool.clone()).await;
    assert!(left >= 1_500 - queued, "the rest waits in the outbox: {left} unpublished, {queued} queued");
    handler.gate.add_permits(tokio::sync::Semaphore::MAX_PERMITS / 2);
    eventually(Duration::from_secs(30), "every event handled", || {
        AtomicUsize::load(&handler.handled, Ordering::SeqCst) == 1_500
    })
    .await;
    assert_eq!(waiting(t.state.pool.clone()).await, 0);
    t.stop().await;
}
