//! PostgreSQL adapters of customer management: the four repositories and the subscriber that turns
//! registered users into customers (from `identity.user.registered`'s payload), with the `table!`s of
//! the context's tables (`schema`) and its table of constraint names ([`CONSTRAINTS`]).
//!
//! Depends on `postgres-toolkit` (connections, transactions, the outbox, the mapper of diesel errors),
//! its own domain crate, `shared-kernel` and `event-contracts`, never on another context's domain or
//! adapter crate (`make check-boundaries`). What it needs of another context comes through a port of its
//! domain crate that the api crate wires (a user's standing and name: `crm_domain::UserDirectory`),
//! or in an event's payload; no statement here reads another context's tables.

mod customer_rows;
mod deal_rows;
pub(crate) mod errors;
/// The request field each constraint of this context's tables guards (the schema guard checks they exist).
pub use errors::CONSTRAINTS;
mod interaction_rows;
pub mod schema;

pub mod companies;
pub mod customer_from_user;
pub mod customers;
pub mod deals;
pub mod interactions;
pub mod user_customers;

pub use companies::PgCompanyRepository;
pub use customer_from_user::CustomerFromUser;
pub use customers::PgCustomerRepository;
pub use deals::PgDealRepository;
pub use interactions::PgInteractionRepository;
pub use user_customers::PgUserCustomers;

#[cfg(test)]
mod tests {
    use diesel::pg::Pg;
    use postgres_toolkit::counting::{count_up_to, Plans};
    use shared_kernel::PageRequest;

    /// The toolkit's bounded count over one of this context's tables (`postgres_toolkit::counting`).
    #[test]
    fn the_statement_wraps_the_query() {
        use crate::schema::customers;
        use diesel::prelude::*;
        let query = customers::table.filter(customers::deleted_at.is_null());
        let page = PageRequest::default();
        let sql = diesel::debug_query::<Pg, _>(&count_up_to(query, page, Plans::PerRun)).to_string();
        assert!(sql.starts_with("SELECT count(*) FROM (SELECT  FROM \"customers\" WHERE"), "{sql}");
        assert!(sql.contains("LIMIT $1) AS bounded"), "{sql}");
        assert!(sql.ends_with("[10001]"), "{sql}");
    }
}
