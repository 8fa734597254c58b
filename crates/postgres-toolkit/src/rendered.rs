//! Statements whose SQL text is rendered once per thread, not on every run.
//!
//! diesel-async renders a statement's SQL text on every execution, before it looks the prepared
//! statement up (`with_prepared_statement_after_sql_built`), even when the lookup goes by the
//! statement's type. For a read of a whole row that is every column's quoted name, every time: 15 % of
//! the instructions of a customer read (callgrind, docs/adr/0009-sql-text-rendered-once.md).
//! [`RenderedOnce`] renders the text the first time a thread runs the statement and pushes that same
//! text after that.
//!
//! Sound for exactly the statements diesel itself keeps prepared by type: a static query id and safe
//! to cache, so one type has one text whatever its values (a bind is a placeholder). Any other
//! statement is rendered as usual.

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;

use diesel::dsl::Limit;
use diesel::pg::{Pg, PgQueryBuilder};
use diesel::query_builder::{AstPass, Query, QueryBuilder, QueryFragment, QueryId};
use diesel::QueryResult;
use diesel_async::methods::LoadQuery;
use diesel_async::return_futures::GetResult;
use diesel_async::{AsyncConnectionCore, RunQueryDsl};

thread_local! {
    /// The text of each statement type this thread has run.
    static TEXTS: RefCell<HashMap<TypeId, Box<str>>> = RefCell::new(HashMap::new());
}

/// `statement`, its SQL text rendered once per thread (see the module's documentation).
#[derive(Debug, Clone)]
pub struct RenderedOnce<Q>(pub Q);

impl<Q: QueryFragment<Pg> + QueryId> QueryFragment<Pg> for RenderedOnce<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn to_sql(&self, out: &mut PgQueryBuilder, backend: &Pg) -> QueryResult<()> {
        let Some(id) = Q::query_id().filter(|_| self.0.is_safe_to_cache_prepared(backend).unwrap_or(false)) else {
            return self.0.to_sql(out, backend);
        };
        let found = TEXTS.with_borrow(|texts| texts.get(&id).map(|text| out.push_sql(text)).is_some());
        if !found {
            let mut fresh = PgQueryBuilder::default();
            self.0.to_sql(&mut fresh, backend)?;
            let text = fresh.finish();
            out.push_sql(&text);
            TEXTS.with_borrow_mut(|texts| texts.insert(id, text.into_boxed_str()));
        }
        Ok(())
    }
}

/// diesel-async's `first`, its statement rendered once ([`RenderedOnce`]).
pub trait FirstRenderedOnce: diesel::query_dsl::methods::LimitDsl + Sized {
    fn first_rendered_once<'query, 'conn, Conn, U>(
        self,
        conn: &'conn mut Conn,
    ) -> GetResult<'conn, 'query, RenderedOnce<Limit<Self>>, Conn, U>
    where
        U: Send + 'conn,
        Conn: AsyncConnectionCore,
        RenderedOnce<Limit<Self>>: LoadQuery<'query, Conn, U> + Send + 'query,
    {
        RenderedOnce(diesel::query_dsl::methods::LimitDsl::limit(self, 1)).get_result(conn)
    }
}

impl<T: diesel::query_dsl::methods::LimitDsl> FirstRenderedOnce for T {}

impl<Q: QueryId> QueryId for RenderedOnce<Q> {
    type QueryId = Q::QueryId;
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query> Query for RenderedOnce<Q> {
    type SqlType = Q::SqlType;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::outbox_events;
    use diesel::prelude::*;
    use uuid::Uuid;

    fn text(query: &impl QueryFragment<Pg>) -> String {
        let mut builder = PgQueryBuilder::default();
        query.to_sql(&mut builder, &Pg).expect("renders");
        builder.finish()
    }

    fn by_id(id: Uuid) -> impl QueryFragment<Pg> + QueryId {
        outbox_events::table.filter(outbox_events::id.eq(id)).select(outbox_events::name).limit(1)
    }

    #[test]
    fn a_statement_keeps_the_text_diesel_renders_whatever_its_values() {
        let first = RenderedOnce(by_id(Uuid::nil()));
        assert_eq!(text(&first), text(&by_id(Uuid::nil())));
        assert_eq!(TEXTS.with_borrow(HashMap::len), 1, "the text is remembered (each test has its own thread)");
        // The second run pushes the remembered text: the same, placeholders and all.
        let again = RenderedOnce(by_id(Uuid::from_u128(7)));
        assert_eq!(text(&again), text(&by_id(Uuid::from_u128(7))));
        assert!(text(&again).contains("$1") && text(&again).contains("LIMIT $2"), "{}", text(&again));
    }

    #[test]
    fn each_statement_type_has_its_own_text_and_the_others_are_rendered_each_time() {
        let by_name = outbox_events::table.filter(outbox_events::name.eq("x")).select(outbox_events::id);
        let one = text(&RenderedOnce(by_id(Uuid::nil())));
        let other = text(&RenderedOnce(by_name));
        assert_ne!(one, other);
        assert_eq!(other, text(&by_name));
        // A boxed statement has no type of its own per text (here: with and without a filter), so it
        // is rendered for what it holds every time.
        let boxed = |named: bool| {
            let query = outbox_events::table.select(outbox_events::id).into_boxed();
            if named {
                query.filter(outbox_events::name.eq("x"))
            } else {
                query
            }
        };
        assert_eq!(text(&RenderedOnce(boxed(false))), text(&boxed(false)));
        assert_eq!(text(&RenderedOnce(boxed(true))), text(&boxed(true)));
        assert_ne!(text(&boxed(false)), text(&boxed(true)));
        assert_eq!(TEXTS.with_borrow(HashMap::len), 2, "only the two statements with a type of their own");
    }
}
