//! The revenue time series: won-deal value by `actual_close_date` and new customers by `created_at`
//! (UTC dates), one row per bucket of the range, empty buckets included.

use diesel::sql_types::{BigInt, Date as SqlDate, Text};
use diesel::QueryableByName;
use time::Date;

use super::{load_rows, SeriesRange};
use postgres_toolkit::{DbError, DbPool};

#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct RevenueBucket {
    /// `2026-11-22`, `2026-W47` or `2026-11`.
    #[diesel(sql_type = Text)]
    pub period: String,
    /// First day of the calendar bucket (it may start before the range; only dates in the range count).
    #[diesel(sql_type = SqlDate)]
    pub starts_on: Date,
    #[diesel(sql_type = BigInt)]
    pub revenue_cents: i64,
    #[diesel(sql_type = BigInt)]
    pub new_customers: i64,
}

/// `generate_series` gives every bucket; the two aggregates are grouped per bucket before the joins.
/// `$1` is the granularity (a `date_trunc` unit and an interval), `$4` the label's `to_char` pattern.
const SERIES_SQL: &str = "\
WITH buckets AS (
    SELECT b::date AS starts_on
    FROM generate_series(date_trunc($1, $2::date::timestamp), date_trunc($1, $3::date::timestamp),
                         ('1 ' || $1)::interval) AS b
),
revenue AS (
    SELECT date_trunc($1, d.actual_close_date::timestamp)::date AS starts_on, least(sum(d.value), 9223372036854775807)::bigint AS cents
    FROM deals d
    WHERE d.stage = 'closed_won' AND d.deleted_at IS NULL AND d.currency = $5
      AND d.actual_close_date BETWEEN $2 AND $3
      AND NOT EXISTS (SELECT 1 FROM customers gone WHERE gone.id = d.customer_id AND gone.deleted_at IS NOT NULL)
    GROUP BY 1
),
signups AS (
    SELECT date_trunc($1, c.created_at AT TIME ZONE 'UTC')::date AS starts_on, count(*) AS customers
    FROM customers c
    WHERE c.deleted_at IS NULL
      AND c.created_at >= ($2::date::timestamp AT TIME ZONE 'UTC')
      AND c.created_at < (($3::date + 1)::timestamp AT TIME ZONE 'UTC')
    GROUP BY 1
)
SELECT to_char(b.starts_on, $4) AS period, b.starts_on,
       coalesce(r.cents, 0)::bigint AS revenue_cents, coalesce(s.customers, 0)::bigint AS new_customers
FROM buckets b
LEFT JOIN revenue r ON r.starts_on = b.starts_on
LEFT JOIN signups s ON s.starts_on = b.starts_on
ORDER BY b.starts_on";

pub async fn revenue_series(pool: &DbPool, range: SeriesRange, currency: &str) -> Result<Vec<RevenueBucket>, DbError> {
    let query = diesel::sql_query(SERIES_SQL)
        .into_boxed()
        .bind::<Text, _>(range.granularity.as_str())
        .bind::<SqlDate, _>(range.start)
        .bind::<SqlDate, _>(range.end)
        .bind::<Text, _>(range.granularity.label_format())
        .bind::<Text, _>(currency.to_owned());
    load_rows(pool, query).await
}
