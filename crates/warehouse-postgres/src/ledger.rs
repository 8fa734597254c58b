//! The one way quantities change: a compare-and-set on the quantities an operation was computed
//! from, plus its movement row and the stock alerts it raises (`stock_alerts.rs`), on the caller's
//! connection (inside its transaction).

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::FutureExt;
use uuid::Uuid;

use warehouse_domain::alerts::AlertLevel;
use warehouse_domain::{InventoryChange, InventoryRecord};

use super::rows::{InventoryRow, MovementRow};
use super::schema::inventory;
use super::stock_alerts::{record_alerts, Judged};
use postgres_toolkit::pipeline::write_with_followers;
use postgres_toolkit::prepared::Prepared;

/// Writes the new quantities `WHERE` they still equal `change.before`, and appends the movement in
/// the same trip (pipelined). For a record that was read (a row is only ever marked deleted, so its
/// movement's foreign key holds). Returns `false` when the record moved or is gone: the movement went
/// out all the same, so the caller must then roll its transaction back.
pub(crate) async fn apply_change(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<bool> {
    let update = update_quantities(conn, change).map(|written| written.map(|rows| (rows == 1).then_some(())));
    let followers = futures_util::future::try_join(append_movement(conn, change), alerts_of(conn, change));
    Ok(write_with_followers(update, followers).await?.is_some())
}

/// The alert one change raises, judged from the quantities it started from.
async fn alerts_of(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<()> {
    record_alerts(conn, [judged(change, change)]).await
}

/// A record changed by `first` … `last` (the same change for a record changed once), as the alert
/// rule judges it: the compare-and-set held the version read, so its reorder point is the record's.
fn judged<'a>(first: &InventoryChange, last: &'a InventoryChange) -> Judged<'a> {
    let before = AlertLevel { available: first.before.available(), reorder_point: first.inventory.reorder_point };
    Judged { before, after: &last.inventory }
}

/// [`apply_change`] for a record this transaction may have failed to create (a transfer's
/// destination that a concurrent request created first under another id): the movement is sent only
/// once the update has landed, because its foreign key would fail on an id that does not exist and
/// abort the transaction before the caller could tell stale from missing.
pub(crate) async fn apply_change_to_new(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<bool> {
    if update_quantities(conn, change).await? == 0 {
        return Ok(false);
    }
    futures_util::future::try_join(append_movement(conn, change), alerts_of(conn, change)).await?;
    Ok(true)
}

/// The compare-and-set of one change: the number of rows written (0 or 1).
/// (On a shared reference: statements sent on one connection at once are pipelined.)
async fn update_quantities(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<usize> {
    write_quantities(conn, &[QuantityWrite { first: change, last: change }]).await
}

/// Movements, one array per column: one text for any number of them, kept prepared.
const INSERT_MOVEMENTS: &str = "INSERT INTO stock_movements (id, inventory_id, product_id, location_id, type, \
     quantity, quantity_before, quantity_after, reserved_before, reserved_after, unit_cost, \
     total_cost, currency, reference_type, reference_id, reason, created_by, created_at) \
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int8[], $7::int8[], \
                          $8::int8[], $9::int8[], $10::int8[], $11::int8[], $12::int8[], $13::text[], $14::text[], \
                          $15::uuid[], $16::text[], $17::uuid[], $18::timestamptz[])";

/// Inserts movements, one or many, through the one column list ([`INSERT_MOVEMENTS`]): every path
/// that writes a movement comes here, so a column cannot be written by one path and missed by another.
pub(crate) async fn insert_movements(mut conn: &AsyncPgConnection, rows: &[MovementRow]) -> QueryResult<usize> {
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

/// The compare-and-set of records' quantities, one array per column: one text for any number of
/// records, kept prepared. Each row is written where it is live and still holds the quantities and
/// the version its change was computed from, so the answer's tag is exact; the ids are distinct, so
/// the count of rows written says whether every one landed.
const WRITE_QUANTITIES: &str = "UPDATE inventory AS i SET quantity_on_hand = v.on_hand, \
     quantity_reserved = v.reserved, quantity_committed = v.committed, updated_at = v.updated_at \
     FROM unnest($1::uuid[], $2::int8[], $3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::int8[], $8::int8[], \
                 $9::timestamptz[]) \
          AS v (id, on_hand_before, reserved_before, committed_before, read_version, on_hand, reserved, committed, \
                updated_at) \
     WHERE i.id = v.id AND i.deleted_at IS NULL AND i.quantity_on_hand = v.on_hand_before \
       AND i.quantity_reserved = v.reserved_before AND i.quantity_committed = v.committed_before \
       AND i.version = v.read_version";

/// One record's write: its last change's quantities where it still holds its first change's (the
/// same change for a record changed once).
struct QuantityWrite<'a> {
    first: &'a InventoryChange,
    last: &'a InventoryChange,
}

impl QuantityWrite<'_> {
    fn after(&self) -> &InventoryRecord {
        self.last.inventory.record()
    }
}

async fn write_quantities(mut conn: &AsyncPgConnection, writes: &[QuantityWrite<'_>]) -> QueryResult<usize> {
    use diesel::sql_types::{Array, BigInt, Timestamptz, Uuid as SqlUuid};
    if writes.is_empty() {
        return Ok(0);
    }
    let column = |f: &dyn Fn(&QuantityWrite<'_>) -> i64| writes.iter().map(f).collect::<Vec<_>>();
    Prepared(
        diesel::sql_query(WRITE_QUANTITIES)
            .bind::<Array<SqlUuid>, _>(writes.iter().map(|w| w.first.inventory.id).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(column(&|w| w.first.before.on_hand))
            .bind::<Array<BigInt>, _>(column(&|w| w.first.before.reserved))
            .bind::<Array<BigInt>, _>(column(&|w| w.first.before.committed))
            // The record carries the version it was read at + 1.
            .bind::<Array<BigInt>, _>(column(&|w| w.first.inventory.version - 1))
            .bind::<Array<BigInt>, _>(column(&|w| w.after().quantity_on_hand))
            .bind::<Array<BigInt>, _>(column(&|w| w.after().quantity_reserved))
            .bind::<Array<BigInt>, _>(column(&|w| w.after().quantity_committed))
            .bind::<Array<Timestamptz>, _>(writes.iter().map(|w| w.after().updated_at).collect::<Vec<_>>()),
    )
    .execute(&mut conn)
    .await
}

/// `apply_change` for records the transaction holds locked (`lock_by_ids`, the order flow's
/// candidates), where the compare-and-set cannot miss. The changes may follow one another on a record
/// (several orders reserved in one transaction): each record is written once, with its last change's
/// quantities, compared with those its first change was computed from (so the database's version
/// counts one update per record and transaction). The records go in one update
/// (`WRITE_QUANTITIES`) and the movements, one per change, in one insert (`INSERT_MOVEMENTS`),
/// both sent at once, pipelined. Returns `false` if an update missed all the same; the caller must
/// then abort its transaction, which takes the movements sent beside it back too.
pub(crate) async fn apply_locked_changes(shared: &AsyncPgConnection, changes: &[InventoryChange]) -> QueryResult<bool> {
    let mut writes: Vec<QuantityWrite<'_>> = Vec::new();
    let mut write_of: HashMap<Uuid, usize> = HashMap::new();
    for change in changes {
        match write_of.get(&change.inventory.id) {
            Some(&i) => writes[i].last = change,
            None => {
                write_of.insert(change.inventory.id, writes.len());
                writes.push(QuantityWrite { first: change, last: change });
            }
        }
    }
    let rows: Vec<MovementRow> = changes.iter().map(|c| MovementRow::of(c.movement.record())).collect();
    // Each record judged once, from its first change's quantities to its last change's.
    let alerts = record_alerts(shared, writes.iter().map(|w| judged(w.first, w.last)));
    let (written, _, _) =
        futures_util::future::try_join3(write_quantities(shared, &writes), insert_movements(shared, &rows), alerts)
            .await?;
    Ok(written == writes.len())
}

async fn append_movement(conn: &AsyncPgConnection, change: &InventoryChange) -> QueryResult<usize> {
    insert_movements(conn, &[MovementRow::of(change.movement.record())]).await
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
