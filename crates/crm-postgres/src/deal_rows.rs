//! Deal rows: loading, inserting and the stage history.

use crm_domain::{Deal, DealSource, DealStage, RepoError, StageChange};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shared_kernel::CurrencyCode;
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use super::errors::corrupt;
use super::schema::{deal_stage_history, deals};
use postgres_toolkit::prepared::Prepared;

#[derive(Queryable, Selectable)]
#[diesel(table_name = deals)]
pub(crate) struct DealRow {
    id: Uuid,
    customer_id: Uuid,
    assigned_to: Uuid,
    name: String,
    value: i64,
    currency: String,
    stage: String,
    probability: i16,
    source: String,
    expected_close_date: Date,
    actual_close_date: Option<Date>,
    loss_reason: Option<String>,
    tags: Vec<String>,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    deleted_at: Option<OffsetDateTime>,
    version: i64,
}

impl TryFrom<DealRow> for Deal {
    type Error = RepoError;

    fn try_from(r: DealRow) -> Result<Self, RepoError> {
        Ok(Deal {
            version: r.version,
            currency: CurrencyCode::parse(&r.currency).map_err(|_| corrupt("currency", &r.currency))?,
            stage: DealStage::parse(&r.stage).map_err(|_| corrupt("stage", &r.stage))?,
            source: DealSource::parse(&r.source).map_err(|_| corrupt("source", &r.source))?,
            probability: u8::try_from(r.probability).map_err(|_| corrupt("probability", &r.probability.to_string()))?,
            id: r.id,
            customer_id: r.customer_id,
            assigned_to: r.assigned_to,
            name: r.name,
            value: r.value,
            expected_close_date: r.expected_close_date,
            actual_close_date: r.actual_close_date,
            loss_reason: r.loss_reason,
            tags: r.tags,
            created_at: r.created_at,
            updated_at: r.updated_at,
            deleted_at: r.deleted_at,
        })
    }
}

pub(crate) fn to_deals(rows: Vec<DealRow>) -> Result<Vec<Deal>, RepoError> {
    rows.into_iter().map(Deal::try_from).collect()
}

#[derive(Insertable)]
#[diesel(table_name = deals)]
pub(crate) struct NewDealRow<'a> {
    id: Uuid,
    customer_id: Uuid,
    assigned_to: Uuid,
    name: &'a str,
    value: i64,
    currency: &'a str,
    stage: &'a str,
    probability: i16,
    source: &'a str,
    expected_close_date: Date,
    tags: &'a [String],
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
}

impl<'a> From<&'a Deal> for NewDealRow<'a> {
    fn from(d: &'a Deal) -> Self {
        NewDealRow {
            id: d.id,
            customer_id: d.customer_id,
            assigned_to: d.assigned_to,
            name: &d.name,
            value: d.value,
            currency: d.currency.as_str(),
            stage: d.stage.as_str(),
            probability: i16::from(d.probability),
            source: d.source.as_str(),
            expected_close_date: d.expected_close_date,
            tags: &d.tags,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

pub(crate) async fn insert_history(
    mut conn: &AsyncPgConnection,
    deal_id: Uuid,
    change: &StageChange,
) -> QueryResult<()> {
    Prepared(diesel::insert_into(deal_stage_history::table).values((
        deal_stage_history::deal_id.eq(deal_id),
        deal_stage_history::from_stage.eq(change.from.map(DealStage::as_str)),
        deal_stage_history::to_stage.eq(change.to.as_str()),
        deal_stage_history::changed_at.eq(change.at),
    )))
    .execute(&mut conn)
    .await?;
    Ok(())
}
