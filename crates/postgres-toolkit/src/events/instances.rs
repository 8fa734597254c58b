//! With the in-process bus, the events an instance has in flight live in its memory. An instance
//! killed for good would leave them in `outbox_in_flight` until some instance restarts (start-up
//! re-queues everything in flight: `OutboxRelay::requeue_incomplete`). Instead, every instance says
//! it is alive in `bus_instances` every [`HEARTBEAT`], each event in flight names its holder (the
//! connection's `tally.instance` setting, `db::SessionLimits::setup_sql`), and every instance hands
//! the events of one unseen for [`PRESUMED_DEAD_AFTER`] back to the relay: within 40 s of its death,
//! inside the 60 s allowed (docs/bounded-work.md). Handing an event over twice is harmless (the inbox).

use std::time::Duration;

use diesel::sql_types::{Interval, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use crate::prepared::Prepared;
use crate::{DbError, DbPool};

/// How often an instance says it is alive and looks for dead ones.
pub const HEARTBEAT: Duration = Duration::from_secs(10);
/// How long an instance may go unseen before its events in flight are taken over.
pub const PRESUMED_DEAD_AFTER: Duration = Duration::from_secs(30);

const HEARTBEAT_SQL: &str = "INSERT INTO bus_instances (id, seen_at) VALUES ($1, now()) \
     ON CONFLICT (id) DO UPDATE SET seen_at = now()";

/// Instances unseen for `$1`, forgotten; their events in flight (and those of holders that never said
/// they were alive, other than this instance `$2`) unpublished again for the relay.
const TAKE_OVER_SQL: &str = "WITH dead AS ( \
       DELETE FROM bus_instances WHERE seen_at < now() - $1 RETURNING id), \
     taken AS ( \
       DELETE FROM outbox_in_flight f WHERE f.instance_id IN (SELECT id FROM dead) \
          OR (f.instance_id <> $2 AND NOT EXISTS (SELECT 1 FROM bus_instances b WHERE b.id = f.instance_id)) \
       RETURNING event_id) \
     UPDATE outbox_events SET published_at = NULL WHERE id IN (SELECT event_id FROM taken)";

/// Says this instance is alive.
pub async fn heartbeat(pool: &DbPool) -> Result<(), DbError> {
    let mut conn = pool.get().await?;
    Prepared(diesel::sql_query(HEARTBEAT_SQL).bind::<SqlUuid, _>(crate::db::instance_id())).execute(&mut conn).await?;
    Ok(())
}

/// Hands the events in flight at dead instances back to the relay; answers how many.
pub async fn take_over_dead(pool: &DbPool, dead_after: Duration) -> Result<usize, DbError> {
    let mut conn = pool.get().await?;
    let interval =
        diesel::data_types::PgInterval::from_microseconds(i64::try_from(dead_after.as_micros()).unwrap_or(i64::MAX));
    let taken = Prepared(
        diesel::sql_query(TAKE_OVER_SQL).bind::<Interval, _>(interval).bind::<SqlUuid, Uuid>(crate::db::instance_id()),
    )
    .execute(&mut conn)
    .await?;
    if taken > 0 {
        tracing::warn!(events = taken, "took over the events in flight of an instance that stopped answering");
    }
    Ok(taken)
}
