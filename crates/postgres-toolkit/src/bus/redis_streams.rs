//! Redis Streams bus: durable, shared by every `tally` instance.
//!
//! One stream holds every event. Each handler is a consumer group, so each
//! event reaches each handler once, however many instances run; the
//! instances are competing consumers inside the group. A message is
//! acknowledged only after its handler finished (or dead-lettered it), so a
//! crashed consumer's messages stay pending and another instance reclaims
//! them with `XAUTOCLAIM` once they have been idle for `claim_idle`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::future::join_all;
use redis::aio::MultiplexedConnection;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use redis::{AsyncConnectionConfig, Client};
use shared_kernel::ports::{BusError, EventBus, EventHandler, HealthCheck};
use shared_kernel::EventEnvelope;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::delivery::{first_attempt, retry, FirstAttempt};
use super::{DeliveryObserver, RetryPolicy};

#[derive(Debug, Clone)]
pub struct StreamSettings {
    /// Stream key, e.g. `tally:events`.
    pub stream_key: String,
    /// This instance's consumer name inside every group.
    pub consumer: String,
    /// Messages read per round trip, handled concurrently.
    pub batch_size: usize,
    /// How long a read waits for new messages.
    pub block: Duration,
    /// A pending message idle this long belongs to a dead consumer.
    pub claim_idle: Duration,
    /// How often the reclaimer looks for such messages.
    pub claim_interval: Duration,
    /// Approximate cap on the stream's length.
    pub max_len: usize,
}

impl StreamSettings {
    pub fn new(stream_key: impl Into<String>) -> Self {
        Self {
            stream_key: stream_key.into(),
            consumer: format!("tally-{}-{}", std::process::id(), shared_kernel::new_id().simple()),
            batch_size: 16,
            block: Duration::from_secs(1),
            claim_idle: Duration::from_secs(60),
            claim_interval: Duration::from_secs(5),
            max_len: 100_000,
        }
    }
}

const FIELD_EVENT: &str = "event";
const FIELD_TARGET: &str = "target";

pub struct RedisStreamsBus {
    client: Client,
    settings: StreamSettings,
    publisher: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    handlers: RwLock<Vec<Arc<dyn EventHandler>>>,
    policy: RetryPolicy,
    observer: Arc<dyn DeliveryObserver>,
    in_flight: Arc<AtomicI64>,
    stop: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl RedisStreamsBus {
    pub fn new(
        redis_url: &str,
        settings: StreamSettings,
        policy: RetryPolicy,
        observer: Arc<dyn DeliveryObserver>,
    ) -> Result<Self, BusError> {
        let client = Client::open(redis_url).map_err(|e| BusError::Unavailable(e.to_string()))?;
        Ok(Self {
            client,
            settings,
            publisher: tokio::sync::Mutex::new(None),
            handlers: RwLock::new(Vec::new()),
            policy,
            observer,
            in_flight: Arc::new(AtomicI64::new(0)),
            stop: watch::channel(false).0,
            tasks: Mutex::new(Vec::new()),
        })
    }

    async fn publisher(&self) -> Result<MultiplexedConnection, BusError> {
        let mut slot = self.publisher.lock().await;
        if let Some(conn) = slot.as_ref() {
            return Ok(conn.clone());
        }
        let conn = self.client.get_multiplexed_async_connection().await.map_err(unavailable)?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    async fn add(&self, event: &EventEnvelope, target: Option<&str>) -> Result<(), BusError> {
        let payload = serde_json::to_string(event).map_err(|e| BusError::Unavailable(e.to_string()))?;
        let mut conn = self.publisher().await?;
        let mut cmd = redis::cmd("XADD");
        cmd.arg(&self.settings.stream_key).arg("MAXLEN").arg("~").arg(self.settings.max_len).arg("*");
        cmd.arg(FIELD_EVENT).arg(payload);
        if let Some(target) = target {
            cmd.arg(FIELD_TARGET).arg(target);
        }
        cmd.query_async::<String>(&mut conn).await.map_err(unavailable)?;
        Ok(())
    }

    /// A connection of its own for blocking reads, so they never stall the
    /// publisher's multiplexed connection.
    async fn reader_connection(&self) -> Result<MultiplexedConnection, BusError> {
        let config =
            AsyncConnectionConfig::new().set_response_timeout(Some(self.settings.block + Duration::from_secs(5)));
        self.client.get_multiplexed_async_connection_with_config(&config).await.map_err(unavailable)
    }

    async fn ensure_group(&self, conn: &mut MultiplexedConnection, group: &str) -> Result<(), BusError> {
        let created = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(&self.settings.stream_key)
            .arg(group)
            .arg("$")
            .arg("MKSTREAM")
            .query_async::<()>(conn)
            .await;
        match created {
            Ok(()) => Ok(()),
            Err(e) if e.to_string().contains("BUSYGROUP") => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }
}

fn unavailable(error: redis::RedisError) -> BusError {
    BusError::Unavailable(error.to_string())
}

/// Everything one consumer loop needs, cheap to clone into tasks.
#[derive(Clone)]
struct Consumer {
    handler: Arc<dyn EventHandler>,
    stream_key: String,
    consumer: String,
    policy: RetryPolicy,
    observer: Arc<dyn DeliveryObserver>,
    in_flight: Arc<AtomicI64>,
}

impl Consumer {
    fn group(&self) -> &'static str {
        self.handler.name()
    }

    /// Makes each message's first attempt, then acknowledges the batch. A message whose first attempt
    /// failed is retried aside, in a task of its own, and acknowledged when it is done: the next read
    /// does not wait for its back-off (docs/bounded-work.md).
    async fn process(&self, conn: &mut MultiplexedConnection, messages: Vec<StreamId>) {
        if messages.is_empty() {
            return;
        }
        self.in_flight.fetch_add(messages.len() as i64, Ordering::Relaxed);
        let outcomes = join_all(messages.iter().map(|message| self.process_one(message))).await;
        let mut done = Vec::with_capacity(messages.len());
        for (message, failed) in messages.iter().zip(outcomes) {
            match failed {
                Some(event) => {
                    tokio::spawn(self.clone().retry_aside(conn.clone(), message.id.clone(), event));
                }
                None => done.push(message.id.clone()),
            }
        }
        self.in_flight.fetch_sub(done.len() as i64, Ordering::Relaxed);
        self.acknowledge(conn, &done).await;
    }

    async fn acknowledge(&self, conn: &mut MultiplexedConnection, ids: &[String]) {
        if ids.is_empty() {
            return;
        }
        let acked = redis::cmd("XACK").arg(&self.stream_key).arg(self.group()).arg(ids).query_async::<i64>(conn).await;
        if let Err(error) = acked {
            // Unacknowledged messages are reclaimed later; the inbox makes
            // the second delivery harmless.
            tracing::warn!(group = self.group(), %error, "XACK failed");
        }
    }

    /// The attempts after a failed first one, then the acknowledgement.
    async fn retry_aside(self, mut conn: MultiplexedConnection, id: String, event: EventEnvelope) {
        retry(&self.handler, &event, &self.policy, &self.observer, None).await;
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.acknowledge(&mut conn, &[id]).await;
    }

    /// The message's first attempt; its event when that failed and it is to be retried.
    async fn process_one(&self, message: &StreamId) -> Option<EventEnvelope> {
        let Some(payload) = message.get::<String>(FIELD_EVENT) else {
            tracing::error!(id = %message.id, "stream message without an event; skipped");
            return None;
        };
        let event: EventEnvelope = match serde_json::from_str(&payload) {
            Ok(event) => event,
            Err(error) => {
                tracing::error!(id = %message.id, %error, "unreadable event in stream; skipped");
                return None;
            }
        };
        let wanted = match message.get::<String>(FIELD_TARGET) {
            Some(target) => target == self.handler.name(),
            None => self.handler.handles(&event.name),
        };
        if !wanted {
            return None;
        }
        match first_attempt(&self.handler, &event, &self.policy, &self.observer).await {
            FirstAttempt::Done(_) => None,
            FirstAttempt::Failed => Some(event),
        }
    }

    async fn read_loop(
        self,
        mut conn: MultiplexedConnection,
        batch: usize,
        block: Duration,
        mut stop: watch::Receiver<bool>,
    ) {
        let block_ms = u64::try_from(block.as_millis()).unwrap_or(1000);
        while !*stop.borrow() {
            let mut read = redis::cmd("XREADGROUP");
            read.arg("GROUP")
                .arg(self.group())
                .arg(&self.consumer)
                .arg("COUNT")
                .arg(batch)
                .arg("BLOCK")
                .arg(block_ms)
                .arg("STREAMS")
                .arg(&self.stream_key)
                .arg(">");
            // Not raced against `stop`: a read cut short could leave a message
            // pending on this consumer until the reclaimer finds it.
            match read.query_async::<Option<StreamReadReply>>(&mut conn).await {
                Ok(Some(reply)) => {
                    let messages = reply.keys.into_iter().flat_map(|k| k.ids).collect();
                    self.process(&mut conn, messages).await;
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(group = self.group(), %error, "XREADGROUP failed; retrying in 1 s");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = stop.changed() => break,
                    }
                }
            }
        }
    }

    async fn reclaim_loop(
        self,
        mut conn: MultiplexedConnection,
        idle: Duration,
        every: Duration,
        batch: usize,
        mut stop: watch::Receiver<bool>,
    ) {
        let idle_ms = u64::try_from(idle.as_millis()).unwrap_or(60_000);
        loop {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.changed() => break,
            }
            if *stop.borrow() {
                break;
            }
            let mut cursor = "0-0".to_owned();
            loop {
                let claimed = redis::cmd("XAUTOCLAIM")
                    .arg(&self.stream_key)
                    .arg(self.group())
                    .arg(&self.consumer)
                    .arg(idle_ms)
                    .arg(&cursor)
                    .arg("COUNT")
                    .arg(batch)
                    .query_async::<StreamAutoClaimReply>(&mut conn)
                    .await;
                match claimed {
                    Ok(reply) => {
                        if !reply.claimed.is_empty() {
                            tracing::info!(
                                group = self.group(),
                                count = reply.claimed.len(),
                                "reclaimed idle messages"
                            );
                        }
                        self.process(&mut conn, reply.claimed).await;
                        if reply.next_stream_id == "0-0" {
                            break;
                        }
                        cursor = reply.next_stream_id;
                    }
                    Err(error) => {
                        tracing::warn!(group = self.group(), %error, "XAUTOCLAIM failed");
                        break;
                    }
                }
            }
        }
    }
}

#[async_trait]
impl EventBus for RedisStreamsBus {
    fn subscribe(&self, handler: Arc<dyn EventHandler>) {
        if let Ok(mut handlers) = self.handlers.write() {
            handlers.push(handler);
        }
    }

    async fn start(&self) -> Result<(), BusError> {
        let handlers: Vec<Arc<dyn EventHandler>> = self.handlers.read().map(|h| h.clone()).unwrap_or_default();
        let mut spawned = Vec::new();
        for handler in handlers {
            let mut reader = self.reader_connection().await?;
            self.ensure_group(&mut reader, handler.name()).await?;
            let reclaimer = self.reader_connection().await?;
            let consumer = Consumer {
                handler,
                stream_key: self.settings.stream_key.clone(),
                consumer: self.settings.consumer.clone(),
                policy: self.policy.clone(),
                observer: self.observer.clone(),
                in_flight: self.in_flight.clone(),
            };
            let s = &self.settings;
            spawned.push(tokio::spawn(consumer.clone().read_loop(
                reader,
                s.batch_size,
                s.block,
                self.stop.subscribe(),
            )));
            spawned.push(tokio::spawn(consumer.reclaim_loop(
                reclaimer,
                s.claim_idle,
                s.claim_interval,
                s.batch_size,
                self.stop.subscribe(),
            )));
        }
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.extend(spawned);
        }
        Ok(())
    }

    async fn publish(&self, event: &EventEnvelope) -> Result<(), BusError> {
        self.add(event, None).await
    }

    async fn redeliver(&self, event: &EventEnvelope, handler: &str) -> Result<(), BusError> {
        self.add(event, Some(handler)).await
    }

    fn is_durable(&self) -> bool {
        true
    }

    fn queue_depth(&self) -> i64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    async fn health(&self) -> HealthCheck {
        let pinged = async {
            let mut conn = self.publisher().await?;
            redis::cmd("PING").query_async::<String>(&mut conn).await.map_err(unavailable)
        }
        .await;
        match pinged {
            Ok(_) => HealthCheck::healthy(format!("redis streams bus on {}", self.settings.stream_key)),
            Err(error) => {
                // The cause goes to the log only: health bodies are public.
                tracing::warn!(%error, "redis streams bus health check failed");
                HealthCheck::unhealthy("redis streams bus unreachable")
            }
        }
    }

    async fn shutdown(&self) {
        let _ = self.stop.send(true);
        let tasks: Vec<JoinHandle<()>> = self.tasks.lock().map(|mut t| t.drain(..).collect()).unwrap_or_default();
        // A loop stops between batches, so what it took is handled and acked.
        let all = join_all(tasks);
        if tokio::time::timeout(Duration::from_secs(30), all).await.is_err() {
            tracing::warn!("redis streams bus: consumers still busy after 30 s; their messages will be reclaimed");
        }
    }
}

/// Pending-message counts per consumer group, for tests and metrics.
pub async fn pending_counts(
    redis_url: &str,
    stream_key: &str,
    groups: &[&str],
) -> Result<HashMap<String, i64>, BusError> {
    let client = Client::open(redis_url).map_err(unavailable)?;
    let mut conn = client.get_multiplexed_async_connection().await.map_err(unavailable)?;
    let mut counts = HashMap::new();
    for group in groups {
        let summary: redis::Value =
            redis::cmd("XPENDING").arg(stream_key).arg(*group).query_async(&mut conn).await.map_err(unavailable)?;
        let count = match summary {
            redis::Value::Array(items) => match items.first() {
                Some(redis::Value::Int(n)) => *n,
                _ => 0,
            },
            _ => 0,
        };
        counts.insert((*group).to_owned(), count);
    }
    Ok(counts)
}
