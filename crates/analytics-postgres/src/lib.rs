//! Read-only customer analytics (docs/analytics.md): every figure is a SQL aggregate over indexed
//! columns, so no query returns more rows than it has buckets (statuses, stages, reps, periods).
//!
//! Conventions shared by every query here:
//! - deleted customers, deals and interactions never count, and neither do the deals and interactions
//!   of a deleted customer (docs/customer-management.md). Deleted customers are few, so the big aggregates run over the
//!   live rows of one covering index and then subtract what the deleted customers' rows contributed
//!   (found through small indexes), instead of probing every row against the deleted set. The look-ups
//!   are `CROSS JOIN LATERAL (… OFFSET 0)`: the `OFFSET 0` keeps the planner from flattening them into a
//!   hash join over the whole table;
//! - money is summed only over deals in the reporting currency; counts include every currency;
//! - ratios are percentages 0..=100 rounded to two decimals, and an empty denominator gives 0.
//!
//! `docs/analytics.md` has the formulas and the indexes behind them.
//!
//! A read model over more than one context's tables, by design (docs/adr/0005): it reads customer
//! management's `customers`, `customer_status_history`, `deals`, `deal_stage_history` and
//! `interactions`, and identity's `users` (a rep's name), in plain SQL, and writes nothing. It is not
//! a context's adapter crate, so `make check-boundaries` does not hold it to one context; it depends
//! on `postgres-toolkit` and on `crm-domain` (the enums it counts by) only.

pub mod customers;
pub mod deals;
pub mod interactions;
pub mod periods;
pub mod reps;
pub mod revenue;

pub use customers::{customer_counts, lifecycle, CustomerCounts, Lifecycle};
pub use deals::{conversions, pipeline, Conversions, Pipeline, StageFigures};
pub use interactions::{interaction_insights, InteractionInsights};
pub use periods::{Granularity, LifecyclePeriod, SeriesRange, SeriesRangeError, MAX_BUCKETS};
pub use reps::{rep_figures, RepFigures};
pub use revenue::{revenue_series, RevenueBucket};

use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::QueryableByName;
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};

use postgres_toolkit::{DbError, DbPool};

/// Planner settings for one analytics statement (transaction-local): random reads priced as on SSDs,
/// so the planner takes the covering indexes; room for hashes; no JIT, whose compile time exceeds what
/// it saves on statements of tens of milliseconds.
const STATEMENT_SETTINGS: &str = "SET LOCAL random_page_cost = 1.1; SET LOCAL work_mem = '64MB'; SET LOCAL jit = off";

/// Runs `query` in a read-only transaction with [`STATEMENT_SETTINGS`].
async fn load_rows<T>(pool: &DbPool, query: BoxedSqlQuery<'static, Pg, SqlQuery>) -> Result<Vec<T>, DbError>
where
    T: QueryableByName<Pg> + Send + 'static,
{
    let mut conn = postgres_toolkit::db::checkout(pool).await?;
    let rows = conn
        .build_transaction()
        .read_only()
        .run(async move |conn| {
            conn.batch_execute(STATEMENT_SETTINGS).await?;
            query.load::<T>(conn).await
        })
        .await?;
    Ok(rows)
}

/// [`load_rows`] for a statement that always returns exactly one row (an aggregate without GROUP BY).
async fn load_row<T>(pool: &DbPool, query: BoxedSqlQuery<'static, Pg, SqlQuery>) -> Result<T, DbError>
where
    T: QueryableByName<Pg> + Send + 'static,
{
    load_rows(pool, query).await?.into_iter().next().ok_or(DbError::Query(diesel::result::Error::NotFound))
}

/// Rounds to two decimals (percentages, weeks, days, minutes).
pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// `part / whole` as a percentage with two decimals; 0 when `whole` is 0.
pub fn percent(part: i64, whole: i64) -> f64 {
    ratio(part as f64 * 100.0, whole)
}

/// `total / count` with two decimals; 0 when `count` is 0.
pub fn ratio(total: f64, count: i64) -> f64 {
    if count == 0 {
        0.0
    } else {
        round2(total / count as f64)
    }
}

/// The average of `count` amounts summing to `cents`, rounded half up to whole cents; 0 when empty.
pub fn average_cents(cents: i64, count: i64) -> i64 {
    if count <= 0 {
        return 0;
    }
    let (cents, count) = (i128::from(cents), i128::from(count));
    // Values are positive (a CHECK constraint), so half-up rounding is (2c + n) / 2n.
    i64::try_from((2 * cents + count) / (2 * count)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_round_to_two_decimals_and_never_divide_by_zero() {
        assert_eq!(percent(1, 3), 33.33);
        assert_eq!(percent(2, 3), 66.67);
        assert_eq!(percent(1, 8), 12.5);
        assert_eq!(percent(5, 0), 0.0);
        assert_eq!(ratio(10.0, 4), 2.5);
        assert_eq!(ratio(1.0, 0), 0.0);
        assert_eq!(average_cents(10, 4), 3);
        assert_eq!(average_cents(10, 3), 3);
        assert_eq!(average_cents(5, 2), 3);
        assert_eq!(average_cents(0, 0), 0);
    }
}
