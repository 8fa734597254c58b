//! Sales-rep figures: one row per live user with an active customer or a closed deal assigned.

use diesel::sql_types::{BigInt, Text, Uuid as SqlUuid};
use diesel::QueryableByName;
use uuid::Uuid;

use super::{average_cents, load_rows, percent, ratio};
use postgres_toolkit::{DbError, DbPool};

#[derive(Debug, Clone, PartialEq)]
pub struct RepFigures {
    pub sales_rep_id: Uuid,
    pub name: String,
    /// Assigned live customers whose status is `customer`.
    pub active_customers: i64,
    pub deals_won: i64,
    pub deals_lost: i64,
    /// Won deals in the reporting currency.
    pub total_revenue_cents: i64,
    /// `total_revenue` over the won deals in the reporting currency.
    pub avg_deal_value_cents: i64,
    pub win_rate: f64,
    /// Over the rep's closed deals, won or lost.
    pub avg_days_to_close: f64,
}

#[derive(QueryableByName)]
struct RepRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = BigInt)]
    active_customers: i64,
    #[diesel(sql_type = BigInt)]
    won: i64,
    #[diesel(sql_type = BigInt)]
    lost: i64,
    #[diesel(sql_type = BigInt)]
    revenue: i64,
    #[diesel(sql_type = BigInt)]
    won_in_currency: i64,
    #[diesel(sql_type = BigInt)]
    close_days: i64,
}

/// Closed deals per rep from `deals_rep_analytics_idx` minus those of deleted customers, and active
/// customers per rep from `customers_active_rep_idx`; every figure comes from those two groupings, so a
/// rep with neither an active customer nor a closed deal has nothing to report and is not listed. Ties on
/// revenue are broken by deals won, active customers, then id, so the order is stable.
const REPS_SQL: &str = "\
WITH closed AS (
    SELECT d.assigned_to AS rep,
           count(*) FILTER (WHERE d.stage = 'closed_won') AS won,
           count(*) FILTER (WHERE d.stage = 'closed_lost') AS lost,
           sum(d.value) FILTER (WHERE d.stage = 'closed_won' AND d.currency = $1) AS revenue,
           count(*) FILTER (WHERE d.stage = 'closed_won' AND d.currency = $1) AS won_in_currency,
           sum(d.actual_close_date - (d.created_at AT TIME ZONE 'UTC')::date) AS close_days
    FROM deals d
    WHERE d.deleted_at IS NULL AND d.stage IN ('closed_won', 'closed_lost')
    GROUP BY d.assigned_to
    UNION ALL
    SELECT d.assigned_to,
           -count(*) FILTER (WHERE d.stage = 'closed_won'),
           -count(*) FILTER (WHERE d.stage = 'closed_lost'),
           -sum(d.value) FILTER (WHERE d.stage = 'closed_won' AND d.currency = $1),
           -count(*) FILTER (WHERE d.stage = 'closed_won' AND d.currency = $1),
           -sum(d.actual_close_date - (d.created_at AT TIME ZONE 'UTC')::date)
    FROM customers gone
    CROSS JOIN LATERAL (SELECT d.assigned_to, d.stage, d.currency, d.value, d.created_at, d.actual_close_date
                        FROM deals d WHERE d.customer_id = gone.id AND d.deleted_at IS NULL
                          AND d.stage IN ('closed_won', 'closed_lost') OFFSET 0) AS d
    WHERE gone.deleted_at IS NOT NULL
    GROUP BY d.assigned_to
),
per_rep AS (
    SELECT rep, sum(won) AS won, sum(lost) AS lost, coalesce(sum(revenue), 0) AS revenue,
           sum(won_in_currency) AS won_in_currency, coalesce(sum(close_days), 0) AS close_days
    FROM closed GROUP BY rep HAVING sum(won) + sum(lost) > 0
),
active AS (
    SELECT c.assigned_to AS rep, count(*) AS active FROM customers c
    WHERE c.status = 'customer' AND c.deleted_at IS NULL AND c.assigned_to IS NOT NULL
    GROUP BY c.assigned_to
)
SELECT u.id, u.name::text AS name, coalesce(a.active, 0) AS active_customers,
       coalesce(p.won, 0)::bigint AS won, coalesce(p.lost, 0)::bigint AS lost, least(coalesce(p.revenue, 0), 9223372036854775807)::bigint AS revenue,
       coalesce(p.won_in_currency, 0)::bigint AS won_in_currency, coalesce(p.close_days, 0)::bigint AS close_days
FROM (SELECT rep FROM per_rep UNION SELECT rep FROM active) AS r
JOIN users u ON u.id = r.rep AND u.deleted_at IS NULL
LEFT JOIN per_rep p ON p.rep = r.rep
LEFT JOIN active a ON a.rep = r.rep
ORDER BY revenue DESC, won DESC, active_customers DESC, u.id
LIMIT $2";

/// The `limit` reps with the highest revenue first.
pub async fn rep_figures(pool: &DbPool, currency: &str, limit: i64) -> Result<Vec<RepFigures>, DbError> {
    let query = diesel::sql_query(REPS_SQL).into_boxed().bind::<Text, _>(currency.to_owned()).bind::<BigInt, _>(limit);
    let rows: Vec<RepRow> = load_rows(pool, query).await?;
    Ok(rows
        .into_iter()
        .map(|r| RepFigures {
            sales_rep_id: r.id,
            name: r.name,
            active_customers: r.active_customers,
            deals_won: r.won,
            deals_lost: r.lost,
            total_revenue_cents: r.revenue,
            avg_deal_value_cents: average_cents(r.revenue, r.won_in_currency),
            win_rate: percent(r.won, r.won + r.lost),
            avg_days_to_close: ratio(r.close_days as f64, r.won + r.lost),
        })
        .collect())
}
