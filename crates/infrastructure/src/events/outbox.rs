//! Writing events into the outbox, inside the caller's transaction.

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shared_kernel::EventEnvelope;

use crate::events::handoff;
use crate::prepared::PreparedIfFew;
use crate::schema::outbox_events;

#[derive(Insertable)]
#[diesel(table_name = outbox_events)]
struct NewOutboxRow<'a> {
    id: uuid::Uuid,
    name: &'a str,
    aggregate_id: uuid::Uuid,
    occurred_at: time::OffsetDateTime,
    data: &'a serde_json::Value,
    /// Set when the events go to the bus from memory after the commit (`handoff`), so the relay
    /// leaves them alone; else the relay claims them.
    published_at: Option<time::OffsetDateTime>,
}

/// Records `events` on `conn`. Call it inside the transaction that makes
/// the change, so the change and its events commit or roll back together.
pub async fn record_event(mut conn: &AsyncPgConnection, events: &[EventEnvelope]) -> QueryResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    let published_at = handoff::will_hand_over(events).then(time::OffsetDateTime::now_utc);
    let rows: Vec<NewOutboxRow<'_>> = events
        .iter()
        .map(|e| NewOutboxRow {
            id: e.id,
            name: &e.name,
            aggregate_id: e.aggregate_id,
            occurred_at: e.occurred_at,
            data: &e.data,
            published_at,
        })
        .collect();
    let insert = diesel::insert_into(outbox_events::table).values(&rows);
    // A change records one event or a few: kept prepared, one statement per count of them.
    PreparedIfFew::new(insert, rows.len()).execute(&mut conn).await?;
    Ok(())
}
