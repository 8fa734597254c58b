//! `StockMovementRepository` on PostgreSQL: read-only (movements are written only by the ledger,
//! with their quantity change; a trigger refuses UPDATE and DELETE).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use postgres_toolkit::counting;
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;
use warehouse_domain::{MovementFilter, RecentLimit, RepoError, StockMovement, StockMovementRepository};

use super::errors::from_diesel;
use super::rows::MovementRow;
use super::schema::stock_movements;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

#[derive(Clone)]
pub struct PgStockMovementRepository {
    pool: DbPool,
}

impl PgStockMovementRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn into_movements(rows: Vec<MovementRow>) -> Result<Vec<StockMovement>, RepoError> {
    rows.into_iter().map(MovementRow::into_movement).collect()
}

#[async_trait]
impl StockMovementRepository for PgStockMovementRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(movement_id = %id))]
    async fn get(&self, id: Uuid) -> Result<StockMovement, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: MovementRow = stock_movements::table
            .find(id)
            .select(MovementRow::as_select())
            .first(&mut conn)
            .await
            .map_err(from_diesel)?;
        row.into_movement()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &MovementFilter, page: PageRequest) -> Result<Page<StockMovement>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = stock_movements::table.into_boxed();
            if let Some(kind) = filter.movement_type {
                query = query.filter(stock_movements::movement_type.eq(kind.as_str()));
            }
            if let Some(id) = filter.inventory_id {
                query = query.filter(stock_movements::inventory_id.eq(id));
            }
            if let Some(id) = filter.product_id {
                query = query.filter(stock_movements::product_id.eq(id));
            }
            if let Some(id) = filter.location_id {
                query = query.filter(stock_movements::location_id.eq(id));
            }
            if let Some(id) = filter.reference_id {
                query = query.filter(stock_movements::reference_id.eq(id));
            }
            if let Some(from) = filter.date_from {
                query = query.filter(stock_movements::created_at.ge(from.midnight().assume_utc()));
            }
            // Inclusive: everything before the start of the next day.
            if let Some(next) = filter.date_to.and_then(time::Date::next_day) {
                query = query.filter(stock_movements::created_at.lt(next.midnight().assume_utc()));
            }
            query
        };
        let (rows, total): (Vec<MovementRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((stock_movements::created_at.desc(), stock_movements::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(MovementRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(into_movements(rows)?, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn recent(&self, limit: RecentLimit) -> Result<Vec<StockMovement>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows: Vec<MovementRow> = stock_movements::table
            .order((stock_movements::created_at.desc(), stock_movements::id.desc()))
            .limit(i64::from(limit.get()))
            .select(MovementRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        into_movements(rows)
    }
}
