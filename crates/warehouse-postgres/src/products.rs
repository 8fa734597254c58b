//! `ProductRepository` on PostgreSQL. SKUs are unique case-insensitively among live rows
//! (`products_sku_key` on `lower(sku)`), so a duplicate is refused by the insert itself.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use postgres_toolkit::counting;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::{Product, ProductFilter, ProductRepository, ProductSort, ProductStatus, RepoError};

use super::errors::{contains_pattern, from_diesel};
use super::rows::ProductRow;
use super::schema::products;
use super::sql::{lower, lower_opt};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;
use shared_kernel::StorageError;

#[derive(Clone)]
pub struct PgProductRepository {
    pool: DbPool,
}

impl PgProductRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn live() -> diesel::dsl::IsNull<products::deleted_at> {
    products::deleted_at.is_null()
}

/// After a conditional write matched nothing: the product changed meanwhile (`Stale`) or is gone.
async fn missed(conn: &mut diesel_async::AsyncPgConnection, id: Uuid) -> RepoError {
    let exists = diesel::select(diesel::dsl::exists(products::table.filter(products::id.eq(id).and(live()))))
        .get_result::<bool>(conn)
        .await;
    match exists {
        Ok(true) => RepoError::Storage(StorageError::Stale),
        Ok(false) => RepoError::Storage(StorageError::NotFound),
        Err(error) => from_diesel(error),
    }
}

#[async_trait]
impl ProductRepository for PgProductRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %product.id))]
    async fn create(&self, product: &Product) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Not kept prepared (`postgres_toolkit::prepared`): its text varies with the optional fields given.
        diesel::insert_into(products::table)
            .values(ProductRow::of(product.record()))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Product, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row: ProductRow = products::table
            .filter(products::id.eq(id).and(live()))
            .select(ProductRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        row.into_product()
    }

    #[tracing::instrument(level = "debug", skip_all, fields(count = ids.len()))]
    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Product>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows: Vec<ProductRow> = products::table
            .filter(products::id.eq_any(ids).and(live()))
            .select(ProductRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(ProductRow::into_product).collect()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn get_by_sku(&self, sku: &str) -> Result<Product, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: ProductRow = products::table
            .filter(lower(products::sku).eq(lower(sku.trim())).and(live()))
            .select(ProductRow::as_select())
            .first(&mut conn)
            .await
            .map_err(from_diesel)?;
        row.into_product()
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn list(&self, filter: &ProductFilter, page: PageRequest) -> Result<Page<Product>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = products::table.filter(live()).into_boxed();
            if let Some(status) = filter.status {
                query = query.filter(products::status.eq(status.as_str()));
            }
            if let Some(category) = filter.category.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                query = query.filter(lower_opt(products::category).eq(category.to_lowercase()));
            }
            if let Some(brand) = filter.brand.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
                query = query.filter(lower_opt(products::brand).eq(brand.to_lowercase()));
            }
            if let Some(search) = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                let pattern = contains_pattern(search);
                query =
                    query.filter(lower(products::sku).like(pattern.clone()).or(lower(products::name).like(pattern)));
            }
            query
        };
        let sorted = match filter.sort {
            ProductSort::NewestFirst => query().order((products::created_at.desc(), products::id.desc())),
            ProductSort::OldestFirst => query().order((products::created_at.asc(), products::id.asc())),
            ProductSort::NameAsc => query().order((products::name.asc(), products::id.asc())),
            ProductSort::NameDesc => query().order((products::name.desc(), products::id.desc())),
            ProductSort::SkuAsc => query().order((products::sku.asc(), products::id.asc())),
            ProductSort::SkuDesc => query().order((products::sku.desc(), products::id.desc())),
            ProductSort::PriceAsc => query().order((products::price.asc().nulls_last(), products::id.asc())),
            ProductSort::PriceDesc => query().order((products::price.desc().nulls_last(), products::id.desc())),
        };
        let (rows, total): (Vec<ProductRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            sorted.offset(page.offset()).limit(page.limit()).select(ProductRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        let items = rows.into_iter().map(ProductRow::into_product).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::new(items, total, page))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %product.id))]
    async fn update(&self, product: &Product) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Written only over the version it was read at (the aggregate carries read + 1).
        let updated = Prepared(
            diesel::update(products::table)
                .filter(products::id.eq(product.id).and(live()).and(products::version.eq(product.version - 1)))
                .set(ProductRow::of(product.record())),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        Err(missed(&mut conn, product.id).await)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %product.id))]
    async fn change_status(&self, product: &Product, expected: ProductStatus) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(products::table)
                .filter(products::id.eq(product.id).and(live()).and(products::status.eq(expected.as_str())))
                .filter(products::version.eq(product.version - 1))
                .set((products::status.eq(product.status.as_str()), products::updated_at.eq(product.updated_at))),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        Err(missed(&mut conn, product.id).await)
    }

    #[tracing::instrument(level = "debug", skip_all, fields(product_id = %id))]
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(products::table)
                .filter(products::id.eq(id).and(live()))
                .set((products::deleted_at.eq(now), products::updated_at.eq(now))),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            Ok(())
        } else {
            Err(RepoError::Storage(StorageError::NotFound))
        }
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn categories(&self) -> Result<Vec<String>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        products::table
            .filter(live().and(products::category.is_not_null()))
            .select(products::category.assume_not_null())
            .distinct()
            .order(products::category.assume_not_null().asc())
            .load(&mut conn)
            .await
            .map_err(from_diesel)
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn brands(&self) -> Result<Vec<String>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        products::table
            .filter(live().and(products::brand.is_not_null()))
            .select(products::brand.assume_not_null())
            .distinct()
            .order(products::brand.assume_not_null().asc())
            .load(&mut conn)
            .await
            .map_err(from_diesel)
    }
}
