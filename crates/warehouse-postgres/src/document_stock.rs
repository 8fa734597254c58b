//! Stock a document moves (a purchase order's receipt, a transfer's shipment, arrival or return),
//! inside the document's transaction: the records it needs are made if missing, locked `FOR UPDATE`
//! in id order (as every multi-record writer locks them, so none deadlocks with another, the order
//! flow included), decided by the domain on what they hold under the lock, and written through the
//! ledger with their movements and stock alerts (`ledger::apply_locked_changes`).
//!
//! Under the row locks a shipment and an order's reservation of the same stock take turns: each sees
//! what the other left, so neither ever takes stock the other took.

use std::collections::{BTreeSet, HashMap};

use diesel::prelude::*;
use diesel::sql_types::{Array, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{Inventory, InventoryChange, RepoError, WarehouseError};

use super::errors::TxError;
use super::ledger::apply_locked_changes;
use super::rows::InventoryRow;
use super::schema::inventory;
use postgres_toolkit::prepared::Prepared;
use shared_kernel::StorageError;

/// A record's key: (product, location).
pub(crate) type Key = (Uuid, Uuid);

/// Makes the missing records of `keys` (empty, no thresholds: a new record raises no alert). Sorted,
/// so two documents making the same records cannot deadlock on the unique index.
const MAKE_RECORDS: &str = "INSERT INTO inventory (id, product_id, location_id, created_at, updated_at) \
     SELECT v.id, v.product_id, v.location_id, $4, $4 \
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) WITH ORDINALITY AS v(id, product_id, location_id, n) \
     ORDER BY v.n \
     ON CONFLICT (product_id, location_id) WHERE deleted_at IS NULL DO NOTHING";

async fn make_records(mut conn: &AsyncPgConnection, keys: &BTreeSet<Key>, at: OffsetDateTime) -> QueryResult<usize> {
    if keys.is_empty() {
        return Ok(0);
    }
    let ids: Vec<Uuid> = keys.iter().map(|_| shared_kernel::new_id()).collect();
    Prepared(
        diesel::sql_query(MAKE_RECORDS)
            .bind::<Array<SqlUuid>, _>(ids)
            .bind::<Array<SqlUuid>, _>(keys.iter().map(|k| k.0).collect::<Vec<_>>())
            .bind::<Array<SqlUuid>, _>(keys.iter().map(|k| k.1).collect::<Vec<_>>())
            .bind::<Timestamptz, _>(at),
    )
    .execute(&mut conn)
    .await
}

/// The live records of `keys` (made first where `make` names them), locked in id order, by key.
///
/// A record of `make` that is missing under the lock was soft-deleted after the insert found it
/// live and before the lock was granted (the delete held the row): the read is stale, and the whole
/// document is decided again (`Stale`, so the use case retries on a fresh read, and its new
/// transaction makes a new record). A missing record that was not to be made (a transfer's source)
/// is left to the caller: nothing there to take.
pub(crate) async fn lock_records(
    mut conn: &AsyncPgConnection,
    keys: &BTreeSet<Key>,
    make: &BTreeSet<Key>,
    at: OffsetDateTime,
) -> Result<HashMap<Key, Inventory>, TxError> {
    make_records(conn, make, at).await?;
    let products: Vec<Uuid> = keys.iter().map(|k| k.0).collect::<BTreeSet<_>>().into_iter().collect();
    let locations: Vec<Uuid> = keys.iter().map(|k| k.1).collect::<BTreeSet<_>>().into_iter().collect();
    // A document's lines share one location, so this locks exactly the records of `keys`.
    let rows: Vec<InventoryRow> = inventory::table
        .filter(inventory::product_id.eq_any(&products))
        .filter(inventory::location_id.eq_any(&locations))
        .filter(inventory::deleted_at.is_null())
        .order(inventory::id.asc())
        .for_update()
        .select(InventoryRow::as_select())
        .load(&mut conn)
        .await?;
    let records: HashMap<Key, Inventory> = rows
        .into_iter()
        .map(InventoryRow::into_inventory)
        .filter(|r| keys.contains(&(r.product_id, r.location_id)))
        .map(|r| ((r.product_id, r.location_id), r))
        .collect();
    if make.iter().any(|key| !records.contains_key(key)) {
        return Err(TxError::Refused(RepoError::Storage(StorageError::Stale)));
    }
    Ok(records)
}

/// Decides each step on its record as the previous steps left it (`decide` answers the change, or
/// the refusal that rolls the whole document back), then writes every change.
pub(crate) async fn move_stock<S>(
    conn: &AsyncPgConnection,
    mut records: HashMap<Key, Inventory>,
    steps: &[S],
    key: impl Fn(&S) -> Key,
    decide: impl Fn(&S, Option<&Inventory>) -> Result<InventoryChange, WarehouseError>,
) -> Result<(), TxError> {
    let mut changes = Vec::with_capacity(steps.len());
    for step in steps {
        let k = key(step);
        let change = decide(step, records.get(&k)).map_err(|e| TxError::Refused(RepoError::Refused(e)))?;
        records.insert(k, change.inventory.clone());
        changes.push(change);
    }
    if apply_locked_changes(conn, &changes).await? {
        Ok(())
    } else {
        // Cannot happen under the row locks; the transaction rolls back all the same.
        Err(TxError::Refused(RepoError::Storage(StorageError::Stale)))
    }
}
