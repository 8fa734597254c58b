//! Statements shared by the order repository and the reply handler, run on the caller's connection
//! (usually inside its transaction).

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use order_domain::{LineChange, OrderChange, OrderRecord};
use uuid::Uuid;

use super::rows::{LineRow, OrderHeaderChange, OrderRow};
use super::schema::{order_lines, orders};
use crate::events::record_event;

/// The live order row and its lines (by `created_at`, then `id`); `lock` takes the row `FOR UPDATE`.
pub(crate) async fn load(
    conn: &mut AsyncPgConnection,
    id: Uuid,
    lock: bool,
) -> QueryResult<Option<(OrderRow, Vec<LineRow>)>> {
    let query = orders::table.filter(orders::id.eq(id).and(orders::deleted_at.is_null())).select(OrderRow::as_select());
    let row = if lock { query.for_update().first(conn).await } else { query.first(conn).await }.optional()?;
    let Some(row) = row else { return Ok(None) };
    let lines = order_lines::table
        .filter(order_lines::order_id.eq(id))
        .order((order_lines::created_at.asc(), order_lines::id.asc()))
        .select(LineRow::as_select())
        .load(conn)
        .await?;
    Ok(Some((row, lines)))
}

/// Whether a live order with this id exists (tells `Stale` from `NotFound` after a missed CAS).
pub(crate) async fn exists(conn: &mut AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(orders::table.filter(orders::id.eq(id).and(orders::deleted_at.is_null()))))
        .get_result(conn)
        .await
}

/// Writes `change` as a compare-and-set on version and status, then its line and its events.
/// Returns `false` (having written nothing) when the order moved or is gone.
pub(crate) async fn write_change(conn: &mut AsyncPgConnection, change: &OrderChange) -> QueryResult<bool> {
    let order: &OrderRecord = change.order.record();
    let updated = diesel::update(orders::table)
        .filter(orders::id.eq(order.id))
        .filter(orders::version.eq(change.expected_version))
        .filter(orders::status.eq(change.expected_status.as_str()))
        .filter(orders::deleted_at.is_null())
        .set(OrderHeaderChange::of(order))
        .execute(conn)
        .await?;
    if updated == 0 {
        return Ok(false);
    }
    match &change.line {
        None => {}
        Some(LineChange::Added(line)) => {
            diesel::insert_into(order_lines::table).values(LineRow::of(line.record())).execute(conn).await?;
        }
        Some(LineChange::Updated(line)) => {
            diesel::update(order_lines::table)
                .filter(order_lines::id.eq(line.id).and(order_lines::order_id.eq(order.id)))
                .set((
                    order_lines::quantity.eq(line.quantity),
                    order_lines::subtotal.eq(line.subtotal),
                    order_lines::updated_at.eq(line.updated_at),
                ))
                .execute(conn)
                .await?;
        }
        Some(LineChange::Removed { line_id }) => {
            diesel::delete(order_lines::table)
                .filter(order_lines::id.eq(*line_id).and(order_lines::order_id.eq(order.id)))
                .execute(conn)
                .await?;
        }
    }
    record_event(conn, &change.events).await?;
    Ok(true)
}
