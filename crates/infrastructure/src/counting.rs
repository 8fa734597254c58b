//! The `total` of every list, counted up to a bound. An exact `count(*)` of a list that matches a
//! million rows reads a million index entries on every page request (hundreds of milliseconds); a
//! list's total is counted exactly up to [`EXACT_UP_TO`] rows (or to the end of the page asked for,
//! if that lies further) and reported as a lower bound, flagged inexact, beyond it (docs/conventions.md).

use diesel::pg::Pg;
use diesel::query_builder::{AsQuery, AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::BigInt;
use diesel::QueryResult;
use shared_kernel::{PageRequest, Total};

/// Lists matching at most this many rows carry their exact total.
pub const EXACT_UP_TO: i64 = 10_000;

/// `SELECT count(*) FROM (<query> LIMIT <limit>) AS bounded`: stops reading after `limit` rows.
/// PostgreSQL drops the subquery's unused columns, so an index can answer it alone.
#[derive(Debug, Clone, QueryId)]
pub struct CountUpTo<Q> {
    query: Q,
    limit: i64,
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for CountUpTo<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
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

/// How far a list's total is counted for `page`: to [`EXACT_UP_TO`] or the end of the page, whichever
/// is further, so a total never falls short of what the pages already served.
pub fn count_bound(page: PageRequest) -> i64 {
    EXACT_UP_TO.max(page.offset().saturating_add(page.limit()))
}

/// The count statement for a list's filtered query (before ordering, offset and limit): counts one
/// row past the bound, which tells an exact total from a lower bound. Run it with `get_result`.
pub fn count_up_to<Q: AsQuery>(query: Q, page: PageRequest) -> CountUpTo<Q::Query> {
    CountUpTo { query: query.as_query(), limit: count_bound(page).saturating_add(1) }
}

/// The `Total` a `count_up_to` answer means for `page`.
pub fn total(counted: i64, page: PageRequest) -> Total {
    if counted > count_bound(page) {
        Total::at_least(counted)
    } else {
        Total::exact(counted)
    }
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

    #[test]
    fn the_statement_wraps_the_query() {
        use crate::crm::schema::customers;
        use diesel::prelude::*;
        let query = customers::table.filter(customers::deleted_at.is_null()).select(customers::id);
        let page = PageRequest::default();
        let sql = diesel::debug_query::<Pg, _>(&count_up_to(query, page)).to_string();
        assert!(sql.starts_with("SELECT count(*) FROM (SELECT \"customers\".\"id\" FROM"), "{sql}");
        assert!(sql.contains("LIMIT $1) AS bounded"), "{sql}");
        assert!(sql.ends_with("[10001]"), "{sql}");
    }
}
