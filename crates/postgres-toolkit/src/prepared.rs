//! Write statements kept prepared on their connection.
//!
//! diesel marks every UPDATE, and every INSERT of a struct (any column may become `DEFAULT`), unsafe
//! to keep prepared, because their SQL text may change with the values; diesel-async then prepares
//! such a statement again on every run: a parse, and a round trip of its own taken while it holds the
//! connection's statement cache, so statements sent together (`crate::pipeline`) wait for each
//! other's preparation. [`Prepared`] keys the statement by its SQL text instead of its type (no static
//! query id), so a run whose text differs is simply another cached statement. That is sound, but
//! diesel's cache never evicts, so only statements with few texts may use it: a changeset of fixed
//! shape, a row with at most six optional columns (an insert writes `DEFAULT` for each `None`: at
//! most 64 texts). Not a multi-row `VALUES` list (a text per number of rows: batches go as one array
//! per column through `unnest`), nor a changeset or a row whose text follows which of many optional
//! fields a client sent (a profile's fifteen).

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::QueryResult;

/// `statement`, kept prepared on the connection once run (see the module's documentation).
#[derive(Debug, Clone)]
pub struct Prepared<Q>(pub Q);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q> QueryId for Prepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::outbox_events;
    use diesel::prelude::*;

    #[test]
    fn an_update_is_kept_prepared_by_its_text() {
        let ids = vec![uuid::Uuid::nil(); 3];
        let update = diesel::update(outbox_events::table.filter(outbox_events::id.eq_any(&ids)))
            .set(outbox_events::published_at.eq(diesel::dsl::now));
        assert!(!update.is_safe_to_cache_prepared(&Pg).expect("walks"), "diesel's own answer");
        let prepared = Prepared(update);
        assert!(prepared.is_safe_to_cache_prepared(&Pg).expect("walks"));
        assert!(<Prepared<()> as QueryId>::query_id().is_none(), "cached by its SQL text");
        let sql = diesel::debug_query::<Pg, _>(&prepared).to_string();
        assert!(sql.starts_with("UPDATE \"outbox_events\" SET \"published_at\" = CURRENT_TIMESTAMP"), "{sql}");
        // A list of ids is one array parameter, so any number of them is one text.
        assert!(sql.contains("= ANY($1)"), "{sql}");
    }
}
