//! PostgreSQL adapter of `CompanyRepository`.

use async_trait::async_trait;
use crm_domain::{Company, CompanyFilter, CompanyRepository, RepoError};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::{contains_pattern, from_diesel, stale_or_missing};
use super::schema::companies;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = companies)]
struct CompanyRow {
    id: Uuid,
    name: String,
    website: Option<String>,
    industry: Option<String>,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    deleted_at: Option<OffsetDateTime>,
    version: i64,
}

impl From<CompanyRow> for Company {
    fn from(r: CompanyRow) -> Self {
        Company {
            version: r.version,
            id: r.id,
            name: r.name,
            website: r.website,
            industry: r.industry,
            created_at: r.created_at,
            updated_at: r.updated_at,
            deleted_at: r.deleted_at,
        }
    }
}

impl From<&Company> for CompanyRow {
    fn from(c: &Company) -> Self {
        CompanyRow {
            version: c.version,
            id: c.id,
            name: c.name.clone(),
            website: c.website.clone(),
            industry: c.industry.clone(),
            created_at: c.created_at,
            updated_at: c.updated_at,
            deleted_at: c.deleted_at,
        }
    }
}

/// After a conditional update matched nothing: was the company there (stale) or not (missing)?
async fn missed(conn: &mut AsyncPgConnection, id: Uuid) -> RepoError {
    let live = companies::table.filter(companies::id.eq(id).and(companies::deleted_at.is_null()));
    stale_or_missing(diesel::select(diesel::dsl::exists(live)).get_result(conn).await)
}

#[derive(Clone)]
pub struct PgCompanyRepository {
    pool: DbPool,
}

impl PgCompanyRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn filtered(filter: &CompanyFilter) -> companies::BoxedQuery<'_, Pg> {
    let mut query = companies::table.filter(companies::deleted_at.is_null()).into_boxed();
    if let Some(search) = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        query = query.filter(companies::name.ilike(contains_pattern(search)));
    }
    query
}

#[async_trait]
impl CompanyRepository for PgCompanyRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, company: &Company) -> Result<Company, RepoError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(
            diesel::insert_into(companies::table)
                .values(CompanyRow::from(company))
                .returning(CompanyRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(Company::from)
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Company>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        companies::table
            .filter(companies::id.eq(id).and(companies::deleted_at.is_null()))
            .select(CompanyRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .optional()
            .map(|row| row.map(Company::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn exists(&self, id: Uuid) -> Result<bool, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let live = companies::table.filter(companies::id.eq(id).and(companies::deleted_at.is_null()));
        diesel::select(diesel::dsl::exists(live)).get_result(&mut conn).await.map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn list(&self, filter: &CompanyFilter, page: PageRequest) -> Result<Page<Company>, RepoError> {
        let conn = connect(&self.pool).await?;
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            filtered(filter),
            filtered(filter)
                .order((companies::created_at.desc(), companies::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(CompanyRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(rows.into_iter().map(Company::from).collect(), total, page))
    }

    #[tracing::instrument(skip_all)]
    async fn update(&self, company: &Company) -> Result<Company, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Written only over the version it was read at: every field is written, so a change made
        // meanwhile would otherwise be undone.
        let row = Prepared(
            diesel::update(companies::table)
                .filter(companies::id.eq(company.id).and(companies::deleted_at.is_null()))
                .filter(companies::version.eq(company.version))
                .set((
                    companies::name.eq(&company.name),
                    companies::website.eq(company.website.as_deref()),
                    companies::industry.eq(company.industry.as_deref()),
                    companies::updated_at.eq(company.updated_at),
                ))
                .returning(CompanyRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        match row {
            Some(row) => Ok(Company::from(row)),
            None => Err(missed(&mut conn, company.id).await),
        }
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let deleted = Prepared(
            diesel::update(companies::table)
                .filter(companies::id.eq(id).and(companies::deleted_at.is_null()))
                .set(companies::deleted_at.eq(at)),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if deleted == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }
}
