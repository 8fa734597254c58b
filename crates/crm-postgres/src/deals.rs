//! PostgreSQL adapter of `DealRepository`, with the pipeline statistics as SQL aggregates.

use postgres_toolkit::counting;
use postgres_toolkit::pipeline::{row_or_roll_back, transaction};
use postgres_toolkit::rendered::FirstRenderedOnce;
use std::collections::BTreeMap;

use async_trait::async_trait;
use crm_domain::{Deal, DealCreated, DealFilter, DealRepository, DealStage, RepoError, StageTransition, WonTotals};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::{try_join, try_join3};
use shared_kernel::{CurrencyCode, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::deal_rows::{insert_history, to_deals, DealRow, NewDealRow};
use super::errors::{corrupt, from_diesel, stale_or_missing};
use super::schema::deals;
use postgres_toolkit::events::record_event;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

const OPEN_STAGES: [&str; 4] = ["lead", "qualified", "proposal", "negotiation"];

#[derive(Clone)]
pub struct PgDealRepository {
    pool: DbPool,
}

impl PgDealRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

/// After a conditional update matched nothing: was the deal there (stale) or not (missing)?
async fn missed(conn: &mut AsyncPgConnection, id: Uuid) -> RepoError {
    let live = deals::table.filter(deals::id.eq(id).and(deals::deleted_at.is_null()));
    stale_or_missing(diesel::select(diesel::dsl::exists(live)).get_result(conn).await)
}

fn filtered(filter: &DealFilter) -> deals::BoxedQuery<'_, Pg> {
    let mut query = deals::table.filter(deals::deleted_at.is_null()).into_boxed();
    if let Some(stage) = filter.stage {
        query = query.filter(deals::stage.eq(stage.as_str()));
    }
    if let Some(customer) = filter.customer_id {
        query = query.filter(deals::customer_id.eq(customer));
    }
    if let Some(rep) = filter.assigned_to {
        query = query.filter(deals::assigned_to.eq(rep));
    }
    query
}

#[derive(QueryableByName)]
struct StageCount {
    #[diesel(sql_type = Text)]
    stage: String,
    #[diesel(sql_type = BigInt)]
    count: i64,
}

#[derive(QueryableByName)]
struct CurrencyTotal {
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    count: i64,
    #[diesel(sql_type = BigInt)]
    total: i64,
}

#[async_trait]
impl DealRepository for PgDealRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, created: &DealCreated) -> Result<Deal, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row =
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<DealRow, diesel::result::Error> {
                // The three go out together, in this order (the history row needs the deal's).
                let insert = Prepared(
                    diesel::insert_into(deals::table)
                        .values(NewDealRow::from(&created.deal))
                        .returning(DealRow::as_returning()),
                )
                .get_result(&mut conn);
                let history = insert_history(conn, created.deal.id, &created.history);
                let (row, (), ()) = try_join3(insert, history, record_event(conn, &created.events)).await?;
                Ok(row)
            })
            .await
            .map_err(from_diesel)?;
        // The events went to the outbox: the relay is woken (the handlers no longer do it).
        self.pool.wake_relay();
        Deal::try_from(row)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Deal>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row = deals::table
            .filter(deals::id.eq(id).and(deals::deleted_at.is_null()))
            .select(DealRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(Deal::try_from).transpose()
    }

    #[tracing::instrument(skip_all)]
    async fn list(&self, filter: &DealFilter, page: PageRequest) -> Result<Page<Deal>, RepoError> {
        let conn = connect(&self.pool).await?;
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            filtered(filter),
            filtered(filter)
                .order((deals::created_at.desc(), deals::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(DealRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(to_deals(rows)?, total, page))
    }

    #[tracing::instrument(skip_all)]
    async fn update_open(&self, deal: &Deal) -> Result<Deal, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row = Prepared(
            diesel::update(deals::table)
                .filter(deals::id.eq(deal.id).and(deals::deleted_at.is_null()))
                // Over the version it was read at (every field is written), and only while open.
                .filter(deals::version.eq(deal.version).and(deals::stage.eq_any(OPEN_STAGES)))
                .set((
                    deals::name.eq(&deal.name),
                    deals::expected_close_date.eq(deal.expected_close_date),
                    deals::value.eq(deal.value),
                    deals::currency.eq(deal.currency.as_str()),
                    deals::tags.eq(&deal.tags),
                    deals::updated_at.eq(deal.updated_at),
                ))
                .returning(DealRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        match row {
            Some(row) => Deal::try_from(row),
            None => Err(missed(&mut conn, deal.id).await),
        }
    }

    #[tracing::instrument(skip_all)]
    async fn save_stage_change(&self, transition: &StageTransition) -> Result<Deal, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let next = &transition.deal;
        let saved =
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<DealRow, diesel::result::Error> {
                // Sent with its history row and events; a missed compare-and-set rolls them back.
                let update = Prepared(
                    diesel::update(deals::table)
                        .filter(deals::id.eq(next.id).and(deals::deleted_at.is_null()))
                        .filter(deals::stage.eq(transition.from.as_str()))
                        .set((
                            deals::stage.eq(next.stage.as_str()),
                            deals::probability.eq(i16::from(next.probability)),
                            deals::actual_close_date.eq(next.actual_close_date),
                            deals::loss_reason.eq(next.loss_reason.as_deref()),
                            deals::updated_at.eq(next.updated_at),
                        ))
                        .returning(DealRow::as_returning()),
                )
                .get_result(&mut conn);
                let followers = try_join(
                    insert_history(conn, next.id, &transition.history),
                    record_event(conn, &transition.events),
                );
                row_or_roll_back(update, followers).await
            })
            .await;
        match saved {
            Ok(row) => {
                self.pool.wake_relay();
                Deal::try_from(row)
            }
            Err(diesel::result::Error::RollbackTransaction) => Err(missed(&mut conn, next.id).await),
            Err(error) => Err(from_diesel(error)),
        }
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let deleted = Prepared(
            diesel::update(deals::table)
                .filter(deals::id.eq(id).and(deals::deleted_at.is_null()))
                .set(deals::deleted_at.eq(at)),
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

    #[tracing::instrument(skip_all)]
    async fn pipeline_counts(&self) -> Result<Vec<(DealStage, i64)>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Deals of deleted customers are gone from statistics too (docs/customer-management.md).
        let rows: Vec<StageCount> = diesel::sql_query(
            "SELECT d.stage::text AS stage, count(*) AS count FROM deals d \
             JOIN customers c ON c.id = d.customer_id AND c.deleted_at IS NULL \
             WHERE d.deleted_at IS NULL GROUP BY d.stage",
        )
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let mut counts: Vec<(DealStage, i64)> = DealStage::ALL.iter().map(|s| (*s, 0)).collect();
        for row in rows {
            let stage = DealStage::parse(&row.stage).map_err(|_| corrupt("stage", &row.stage))?;
            if let Some(slot) = counts.iter_mut().find(|(s, _)| *s == stage) {
                slot.1 = row.count;
            }
        }
        Ok(counts)
    }

    #[tracing::instrument(skip_all)]
    async fn won_totals(&self) -> Result<WonTotals, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows: Vec<CurrencyTotal> = diesel::sql_query(
            "SELECT d.currency::text AS currency, count(*) AS count, least(sum(d.value), 9223372036854775807)::bigint AS total FROM deals d \
             JOIN customers c ON c.id = d.customer_id AND c.deleted_at IS NULL \
             WHERE d.stage = 'closed_won' AND d.deleted_at IS NULL GROUP BY d.currency",
        )
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let mut totals = WonTotals { count: 0, by_currency: BTreeMap::new() };
        for row in rows {
            let currency = CurrencyCode::parse(&row.currency).map_err(|_| corrupt("currency", &row.currency))?;
            totals.count += row.count;
            totals.by_currency.insert(currency, row.total);
        }
        Ok(totals)
    }
}
