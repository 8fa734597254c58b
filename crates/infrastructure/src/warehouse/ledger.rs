//! The one way quantities change: a compare-and-set on the quantities an operation was computed
//! from, plus its movement row, on the caller's connection (inside its transaction).

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::FutureExt;
use uuid::Uuid;

use warehouse_domain::{InventoryChange, InventoryRecord, Quantities};

use super::rows::{InventoryRow, MovementRow};
use super::schema::{inventory, stock_movements};
use crate::pipeline::write_with_followers;
use crate::prepared::{Prepared, PreparedIfFew};

/// Writes the new quantities `WHERE` they still equal `change.before`, and appends the movement in
/// the same trip (pipelined). For a record that was read (a row is only ever marked deleted, so its
/// movement's foreign key holds). Returns `false` when the record moved or is gone: the movement went
/// out all the same, so the caller must then roll its transaction back.
pub(crate) async fn apply_change(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<bool> {
    let update = update_quantities(conn, change).map(|written| written.map(|rows| (rows == 1).then_some(())));
    Ok(write_with_followers(update, append_movement(conn, change)).await?.is_some())
}

/// [`apply_change`] for a record this transaction may have failed to create (a transfer's
/// destination that a concurrent request created first under another id): the movement is sent only
/// once the update has landed, because its foreign key would fail on an id that does not exist and
/// abort the transaction before the caller could tell stale from missing.
pub(crate) async fn apply_change_to_new(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<bool> {
    if update_quantities(conn, change).await? == 0 {
        return Ok(false);
    }
    append_movement(conn, change).await?;
    Ok(true)
}

/// The compare-and-set of one change: the number of rows written (0 or 1).
/// (On a shared reference: statements sent on one connection at once are pipelined.)
async fn update_quantities(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<usize> {
    // The record carries the version it was read at + 1.
    let after = change.inventory.record();
    write_quantities(conn, change.before, after.version - 1, after).await
}

/// Writes `after`'s quantities where the row still holds `before` at version `read_version`, so the
/// answer's tag is exact.
async fn write_quantities(
    mut conn: &AsyncPgConnection,
    before: Quantities,
    read_version: i64,
    after: &InventoryRecord,
) -> QueryResult<usize> {
    Prepared(
        diesel::update(inventory::table)
            .filter(inventory::id.eq(after.id).and(inventory::deleted_at.is_null()))
            .filter(inventory::quantity_on_hand.eq(before.on_hand))
            .filter(inventory::quantity_reserved.eq(before.reserved))
            .filter(inventory::quantity_committed.eq(before.committed))
            .filter(inventory::version.eq(read_version))
            .set((
                inventory::quantity_on_hand.eq(after.quantity_on_hand),
                inventory::quantity_reserved.eq(after.quantity_reserved),
                inventory::quantity_committed.eq(after.quantity_committed),
                inventory::updated_at.eq(after.updated_at),
            )),
    )
    .execute(&mut conn)
    .await
}

/// The most movements one insert writes: 18 parameters a row, far under PostgreSQL's 65 535.
const MOVEMENTS_PER_INSERT: usize = 1_000;

/// `apply_change` for records the transaction holds locked (`lock_by_ids`, the order flow's
/// candidates), where the compare-and-set cannot miss. The changes may follow one another on a record
/// (several orders reserved in one transaction): each record is written once, with its last change's
/// quantities, compared with those its first change was computed from (so the database's version
/// counts one update per record and transaction); the movements, one per change, go in as few inserts
/// as their parameters allow (one text per count, kept prepared for a few). Everything is sent at once,
/// pipelined. Returns `false` if an update missed all the same; the caller must then abort its
/// transaction, which takes the movements sent beside it back too.
pub(crate) async fn apply_locked_changes(shared: &AsyncPgConnection, changes: &[InventoryChange]) -> QueryResult<bool> {
    let mut spans: Vec<(&InventoryChange, &InventoryChange)> = Vec::new();
    let mut span_of: HashMap<Uuid, usize> = HashMap::new();
    for change in changes {
        match span_of.get(&change.inventory.id) {
            Some(&i) => spans[i].1 = change,
            None => {
                span_of.insert(change.inventory.id, spans.len());
                spans.push((change, change));
            }
        }
    }
    let updates = spans.iter().map(|(first, last)| {
        write_quantities(shared, first.before, first.inventory.version - 1, last.inventory.record())
    });
    let rows: Vec<MovementRow> = changes.iter().map(|c| MovementRow::of(c.movement.record())).collect();
    let inserts = rows.chunks(MOVEMENTS_PER_INSERT).map(|chunk| async move {
        let mut conn = shared;
        PreparedIfFew::new(diesel::insert_into(stock_movements::table).values(chunk), chunk.len())
            .execute(&mut conn)
            .await
    });
    let (updated, _) = futures_util::future::try_join(
        futures_util::future::try_join_all(updates),
        futures_util::future::try_join_all(inserts),
    )
    .await?;
    Ok(updated.into_iter().all(|written| written == 1))
}

async fn append_movement(mut conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<usize> {
    Prepared(diesel::insert_into(stock_movements::table).values(MovementRow::of(change.movement.record())))
        .execute(&mut conn)
        .await
}

/// Whether a live record with this id exists (tells `Stale` from `NotFound`).
pub(crate) async fn inventory_exists(mut conn: &AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        inventory::table.filter(inventory::id.eq(id).and(inventory::deleted_at.is_null())),
    ))
    .get_result(&mut conn)
    .await
}

/// Live records by id, locked `FOR UPDATE` in id order (every multi-row writer locks in this order,
/// so two of them can never deadlock).
pub(crate) async fn lock_by_ids(mut conn: &AsyncPgConnection, ids: &[Uuid]) -> QueryResult<Vec<InventoryRow>> {
    inventory::table
        .filter(inventory::id.eq_any(ids).and(inventory::deleted_at.is_null()))
        .order(inventory::id.asc())
        .for_update()
        .select(InventoryRow::as_select())
        .load(&mut conn)
        .await
}
