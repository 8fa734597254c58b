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
use crate::prepared::Prepared;

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

/// Movements, one array per column: one text for any number of them, kept prepared.
const INSERT_MOVEMENTS: &str = "INSERT INTO stock_movements (id, inventory_id, product_id, location_id, type, \
     quantity, quantity_before, quantity_after, reserved_before, reserved_after, unit_cost, \
     total_cost, currency, reference_type, reference_id, reason, created_by, created_at) \
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int8[], $7::int8[], \
                          $8::int8[], $9::int8[], $10::int8[], $11::int8[], $12::int8[], $13::text[], $14::text[], \
                          $15::uuid[], $16::text[], $17::uuid[], $18::timestamptz[])";

async fn insert_movements(mut conn: &AsyncPgConnection, rows: &[MovementRow]) -> QueryResult<usize> {
    use diesel::sql_types::{Array, BigInt, Nullable, Text, Timestamptz, Uuid as SqlUuid};
    if rows.is_empty() {
        return Ok(0);
    }
    let uuids = |f: &dyn Fn(&MovementRow) -> Uuid| rows.iter().map(f).collect::<Vec<_>>();
    let counts = |f: &dyn Fn(&MovementRow) -> i64| rows.iter().map(f).collect::<Vec<_>>();
    let costs = |f: &dyn Fn(&MovementRow) -> Option<i64>| rows.iter().map(f).collect::<Vec<_>>();
    Prepared(
        diesel::sql_query(INSERT_MOVEMENTS)
            .bind::<Array<SqlUuid>, _>(uuids(&|m| m.id))
            .bind::<Array<SqlUuid>, _>(uuids(&|m| m.inventory_id))
            .bind::<Array<SqlUuid>, _>(uuids(&|m| m.product_id))
            .bind::<Array<SqlUuid>, _>(uuids(&|m| m.location_id))
            .bind::<Array<Text>, _>(rows.iter().map(|m| m.movement_type.as_str()).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(counts(&|m| m.quantity))
            .bind::<Array<BigInt>, _>(counts(&|m| m.quantity_before))
            .bind::<Array<BigInt>, _>(counts(&|m| m.quantity_after))
            .bind::<Array<BigInt>, _>(counts(&|m| m.reserved_before))
            .bind::<Array<BigInt>, _>(counts(&|m| m.reserved_after))
            .bind::<Array<Nullable<BigInt>>, _>(costs(&|m| m.unit_cost))
            .bind::<Array<Nullable<BigInt>>, _>(costs(&|m| m.total_cost))
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|m| m.currency.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(rows.iter().map(|m| m.reference_type.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<SqlUuid>>, _>(rows.iter().map(|m| m.reference_id).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|m| m.reason.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Nullable<SqlUuid>>, _>(rows.iter().map(|m| m.created_by).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(rows.iter().map(|m| m.created_at).collect::<Vec<_>>()),
    )
    .execute(&mut conn)
    .await
}

/// `apply_change` for records the transaction holds locked (`lock_by_ids`, the order flow's
/// candidates), where the compare-and-set cannot miss. The changes may follow one another on a record
/// (several orders reserved in one transaction): each record is written once, with its last change's
/// quantities, compared with those its first change was computed from (so the database's version
/// counts one update per record and transaction); the movements, one per change, go in one insert
/// (`INSERT_MOVEMENTS`). Everything is sent at once,
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
    let (updated, _) =
        futures_util::future::try_join(futures_util::future::try_join_all(updates), insert_movements(shared, &rows))
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
