//! `InventoryRepository` on PostgreSQL: records, thresholds, and quantity changes written as
//! compare-and-set updates together with their movements.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::events::handing_over;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{
    Availability, Inventory, InventoryChange, InventoryFilter, InventoryRepository, Quantities, RepoError,
    StockMovement, TransferChange, WarehouseError, WithIncoming,
};

use super::errors::{from_diesel, tx_error, TxError};
use super::ledger::{apply_change, apply_change_to_new, insert_movements, inventory_exists};
use super::reorder::incoming_of;
use super::rows::{InventoryRow, MovementRow};
use super::schema::inventory;
use super::stock_alerts::{record_alerts, Judged};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;
use shared_kernel::StorageError;
use warehouse_domain::alerts::AlertLevel;

#[derive(Clone)]
pub struct PgInventoryRepository {
    pool: DbPool,
}

impl PgInventoryRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn live() -> diesel::dsl::IsNull<inventory::deleted_at> {
    inventory::deleted_at.is_null()
}

#[derive(QueryableByName)]
struct Sums {
    #[diesel(sql_type = BigInt)]
    on_hand: i64,
    #[diesel(sql_type = BigInt)]
    reserved: i64,
    #[diesel(sql_type = BigInt)]
    committed: i64,
    #[diesel(sql_type = BigInt)]
    incoming: i64,
}

/// A missed compare-and-set: the record moved (`Stale`) or is gone (`NotFound`).
async fn missed(conn: &diesel_async::AsyncPgConnection, id: Uuid) -> TxError {
    match inventory_exists(conn, id).await {
        Ok(true) => TxError::Refused(RepoError::Storage(StorageError::Stale)),
        Ok(false) => TxError::Refused(RepoError::Storage(StorageError::NotFound)),
        Err(e) => TxError::Db(e),
    }
}

#[async_trait]
impl InventoryRepository for PgInventoryRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(inventory_id = %record.id))]
    async fn create(&self, record: &Inventory, initial: Option<&StockMovement>) -> Result<i64, RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<i64, TxError> {
            Prepared(diesel::insert_into(inventory::table).values(InventoryRow::of(record.record())))
                .execute(&mut conn)
                .await?;
            if let Some(movement) = initial {
                insert_movements(conn, &[MovementRow::of(movement.record())]).await?;
            }
            Ok(incoming_at(conn, record).await?)
        })
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(inventory_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Inventory, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row: InventoryRow = inventory::table
            .filter(inventory::id.eq(id).and(live()))
            .select(InventoryRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        Ok(row.into_inventory())
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %product_id, location_id = %location_id))]
    async fn find(&self, product_id: Uuid, location_id: Uuid) -> Result<Option<Inventory>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row: Option<InventoryRow> = inventory::table
            .filter(inventory::product_id.eq(product_id).and(inventory::location_id.eq(location_id)).and(live()))
            .select(InventoryRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        Ok(row.map(InventoryRow::into_inventory))
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &InventoryFilter, page: PageRequest) -> Result<Page<Inventory>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = inventory::table.filter(live()).into_boxed();
            if let Some(product_id) = filter.product_id {
                query = query.filter(inventory::product_id.eq(product_id));
            }
            if let Some(location_id) = filter.location_id {
                query = query.filter(inventory::location_id.eq(location_id));
            }
            if filter.low_stock {
                // `inventory_low_stock_idx` holds the records with a reorder point; the quantities are
                // checked on those rows (an index reading them would make every stock change non-HOT).
                query = query.filter(inventory::reorder_point.is_not_null()).filter(
                    (inventory::quantity_on_hand - inventory::quantity_reserved)
                        .nullable()
                        .le(inventory::reorder_point),
                );
            }
            query
        };
        let (rows, total): (Vec<InventoryRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((inventory::created_at.desc(), inventory::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(InventoryRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(rows.into_iter().map(InventoryRow::into_inventory).collect(), total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(inventory_id = %record.id))]
    async fn update_thresholds(&self, record: &Inventory) -> Result<WithIncoming<Inventory>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        handing_over(
            &self.pool,
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<WithIncoming<Inventory>, TxError> {
                // The record as it is, locked: a new reorder point may be a crossing (docs/purchasing-and-transfers.md).
                let stored: Option<InventoryRow> = inventory::table
                    .filter(inventory::id.eq(record.id).and(live()))
                    .for_update()
                    .select(InventoryRow::as_select())
                    .first(&mut conn)
                    .await
                    .optional()?;
                let Some(stored) = stored.map(InventoryRow::into_inventory) else {
                    return Err(TxError::Refused(RepoError::Storage(StorageError::NotFound)));
                };
                let updated: InventoryRow = Prepared(
                    diesel::update(inventory::table)
                        .filter(inventory::id.eq(record.id))
                        .set((
                            inventory::reorder_point.eq(record.reorder_point),
                            inventory::min_stock.eq(record.min_stock),
                            inventory::max_stock.eq(record.max_stock),
                            inventory::updated_at.eq(record.updated_at),
                        ))
                        .returning(InventoryRow::as_returning()),
                )
                .get_result(&mut conn)
                .await?;
                let after = updated.into_inventory();
                record_alerts(conn, [Judged { before: AlertLevel::of(&stored), after: &after }]).await?;
                let incoming = incoming_at(conn, &after).await?;
                Ok(WithIncoming::new(after, incoming))
            }),
        )
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(inventory_id = %change.inventory.id))]
    async fn apply(&self, change: &InventoryChange) -> Result<i64, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let id = change.inventory.id;
        handing_over(
            &self.pool,
            transaction(&mut conn, async |conn: &AsyncPgConnection| -> Result<i64, TxError> {
                // Sent with the change (pipelined): no trip of its own.
                let (landed, incoming) =
                    futures_util::future::try_join(apply_change(conn, change), incoming_at(conn, &change.inventory))
                        .await?;
                if landed {
                    Ok(incoming)
                } else {
                    Err(missed(conn, id).await)
                }
            }),
        )
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(from = %change.from.inventory.id, to = %change.to.inventory.id))]
    async fn apply_transfer(&self, change: &TransferChange) -> Result<[i64; 2], RepoError> {
        let mut conn = connect(&self.pool).await?;
        handing_over(
            &self.pool,
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<[i64; 2], TxError> {
                // The destination may be new; a concurrently created one wins and our CAS below misses.
                let to = change.to.inventory.record();
                diesel::sql_query(
                    "INSERT INTO inventory (id, product_id, location_id, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $4) \
                 ON CONFLICT (product_id, location_id) WHERE deleted_at IS NULL DO NOTHING",
                )
                .bind::<SqlUuid, _>(to.id)
                .bind::<SqlUuid, _>(to.product_id)
                .bind::<SqlUuid, _>(to.location_id)
                .bind::<diesel::sql_types::Timestamptz, _>(to.created_at)
                .execute(&mut conn)
                .await?;
                let mut ends = [&change.from, &change.to];
                ends.sort_by_key(|c| c.inventory.id);
                for end in ends {
                    if !apply_change_to_new(conn, end).await? {
                        return Err(missed(conn, end.inventory.id).await);
                    }
                }
                let keys = [&change.from.inventory, &change.to.inventory].map(|r| (r.product_id, r.location_id));
                let incoming = incoming_of(conn, &keys).await?;
                Ok([incoming[0], incoming[1]])
            }),
        )
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(inventory_id = %id))]
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(inventory::table)
                .filter(inventory::id.eq(id).and(live()).and(inventory::quantity_reserved.eq(0)))
                .set((inventory::deleted_at.eq(now), inventory::updated_at.eq(now))),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        let exists = inventory_exists(&conn, id).await.map_err(from_diesel)?;
        Err(if exists {
            RepoError::Refused(WarehouseError::StockReserved)
        } else {
            RepoError::Storage(StorageError::NotFound)
        })
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %product_id))]
    async fn availability(&self, product_id: Uuid) -> Result<Availability, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // The incoming stock counts every open purchase order line and in-transit transfer line of
        // the product, wherever it goes, whether or not a record is there yet (one statement,
        // through `purchase_order_lines_product_idx` and `transfer_lines_product_idx`).
        let sums: Sums = diesel::sql_query(
            "SELECT least(coalesce(sum(quantity_on_hand), 0), 9223372036854775807)::bigint AS on_hand, \
                    least(coalesce(sum(quantity_reserved), 0), 9223372036854775807)::bigint AS reserved, \
                    least(coalesce(sum(quantity_committed), 0), 9223372036854775807)::bigint AS committed, \
                    least(coalesce((SELECT sum(l.quantity_ordered - l.quantity_received) \
                                    FROM purchase_order_lines l JOIN purchase_orders o ON o.id = l.purchase_order_id \
                                    WHERE l.product_id = $1 AND o.status IN ('ordered', 'partially_received')), 0) \
                        + coalesce((SELECT sum(tl.quantity) FROM transfer_lines tl \
                                    JOIN transfers t ON t.id = tl.transfer_id \
                                    WHERE tl.product_id = $1 AND t.status = 'in_transit'), 0), \
                          9223372036854775807)::bigint AS incoming \
             FROM inventory WHERE product_id = $1 AND deleted_at IS NULL",
        )
        .bind::<SqlUuid, _>(product_id)
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        let totals = Quantities { on_hand: sums.on_hand, reserved: sums.reserved, committed: sums.committed };
        Ok(Availability::new(product_id, totals).with_incoming(sums.incoming))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(count = records.len()))]
    async fn incoming(&self, records: &[(Uuid, Uuid)]) -> Result<Vec<i64>, RepoError> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let conn = connect_shared(&self.pool).await?;
        incoming_of(&conn, records).await.map_err(from_diesel)
    }
}

/// The incoming stock at one record, in the caller's transaction.
async fn incoming_at(conn: &AsyncPgConnection, record: &Inventory) -> QueryResult<i64> {
    let [incoming] = <[i64; 1]>::try_from(incoming_of(conn, &[(record.product_id, record.location_id)]).await?)
        .map_err(|_| diesel::result::Error::DeserializationError("incoming stock miscounted".into()))?;
    Ok(incoming)
}
