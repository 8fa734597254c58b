//! Redis Streams bus and Redis key-value store against the machine's Redis.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use actix_web::test::{init_service, TestRequest};
use api::build_app;
use async_trait::async_trait;
use postgres_toolkit::bus::redis_streams::pending_counts;
use postgres_toolkit::bus::{DeliveryObserver, RedisStreamsBus, RetryPolicy, StreamSettings};
use postgres_toolkit::kv::RedisStore;
use shared_kernel::ports::{EventBus, KeyValueStore};
use shared_kernel::EventEnvelope;
use tally_tests::{call, redis_url, unique_prefix, TestApp, TestOptions};
use uuid::Uuid;

use crate::support::{eventually, RecordingHandler};

struct NoObserver;

#[async_trait]
impl DeliveryObserver for NoObserver {
    async fn dead_letter(&self, _: &EventEnvelope, _: &str, _: &str, _: u32) {}
    async fn completed(&self, _: Uuid) {}
}

fn bus(stream: &str, consumer: &str, claim_idle: Duration) -> RedisStreamsBus {
    let mut settings = StreamSettings::new(stream);
    settings.consumer = consumer.to_owned();
    settings.batch_size = 2;
    settings.block = Duration::from_millis(200);
    settings.claim_idle = claim_idle;
    settings.claim_interval = Duration::from_millis(100);
    let policy = RetryPolicy { attempts: 2, initial_delay: Duration::from_millis(10), ..RetryPolicy::default() };
    RedisStreamsBus::new(&redis_url(), settings, policy, Arc::new(NoObserver)).expect("redis bus")
}

async fn redis_conn() -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis_url())
        .expect("client")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis must be running")
}

async fn delete_key(key: &str) {
    let mut conn = redis_conn().await;
    let _: Result<i64, _> = redis::cmd("DEL").arg(key).query_async(&mut conn).await;
}

#[actix_web::test]
async fn two_consumers_in_one_group_split_the_events() {
    let stream = format!("{}:events", unique_prefix("split"));
    let first = RecordingHandler::slow("test.split", "test.split_event", Duration::from_millis(20));
    let second = RecordingHandler::slow("test.split", "test.split_event", Duration::from_millis(20));
    let bus_a = bus(&stream, "consumer-a", Duration::from_secs(60));
    let bus_b = bus(&stream, "consumer-b", Duration::from_secs(60));
    bus_a.subscribe(first.clone());
    bus_b.subscribe(second.clone());
    bus_a.start().await.expect("start a");
    bus_b.start().await.expect("start b");
    let mut published = HashSet::new();
    for n in 0..30 {
        let event = EventEnvelope::new("test.split_event", Uuid::now_v7(), serde_json::json!({ "n": n }));
        published.insert(event.id);
        bus_a.publish(&event).await.expect("publish");
    }
    eventually(Duration::from_secs(20), "all events handled", || {
        first.received_ids().len() + second.received_ids().len() >= 30
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (a, b) = (first.received_ids(), second.received_ids());
    assert!(!a.is_empty() && !b.is_empty(), "both consumers took a share: {} / {}", a.len(), b.len());
    assert_eq!(a.len() + b.len(), 30, "each event reached the group once");
    let seen: HashSet<Uuid> = a.into_iter().chain(b).collect();
    assert_eq!(seen, published);
    bus_a.shutdown().await;
    bus_b.shutdown().await;
    let pending = pending_counts(&redis_url(), &stream, &["test.split"]).await.expect("xpending");
    assert_eq!(pending["test.split"], 0, "everything acknowledged");
    delete_key(&stream).await;
}

#[actix_web::test]
async fn a_failing_event_is_retried_aside_while_the_next_ones_go_on() {
    let stream = format!("{}:events", unique_prefix("aside"));
    let mut settings = StreamSettings::new(&stream);
    settings.consumer = "consumer-aside".to_owned();
    settings.batch_size = 1;
    settings.block = Duration::from_millis(100);
    // The first event fails once and is retried ten seconds later: the others must not wait for it.
    let policy = RetryPolicy { attempts: 2, initial_delay: Duration::from_secs(10), ..RetryPolicy::default() };
    let bus = RedisStreamsBus::new(&redis_url(), settings, policy, Arc::new(NoObserver)).expect("redis bus");
    let handler = RecordingHandler::failing("test.aside", "test.aside_event", 1);
    bus.subscribe(handler.clone());
    bus.start().await.expect("start");
    let events: Vec<EventEnvelope> =
        (0..4).map(|n| EventEnvelope::new("test.aside_event", Uuid::now_v7(), serde_json::json!({ "n": n }))).collect();
    for event in &events {
        bus.publish(event).await.expect("publish");
    }
    // The failed first attempt and the three others, each read alone, long before the retry is due.
    eventually(Duration::from_secs(5), "the other events handled meanwhile", || handler.attempts() >= 4).await;
    let seen = handler.received_ids();
    for event in &events[1..] {
        assert!(seen.contains(&event.id), "handled while the first waits aside");
    }
    eventually(Duration::from_secs(20), "the failed event retried", || handler.attempts() >= 5).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    bus.shutdown().await;
    let pending = pending_counts(&redis_url(), &stream, &["test.aside"]).await.expect("xpending");
    assert_eq!(pending["test.aside"], 0, "the retried one acknowledged too");
    delete_key(&stream).await;
}

#[actix_web::test]
async fn a_crashed_consumers_events_are_reclaimed() {
    let stream = format!("{}:events", unique_prefix("reclaim"));
    let group = "test.reclaim";
    let mut conn = redis_conn().await;
    let _: () = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(&stream)
        .arg(group)
        .arg("$")
        .arg("MKSTREAM")
        .query_async(&mut conn)
        .await
        .expect("group");
    let publisher = bus(&stream, "publisher", Duration::from_secs(60));
    let mut ids = HashSet::new();
    for _ in 0..5 {
        let event = EventEnvelope::new("test.reclaim_event", Uuid::now_v7(), serde_json::json!({}));
        ids.insert(event.id);
        publisher.publish(&event).await.expect("publish");
    }
    // A consumer takes the messages and dies before acknowledging them.
    let taken: redis::Value = redis::cmd("XREADGROUP")
        .arg("GROUP")
        .arg(group)
        .arg("ghost")
        .arg("COUNT")
        .arg(10)
        .arg("STREAMS")
        .arg(&stream)
        .arg(">")
        .query_async(&mut conn)
        .await
        .expect("ghost read");
    assert!(!matches!(taken, redis::Value::Nil));
    assert_eq!(pending_counts(&redis_url(), &stream, &[group]).await.expect("pending")[group], 5);

    let survivor = RecordingHandler::new(group, "test.reclaim_event");
    let rescuer = bus(&stream, "survivor", Duration::from_millis(300));
    rescuer.subscribe(survivor.clone());
    rescuer.start().await.expect("start");
    eventually(Duration::from_secs(20), "idle messages reclaimed and handled", || survivor.received_ids().len() >= 5)
        .await;
    let seen: HashSet<Uuid> = survivor.received_ids().into_iter().collect();
    assert_eq!(seen, ids);
    eventually(Duration::from_secs(5), "reclaimed messages acknowledged", || true).await;
    rescuer.shutdown().await;
    assert_eq!(pending_counts(&redis_url(), &stream, &[group]).await.expect("pending")[group], 0);
    delete_key(&stream).await;
}

#[actix_web::test]
async fn redis_key_value_store_round_trips_with_ttls() {
    let prefix = unique_prefix("kv");
    let store = RedisStore::new(&redis_url(), &prefix).expect("store");
    store.set("a", "1", None).await.expect("set");
    assert_eq!(store.get("a").await.expect("get").as_deref(), Some("1"));
    store.set("short", "x", Some(Duration::from_millis(100))).await.expect("set");
    assert!(store.exists("short").await.expect("exists"));
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(!store.exists("short").await.expect("exists"), "TTL expired");
    assert_eq!(store.incr("n", 2, Some(Duration::from_secs(5))).await.expect("incr"), 2);
    assert_eq!(store.incr("n", 3, Some(Duration::from_secs(5))).await.expect("incr"), 5);
    assert!(store.delete("a").await.expect("delete"));
    assert!(!store.delete("a").await.expect("delete"));
    assert!(store.delete("n").await.expect("delete"));
    assert_eq!(store.health().await.status, shared_kernel::ports::HealthStatus::Healthy);
}

#[actix_web::test]
async fn the_app_runs_on_redis_end_to_end() {
    let prefix = unique_prefix("app");
    let handler = RecordingHandler::new("test.redis_app", "test.redis_app_event");
    let options = TestOptions::default()
        .with_handler(handler.clone())
        .with_env("REDIS_URL", redis_url())
        .with_env("EVENT_BUS", "redis")
        .with_env("REDIS_KEY_PREFIX", prefix.clone());
    let t = TestApp::start_with(options).await;
    let event = EventEnvelope::new("test.redis_app_event", Uuid::now_v7(), serde_json::json!({"via": "outbox"}));
    {
        let conn = t.state.pool.get().await.expect("conn");
        postgres_toolkit::events::record_event(&conn, std::slice::from_ref(&event)).await.expect("record");
    }
    t.state.outbox.notify();
    eventually(Duration::from_secs(15), "outbox → relay → stream → handler", || {
        handler.received_ids() == vec![event.id]
    })
    .await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, _, body) = call(&app, TestRequest::get().uri("/health")).await;
    assert_eq!(body["status"], "healthy", "{body}");
    assert!(body["checks"]["event_bus"]["message"].as_str().is_some_and(|m| m.contains("redis")));
    assert!(body["checks"]["kvstore"]["message"].as_str().is_some_and(|m| m.contains("redis")));
    t.stop().await;
    delete_key(&format!("{prefix}:events")).await;
}
