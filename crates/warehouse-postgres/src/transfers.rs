//! `TransferRepository` on PostgreSQL (docs/purchasing-and-transfers.md).
//!
//! - **Create**: one transaction takes the next number from `document_counters` (`documents.rs`)
//!   and inserts the transfer with its lines.
//! - **Save**: one transaction writes the header as a compare-and-set on the version and status the
//!   move was computed from (`Stale` otherwise), then the stock (`document_stock.rs`): the records
//!   of every line locked in id order, each line taken off the source (all or nothing: one short line
//!   refuses the whole shipment with `INSUFFICIENT_STOCK`, and nothing moves) or put at its
//!   destination (the record made if missing), one `Transfer` movement each, stock alerts; then the
//!   event.

use std::collections::{BTreeSet, HashMap};

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::events::{handing_over, record_event};
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;
use shared_kernel::{Page, PageRequest, StorageError};
use uuid::Uuid;
use warehouse_domain::numbers::TransferNumber;
use warehouse_domain::transfers::{
    StockDirection, StockInstruction, Transfer, TransferDraft, TransferFilter, TransferRepository, TransferStatusChange,
};
use warehouse_domain::{RepoError, Stamp, WarehouseError};

use super::document_stock::{lock_records, move_stock};
use super::documents::{allocate, TRANSFER};
use super::errors::{tx_error, TxError};
use super::purchasing_rows::{TransferLineRow, TransferRow};
use super::schema::{transfer_lines, transfers};

#[derive(Clone)]
pub struct PgTransferRepository {
    pool: DbPool,
}

impl PgTransferRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn refused(error: WarehouseError) -> TxError {
    TxError::Refused(RepoError::Refused(error))
}

/// The transfers of `rows` with their lines, read in one query, in the order of `rows`.
async fn with_lines(mut conn: &AsyncPgConnection, rows: Vec<TransferRow>) -> Result<Vec<Transfer>, TxError> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let lines: Vec<TransferLineRow> = transfer_lines::table
        .filter(transfer_lines::transfer_id.eq_any(&ids))
        .order((transfer_lines::transfer_id, transfer_lines::id))
        .select(TransferLineRow::as_select())
        .load(&mut conn)
        .await?;
    let mut by_transfer: HashMap<Uuid, Vec<TransferLineRow>> = HashMap::new();
    for line in lines {
        by_transfer.entry(line.transfer_id).or_default().push(line);
    }
    rows.into_iter()
        .map(|row| {
            let lines = by_transfer.remove(&row.id).unwrap_or_default();
            row.into_transfer(lines).map_err(TxError::Refused)
        })
        .collect()
}

/// Every stock instruction of a move, on records locked in id order; one refusal rolls all back.
async fn move_lines(conn: &AsyncPgConnection, stock: &[StockInstruction], stamp: Stamp) -> Result<(), TxError> {
    if stock.is_empty() {
        return Ok(());
    }
    let keys: BTreeSet<(Uuid, Uuid)> = stock.iter().map(|s| (s.product_id, s.location_id)).collect();
    let make: BTreeSet<(Uuid, Uuid)> =
        stock.iter().filter(|s| s.direction == StockDirection::Put).map(|s| (s.product_id, s.location_id)).collect();
    let records = lock_records(conn, &keys, &make, stamp.at).await?;
    move_stock(
        conn,
        records,
        stock,
        |s| (s.product_id, s.location_id),
        |s, record| match record {
            Some(record) => s.apply(record, stamp),
            // A source without a live record (none, or deleted, with whatever it held) has nothing
            // to take; a destination is always there (`lock_records` answers `Stale` otherwise).
            None => Err(WarehouseError::InsufficientStock { requested: s.quantity, available: 0 }),
        },
    )
    .await
}

#[async_trait]
impl TransferRepository for PgTransferRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(transfer_id = %draft.id()))]
    async fn create(&self, draft: TransferDraft) -> Result<Transfer, RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<Transfer, TxError> {
            let year = draft.year();
            let sequence = *allocate(conn, &TRANSFER, year, 1).await?.end();
            let number = TransferNumber::new(year, sequence).map_err(refused)?;
            let transfer = draft.into_transfer(number).map_err(refused)?;
            diesel::insert_into(transfers::table).values(TransferRow::of(transfer.record())).execute(&mut conn).await?;
            let lines: Vec<TransferLineRow> = transfer
                .lines
                .iter()
                .map(|l| TransferLineRow {
                    id: l.id,
                    transfer_id: transfer.id,
                    product_id: l.product_id,
                    quantity: l.quantity,
                })
                .collect();
            diesel::insert_into(transfer_lines::table).values(&lines).execute(&mut conn).await?;
            Ok(transfer)
        })
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(transfer_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Transfer, RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<Transfer, TxError> {
            let row: TransferRow =
                transfers::table.filter(transfers::id.eq(id)).select(TransferRow::as_select()).first(&mut conn).await?;
            with_lines(conn, vec![row]).await?.pop().ok_or(TxError::Db(diesel::NotFound))
        })
        .await
        .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &TransferFilter, page: PageRequest) -> Result<Page<Transfer>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let filter = *filter;
        let (items, total) = transaction(
            &mut conn,
            async |conn: &AsyncPgConnection| -> Result<(Vec<Transfer>, shared_kernel::Total), TxError> {
                // Each filter has its index: `transfers_{status,from,to,list}_idx`.
                let query = || {
                    let mut query = transfers::table.into_boxed();
                    if let Some(status) = filter.status {
                        query = query.filter(transfers::status.eq(status.as_str()));
                    }
                    if let Some(id) = filter.from_location_id {
                        query = query.filter(transfers::from_location_id.eq(id));
                    }
                    if let Some(id) = filter.to_location_id {
                        query = query.filter(transfers::to_location_id.eq(id));
                    }
                    query
                };
                let (rows, total): (Vec<TransferRow>, _) = counting::list_page!(
                    conn,
                    page,
                    query(),
                    query()
                        .order((transfers::created_at.desc(), transfers::id.desc()))
                        .offset(page.offset())
                        .limit(page.limit())
                        .select(TransferRow::as_select())
                )
                .await?;
                Ok((with_lines(conn, rows).await?, total))
            },
        )
        .await
        .map_err(tx_error)?;
        Ok(Page::new(items, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(transfer_id = %change.transfer.id))]
    async fn save(&self, change: &TransferStatusChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let transfer = &change.transfer;
        let stamp = Stamp { at: transfer.updated_at, by };
        handing_over(
            &self.pool,
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), TxError> {
                let updated = diesel::update(
                    transfers::table.filter(
                        transfers::id
                            .eq(transfer.id)
                            .and(transfers::version.eq(change.expected_version))
                            .and(transfers::status.eq(change.expected_status.as_str())),
                    ),
                )
                .set(TransferRow::of(transfer.record()))
                .execute(&mut conn)
                .await?;
                if updated != 1 {
                    let exists: bool =
                        diesel::select(diesel::dsl::exists(transfers::table.filter(transfers::id.eq(transfer.id))))
                            .get_result(&mut conn)
                            .await?;
                    let missed = if exists { StorageError::Stale } else { StorageError::NotFound };
                    return Err(TxError::Refused(RepoError::Storage(missed)));
                }
                move_lines(conn, &change.stock, stamp).await?;
                record_event(conn, &change.events).await?;
                Ok(())
            }),
        )
        .await
        .map_err(tx_error)
    }
}
