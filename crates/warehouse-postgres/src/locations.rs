//! `LocationRepository` on PostgreSQL. Codes are unique case-insensitively among live rows.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use postgres_toolkit::counting;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{Location, LocationFilter, LocationRepository, RepoError, WarehouseError};

use super::errors::{contains_pattern, from_diesel};
use super::rows::LocationRow;
use super::schema::locations;
use super::sql::lower;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;
use shared_kernel::StorageError;

#[derive(Clone)]
pub struct PgLocationRepository {
    pool: DbPool,
}

impl PgLocationRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn live() -> diesel::dsl::IsNull<locations::deleted_at> {
    locations::deleted_at.is_null()
}

#[derive(QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    total: i64,
}

async fn exists(conn: &mut diesel_async::AsyncPgConnection, id: Uuid) -> Result<bool, RepoError> {
    diesel::select(diesel::dsl::exists(locations::table.filter(locations::id.eq(id).and(live()))))
        .get_result(conn)
        .await
        .map_err(from_diesel)
}

/// After a conditional write matched nothing: the location changed meanwhile (`Stale`) or is gone.
async fn missed(conn: &mut diesel_async::AsyncPgConnection, id: Uuid) -> RepoError {
    match exists(conn, id).await {
        Ok(true) => RepoError::Storage(StorageError::Stale),
        Ok(false) => RepoError::Storage(StorageError::NotFound),
        Err(error) => error,
    }
}

#[async_trait]
impl LocationRepository for PgLocationRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %location.id))]
    async fn create(&self, location: &Location) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(diesel::insert_into(locations::table).values(LocationRow::of(location.record())))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Location, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row: LocationRow = locations::table
            .filter(locations::id.eq(id).and(live()))
            .select(LocationRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        row.into_location()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn get_by_code(&self, code: &str) -> Result<Location, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: LocationRow = locations::table
            .filter(lower(locations::code).eq(lower(code.trim())).and(live()))
            .select(LocationRow::as_select())
            .first(&mut conn)
            .await
            .map_err(from_diesel)?;
        row.into_location()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &LocationFilter, page: PageRequest) -> Result<Page<Location>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = locations::table.filter(live()).into_boxed();
            if let Some(location_type) = filter.location_type {
                query = query.filter(locations::location_type.eq(location_type.as_str()));
            }
            if let Some(country) = filter.country {
                query = query.filter(locations::country.eq(country.as_str().to_owned()));
            }
            if let Some(active) = filter.is_active {
                query = query.filter(locations::is_active.eq(active));
            }
            if let Some(search) = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                let pattern = contains_pattern(search);
                query =
                    query.filter(lower(locations::code).like(pattern.clone()).or(lower(locations::name).like(pattern)));
            }
            query
        };
        let (rows, total): (Vec<LocationRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((locations::created_at.desc(), locations::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(LocationRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        let items = rows.into_iter().map(LocationRow::into_location).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::new(items, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %location.id))]
    async fn update(&self, location: &Location) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Written only over the version it was read at (the aggregate carries read + 1).
        let updated = Prepared(
            diesel::update(locations::table)
                .filter(locations::id.eq(location.id).and(live()).and(locations::version.eq(location.version - 1)))
                .set(LocationRow::of(location.record())),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        Err(missed(&mut conn, location.id).await)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %location.id))]
    async fn change_active(&self, location: &Location, expected: bool) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(locations::table)
                .filter(locations::id.eq(location.id).and(live()).and(locations::is_active.eq(expected)))
                .filter(locations::version.eq(location.version - 1))
                .set((locations::is_active.eq(location.is_active), locations::updated_at.eq(location.updated_at))),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        Err(missed(&mut conn, location.id).await)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %id))]
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // One conditional statement: no live record at the location may hold stock.
        let updated = diesel::sql_query(
            "UPDATE locations SET deleted_at = $2, updated_at = $2 \
             WHERE id = $1 AND deleted_at IS NULL AND NOT EXISTS (\
               SELECT 1 FROM inventory WHERE location_id = $1 AND deleted_at IS NULL AND quantity_on_hand > 0)",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<diesel::sql_types::Timestamptz, _>(now)
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        Err(if exists(&mut conn, id).await? {
            RepoError::Refused(WarehouseError::LocationHasStock)
        } else {
            RepoError::Storage(StorageError::NotFound)
        })
    }

    #[tracing::instrument(level = "debug", skip_all, fields(location_id = %id))]
    async fn quantity_on_hand(&self, id: Uuid) -> Result<i64, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: Total = diesel::sql_query(
            "SELECT least(coalesce(sum(quantity_on_hand), 0), 9223372036854775807)::bigint AS total FROM inventory \
             WHERE location_id = $1 AND deleted_at IS NULL",
        )
        .bind::<SqlUuid, _>(id)
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(row.total)
    }
}
