//! Document numbers (`PO-<year>-<6 digits>`, `TR-<year>-<6 digits>`): one counter row per kind and
//! year in `document_counters`, advanced by an upsert inside the creating transaction. The upsert
//! holds the counter row's lock until that transaction ends, so concurrent creators take turns and
//! never get one number twice, and a rolled-back creation gives its numbers back (never `max()+1`).
//! A creation that would go past 999 999 a year is refused (`DOCUMENT_NUMBERS_EXHAUSTED`), not an
//! error of the counter's CHECK.

use diesel::sql_types::{Integer, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::prepared::Prepared;
use warehouse_domain::numbers::MAX_SEQUENCE;
use warehouse_domain::{RepoError, WarehouseError};

use super::errors::TxError;

/// A kind of document: its counter's key (the table's CHECK lists them) and its name in words.
pub(crate) struct Kind {
    key: &'static str,
    name: &'static str,
}

pub(crate) const PURCHASE_ORDER: Kind = Kind { key: "purchase_order", name: "purchase order" };
pub(crate) const TRANSFER: Kind = Kind { key: "transfer", name: "transfer" };

/// Advances the counter only while the numbers fit six digits (`$4` = 999 999, the table's CHECK):
/// past it nothing is written and no row comes back, so the year's last number is never overrun.
const ALLOCATE: &str = "INSERT INTO document_counters (kind, year, last) SELECT $1, $2, $3 WHERE $3 <= $4 \
     ON CONFLICT (kind, year) DO UPDATE SET last = document_counters.last + EXCLUDED.last \
     WHERE document_counters.last::int8 + EXCLUDED.last <= $4 \
     RETURNING last";

#[derive(QueryableByName)]
struct Last {
    #[diesel(sql_type = Integer)]
    last: i32,
}

/// The next `count` (≥ 1) sequences of `kind` in `year`, in order; `DOCUMENT_NUMBERS_EXHAUSTED`
/// when they would go past 999 999 (nothing allocated).
pub(crate) async fn allocate(
    mut conn: &AsyncPgConnection,
    kind: &Kind,
    year: i32,
    count: u32,
) -> Result<std::ops::RangeInclusive<u32>, TxError> {
    let exhausted =
        || TxError::Refused(RepoError::Refused(WarehouseError::DocumentNumbersExhausted { kind: kind.name, year }));
    let count = count.max(1);
    if count > MAX_SEQUENCE {
        return Err(exhausted());
    }
    let wanted = i32::try_from(count).map_err(|_| exhausted())?;
    let max = i32::try_from(MAX_SEQUENCE).map_err(|_| exhausted())?;
    let last: Option<Last> = diesel::OptionalExtension::optional(
        Prepared(
            diesel::sql_query(ALLOCATE)
                .bind::<Text, _>(kind.key)
                .bind::<Integer, _>(year)
                .bind::<Integer, _>(wanted)
                .bind::<Integer, _>(max),
        )
        .get_result(&mut conn)
        .await,
    )?;
    let last = u32::try_from(last.ok_or_else(exhausted)?.last).unwrap_or(0);
    let first = last.saturating_sub(count).saturating_add(1);
    Ok(first..=last)
}
