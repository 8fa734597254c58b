//! `PurchaseOrderRepository` on PostgreSQL (docs/purchasing-and-transfers.md).
//!
//! - **Create**: one transaction locks the supplier row `FOR SHARE` (a concurrent supplier delete
//!   waits for it and then sees this open purchase order, or went first and this one is refused),
//!   takes the next numbers from `document_counters` (`documents.rs`), and inserts the header and
//!   its lines.
//! - **Save**: one transaction writes the header as a compare-and-set on the version and status the
//!   change was computed from (`Stale` otherwise: two receipts racing on one purchase order take
//!   turns on its row, and the loser decides again on what the winner left), then the line row, then
//!   a receipt's lines, each conditional on what it had received and never above what was ordered
//!   (the table's CHECK is the last line of defence), then the stock (`document_stock.rs`: records
//!   made if missing, one `Receipt` movement per line, stock alerts), then the events. Any failure
//!   rolls all of it back.

use std::collections::{BTreeSet, HashMap};

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::events::{handing_over, record_event};
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;
use shared_kernel::{Page, PageRequest, StorageError};
use uuid::Uuid;
use warehouse_domain::numbers::PurchaseOrderNumber;
use warehouse_domain::purchasing::{
    PurchaseLineChange, PurchaseOrder, PurchaseOrderChange, PurchaseOrderDraft, PurchaseOrderFilter,
    PurchaseOrderRepository, ReceiptInstruction,
};
use warehouse_domain::{RepoError, Stamp, WarehouseError};

use super::document_stock::{lock_records, move_stock};
use super::documents::{allocate, PURCHASE_ORDER};
use super::errors::{from_diesel, tx_error, TxError};
use super::purchasing_rows::{PurchaseOrderLineRow, PurchaseOrderRow};
use super::schema::{purchase_order_lines, purchase_orders};

#[derive(Clone)]
pub struct PgPurchaseOrderRepository {
    pool: DbPool,
}

impl PgPurchaseOrderRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn refused(error: WarehouseError) -> TxError {
    TxError::Refused(RepoError::Refused(error))
}

/// Locks the live suppliers `FOR SHARE` in id order; the ids found.
/// The suppliers, locked against deletion and deactivation until the orders are in: one deactivated
/// since the use case checked it is refused here, in the transaction.
const LOCK_SUPPLIERS: &str = "SELECT id, is_active FROM suppliers WHERE id = ANY($1) AND deleted_at IS NULL \
     ORDER BY id FOR SHARE";

#[derive(QueryableByName)]
struct Found {
    #[diesel(sql_type = SqlUuid)]
    #[allow(dead_code)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    is_active: bool,
}

/// Numbers and inserts `drafts` (their suppliers locked first), in the order given.
async fn insert_drafts(
    mut conn: &AsyncPgConnection,
    drafts: Vec<PurchaseOrderDraft>,
) -> Result<Vec<PurchaseOrder>, TxError> {
    let suppliers: Vec<Uuid> = drafts.iter().map(|d| d.supplier_id()).collect::<BTreeSet<_>>().into_iter().collect();
    let found: Vec<Found> =
        Prepared(diesel::sql_query(LOCK_SUPPLIERS).bind::<Array<SqlUuid>, _>(&suppliers)).load(&mut conn).await?;
    if found.len() != suppliers.len() {
        return Err(refused(WarehouseError::NotFound { entity: "supplier" }));
    }
    if found.iter().any(|supplier| !supplier.is_active) {
        return Err(refused(WarehouseError::Validation { field: "supplier_id", message: "is not an active supplier" }));
    }
    let mut created = Vec::with_capacity(drafts.len());
    let mut numbers: HashMap<i32, std::ops::RangeInclusive<u32>> = HashMap::new();
    for year in drafts.iter().map(PurchaseOrderDraft::year).collect::<BTreeSet<_>>() {
        let count = drafts.iter().filter(|d| d.year() == year).count();
        let range = allocate(conn, &PURCHASE_ORDER, year, u32::try_from(count).unwrap_or(u32::MAX)).await?;
        numbers.insert(year, range);
    }
    for draft in drafts {
        let year = draft.year();
        let sequence = numbers.get_mut(&year).and_then(Iterator::next).unwrap_or(0);
        let number = PurchaseOrderNumber::new(year, sequence).map_err(refused)?;
        created.push(draft.into_purchase_order(number).map_err(refused)?);
    }
    let headers: Vec<PurchaseOrderRow> = created.iter().map(|po| PurchaseOrderRow::of(po.record())).collect();
    let lines: Vec<PurchaseOrderLineRow> =
        created.iter().flat_map(|po| po.lines.iter().map(|l| PurchaseOrderLineRow::of(l.record()))).collect();
    diesel::insert_into(purchase_orders::table).values(&headers).execute(&mut conn).await?;
    if !lines.is_empty() {
        diesel::insert_into(purchase_order_lines::table).values(&lines).execute(&mut conn).await?;
    }
    Ok(created)
}

/// The purchase orders of `rows` with their lines, read in one query, in the order of `rows`.
async fn with_lines(
    mut conn: &AsyncPgConnection,
    rows: Vec<PurchaseOrderRow>,
) -> Result<Vec<PurchaseOrder>, RepoError> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let lines: Vec<PurchaseOrderLineRow> = purchase_order_lines::table
        .filter(purchase_order_lines::purchase_order_id.eq_any(&ids))
        .order((purchase_order_lines::purchase_order_id, purchase_order_lines::created_at, purchase_order_lines::id))
        .select(PurchaseOrderLineRow::as_select())
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
    let mut by_order: HashMap<Uuid, Vec<PurchaseOrderLineRow>> = HashMap::new();
    for line in lines {
        by_order.entry(line.purchase_order_id).or_default().push(line);
    }
    rows.into_iter()
        .map(|row| {
            let lines = by_order.remove(&row.id).unwrap_or_default();
            row.into_purchase_order(lines)
        })
        .collect()
}

/// How one purchase order is looked up.
enum By {
    Id(Uuid),
    Number(String),
}

/// One purchase order, read in one snapshot (a transaction), so its lines and subtotal always agree.
async fn load_one(pool: &DbPool, by: By) -> Result<PurchaseOrder, RepoError> {
    let mut conn = connect(pool).await?;
    transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<PurchaseOrder, TxError> {
        let query = match &by {
            By::Id(id) => purchase_orders::table.filter(purchase_orders::id.eq(*id)).into_boxed(),
            By::Number(number) => {
                purchase_orders::table.filter(purchase_orders::po_number.eq(number.clone())).into_boxed()
            }
        };
        let row: PurchaseOrderRow = query.select(PurchaseOrderRow::as_select()).first(&mut conn).await?;
        with_lines(conn, vec![row]).await.map_err(TxError::Refused)?.pop().ok_or(TxError::Db(diesel::NotFound))
    })
    .await
    .map_err(tx_error)
}

/// A receipt's line updates, each as read and within what was ordered; one text for any number.
const RECEIVE_LINES: &str = "UPDATE purchase_order_lines AS l \
     SET quantity_received = l.quantity_received + v.quantity, updated_at = $5 \
     FROM unnest($2::uuid[], $3::int8[], $4::int8[]) AS v(id, quantity, received_before) \
     WHERE l.id = v.id AND l.purchase_order_id = $1 AND l.quantity_received = v.received_before \
       AND l.quantity_received + v.quantity <= l.quantity_ordered";

async fn receive_lines(
    mut conn: &AsyncPgConnection,
    purchase_order_id: Uuid,
    receipts: &[ReceiptInstruction],
    at: time::OffsetDateTime,
) -> Result<(), TxError> {
    let written = Prepared(
        diesel::sql_query(RECEIVE_LINES)
            .bind::<SqlUuid, _>(purchase_order_id)
            .bind::<Array<SqlUuid>, _>(receipts.iter().map(|r| r.line_id).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(receipts.iter().map(|r| r.quantity).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(receipts.iter().map(|r| r.received_before).collect::<Vec<_>>())
            .bind::<Timestamptz, _>(at),
    )
    .execute(&mut conn)
    .await?;
    if written == receipts.len() {
        Ok(())
    } else {
        Err(TxError::Refused(RepoError::Storage(StorageError::Stale)))
    }
}

/// The one line row a line edit inserts, updates or deletes.
async fn write_line(
    mut conn: &AsyncPgConnection,
    po: &PurchaseOrder,
    line: &PurchaseLineChange,
) -> Result<(), TxError> {
    use purchase_order_lines::dsl as l;
    let written = match line {
        PurchaseLineChange::Added(line) => {
            Prepared(diesel::insert_into(l::purchase_order_lines).values(PurchaseOrderLineRow::of(line.record())))
                .execute(&mut conn)
                .await?
        }
        PurchaseLineChange::Updated(line) => {
            Prepared(
                diesel::update(l::purchase_order_lines.filter(l::id.eq(line.id).and(l::purchase_order_id.eq(po.id))))
                    .set((
                        l::quantity_ordered.eq(line.quantity_ordered),
                        l::unit_cost.eq(line.unit_cost),
                        l::subtotal.eq(line.subtotal),
                        l::updated_at.eq(line.updated_at),
                    )),
            )
            .execute(&mut conn)
            .await?
        }
        PurchaseLineChange::Removed { line_id } => {
            Prepared(diesel::delete(
                l::purchase_order_lines.filter(l::id.eq(*line_id).and(l::purchase_order_id.eq(po.id))),
            ))
            .execute(&mut conn)
            .await?
        }
    };
    if written == 1 {
        Ok(())
    } else {
        Err(TxError::Refused(RepoError::Storage(StorageError::Stale)))
    }
}

/// A receipt's stock: each line received at the purchase order's location, its record made if missing.
async fn receive_stock(conn: &AsyncPgConnection, receipts: &[ReceiptInstruction], stamp: Stamp) -> Result<(), TxError> {
    let keys: BTreeSet<(Uuid, Uuid)> = receipts.iter().map(|r| (r.product_id, r.location_id)).collect();
    let records = lock_records(conn, &keys, &keys, stamp.at).await?;
    move_stock(
        conn,
        records,
        receipts,
        |r| (r.product_id, r.location_id),
        |r, record| match record {
            Some(record) => record.receive(r.receipt(), stamp),
            // Cannot be: every key was made, and one deleted meanwhile is `Stale` (`lock_records`).
            None => Err(WarehouseError::NotFound { entity: "inventory record" }),
        },
    )
    .await
}

#[async_trait]
impl PurchaseOrderRepository for PgPurchaseOrderRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(purchase_order_id = %draft.id()))]
    async fn create(&self, draft: PurchaseOrderDraft) -> Result<PurchaseOrder, RepoError> {
        let mut created = self.create_all(vec![draft]).await?;
        created.pop().ok_or(RepoError::Storage(StorageError::Unknown("a created purchase order".to_owned())))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(count = drafts.len()))]
    async fn create_all(&self, drafts: Vec<PurchaseOrderDraft>) -> Result<Vec<PurchaseOrder>, RepoError> {
        if drafts.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |conn: &AsyncPgConnection| insert_drafts(conn, drafts).await)
            .await
            .map_err(tx_error)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(purchase_order_id = %id))]
    async fn get(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        load_one(&self.pool, By::Id(id)).await
    }

    #[tracing::instrument(level = "debug", skip_all, fields(po_number = %number))]
    async fn get_by_number(&self, number: &PurchaseOrderNumber) -> Result<PurchaseOrder, RepoError> {
        load_one(&self.pool, By::Number(number.to_string())).await
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &PurchaseOrderFilter, page: PageRequest) -> Result<Page<PurchaseOrder>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let filter = *filter;
        let (rows, total) = transaction(
            &mut conn,
            async |conn: &AsyncPgConnection| -> Result<(Vec<PurchaseOrder>, shared_kernel::Total), TxError> {
                // Each filter has its index: `purchase_orders_{status,supplier,location,list}_idx`.
                let query = || {
                    let mut query = purchase_orders::table.into_boxed();
                    if let Some(status) = filter.status {
                        query = query.filter(purchase_orders::status.eq(status.as_str()));
                    }
                    if let Some(id) = filter.supplier_id {
                        query = query.filter(purchase_orders::supplier_id.eq(id));
                    }
                    if let Some(id) = filter.location_id {
                        query = query.filter(purchase_orders::location_id.eq(id));
                    }
                    if let Some(from) = filter.date_from {
                        query = query.filter(purchase_orders::created_at.ge(from.midnight().assume_utc()));
                    }
                    // Inclusive: everything before the start of the next day.
                    if let Some(next) = filter.date_to.and_then(time::Date::next_day) {
                        query = query.filter(purchase_orders::created_at.lt(next.midnight().assume_utc()));
                    }
                    query
                };
                let (rows, total): (Vec<PurchaseOrderRow>, _) = counting::list_page!(
                    conn,
                    page,
                    query(),
                    query()
                        .order((purchase_orders::created_at.desc(), purchase_orders::id.desc()))
                        .offset(page.offset())
                        .limit(page.limit())
                        .select(PurchaseOrderRow::as_select())
                )
                .await?;
                let orders = with_lines(conn, rows).await.map_err(TxError::Refused)?;
                Ok((orders, total))
            },
        )
        .await
        .map_err(tx_error)?;
        Ok(Page::new(rows, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(purchase_order_id = %change.purchase_order.id))]
    async fn save(&self, change: &PurchaseOrderChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let po = &change.purchase_order;
        let stamp = Stamp { at: po.updated_at, by };
        handing_over(
            &self.pool,
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), TxError> {
                let updated = diesel::update(
                    purchase_orders::table.filter(
                        purchase_orders::id
                            .eq(po.id)
                            .and(purchase_orders::version.eq(change.expected_version))
                            .and(purchase_orders::status.eq(change.expected_status.as_str())),
                    ),
                )
                .set(PurchaseOrderRow::of(po.record()))
                .execute(&mut conn)
                .await?;
                if updated != 1 {
                    let exists: bool = diesel::select(diesel::dsl::exists(
                        purchase_orders::table.filter(purchase_orders::id.eq(po.id)),
                    ))
                    .get_result(&mut conn)
                    .await?;
                    let missed = if exists { StorageError::Stale } else { StorageError::NotFound };
                    return Err(TxError::Refused(RepoError::Storage(missed)));
                }
                if let Some(line) = &change.line {
                    write_line(conn, po, line).await?;
                }
                if !change.receipts.is_empty() {
                    receive_lines(conn, po.id, &change.receipts, po.updated_at).await?;
                    receive_stock(conn, &change.receipts, stamp).await?;
                }
                record_event(conn, &change.events).await?;
                Ok(())
            }),
        )
        .await
        .map_err(tx_error)
    }
}
