//! Statements shared by the order repository and the reply handler, run on the caller's connection
//! (usually inside its transaction).

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use order_domain::{LineChange, OrderChange, OrderRecord};
use uuid::Uuid;

use super::rows::{LineRow, OrderHeaderChange, OrderRow};
use super::schema::{order_lines, orders};
use crate::events::record_event;
use crate::pipeline::write_with_followers;
use crate::prepared::Prepared;
use futures_util::future::try_join;
use futures_util::TryFutureExt;

/// The live order row and its lines (by `created_at`, then `id`), both reads sent at once (pipelined:
/// one round trip); the lines of a missing order are none.
pub(crate) async fn load(conn: &AsyncPgConnection, id: Uuid) -> QueryResult<Option<(OrderRow, Vec<LineRow>)>> {
    Ok(load_many(conn, &[id], false).await?.remove(&id))
}

/// The live rows of several orders (locked in id order when `lock`, so two such reads cannot
/// deadlock) with their lines (by `created_at`, then `id`), by order id: two statements sent at once.
pub(crate) async fn load_many(
    mut conn: &AsyncPgConnection,
    ids: &[Uuid],
    lock: bool,
) -> QueryResult<HashMap<Uuid, (OrderRow, Vec<LineRow>)>> {
    let query = orders::table
        .filter(orders::id.eq_any(ids).and(orders::deleted_at.is_null()))
        .order(orders::id.asc())
        .select(OrderRow::as_select());
    let rows = async move {
        let mut conn = conn;
        if lock {
            query.for_update().load(&mut conn).await
        } else {
            query.load(&mut conn).await
        }
    };
    let lines = order_lines::table
        .filter(order_lines::order_id.eq_any(ids))
        .order((order_lines::order_id.asc(), order_lines::created_at.asc(), order_lines::id.asc()))
        .select(LineRow::as_select())
        .load(&mut conn);
    let (rows, lines): (Vec<OrderRow>, Vec<LineRow>) = try_join(rows, lines).await?;
    let mut lines_of: HashMap<Uuid, Vec<LineRow>> = HashMap::new();
    for line in lines {
        lines_of.entry(line.order_id).or_default().push(line);
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let lines = lines_of.remove(&row.id).unwrap_or_default();
            (row.id, (row, lines))
        })
        .collect())
}

/// Whether a live order with this id exists (tells `Stale` from `NotFound` after a missed CAS).
pub(crate) async fn exists(conn: &mut AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(orders::table.filter(orders::id.eq(id).and(orders::deleted_at.is_null()))))
        .get_result(conn)
        .await
}

/// Writes `change` as a compare-and-set on version and status, with its line and its events sent
/// behind it on the connection (pipelined: one round trip). Returns `false` when the order moved or
/// is gone: the line and events went out all the same, so the caller must abort its transaction.
pub(crate) async fn write_change(conn: &AsyncPgConnection, change: &OrderChange) -> QueryResult<bool> {
    let mut shared = conn;
    let order: &OrderRecord = change.order.record();
    let update = Prepared(
        diesel::update(orders::table)
            .filter(orders::id.eq(order.id))
            .filter(orders::version.eq(change.expected_version))
            .filter(orders::status.eq(change.expected_status.as_str()))
            .filter(orders::deleted_at.is_null())
            .set(OrderHeaderChange::of(order)),
    )
    .execute(&mut shared)
    .map_ok(|updated| (updated == 1).then_some(()));
    let followers = try_join(write_line(shared, order.id, change.line.as_ref()), record_event(shared, &change.events));
    let written = write_with_followers(update, followers).await?;
    Ok(written.is_some())
}

async fn write_line(mut conn: &AsyncPgConnection, order_id: Uuid, line: Option<&LineChange>) -> QueryResult<()> {
    match line {
        None => {}
        Some(LineChange::Added(line)) => {
            Prepared(diesel::insert_into(order_lines::table).values(LineRow::of(line.record())))
                .execute(&mut conn)
                .await?;
        }
        Some(LineChange::Updated(line)) => {
            Prepared(
                diesel::update(order_lines::table)
                    .filter(order_lines::id.eq(line.id).and(order_lines::order_id.eq(order_id)))
                    .set((
                        order_lines::quantity.eq(line.quantity),
                        order_lines::subtotal.eq(line.subtotal),
                        order_lines::updated_at.eq(line.updated_at),
                    )),
            )
            .execute(&mut conn)
            .await?;
        }
        Some(LineChange::Removed { line_id }) => {
            diesel::delete(order_lines::table)
                .filter(order_lines::id.eq(*line_id).and(order_lines::order_id.eq(order_id)))
                .execute(&mut conn)
                .await?;
        }
    }
    Ok(())
}
