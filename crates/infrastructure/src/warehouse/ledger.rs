//! The one way quantities change: a compare-and-set on the quantities an operation was computed
//! from, plus its movement row, on the caller's connection (inside its transaction).

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;
use warehouse_domain::InventoryChange;

use super::rows::{InventoryRow, MovementRow};
use super::schema::{inventory, stock_movements};

/// Writes the new quantities `WHERE` they still equal `change.before`, then appends the movement.
/// Returns `false` (having written nothing) when the record moved or is gone.
pub(crate) async fn apply_change(conn: &mut AsyncPgConnection, change: &InventoryChange) -> QueryResult<bool> {
    let after = change.inventory.record();
    let before = change.before;
    let updated = diesel::update(inventory::table)
        .filter(inventory::id.eq(after.id).and(inventory::deleted_at.is_null()))
        .filter(inventory::quantity_on_hand.eq(before.on_hand))
        .filter(inventory::quantity_reserved.eq(before.reserved))
        .filter(inventory::quantity_committed.eq(before.committed))
        // And the version it was read at (the record carries read + 1), so its answer's tag is exact.
        .filter(inventory::version.eq(after.version - 1))
        .set((
            inventory::quantity_on_hand.eq(after.quantity_on_hand),
            inventory::quantity_reserved.eq(after.quantity_reserved),
            inventory::quantity_committed.eq(after.quantity_committed),
            inventory::updated_at.eq(after.updated_at),
        ))
        .execute(conn)
        .await?;
    if updated == 0 {
        return Ok(false);
    }
    diesel::insert_into(stock_movements::table).values(MovementRow::of(change.movement.record())).execute(conn).await?;
    Ok(true)
}

/// Whether a live record with this id exists (tells `Stale` from `NotFound`).
pub(crate) async fn inventory_exists(conn: &mut AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        inventory::table.filter(inventory::id.eq(id).and(inventory::deleted_at.is_null())),
    ))
    .get_result(conn)
    .await
}

/// Live records by id, locked `FOR UPDATE` in id order (every multi-row writer locks in this order,
/// so two of them can never deadlock).
pub(crate) async fn lock_by_ids(conn: &mut AsyncPgConnection, ids: &[Uuid]) -> QueryResult<Vec<InventoryRow>> {
    inventory::table
        .filter(inventory::id.eq_any(ids).and(inventory::deleted_at.is_null()))
        .order(inventory::id.asc())
        .for_update()
        .select(InventoryRow::as_select())
        .load(conn)
        .await
}
