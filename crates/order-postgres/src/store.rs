//! Statements shared by the order repository and the reply handler, run on the caller's connection
//! (usually inside its transaction).

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use order_domain::{LineChange, OrderChange, OrderRecord};
use uuid::Uuid;

use super::rows::{LineRow, OrderHeaderChange, OrderRow};
use super::schema::{order_lines, orders};
use futures_util::future::try_join;
use futures_util::TryFutureExt;
use postgres_toolkit::events::record_event;
use postgres_toolkit::pipeline::write_with_followers;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::live;

/// The live order row and its lines (by `created_at`, then `id`) in one statement, so in one snapshot:
/// a concurrent line change can never give a header whose total its lines do not add up to
/// (docs/bounded-work.md). `None` for a missing order. By `id` alone, the deletion checked after (`live`).
pub(crate) async fn load(conn: &AsyncPgConnection, id: Uuid) -> QueryResult<Option<(OrderRow, Vec<LineRow>)>> {
    let mut conn = conn;
    let rows: Vec<(OrderRow, Option<time::OffsetDateTime>, Option<LineRow>)> = orders::table
        .left_join(order_lines::table)
        .filter(orders::id.eq(id))
        .order((order_lines::created_at.asc(), order_lines::id.asc()))
        .select((OrderRow::as_select(), orders::deleted_at, Option::<LineRow>::as_select()))
        .load(&mut conn)
        .await?;
    let mut rows = rows.into_iter();
    let Some((row, deleted_at, first_line)) = rows.next() else { return Ok(None) };
    let lines = first_line.into_iter().chain(rows.filter_map(|(_, _, line)| line)).collect();
    Ok(live(Some((row, deleted_at))).map(|row| (row, lines)))
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

/// Whether a live order with this id exists (tells `Stale` from `NotFound` after a missed CAS). By
/// `id` alone, the deletion checked after, as in [`load`]: found, and not deleted.
pub(crate) async fn exists(conn: &mut AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    let deleted_at: Option<Option<time::OffsetDateTime>> =
        orders::table.filter(orders::id.eq(id)).select(orders::deleted_at).first(conn).await.optional()?;
    Ok(matches!(deleted_at, Some(None)))
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

/// Every header of a batch in one compare-and-set `UPDATE`, joined to its new values by id (the
/// columns of `OrderHeaderChange`, in its order).
const UPDATE_HEADERS: &str = "UPDATE orders AS o SET status = v.status, subtotal = v.subtotal, tax = v.tax, \
     discount = v.discount, total = v.total, notes = v.notes, reservation_status = v.reservation_status, \
     reservation_error = v.reservation_error, confirmed_at = v.confirmed_at, fulfilled_at = v.fulfilled_at, \
     cancelled_at = v.cancelled_at, version = v.version, updated_at = v.updated_at \
     FROM unnest($1::uuid[], $2::int8[], $3::text[], $4::text[], $5::int8[], $6::int8[], $7::int8[], $8::int8[], \
                 $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[], $14::timestamptz[], \
                 $15::int8[], $16::timestamptz[]) \
       AS v(id, expected_version, expected_status, status, subtotal, tax, discount, total, notes, reservation_status, \
            reservation_error, confirmed_at, fulfilled_at, cancelled_at, version, updated_at) \
     WHERE o.id = v.id AND o.version = v.expected_version AND o.status = v.expected_status AND o.deleted_at IS NULL";

/// Writes several changes of different orders as [`write_change`] writes one, with one `UPDATE` for
/// all their headers (a statement's fixed cost, its constraints and trigger set-up, paid once) and one
/// insert for all their events, pipelined. `false` when any order moved or is gone: the caller must
/// abort its transaction. PostgreSQL joins from the array for a batch's few rows (a nested loop over
/// the primary key), so rows not locked before are locked in the changes' order; should two batches
/// ever lock in crossing orders, its deadlock check fails one, which is then done write by write.
pub(crate) async fn write_changes(conn: &AsyncPgConnection, changes: &[&OrderChange]) -> QueryResult<bool> {
    use diesel::sql_types::{Array, BigInt, Nullable, Text, Timestamptz};
    match changes {
        [] => return Ok(true),
        [change] => return write_change(conn, change).await,
        _ => {}
    }
    let mut shared = conn;
    let records: Vec<&OrderRecord> = changes.iter().map(|c| c.order.record()).collect();
    let headers: Vec<OrderHeaderChange<'_>> = records.iter().map(|r| OrderHeaderChange::of(r)).collect();
    let column = |f: &dyn Fn(&OrderHeaderChange<'_>) -> i64| headers.iter().map(f).collect::<Vec<i64>>();
    let update = Prepared(
        diesel::sql_query(UPDATE_HEADERS)
            .bind::<Array<diesel::sql_types::Uuid>, _>(records.iter().map(|r| r.id).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(changes.iter().map(|c| c.expected_version).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(changes.iter().map(|c| c.expected_status.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(headers.iter().map(|h| h.status).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(column(&|h| h.subtotal))
            .bind::<Array<BigInt>, _>(column(&|h| h.tax))
            .bind::<Array<BigInt>, _>(column(&|h| h.discount))
            .bind::<Array<BigInt>, _>(column(&|h| h.total))
            .bind::<Array<Nullable<Text>>, _>(headers.iter().map(|h| h.notes).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(headers.iter().map(|h| h.reservation_status).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(headers.iter().map(|h| h.reservation_error).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamptz>>, _>(headers.iter().map(|h| h.confirmed_at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamptz>>, _>(headers.iter().map(|h| h.fulfilled_at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamptz>>, _>(headers.iter().map(|h| h.cancelled_at).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(column(&|h| h.version))
            .bind::<Array<Timestamptz>, _>(headers.iter().map(|h| h.updated_at).collect::<Vec<_>>()),
    )
    .execute(&mut shared)
    .map_ok(|updated| (updated == changes.len()).then_some(()));
    let events: Vec<&shared_kernel::EventEnvelope> = changes.iter().flat_map(|c| &c.events).collect();
    let lines =
        futures_util::future::try_join_all(changes.iter().map(|c| write_line(shared, c.order.id, c.line.as_ref())));
    let written = write_with_followers(update, try_join(lines, record_event(shared, &events))).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns a statement's `SET` names, in order: `"status" = $1` (diesel) or `status = v.status`.
    fn set_columns(sql: &str) -> Vec<String> {
        let start = sql.find(" SET ").map(|at| at + 5).unwrap_or(0);
        let end =
            sql[start..].find(" FROM ").or_else(|| sql[start..].find(" WHERE ")).map_or(sql.len(), |at| start + at);
        sql[start..end]
            .split(", ")
            .filter_map(|assignment| assignment.split(" = ").next())
            .map(|column| column.trim().trim_matches('"').to_owned())
            .collect()
    }

    /// A lone change writes its header through diesel's changeset, a batch through `UPDATE_HEADERS`:
    /// a column added to one and not the other would be lost only when saves share a commit, so the
    /// two must name the same columns in the same order (the binds follow that order).
    #[test]
    fn the_batched_header_update_sets_exactly_the_changeset_columns() {
        let now = time::OffsetDateTime::UNIX_EPOCH;
        let header = OrderHeaderChange {
            status: "confirmed",
            subtotal: 1,
            tax: 0,
            discount: 0,
            total: 1,
            notes: None,
            reservation_status: "pending",
            reservation_error: None,
            confirmed_at: Some(now),
            fulfilled_at: None,
            cancelled_at: None,
            version: 2,
            updated_at: now,
        };
        let single = diesel::update(orders::table).filter(orders::id.eq(Uuid::nil())).set(header);
        let single = diesel::debug_query::<diesel::pg::Pg, _>(&single).to_string();
        let changeset = set_columns(&single);
        assert_eq!(changeset.len(), 13, "the changeset's columns: {changeset:?}");
        assert_eq!(set_columns(UPDATE_HEADERS), changeset);
        // Each value is read from the column of `v` of the same name, which `unnest` must provide.
        let aliases = &UPDATE_HEADERS[UPDATE_HEADERS.find("AS v(").unwrap_or(0)..];
        for column in &changeset {
            assert!(UPDATE_HEADERS.contains(&format!("{column} = v.{column}")), "{column} is set from v.{column}");
            assert!(
                aliases.contains(&format!(" {column},")) || aliases.contains(&format!(" {column})")),
                "v has {column}"
            );
        }
    }

    #[test]
    fn set_columns_reads_both_spellings() {
        assert_eq!(set_columns(r#"UPDATE "t" SET "a" = $1, "b" = $2 WHERE "t"."id" = $3"#), ["a", "b"]);
        assert_eq!(
            set_columns("UPDATE t AS o SET a = v.a, b = v.b FROM unnest($1) AS v(a, b) WHERE o.id = v.id"),
            ["a", "b"]
        );
    }
}
