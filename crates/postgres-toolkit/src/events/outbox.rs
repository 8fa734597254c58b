//! Writing events into the outbox, inside the caller's transaction.

use std::borrow::Borrow;

use diesel::{QueryResult, QueryableByName};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shared_kernel::EventEnvelope;

use crate::events::handoff;
use crate::prepared::Prepared;

/// Every event of a change, or of a batch of changes, in one statement whose text does not depend on
/// their number: kept prepared on the connection, so a batch of any size is neither parsed nor
/// planned again (a multi-row `VALUES` list is a new text for every count of rows). Events handed
/// over from memory (`$6`, their publication, set) are in flight from the start: the same statement
/// enters them in `outbox_in_flight`, which their completion empties again. It answers the
/// transaction's id, which a hand-over needs to learn later whether a commit whose answer was lost
/// landed: read here, it costs no statement of its own (docs/adr/0011-fewer-statements-a-write.md).
const INSERT_EVENTS: &str = "WITH in_flight AS ( \
       INSERT INTO outbox_in_flight (event_id) SELECT unnest($1::uuid[]) WHERE $6::timestamptz IS NOT NULL), \
     events AS ( \
       INSERT INTO outbox_events (id, name, aggregate_id, occurred_at, data, published_at) \
       SELECT v.id, v.name, v.aggregate_id, v.occurred_at, v.data, $6 \
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::jsonb[]) \
         AS v(id, name, aggregate_id, occurred_at, data)) \
     SELECT pg_current_xact_id()::text::bigint AS xid";

/// The answer of [`INSERT_EVENTS`].
#[derive(QueryableByName)]
struct Recorded {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    xid: i64,
}

/// Records `events` on `conn`. Call it inside the transaction that makes
/// the change, so the change and its events commit or roll back together.
/// `events` may be borrowed (`&[&EventEnvelope]`): a batch of changes records its events without
/// copying them.
pub async fn record_event<E: Borrow<EventEnvelope> + Sync>(
    mut conn: &AsyncPgConnection,
    events: &[E],
) -> QueryResult<()> {
    use diesel::sql_types::{Array, Jsonb, Nullable, Text, Timestamptz, Uuid};
    if events.is_empty() {
        return Ok(());
    }
    // Set when the events go to the bus from memory after the commit (`handoff`), so the relay leaves
    // them alone; else the relay claims them.
    let published_at = handoff::will_hand_over(events).then(time::OffsetDateTime::now_utc);
    let recorded: Recorded = Prepared(
        diesel::sql_query(INSERT_EVENTS)
            .bind::<Array<Uuid>, _>(events.iter().map(|e| e.borrow().id).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(events.iter().map(|e| e.borrow().name.as_str()).collect::<Vec<_>>())
            .bind::<Array<Uuid>, _>(events.iter().map(|e| e.borrow().aggregate_id).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(events.iter().map(|e| e.borrow().occurred_at).collect::<Vec<_>>())
            .bind::<Array<Jsonb>, _>(events.iter().map(|e| &e.borrow().data).collect::<Vec<_>>())
            .bind::<Nullable<Timestamptz>, _>(published_at),
    )
    .get_result(&mut conn)
    .await?;
    if published_at.is_some() {
        handoff::began(recorded.xid);
    }
    Ok(())
}
