//! The delivery engine's statements: deliveries made from outbox events, claimed by one
//! instance at a time, and the outcome of each attempt recorded with the retry schedule.

use std::time::Duration;

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt, Bool, Double, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{OptionalExtension, QueryDsl, QueryResult, QueryableByName};
use diesel_async::RunQueryDsl;
use serde::Serialize;
use shared_kernel::{EventEnvelope, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::access::{may_read, read_resource, READERS};
use super::model::DeliveryStatus;
use super::schema::webhook_endpoints;
use super::sender::{AttemptOutcome, DELIVERY_TIMEOUT};
use postgres_toolkit::storage::{connect, Constraints};
use postgres_toolkit::DbPool;

/// How long a claim holds a delivery: an attempt's time limit and a margin. A crashed instance's
/// claims are taken over when this runs out.
pub const CLAIM_LEASE: Duration = Duration::from_secs(DELIVERY_TIMEOUT.as_secs() + 15);

/// Attempts one endpoint may have under way at once, across all instances.
pub const PER_ENDPOINT_IN_FLIGHT: i64 = 8;

/// How long the log keeps a finished delivery.
pub const KEPT_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

const CONSTRAINTS: Constraints = Constraints::new(&[]);

fn storage(error: diesel::result::Error) -> StorageError {
    CONSTRAINTS.map(error)
}

/// The JSON body of a delivery: `{type, timestamp, data: {id, aggregate_id, data}}`.
#[derive(Serialize)]
struct Payload<'a> {
    r#type: &'a str,
    #[serde(with = "time::serde::rfc3339")]
    timestamp: OffsetDateTime,
    data: PayloadData<'a>,
}

#[derive(Serialize)]
struct PayloadData<'a> {
    id: Uuid,
    aggregate_id: Uuid,
    data: &'a serde_json::Value,
}

/// The body delivered for `event`.
pub fn payload_of(event: &EventEnvelope) -> String {
    payload(&event.name, event.occurred_at, event.id, event.aggregate_id, &event.data)
}

/// A delivery body; test pings use it too.
pub fn payload(name: &str, at: OffsetDateTime, id: Uuid, aggregate_id: Uuid, data: &serde_json::Value) -> String {
    let body = Payload {
        r#type: name,
        timestamp: at.to_offset(time::UtcOffset::UTC),
        data: PayloadData { id, aggregate_id, data },
    };
    // Strings, UUIDs and a JSON value always serialize.
    serde_json::to_string(&body).unwrap_or_default()
}

/// A delivery this instance holds for one attempt.
#[derive(Debug, Clone, QueryableByName)]
pub struct Claimed {
    #[diesel(sql_type = SqlUuid)]
    pub delivery_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    pub claim: Uuid,
    #[diesel(sql_type = Integer)]
    pub attempts: i32,
    #[diesel(sql_type = Text)]
    pub payload: String,
    #[diesel(sql_type = SqlUuid)]
    pub endpoint_id: Uuid,
    #[diesel(sql_type = Text)]
    pub url: String,
    #[diesel(sql_type = diesel::sql_types::Bytea)]
    pub secret_salt: Vec<u8>,
    /// The previous secret's salt while it still signs (after a rotation).
    #[diesel(sql_type = Nullable<diesel::sql_types::Bytea>)]
    pub previous_secret_salt: Option<Vec<u8>>,
}

/// What to do after an attempt: done, or due again after a delay, or given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    Succeeded,
    RetryAfter(Duration),
    Failed,
}

/// The step after attempt number `attempt` (1 for the first) with `schedule` the delays between
/// attempts: a delivery gets `schedule.len() + 1` attempts, and a manual retry of a failed one
/// gets exactly one more.
pub fn next_step(succeeded: bool, attempt: i32, schedule: &[Duration]) -> NextStep {
    if succeeded {
        return NextStep::Succeeded;
    }
    usize::try_from(attempt - 1)
        .ok()
        .and_then(|i| schedule.get(i))
        .map_or(NextStep::Failed, |d| NextStep::RetryAfter(*d))
}

#[derive(Clone)]
pub struct DeliveryQueue {
    pool: DbPool,
}

#[derive(QueryableByName)]
struct Recorded {
    #[diesel(sql_type = Bool)]
    recorded: bool,
}

#[derive(QueryableByName)]
struct DueIn {
    #[diesel(sql_type = Nullable<Double>)]
    seconds: Option<f64>,
}

/// The fan-out's `INSERT ... SELECT`, as a statement type of its own rather than `sql_query` text: it
/// runs for every burst of events, and diesel prepares `sql_query` text again on every execution (an
/// extra round trip and a parse and plan), while a statement with a static query id is prepared once
/// per connection.
struct FanOutStatement<'a> {
    ids: &'a [Uuid],
    names: &'a [&'a str],
    payloads: &'a [String],
    times: &'a [OffsetDateTime],
    resources: &'a [Option<&'static str>],
}

/// One statement whatever it binds: the prepared-statement cache knows it by this type.
impl QueryId for FanOutStatement<'_> {
    type QueryId = FanOutStatement<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Pg> for FanOutStatement<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH ");
        out.push_sql(READERS);
        out.push_sql(
            " INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, read_resource, \
                 next_attempt_at) \
             SELECT gen_random_uuid(), e.id, v.id, v.name, v.payload, v.resource, now() FROM unnest(",
        );
        out.push_bind_param::<Array<SqlUuid>, _>(&self.ids)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.names)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.payloads)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Timestamptz>, _>(&self.times)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.resources)?;
        // The filter's `*` is LIKE's `%`; `_` is literal in event names. An event the endpoint's
        // creator may not read now makes no delivery at all (docs/webhooks.md). Made in the events'
        // order, each to the endpoints oldest first: deliveries due at the same moment are claimed
        // in the order they were made.
        out.push_sql(
            ") WITH ORDINALITY AS v (id, name, payload, occurred_at, resource, n) \
             JOIN webhook_endpoints e ON e.enabled AND e.created_at <= v.occurred_at \
             JOIN readers r ON r.id = e.id \
             WHERE EXISTS (SELECT 1 FROM unnest(e.events) AS p (pattern) \
                 WHERE v.name LIKE replace(replace(p.pattern, '_', '\\_'), '*', '%')) AND ",
        );
        out.push_sql(&may_read("v.resource"));
        out.push_sql(" ORDER BY v.n, e.created_at, e.id ON CONFLICT (event_id, endpoint_id) DO NOTHING");
        Ok(())
    }
}

impl DeliveryQueue {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// Makes, in one statement, a delivery of each event for every enabled endpoint that
    /// existed when it happened, whose filter matches its name and whose creator may read it now
    /// (`access`); a redelivered event makes none twice. Returns how many were made.
    ///
    /// When no endpoint is enabled (a deployment without webhooks, most of the time), it asks only
    /// that, in a statement kept prepared with one plan. The fan-out's `INSERT` binds every event's
    /// payload and PostgreSQL plans it again for them on every run: about 0.3 ms of its CPU a
    /// statement, which a write at low concurrency paid for itself
    /// (docs/adr/0014-events-handed-over-from-memory.md). An endpoint created after the check is newer
    /// than these events; one enabled again between the two statements misses them, as it would a
    /// moment later.
    pub async fn fan_out(&self, events: &[&EventEnvelope]) -> Result<usize, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let anyone_listens: bool =
            diesel::select(diesel::dsl::exists(webhook_endpoints::table.filter(webhook_endpoints::enabled)))
                .get_result(&mut conn)
                .await
                .map_err(storage)?;
        if !anyone_listens {
            return Ok(0);
        }
        let ids: Vec<Uuid> = events.iter().map(|e| e.id).collect();
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        let payloads: Vec<String> = events.iter().map(|e| payload_of(e)).collect();
        let times: Vec<OffsetDateTime> = events.iter().map(|e| e.occurred_at).collect();
        let resources: Vec<Option<&'static str>> = events.iter().map(|e| read_resource(&e.name)).collect();
        FanOutStatement { ids: &ids, names: &names, payloads: &payloads, times: &times, resources: &resources }
            .execute(&mut conn)
            .await
            .map_err(storage)
    }

    /// Claims up to `limit` due deliveries of enabled endpoints, oldest first, leaving any
    /// endpoint at most [`PER_ENDPOINT_IN_FLIGHT`] attempts under way across all instances (so a
    /// dead receiver cannot take every slot); deliveries other instances hold are skipped, not
    /// waited for. A due delivery whose endpoint's creator may no longer read its event (a
    /// permission taken away, a key revoked, a user suspended since it was made) is deleted in the
    /// same statement instead of sent (docs/webhooks.md: such an event leaves no delivery); one another
    /// instance holds is left to it, as claims are, so two instances never wait on each other.
    pub async fn claim(&self, limit: usize) -> Result<Vec<Claimed>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query(format!(
            "WITH {READERS}, \
             eligible AS (SELECT d.id, d.endpoint_id, d.next_attempt_at, {readable} AS readable \
                 FROM webhook_deliveries d JOIN readers r ON r.id = d.endpoint_id \
                 WHERE d.status = 'pending' AND d.next_attempt_at <= now() \
                 ORDER BY d.next_attempt_at LIMIT 1000), \
             unreadable AS (DELETE FROM webhook_deliveries WHERE id IN (SELECT d.id FROM webhook_deliveries d \
                 JOIN eligible w ON w.id = d.id \
                 WHERE NOT w.readable AND d.status = 'pending' AND d.next_attempt_at <= now() \
                 FOR UPDATE OF d SKIP LOCKED)), \
             busy AS (SELECT endpoint_id, count(*) AS n FROM webhook_deliveries \
                 WHERE claim IS NOT NULL AND status = 'pending' AND next_attempt_at > now() GROUP BY endpoint_id), \
             candidates AS (SELECT w.id, w.next_attempt_at, \
                     row_number() OVER (PARTITION BY w.endpoint_id ORDER BY w.next_attempt_at) \
                     + coalesce(b.n, 0) AS slot \
                 FROM eligible w LEFT JOIN busy b ON b.endpoint_id = w.endpoint_id WHERE w.readable), \
             due AS (SELECT d.id FROM webhook_deliveries d JOIN candidates c ON c.id = d.id \
                 WHERE c.slot <= $3 AND d.status = 'pending' AND d.next_attempt_at <= now() \
                 ORDER BY c.next_attempt_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED) \
             UPDATE webhook_deliveries d SET claim = gen_random_uuid(), \
                 next_attempt_at = now() + make_interval(secs => $2) \
             FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id \
             RETURNING d.id AS delivery_id, d.claim, d.attempts, d.payload, e.id AS endpoint_id, e.url, \
                 e.secret_salt, CASE WHEN e.previous_secret_until > now() THEN e.previous_secret_salt END \
                 AS previous_secret_salt",
            readable = may_read("d.read_resource"),
        ))
        .bind::<Integer, _>(i32::try_from(limit).unwrap_or(i32::MAX))
        .bind::<Double, _>(CLAIM_LEASE.as_secs_f64())
        .bind::<BigInt, _>(PER_ENDPOINT_IN_FLIGHT)
        .load(&mut conn)
        .await
        .map_err(storage)
    }

    /// Records an attempt of a claimed delivery and what follows it; the endpoint's failure
    /// clock starts at its first failure since a success, and an endpoint failing for
    /// `disable_after` is disabled. `false` when the claim was lost (taken over, or the
    /// delivery deleted): nothing is written.
    pub async fn record(
        &self,
        claimed: &Claimed,
        outcome: &AttemptOutcome,
        next: NextStep,
        disable_after: Duration,
    ) -> Result<bool, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let (status, delay) = match next {
            NextStep::Succeeded => (DeliveryStatus::Succeeded, None),
            NextStep::RetryAfter(delay) => (DeliveryStatus::Pending, Some(delay.as_secs_f64())),
            NextStep::Failed => (DeliveryStatus::Failed, None),
        };
        let duration_ms = i32::try_from(outcome.duration.as_millis()).unwrap_or(i32::MAX);
        let recorded = diesel::sql_query(
            "WITH d AS (UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = $3, \
                     last_response_status = $4, claim = NULL, status = $5, \
                     next_attempt_at = CASE WHEN $5 = 'pending' THEN now() + make_interval(secs => $6) END, \
                     completed_at = CASE WHEN $5 = 'pending' THEN NULL ELSE now() END \
                 WHERE id = $1 AND claim = $2 RETURNING id, endpoint_id), \
             a AS (INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, duration_ms, \
                     response_body, error) SELECT id, $3, $4, $7, $8, $9 FROM d), \
             e AS (UPDATE webhook_endpoints e SET \
                     failing_since = CASE WHEN $10 THEN NULL ELSE coalesce(e.failing_since, $3) END, \
                     enabled = e.enabled AND ($10 OR coalesce(e.failing_since, $3) > now() - make_interval(secs => $11)), \
                     disabled_reason = CASE WHEN e.enabled AND NOT $10 \
                         AND coalesce(e.failing_since, $3) <= now() - make_interval(secs => $11) \
                         THEN 'failing' ELSE e.disabled_reason END \
                 FROM d WHERE e.id = d.endpoint_id AND CASE WHEN $10 THEN e.failing_since IS NOT NULL \
                     ELSE e.failing_since IS NULL \
                         OR (e.enabled AND e.failing_since <= now() - make_interval(secs => $11)) END) \
             SELECT true AS recorded FROM d",
        )
        .bind::<SqlUuid, _>(claimed.delivery_id)
        .bind::<SqlUuid, _>(claimed.claim)
        .bind::<Timestamptz, _>(outcome.attempted_at)
        .bind::<Nullable<Integer>, _>(outcome.status.map(i32::from))
        .bind::<Text, _>(status.as_str())
        .bind::<Nullable<Double>, _>(delay)
        .bind::<Integer, _>(duration_ms)
        .bind::<Text, _>(&outcome.body)
        .bind::<Nullable<Text>, _>(&outcome.error)
        .bind::<Bool, _>(outcome.succeeded())
        .bind::<Double, _>(disable_after.as_secs_f64())
        .get_result::<Recorded>(&mut conn)
        .await
        .optional()
        .map_err(storage)?;
        Ok(recorded.is_some_and(|r| r.recorded))
    }

    /// Gives back claims this instance holds without an outcome (a graceful stop), so another
    /// instance sends them at once instead of after the lease.
    pub async fn release(&self, claims: &[Uuid]) -> Result<usize, StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query(
            "UPDATE webhook_deliveries SET claim = NULL, next_attempt_at = now() \
             WHERE claim = ANY($1) AND status = 'pending'",
        )
        .bind::<diesel::sql_types::Array<SqlUuid>, _>(claims)
        .execute(&mut conn)
        .await
        .map_err(storage)
    }

    /// Forgets deliveries (and their attempts) finished more than `KEPT_FOR` ago, 1 000 per
    /// statement; returns how many.
    pub async fn sweep(&self) -> Result<usize, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let mut swept = 0;
        loop {
            let deleted = diesel::sql_query(
                "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries \
                 WHERE completed_at < now() - make_interval(secs => $1) ORDER BY completed_at LIMIT 1000)",
            )
            .bind::<Double, _>(KEPT_FOR.as_secs_f64())
            .execute(&mut conn)
            .await
            .map_err(storage)?;
            swept += deleted;
            if deleted < 1000 {
                return Ok(swept);
            }
        }
    }

    /// How long until the next delivery of an enabled endpoint is due (zero when one is due
    /// now), on the database's clock; `None` when none is pending.
    pub async fn next_due_in(&self) -> Result<Option<Duration>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let due: DueIn = diesel::sql_query(
            "SELECT extract(epoch FROM (SELECT d.next_attempt_at FROM webhook_deliveries d \
                 JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled \
                 WHERE d.status = 'pending' ORDER BY d.next_attempt_at LIMIT 1) - now())::float8 AS seconds",
        )
        .get_result(&mut conn)
        .await
        .map_err(storage)?;
        Ok(due.seconds.map(|s| Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_gives_one_attempt_more_than_its_delays() {
        let schedule = [Duration::from_secs(5), Duration::from_secs(300)];
        assert_eq!(next_step(true, 1, &schedule), NextStep::Succeeded);
        assert_eq!(next_step(false, 1, &schedule), NextStep::RetryAfter(Duration::from_secs(5)));
        assert_eq!(next_step(false, 2, &schedule), NextStep::RetryAfter(Duration::from_secs(300)));
        assert_eq!(next_step(false, 3, &schedule), NextStep::Failed);
        assert_eq!(next_step(false, 9, &schedule), NextStep::Failed, "a manual retry of a failed delivery");
        assert_eq!(next_step(true, 9, &schedule), NextStep::Succeeded);
        assert_eq!(next_step(false, 1, &[]), NextStep::Failed);
    }

    #[test]
    fn payloads_carry_the_event() {
        let at = time::macros::datetime!(2026-11-24 10:00:00 UTC);
        let body = payload("order.confirmed", at, Uuid::from_u128(1), Uuid::from_u128(2), &serde_json::json!({"a": 1}));
        let value: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(
            value,
            serde_json::json!({"type": "order.confirmed", "timestamp": "2026-11-24T10:00:00Z", "data": {
                "id": Uuid::from_u128(1), "aggregate_id": Uuid::from_u128(2), "data": {"a": 1}}})
        );
    }
}
