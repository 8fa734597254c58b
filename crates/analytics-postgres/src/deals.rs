//! Deal figures: the pipeline by stage, and stage-to-stage conversions from the stage history.

use crm_domain::DealStage;
use diesel::sql_types::{BigInt, Text};
use diesel::QueryableByName;

use super::{average_cents, load_row, load_rows, percent, ratio};
use postgres_toolkit::{DbError, DbPool};

/// Count (every currency) and value (reporting currency only) of the deals in one stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StageFigures {
    pub count: i64,
    pub value_cents: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub total_deals: i64,
    pub total_value_cents: i64,
    /// Over the deals in the reporting currency, the only ones with a value to average.
    pub avg_deal_value_cents: i64,
    /// Every stage, in pipeline order.
    pub by_stage: Vec<(DealStage, StageFigures)>,
    /// won / (won + lost) × 100.
    pub win_rate: f64,
    /// Mean of `actual_close_date - created_at` (UTC dates) over closed deals, won or lost.
    pub avg_days_to_close: f64,
}

impl Pipeline {
    pub fn stage(&self, stage: DealStage) -> StageFigures {
        self.by_stage.iter().find(|(s, _)| *s == stage).map(|(_, f)| *f).unwrap_or_default()
    }

    /// Deals not yet won or lost.
    pub fn open_deals(&self) -> i64 {
        self.by_stage.iter().filter(|(s, _)| !s.is_closed()).map(|(_, f)| f.count).sum()
    }
}

#[derive(QueryableByName)]
struct StageRow {
    #[diesel(sql_type = Text)]
    stage: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    deals: i64,
    #[diesel(sql_type = BigInt)]
    cents: i64,
    #[diesel(sql_type = BigInt)]
    close_days: i64,
}

/// Live deals by (stage, currency) from `deals_stage_analytics_idx`, minus the live deals of deleted
/// customers (a few index look-ups): one row per stage and currency. The value sum is exact (numeric)
/// and clamped to the bigint range, so huge stored values cannot make the statement fail.
const PIPELINE_SQL: &str = "\
SELECT t.stage::text AS stage, t.currency::text AS currency, sum(t.deals)::bigint AS deals,
       least(coalesce(sum(t.cents), 0), 9223372036854775807)::bigint AS cents, coalesce(sum(t.close_days), 0)::bigint AS close_days
FROM (
    SELECT d.stage, d.currency, count(*) AS deals, sum(d.value) AS cents,
           sum(d.actual_close_date - (d.created_at AT TIME ZONE 'UTC')::date) AS close_days
    FROM deals d WHERE d.deleted_at IS NULL
    GROUP BY d.stage, d.currency
    UNION ALL
    SELECT d.stage, d.currency, -count(*), -sum(d.value),
           -sum(d.actual_close_date - (d.created_at AT TIME ZONE 'UTC')::date)
    FROM customers gone
    CROSS JOIN LATERAL (SELECT d.stage, d.currency, d.value, d.created_at, d.actual_close_date FROM deals d
                        WHERE d.customer_id = gone.id AND d.deleted_at IS NULL OFFSET 0) AS d
    WHERE gone.deleted_at IS NOT NULL
    GROUP BY d.stage, d.currency
) AS t
GROUP BY t.stage, t.currency";

pub async fn pipeline(pool: &DbPool, currency: &str) -> Result<Pipeline, DbError> {
    let rows: Vec<StageRow> = load_rows(pool, diesel::sql_query(PIPELINE_SQL).into_boxed()).await?;
    let mut by_stage: Vec<(DealStage, StageFigures)> =
        DealStage::ALL.iter().map(|s| (*s, StageFigures::default())).collect();
    let (mut priced, mut close_days) = (0, 0);
    // Sums of stored amounts saturate at i64::MAX (the SQL clamps each one too): a figure that big
    // is reported as the largest one the wire can carry, never as a wrapped or failed request.
    for row in rows {
        close_days = i64::saturating_add(close_days, row.close_days);
        let in_currency = row.currency == currency;
        if in_currency {
            priced += row.deals;
        }
        if let Some((_, figures)) = by_stage.iter_mut().find(|(s, _)| s.as_str() == row.stage) {
            figures.count += row.deals;
            if in_currency {
                figures.value_cents = figures.value_cents.saturating_add(row.cents);
            }
        }
    }
    let count_of = |stage: DealStage| by_stage.iter().find(|(s, _)| *s == stage).map_or(0, |(_, f)| f.count);
    let (won, lost) = (count_of(DealStage::ClosedWon), count_of(DealStage::ClosedLost));
    let total_value_cents = by_stage.iter().fold(0_i64, |sum, (_, f)| sum.saturating_add(f.value_cents));
    Ok(Pipeline {
        total_deals: by_stage.iter().map(|(_, f)| f.count).sum(),
        total_value_cents,
        avg_deal_value_cents: average_cents(total_value_cents, priced),
        win_rate: percent(won, won + lost),
        avg_days_to_close: ratio(close_days as f64, won + lost),
        by_stage,
    })
}

/// Of the deals that ever reached a stage, the share that later reached the next one or any stage
/// after it (`closed_lost` is never "after"; `negotiation_to_closed` counts `closed_won` only).
#[derive(Debug, Clone, PartialEq)]
pub struct Conversions {
    pub lead_to_qualified: f64,
    pub qualified_to_proposal: f64,
    pub proposal_to_negotiation: f64,
    pub negotiation_to_closed: f64,
}

#[derive(QueryableByName)]
struct ConversionRow {
    #[diesel(sql_type = BigInt)]
    reached_lead: i64,
    #[diesel(sql_type = BigInt)]
    reached_qualified: i64,
    #[diesel(sql_type = BigInt)]
    reached_proposal: i64,
    #[diesel(sql_type = BigInt)]
    reached_negotiation: i64,
    #[diesel(sql_type = BigInt)]
    lead_to_qualified: i64,
    #[diesel(sql_type = BigInt)]
    qualified_to_proposal: i64,
    #[diesel(sql_type = BigInt)]
    proposal_to_negotiation: i64,
    #[diesel(sql_type = BigInt)]
    negotiation_to_won: i64,
}

/// A deal whose history only moves forward (each move to a later stage, `closed_*` last) reaches each
/// stage at most once, and converts from a stage exactly when it leaves it for anything but
/// `closed_lost`. So for those deals every figure is a count of history rows by (to_stage, from_stage):
/// one pass over `deal_stage_history_moves_idx`, no per-deal grouping. The other deals are corrected
/// one by one (one index look-up each): deleted deals and deals of deleted customers (`gone`) take their
/// rows back out, and deals that moved backwards or out of a closed stage (`tangled`, found through a tiny
/// partial index) also add their exact figures: first time at a stage versus last time at the next stage
/// or beyond. This relies on the history being a chain (each row's from_stage is the previous row's
/// to_stage), which is how the CRM writes it.
const CONVERSIONS_SQL: &str = "\
WITH gone AS (
    SELECT d.id FROM deals d WHERE d.deleted_at IS NOT NULL
    UNION ALL
    SELECT d.id FROM customers c JOIN deals d ON d.customer_id = c.id AND d.deleted_at IS NULL
    WHERE c.deleted_at IS NOT NULL
),
tangled AS (
    SELECT DISTINCT h.deal_id FROM deal_stage_history h
    WHERE h.from_stage IS NOT NULL
      AND (CASE h.to_stage WHEN 'lead' THEN 0 WHEN 'qualified' THEN 1 WHEN 'proposal' THEN 2 WHEN 'negotiation' THEN 3 ELSE 4 END)
       <= (CASE h.from_stage WHEN 'lead' THEN 0 WHEN 'qualified' THEN 1 WHEN 'proposal' THEN 2 WHEN 'negotiation' THEN 3 ELSE 4 END)
      AND NOT EXISTS (SELECT 1 FROM gone g WHERE g.id = h.deal_id)
),
moves AS (
    SELECT h.to_stage, h.from_stage, count(*) AS n FROM deal_stage_history h GROUP BY h.to_stage, h.from_stage
),
forward AS (
    SELECT coalesce(sum(n) FILTER (WHERE to_stage = 'lead'), 0) AS reached_lead,
           coalesce(sum(n) FILTER (WHERE to_stage = 'qualified'), 0) AS reached_qualified,
           coalesce(sum(n) FILTER (WHERE to_stage = 'proposal'), 0) AS reached_proposal,
           coalesce(sum(n) FILTER (WHERE to_stage = 'negotiation'), 0) AS reached_negotiation,
           coalesce(sum(n) FILTER (WHERE from_stage = 'lead' AND to_stage <> 'closed_lost'), 0) AS lead_on,
           coalesce(sum(n) FILTER (WHERE from_stage = 'qualified' AND to_stage <> 'closed_lost'), 0) AS qualified_on,
           coalesce(sum(n) FILTER (WHERE from_stage = 'proposal' AND to_stage <> 'closed_lost'), 0) AS proposal_on,
           coalesce(sum(n) FILTER (WHERE from_stage = 'negotiation' AND to_stage = 'closed_won'), 0) AS negotiation_on
    FROM moves
),
per_deal AS (
    SELECT s.exact, x.* FROM (SELECT id, false AS exact FROM gone UNION ALL SELECT deal_id, true FROM tangled) AS s
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE h.to_stage = 'lead') AS rows_lead,
               count(*) FILTER (WHERE h.to_stage = 'qualified') AS rows_qualified,
               count(*) FILTER (WHERE h.to_stage = 'proposal') AS rows_proposal,
               count(*) FILTER (WHERE h.to_stage = 'negotiation') AS rows_negotiation,
               count(*) FILTER (WHERE h.from_stage = 'lead' AND h.to_stage <> 'closed_lost') AS rows_lead_on,
               count(*) FILTER (WHERE h.from_stage = 'qualified' AND h.to_stage <> 'closed_lost') AS rows_qualified_on,
               count(*) FILTER (WHERE h.from_stage = 'proposal' AND h.to_stage <> 'closed_lost') AS rows_proposal_on,
               count(*) FILTER (WHERE h.from_stage = 'negotiation' AND h.to_stage = 'closed_won') AS rows_negotiation_on,
               min(h.changed_at) FILTER (WHERE h.to_stage = 'lead') AS lead_at,
               min(h.changed_at) FILTER (WHERE h.to_stage = 'qualified') AS qualified_at,
               min(h.changed_at) FILTER (WHERE h.to_stage = 'proposal') AS proposal_at,
               min(h.changed_at) FILTER (WHERE h.to_stage = 'negotiation') AS negotiation_at,
               max(h.changed_at) FILTER (WHERE h.to_stage IN ('qualified', 'proposal', 'negotiation', 'closed_won'))
                   AS qualified_on_at,
               max(h.changed_at) FILTER (WHERE h.to_stage IN ('proposal', 'negotiation', 'closed_won')) AS proposal_on_at,
               max(h.changed_at) FILTER (WHERE h.to_stage IN ('negotiation', 'closed_won')) AS negotiation_on_at,
               max(h.changed_at) FILTER (WHERE h.to_stage = 'closed_won') AS won_at
        FROM deal_stage_history h WHERE h.deal_id = s.id
    ) AS x
),
corrections AS (
    SELECT count(*) FILTER (WHERE exact AND lead_at IS NOT NULL) - coalesce(sum(rows_lead), 0) AS reached_lead,
           count(*) FILTER (WHERE exact AND qualified_at IS NOT NULL) - coalesce(sum(rows_qualified), 0)
               AS reached_qualified,
           count(*) FILTER (WHERE exact AND proposal_at IS NOT NULL) - coalesce(sum(rows_proposal), 0)
               AS reached_proposal,
           count(*) FILTER (WHERE exact AND negotiation_at IS NOT NULL) - coalesce(sum(rows_negotiation), 0)
               AS reached_negotiation,
           count(*) FILTER (WHERE exact AND qualified_on_at >= lead_at) - coalesce(sum(rows_lead_on), 0) AS lead_on,
           count(*) FILTER (WHERE exact AND proposal_on_at >= qualified_at) - coalesce(sum(rows_qualified_on), 0)
               AS qualified_on,
           count(*) FILTER (WHERE exact AND negotiation_on_at >= proposal_at) - coalesce(sum(rows_proposal_on), 0)
               AS proposal_on,
           count(*) FILTER (WHERE exact AND won_at >= negotiation_at) - coalesce(sum(rows_negotiation_on), 0)
               AS negotiation_on
    FROM per_deal
)
SELECT (f.reached_lead + c.reached_lead)::bigint AS reached_lead,
       (f.reached_qualified + c.reached_qualified)::bigint AS reached_qualified,
       (f.reached_proposal + c.reached_proposal)::bigint AS reached_proposal,
       (f.reached_negotiation + c.reached_negotiation)::bigint AS reached_negotiation,
       (f.lead_on + c.lead_on)::bigint AS lead_to_qualified,
       (f.qualified_on + c.qualified_on)::bigint AS qualified_to_proposal,
       (f.proposal_on + c.proposal_on)::bigint AS proposal_to_negotiation,
       (f.negotiation_on + c.negotiation_on)::bigint AS negotiation_to_won
FROM forward f, corrections c";

pub async fn conversions(pool: &DbPool) -> Result<Conversions, DbError> {
    let row: ConversionRow = load_row(pool, diesel::sql_query(CONVERSIONS_SQL).into_boxed()).await?;
    Ok(Conversions {
        lead_to_qualified: percent(row.lead_to_qualified, row.reached_lead),
        qualified_to_proposal: percent(row.qualified_to_proposal, row.reached_qualified),
        proposal_to_negotiation: percent(row.proposal_to_negotiation, row.reached_proposal),
        negotiation_to_closed: percent(row.negotiation_to_won, row.reached_negotiation),
    })
}
