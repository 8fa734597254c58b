//! `SupplierRepository` on PostgreSQL (docs/purchasing-and-transfers.md). A delete is refused while
//! the supplier has open purchase orders, decided under the supplier row's lock: creating a
//! purchase order locks the same row `FOR SHARE` (`purchase_orders.rs`), so the two never pass
//! each other.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::purchasing::{Supplier, SupplierFilter, SupplierRepository};
use warehouse_domain::{RepoError, WarehouseError};

use super::errors::{contains_pattern, from_diesel, tx_error, TxError};
use super::purchasing_rows::SupplierRow;
use super::schema::suppliers;
use super::sql::lower_opt;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Clone)]
pub struct PgSupplierRepository {
    pool: DbPool,
}

impl PgSupplierRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn live() -> diesel::dsl::IsNull<suppliers::deleted_at> {
    suppliers::deleted_at.is_null()
}

async fn exists(mut conn: &AsyncPgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(suppliers::table.filter(suppliers::id.eq(id).and(live()))))
        .get_result(&mut conn)
        .await
}

/// Takes the live supplier's row lock; `false` when there is none.
const LOCK: &str = "SELECT id FROM suppliers WHERE id = $1 AND deleted_at IS NULL FOR UPDATE";

/// Run after [`LOCK`], as a statement of its own, so its snapshot sees every purchase order
/// committed while the lock was awaited.
const DELETE_UNLESS_OPEN: &str = "UPDATE suppliers SET deleted_at = $2, updated_at = $2 \
     WHERE id = $1 AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM purchase_orders \
       WHERE supplier_id = $1 AND status IN ('draft', 'ordered', 'partially_received'))";

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = SqlUuid)]
    #[allow(dead_code)]
    id: Uuid,
}

#[async_trait]
impl SupplierRepository for PgSupplierRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(supplier_id = %supplier.id))]
    async fn create(&self, supplier: &Supplier) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        diesel::insert_into(suppliers::table)
            .values(SupplierRow::of(supplier.record()))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", skip_all, fields(supplier_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Supplier, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row: SupplierRow = suppliers::table
            .filter(suppliers::id.eq(id).and(live()))
            .select(SupplierRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        row.into_supplier()
    }

    #[tracing::instrument(level = "debug", skip_all, fields(count = ids.len()))]
    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Supplier>, RepoError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let conn = connect_shared(&self.pool).await?;
        let rows: Vec<SupplierRow> = suppliers::table
            .filter(suppliers::id.eq_any(ids).and(live()))
            .select(SupplierRow::as_select())
            .load(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(SupplierRow::into_supplier).collect()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &SupplierFilter, page: PageRequest) -> Result<Page<Supplier>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = suppliers::table.filter(live()).into_boxed();
            if let Some(active) = filter.is_active {
                query = query.filter(suppliers::is_active.eq(active));
            }
            if let Some(search) = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                // `suppliers_name_trgm_idx`, `suppliers_email_trgm_idx`.
                let pattern = contains_pattern(search);
                query = query.filter(
                    lower_opt(suppliers::name.nullable())
                        .like(pattern.clone())
                        .or(lower_opt(suppliers::email).like(pattern)),
                );
            }
            query
        };
        let (rows, total): (Vec<SupplierRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((suppliers::created_at.desc(), suppliers::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(SupplierRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        let items = rows.into_iter().map(SupplierRow::into_supplier).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::new(items, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(supplier_id = %supplier.id))]
    async fn update(&self, supplier: &Supplier, expected_version: i64) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Not kept prepared: one text whatever changed, but the row is small and edits are rare.
        let updated = diesel::update(suppliers::table)
            .filter(suppliers::id.eq(supplier.id).and(live()).and(suppliers::version.eq(expected_version)))
            .set(SupplierRow::of(supplier.record()))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        match exists(&conn, supplier.id).await.map_err(from_diesel)? {
            true => Err(RepoError::Storage(StorageError::Stale)),
            false => Err(RepoError::Storage(StorageError::NotFound)),
        }
    }

    #[tracing::instrument(level = "debug", skip_all, fields(supplier_id = %id))]
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), TxError> {
            let locked: Vec<Locked> = diesel::sql_query(LOCK).bind::<SqlUuid, _>(id).load(&mut conn).await?;
            if locked.is_empty() {
                return Err(TxError::Refused(RepoError::Storage(StorageError::NotFound)));
            }
            let deleted = diesel::sql_query(DELETE_UNLESS_OPEN)
                .bind::<SqlUuid, _>(id)
                .bind::<Timestamptz, _>(now)
                .execute(&mut conn)
                .await?;
            if deleted == 1 {
                Ok(())
            } else {
                Err(TxError::Refused(RepoError::Refused(WarehouseError::SupplierHasOpenOrders)))
            }
        })
        .await
        .map_err(tx_error)
    }
}
