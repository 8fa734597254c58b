//! Wire shapes of the analytics responses (docs/analytics.md): money is `{cents, currency}` in
//! `REPORTING_CURRENCY`, percentages are numbers 0..=100 with at most two decimals, and every map
//! carries every status, tier, stage, type or outcome, zero when empty.

use std::collections::BTreeMap;

use analytics_postgres::{
    Conversions, CustomerCounts, InteractionInsights, Lifecycle, Pipeline, RepFigures, RevenueBucket,
};
use serde::Serialize;
use shared_kernel::CurrencyCode;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, ToSchema)]
pub struct MoneyView {
    pub cents: i64,
    #[schema(example = "USD")]
    pub currency: String,
}

impl MoneyView {
    pub fn new(cents: i64, currency: CurrencyCode) -> Self {
        Self { cents, currency: currency.as_str().to_owned() }
    }
}

fn counts<K: Copy>(pairs: &[(K, i64)], name: impl Fn(K) -> &'static str) -> BTreeMap<String, i64> {
    pairs.iter().map(|(key, n)| (name(*key).to_owned(), *n)).collect()
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RepSummaryView {
    pub sales_rep_id: Uuid,
    pub active_customers: i64,
    pub deals_won: i64,
    pub total_revenue: MoneyView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerOverviewView {
    pub total_customers: i64,
    /// lead, prospect, customer, churned → count.
    pub by_status: BTreeMap<String, i64>,
    /// free, basic, pro, enterprise → count.
    pub by_tier: BTreeMap<String, i64>,
    pub avg_lifetime_weeks: f64,
    /// The five reps with the highest revenue.
    pub top_sales_reps: Vec<RepSummaryView>,
}

impl CustomerOverviewView {
    pub fn new(c: CustomerCounts, reps: Vec<RepFigures>, currency: CurrencyCode) -> Self {
        Self {
            total_customers: c.total,
            by_status: counts(&c.by_status, |s| s.as_str()),
            by_tier: counts(&c.by_tier, |t| t.as_str()),
            avg_lifetime_weeks: c.avg_lifetime_weeks,
            top_sales_reps: reps
                .into_iter()
                .map(|r| RepSummaryView {
                    sales_rep_id: r.sales_rep_id,
                    active_customers: r.active_customers,
                    deals_won: r.deals_won,
                    total_revenue: MoneyView::new(r.total_revenue_cents, currency),
                })
                .collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LifecycleView {
    #[schema(example = "month")]
    pub period: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub from: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub to: OffsetDateTime,
    pub lead_to_prospect_rate: f64,
    pub prospect_to_customer_rate: f64,
    pub churn_rate: f64,
}

impl LifecycleView {
    pub fn new(period: &'static str, l: Lifecycle) -> Self {
        Self {
            period,
            from: l.from,
            to: l.to,
            lead_to_prospect_rate: l.lead_to_prospect_rate,
            prospect_to_customer_rate: l.prospect_to_customer_rate,
            churn_rate: l.churn_rate,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SegmentationView {
    pub total_customers: i64,
    pub by_status: BTreeMap<String, i64>,
    pub by_tier: BTreeMap<String, i64>,
    pub avg_lifetime_weeks: f64,
    /// Deals not yet won or lost.
    pub active_deals: i64,
    /// Won deals.
    pub total_revenue: MoneyView,
}

impl SegmentationView {
    pub fn new(c: CustomerCounts, p: &Pipeline, currency: CurrencyCode) -> Self {
        Self {
            total_customers: c.total,
            by_status: counts(&c.by_status, |s| s.as_str()),
            by_tier: counts(&c.by_tier, |t| t.as_str()),
            avg_lifetime_weeks: c.avg_lifetime_weeks,
            active_deals: p.open_deals(),
            total_revenue: MoneyView::new(p.stage(crm_domain::DealStage::ClosedWon).value_cents, currency),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StageView {
    /// Deals in the stage, every currency.
    pub count: i64,
    /// Value of the stage's deals in the reporting currency.
    pub value: MoneyView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineView {
    pub total_deals: i64,
    pub total_value: MoneyView,
    pub avg_deal_value: MoneyView,
    /// Every stage → {count, value}.
    pub by_stage: BTreeMap<String, StageView>,
    pub win_rate: f64,
    pub avg_days_to_close: f64,
}

impl PipelineView {
    pub fn new(p: Pipeline, currency: CurrencyCode) -> Self {
        Self {
            total_deals: p.total_deals,
            total_value: MoneyView::new(p.total_value_cents, currency),
            avg_deal_value: MoneyView::new(p.avg_deal_value_cents, currency),
            by_stage: p
                .by_stage
                .iter()
                .map(|(stage, f)| {
                    (
                        stage.as_str().to_owned(),
                        StageView { count: f.count, value: MoneyView::new(f.value_cents, currency) },
                    )
                })
                .collect(),
            win_rate: p.win_rate,
            avg_days_to_close: p.avg_days_to_close,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConversionsView {
    pub lead_to_qualified: f64,
    pub qualified_to_proposal: f64,
    pub proposal_to_negotiation: f64,
    /// To `closed_won` only.
    pub negotiation_to_closed: f64,
}

impl From<Conversions> for ConversionsView {
    fn from(c: Conversions) -> Self {
        Self {
            lead_to_qualified: c.lead_to_qualified,
            qualified_to_proposal: c.qualified_to_proposal,
            proposal_to_negotiation: c.proposal_to_negotiation,
            negotiation_to_closed: c.negotiation_to_closed,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RepPerformanceView {
    pub sales_rep_id: Uuid,
    pub name: String,
    pub active_customers: i64,
    pub deals_won: i64,
    pub deals_lost: i64,
    pub total_revenue: MoneyView,
    pub avg_deal_value: MoneyView,
    pub win_rate: f64,
    pub avg_days_to_close: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RepsView {
    /// Highest revenue first.
    pub reps: Vec<RepPerformanceView>,
}

impl RepsView {
    pub fn new(reps: Vec<RepFigures>, currency: CurrencyCode) -> Self {
        let reps = reps
            .into_iter()
            .map(|r| RepPerformanceView {
                sales_rep_id: r.sales_rep_id,
                name: r.name,
                active_customers: r.active_customers,
                deals_won: r.deals_won,
                deals_lost: r.deals_lost,
                total_revenue: MoneyView::new(r.total_revenue_cents, currency),
                avg_deal_value: MoneyView::new(r.avg_deal_value_cents, currency),
                win_rate: r.win_rate,
                avg_days_to_close: r.avg_days_to_close,
            })
            .collect();
        Self { reps }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RevenuePointView {
    #[schema(example = "2026-W47")]
    pub period: String,
    /// Start of the bucket, midnight UTC.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub timestamp: OffsetDateTime,
    pub revenue: MoneyView,
    pub new_customers: i64,
}

impl RevenuePointView {
    pub fn new(b: RevenueBucket, currency: CurrencyCode) -> Self {
        Self {
            period: b.period,
            timestamp: b.starts_on.midnight().assume_utc(),
            revenue: MoneyView::new(b.revenue_cents, currency),
            new_customers: b.new_customers,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InteractionInsightsView {
    pub total_interactions: i64,
    pub by_type: BTreeMap<String, i64>,
    pub by_outcome: BTreeMap<String, i64>,
    pub avg_duration_minutes: f64,
    pub pending_follow_ups: i64,
}

impl From<InteractionInsights> for InteractionInsightsView {
    fn from(i: InteractionInsights) -> Self {
        Self {
            total_interactions: i.total,
            by_type: counts(&i.by_type, |t| t.as_str()),
            by_outcome: counts(&i.by_outcome, |o| o.as_str()),
            avg_duration_minutes: i.avg_duration_minutes,
            pending_follow_ups: i.pending_follow_ups,
        }
    }
}
