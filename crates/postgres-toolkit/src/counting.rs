//! The `total` of every list, counted up to a bound. An exact `count(*)` of a list that matches a
//! million rows reads a million index entries on every page request (hundreds of milliseconds); a
//! list's total is counted exactly up to [`EXACT_UP_TO`] rows (or to the end of the page asked for,
//! if that lies further) and reported as a lower bound, flagged inexact, beyond it (docs/conventions.md).

use diesel::expression::{is_aggregate, AppearsOnTable, Expression, SelectableExpression, ValidGrouping};
use diesel::pg::Pg;
use diesel::query_builder::{AsQuery, AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::methods::SelectDsl;
use diesel::sql_types::{BigInt, Integer};
use diesel::QueryResult;
use futures_util::future::try_join;
use shared_kernel::{PageRequest, Total};
use std::future::Future;

/// Lists matching at most this many rows carry their exact total.
pub const EXACT_UP_TO: i64 = 10_000;

/// Whether a list's statements are planned for their values on every run, or kept prepared.
///
/// After five runs of a prepared statement PostgreSQL may settle on a generic plan, made without the
/// values, and a list's filters are exactly where that goes wrong: a customer search's count at 10^6
/// rows, prepared and run six times, settled on a sequential scan (816 ms) where the plan for the
/// actual text reads the trigram indexes (0.5 ms) (docs/adr/0016-counted-list-totals.md). So a list
/// is planned on every run unless the list says a shape is safe: one whose every value is best served
/// by the same index walk, such as one equality filter over the index that also gives the sort.
/// Parsing and planning are about a quarter of a customer list page's PostgreSQL time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plans {
    /// Parsed and planned for its values on every run.
    PerRun,
    /// Kept prepared on the connection, one statement per SQL text; PostgreSQL may settle on a
    /// generic plan. Only for a bounded set of texts whose best plan does not depend on the values.
    Kept,
}

impl Plans {
    /// Marks the statement `out` renders as never to be kept prepared, unless it may be.
    fn mark(self, out: &mut AstPass<'_, '_, Pg>) {
        if self == Plans::PerRun {
            out.unsafe_to_cache_prepared();
        }
    }
}

/// `SELECT count(*) FROM (<query> LIMIT <limit>) AS bounded`: stops reading after `limit` rows.
/// PostgreSQL drops the subquery's unused columns, so an index can answer it alone. Planned as
/// [`Plans`] says, like its page.
#[derive(Debug, Clone, QueryId)]
pub struct CountUpTo<Q> {
    query: Q,
    limit: i64,
    plans: Plans,
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for CountUpTo<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.plans.mark(&mut out);
        out.push_sql("SELECT count(*) FROM (");
        self.query.walk_ast(out.reborrow())?;
        out.push_sql(" LIMIT ");
        out.push_bind_param::<BigInt, _>(&self.limit)?;
        out.push_sql(") AS bounded");
        Ok(())
    }
}

impl<Q> Query for CountUpTo<Q> {
    type SqlType = BigInt;
}

/// A list's page query, planned as [`Plans`] says. A kept one is cached by its SQL text (no static
/// query id), so each filter shape is a statement of its own.
#[derive(Debug, Clone)]
pub struct Planned<Q>(pub Q, pub Plans);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Planned<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.1.mark(&mut out);
        self.0.walk_ast(out)
    }
}

impl<Q: Query> Query for Planned<Q> {
    type SqlType = Q::SqlType;
}

impl<Q> QueryId for Planned<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

/// How far a list's total is counted for `page`: to [`EXACT_UP_TO`] or the end of the page, whichever
/// is further, so a total never falls short of what the pages already served.
pub fn count_bound(page: PageRequest) -> i64 {
    EXACT_UP_TO.max(page.offset().saturating_add(page.limit()))
}

/// What the counted subquery selects: nothing at all, `SELECT FROM …` (an empty select list, valid SQL
/// in PostgreSQL). PostgreSQL turns a subquery's unused columns into `NULL`s, but it still builds each
/// of them for every row counted: a customer list's nineteen cost half a millisecond of a 10 001-row
/// count, and even a constant is projected into every row, 5-8 % of such a count
/// (docs/adr/0016-counted-list-totals.md). An expression of its own, not an SQL
/// literal, which diesel would never keep prepared. Its SQL type is only for diesel's typing: nothing
/// is read from the subquery's rows.
#[derive(Debug, Clone, Copy, QueryId)]
pub struct CountedRow;

impl Expression for CountedRow {
    type SqlType = Integer;
}

impl<QS: ?Sized> AppearsOnTable<QS> for CountedRow {}

impl<QS: ?Sized> SelectableExpression<QS> for CountedRow {}

impl<GroupBy> ValidGrouping<GroupBy> for CountedRow {
    type IsAggregate = is_aggregate::Never;
}

impl QueryFragment<Pg> for CountedRow {
    fn walk_ast<'b>(&'b self, _out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        Ok(())
    }
}

/// The count statement for a list's filtered query (before offset and limit): selects nothing in
/// place of the query's columns and counts one row past the bound, which tells an exact total from a
/// lower bound. A query must not be `DISTINCT`: its rows would be counted, not its distinct values.
/// Run it with `get_result`.
pub fn count_up_to<Q>(query: Q, page: PageRequest, plans: Plans) -> CountUpTo<<Q::Output as AsQuery>::Query>
where
    Q: SelectDsl<CountedRow>,
    Q::Output: AsQuery,
{
    let counted = query.select(CountedRow);
    CountUpTo { query: counted.as_query(), limit: count_bound(page).saturating_add(1), plans }
}

/// The `Total` a `count_up_to` answer means for `page`.
pub fn total(counted: i64, page: PageRequest) -> Total {
    if counted > count_bound(page) {
        Total::at_least(counted)
    } else {
        Total::exact(counted)
    }
}

/// A list's page and its total: `list_page!(&conn, page, filtered, rows)` counts `filtered` (the
/// list's query before ordering, offset and limit) up to the bound and loads `rows` (the page's own
/// query), both planned on every run ([`Plans::PerRun`]; a fifth argument may say [`Plans::Kept`]),
/// issued on the one connection so that each goes out as soon as it can (`crate::pipeline`).
/// diesel-async prepares statements one at a time (it holds the connection's statement cache
/// meanwhile), so a list costs three round trips: prepare the count; run it while the page is
/// prepared; run the page (four, one after another). Kept statements skip the preparing after their
/// first run. Every paginated list goes through here. A macro, not a function: the statements'
/// diesel-async bounds are not general enough for the futures of the repositories' `async_trait`
/// methods.
#[macro_export]
macro_rules! list_page {
    ($conn:expr, $page:expr, $filtered:expr, $rows:expr $(,)?) => {
        $crate::counting::list_page!($conn, $page, $filtered, $rows, $crate::counting::Plans::PerRun)
    };
    ($conn:expr, $page:expr, $filtered:expr, $rows:expr, $plans:expr $(,)?) => {
        $crate::counting::page_with_total(
            $page,
            diesel_async::RunQueryDsl::get_result($crate::counting::count_up_to($filtered, $page, $plans), &mut {
                let shared: &diesel_async::AsyncPgConnection = $conn;
                shared
            }),
            diesel_async::RunQueryDsl::load($crate::counting::Planned($rows, $plans), &mut {
                let shared: &diesel_async::AsyncPgConnection = $conn;
                shared
            }),
        )
    };
}
pub use crate::list_page;

/// The page and its total from the count and the page's futures (see [`list_page`]).
pub async fn page_with_total<Row>(
    page: PageRequest,
    counted: impl Future<Output = QueryResult<i64>>,
    rows: impl Future<Output = QueryResult<Vec<Row>>>,
) -> QueryResult<(Vec<Row>, Total)> {
    let (counted, rows) = try_join(counted, rows).await?;
    Ok((rows, total(counted, page)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_up_to_the_bound_or_the_page_end() {
        let first = PageRequest::new(Some(1), Some(20)).expect("valid");
        assert_eq!(count_bound(first), EXACT_UP_TO);
        assert_eq!(total(EXACT_UP_TO, first), Total::exact(EXACT_UP_TO));
        assert_eq!(total(EXACT_UP_TO + 1, first), Total::at_least(EXACT_UP_TO + 1));
        let deep = PageRequest::new(Some(1_000), Some(100)).expect("valid");
        assert_eq!(count_bound(deep), 100_000);
        assert_eq!(total(50_000, deep), Total::exact(50_000));
        assert_eq!(total(100_001, deep), Total::at_least(100_001));
        let last = PageRequest::new(Some(i64::from(u32::MAX)), Some(100)).expect("valid");
        assert!(count_bound(last) > 0, "no overflow");
    }
}
