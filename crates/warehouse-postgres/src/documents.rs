//! Document numbers (`PO-<year>-<6 digits>`, `TR-<year>-<6 digits>`): one counter row per kind and
//! year in `document_counters`, advanced by an upsert inside the creating transaction. The upsert
//! holds the counter row's lock until that transaction ends, so concurrent creators take turns and
//! never get one number twice, and a rolled-back creation gives its numbers back (never `max()+1`).

use diesel::sql_types::{Integer, Text};
use diesel::{QueryResult, QueryableByName};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::prepared::Prepared;

/// The counters' kinds (the table's CHECK lists them).
pub(crate) const PURCHASE_ORDER: &str = "purchase_order";
pub(crate) const TRANSFER: &str = "transfer";

const ALLOCATE: &str = "INSERT INTO document_counters (kind, year, last) VALUES ($1, $2, $3) \
     ON CONFLICT (kind, year) DO UPDATE SET last = document_counters.last + EXCLUDED.last \
     RETURNING last";

#[derive(QueryableByName)]
struct Last {
    #[diesel(sql_type = Integer)]
    last: i32,
}

/// The next `count` (≥ 1) sequences of `kind` in `year`, in order. Past 999 999 a year the
/// counter's CHECK refuses the statement.
pub(crate) async fn allocate(
    mut conn: &AsyncPgConnection,
    kind: &str,
    year: i32,
    count: u32,
) -> QueryResult<std::ops::RangeInclusive<u32>> {
    let count = i32::try_from(count.max(1)).unwrap_or(i32::MAX);
    let last: Last =
        Prepared(diesel::sql_query(ALLOCATE).bind::<Text, _>(kind).bind::<Integer, _>(year).bind::<Integer, _>(count))
            .get_result(&mut conn)
            .await?;
    let last = u32::try_from(last.last).unwrap_or(0);
    let first = last.saturating_sub(u32::try_from(count).unwrap_or(1)).saturating_add(1);
    Ok(first..=last)
}
