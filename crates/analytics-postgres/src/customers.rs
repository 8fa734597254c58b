//! Customer figures: counts by status and tier, average lifetime, and lifecycle conversion rates
//! read from the status history.

use crm_domain::{CustomerStatus, Tier};
use diesel::sql_types::{BigInt, Double, Text, Timestamptz};
use diesel::QueryableByName;
use time::OffsetDateTime;

use super::{load_row, load_rows, percent, ratio, LifecyclePeriod};
use postgres_toolkit::{DbError, DbPool};

const SECONDS_PER_WEEK: f64 = 7.0 * 24.0 * 3600.0;

/// Live customers by status and by tier (every status and tier present), and their average lifetime.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomerCounts {
    pub total: i64,
    pub by_status: Vec<(CustomerStatus, i64)>,
    pub by_tier: Vec<(Tier, i64)>,
    /// From `created_at` to `churned_at`, or to now for customers who have not churned.
    pub avg_lifetime_weeks: f64,
}

#[derive(QueryableByName)]
struct SegmentRow {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Text)]
    tier: String,
    #[diesel(sql_type = BigInt)]
    customers: i64,
    #[diesel(sql_type = Double)]
    lifetime_seconds: f64,
}

/// One pass over `customers_analytics_idx`, grouped by (status, tier): at most 16 rows.
pub async fn customer_counts(pool: &DbPool) -> Result<CustomerCounts, DbError> {
    let query = diesel::sql_query(
        "SELECT c.status::text AS status, c.tier::text AS tier, count(*) AS customers, \
                coalesce(sum(date_part('epoch', coalesce(c.churned_at, now()) - c.created_at)), 0) AS lifetime_seconds \
         FROM customers c WHERE c.deleted_at IS NULL GROUP BY c.status, c.tier",
    );
    let rows: Vec<SegmentRow> = load_rows(pool, query.into_boxed()).await?;
    let mut counts = CustomerCounts {
        total: 0,
        by_status: CustomerStatus::ALL.iter().map(|s| (*s, 0)).collect(),
        by_tier: Tier::ALL.iter().map(|t| (*t, 0)).collect(),
        avg_lifetime_weeks: 0.0,
    };
    let mut lifetime_seconds = 0.0;
    for row in rows {
        counts.total += row.customers;
        lifetime_seconds += row.lifetime_seconds;
        if let Some(slot) = counts.by_status.iter_mut().find(|(s, _)| s.as_str() == row.status) {
            slot.1 += row.customers;
        }
        if let Some(slot) = counts.by_tier.iter_mut().find(|(t, _)| t.as_str() == row.tier) {
            slot.1 += row.customers;
        }
    }
    counts.avg_lifetime_weeks = ratio(lifetime_seconds / SECONDS_PER_WEEK, counts.total);
    Ok(counts)
}

/// Conversion and churn rates over the last `period` up to now.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifecycle {
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
    pub lead_to_prospect_rate: f64,
    pub prospect_to_customer_rate: f64,
    pub churn_rate: f64,
}

#[derive(QueryableByName)]
struct LifecycleRow {
    #[diesel(sql_type = Timestamptz)]
    from_at: OffsetDateTime,
    #[diesel(sql_type = Timestamptz)]
    to_at: OffsetDateTime,
    #[diesel(sql_type = BigInt)]
    were_leads: i64,
    #[diesel(sql_type = BigInt)]
    were_prospects: i64,
    #[diesel(sql_type = BigInt)]
    were_customers: i64,
    #[diesel(sql_type = BigInt)]
    qualified: i64,
    #[diesel(sql_type = BigInt)]
    converted: i64,
    #[diesel(sql_type = BigInt)]
    churned: i64,
}

/// The lifecycle only moves lead → prospect → customer → churned, and churned → prospect (docs/customer-management.md).
/// So a customer without a reactivation (churned → prospect) in the window passes each status at most
/// once in it, and held status S during the window exactly when S is its current status or it left S in
/// the window: `were_S = (customers now in S) + (window moves out of S)`, one count over the window's
/// history rows and one over the customers, with no per-customer grouping. The few customers reactivated
/// in the window may have passed a status twice: they are left out of those counts and evaluated one by
/// one from their own window rows. Deleted customers are left out throughout.
const LIFECYCLE_SQL: &str = "\
WITH reactivated AS (
    SELECT DISTINCT h.customer_id
    FROM customer_status_history h
    WHERE h.from_status = 'churned' AND h.changed_at > now() - $1::interval AND h.changed_at <= now()
      AND NOT EXISTS (SELECT 1 FROM customers gone WHERE gone.id = h.customer_id AND gone.deleted_at IS NOT NULL)
),
moves AS (
    SELECT count(*) FILTER (WHERE h.from_status = 'lead') AS left_lead,
           count(*) FILTER (WHERE h.from_status = 'prospect') AS left_prospect,
           count(*) FILTER (WHERE h.from_status = 'customer') AS left_customer,
           count(*) FILTER (WHERE h.from_status = 'lead' AND h.to_status = 'prospect') AS qualified,
           count(*) FILTER (WHERE h.from_status = 'prospect' AND h.to_status = 'customer') AS converted,
           count(*) FILTER (WHERE h.from_status = 'customer' AND h.to_status = 'churned') AS churned
    FROM customer_status_history h
    WHERE h.changed_at > now() - $1::interval AND h.changed_at <= now() AND h.from_status IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM customers gone WHERE gone.id = h.customer_id AND gone.deleted_at IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM reactivated r WHERE r.customer_id = h.customer_id)
),
current AS (
    SELECT count(*) FILTER (WHERE c.status = 'lead') AS lead,
           count(*) FILTER (WHERE c.status = 'prospect') AS prospect,
           count(*) FILTER (WHERE c.status = 'customer') AS customer
    FROM customers c
    WHERE c.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM reactivated r WHERE r.customer_id = c.id)
),
one_by_one AS (
    SELECT count(*) FILTER (WHERE x.was_lead) AS was_lead,
           count(*) FILTER (WHERE x.was_prospect) AS was_prospect,
           count(*) FILTER (WHERE x.was_customer) AS was_customer,
           count(*) FILTER (WHERE x.qualified) AS qualified,
           count(*) FILTER (WHERE x.converted) AS converted,
           count(*) FILTER (WHERE x.churned) AS churned
    FROM reactivated r CROSS JOIN LATERAL (
        SELECT bool_or(h.from_status = 'lead' OR h.to_status = 'lead') AS was_lead,
               bool_or(h.from_status = 'prospect' OR h.to_status = 'prospect') AS was_prospect,
               bool_or(h.from_status = 'customer' OR h.to_status = 'customer') AS was_customer,
               bool_or(h.from_status = 'lead' AND h.to_status = 'prospect') AS qualified,
               bool_or(h.from_status = 'prospect' AND h.to_status = 'customer') AS converted,
               bool_or(h.from_status = 'customer' AND h.to_status = 'churned') AS churned
        FROM customer_status_history h
        WHERE h.customer_id = r.customer_id AND h.changed_at > now() - $1::interval AND h.changed_at <= now()
    ) AS x
)
SELECT now() - $1::interval AS from_at, now() AS to_at,
       c.lead + m.left_lead + o.was_lead AS were_leads,
       c.prospect + m.left_prospect + o.was_prospect AS were_prospects,
       c.customer + m.left_customer + o.was_customer AS were_customers,
       m.qualified + o.qualified AS qualified, m.converted + o.converted AS converted, m.churned + o.churned AS churned
FROM current c, moves m, one_by_one o";

pub async fn lifecycle(pool: &DbPool, period: LifecyclePeriod) -> Result<Lifecycle, DbError> {
    let query = diesel::sql_query(LIFECYCLE_SQL).into_boxed().bind::<Text, _>(period.interval());
    let row: LifecycleRow = load_row(pool, query).await?;
    Ok(Lifecycle {
        from: row.from_at,
        to: row.to_at,
        lead_to_prospect_rate: percent(row.qualified, row.were_leads),
        prospect_to_customer_rate: percent(row.converted, row.were_prospects),
        churn_rate: percent(row.churned, row.were_customers),
    })
}
