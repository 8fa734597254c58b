//! Customer rows: loading, the insert shared by the repository and the registration subscriber,
//! and the status history.

use crm_domain::{Customer, CustomerCreated, CustomerStatus, Email, RepoError, StatusChange, Tier};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shared_kernel::EventEnvelope;
use std::collections::HashMap;
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::corrupt;
use super::schema::{customer_status_history, customers};
use crate::prepared::PreparedIfFew;

#[derive(Queryable, Selectable)]
#[diesel(table_name = customers)]
pub(crate) struct CustomerRow {
    id: Uuid,
    user_id: Option<Uuid>,
    company_id: Option<Uuid>,
    name: String,
    email: String,
    phone: Option<String>,
    status: String,
    tier: String,
    source: Option<String>,
    assigned_to: Option<Uuid>,
    tags: Vec<String>,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    churned_at: Option<OffsetDateTime>,
    deleted_at: Option<OffsetDateTime>,
    version: i64,
}

impl TryFrom<CustomerRow> for Customer {
    type Error = RepoError;

    fn try_from(r: CustomerRow) -> Result<Self, RepoError> {
        Ok(Customer {
            version: r.version,
            email: Email::parse(&r.email).map_err(|_| corrupt("email", &r.email))?,
            status: CustomerStatus::parse(&r.status).map_err(|_| corrupt("status", &r.status))?,
            tier: Tier::parse(&r.tier).map_err(|_| corrupt("tier", &r.tier))?,
            id: r.id,
            user_id: r.user_id,
            company_id: r.company_id,
            name: r.name,
            phone: r.phone,
            source: r.source,
            assigned_to: r.assigned_to,
            tags: r.tags,
            created_at: r.created_at,
            updated_at: r.updated_at,
            churned_at: r.churned_at,
            deleted_at: r.deleted_at,
        })
    }
}

/// Converts loaded rows, failing on the first impossible value.
pub(crate) fn to_customers(rows: Vec<CustomerRow>) -> Result<Vec<Customer>, RepoError> {
    rows.into_iter().map(Customer::try_from).collect()
}

/// A customer as inserted. `None` is written as NULL, not `DEFAULT` (no optional column has another
/// default), so a statement's text depends only on its number of rows.
#[derive(Insertable)]
#[diesel(table_name = customers, treat_none_as_default_value = false)]
struct NewCustomerRow<'a> {
    id: Uuid,
    user_id: Option<Uuid>,
    company_id: Option<Uuid>,
    name: &'a str,
    email: &'a str,
    phone: Option<&'a str>,
    status: &'a str,
    tier: &'a str,
    source: Option<&'a str>,
    assigned_to: Option<Uuid>,
    tags: &'a [String],
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    churned_at: Option<OffsetDateTime>,
}

impl<'a> From<&'a Customer> for NewCustomerRow<'a> {
    fn from(c: &'a Customer) -> Self {
        Self {
            id: c.id,
            user_id: c.user_id,
            company_id: c.company_id,
            name: &c.name,
            email: c.email.as_str(),
            phone: c.phone.as_deref(),
            status: c.status.as_str(),
            tier: c.tier.as_str(),
            source: c.source.as_deref(),
            assigned_to: c.assigned_to,
            tags: &c.tags,
            created_at: c.created_at,
            updated_at: c.updated_at,
            churned_at: c.churned_at,
        }
    }
}

/// A history row as inserted.
#[derive(Insertable)]
#[diesel(table_name = customer_status_history, treat_none_as_default_value = false)]
struct NewHistoryRow<'a> {
    customer_id: Uuid,
    from_status: Option<&'a str>,
    to_status: &'a str,
    reason: Option<&'a str>,
    changed_at: OffsetDateTime,
}

impl<'a> NewHistoryRow<'a> {
    fn new(customer_id: Uuid, change: &'a StatusChange) -> Self {
        Self {
            customer_id,
            from_status: change.from.map(CustomerStatus::as_str),
            to_status: change.to.as_str(),
            reason: change.reason.as_deref(),
            changed_at: change.at,
        }
    }
}

/// Inserts the customer, its first history row and its events; call inside a transaction.
pub(crate) async fn insert_customer(conn: &AsyncPgConnection, created: &CustomerCreated) -> QueryResult<CustomerRow> {
    insert_customers(conn, &[created]).await?.pop().ok_or(diesel::result::Error::NotFound)
}

/// Inserts several new customers, their first history rows and their events in one statement per
/// table (each statement's fixed cost, its planning and its constraints' and indexes' set-up, paid once
/// for all: docs/performance.md); their rows in the order given. Call inside a transaction.
pub(crate) async fn insert_customers(
    conn: &AsyncPgConnection,
    created: &[&CustomerCreated],
) -> QueryResult<Vec<CustomerRow>> {
    let rows: Vec<NewCustomerRow<'_>> = created.iter().map(|c| NewCustomerRow::from(&c.customer)).collect();
    let history: Vec<NewHistoryRow<'_>> =
        created.iter().map(|c| NewHistoryRow::new(c.customer.id, &c.history)).collect();
    let events: Vec<EventEnvelope> = created.iter().flat_map(|c| c.events.iter().cloned()).collect();
    // The three inserts are sent at once, pipelined on the connection: one round trip instead of
    // three. They run in order, so the history rows' foreign key finds the customers; if the customer
    // insert fails (a taken email), its error is the one returned and the transaction rolls back.
    let (inserted, (), ()) = futures_util::future::try_join3(
        insert_rows(conn, &rows),
        insert_history_rows(conn, &history),
        crate::events::record_event(conn, &events),
    )
    .await?;
    // RETURNING lists rows as inserted; matched by id all the same.
    let mut by_id: HashMap<Uuid, CustomerRow> = inserted.into_iter().map(|row| (row.id, row)).collect();
    created.iter().map(|c| by_id.remove(&c.customer.id).ok_or(diesel::result::Error::NotFound)).collect()
}

async fn insert_rows(mut conn: &AsyncPgConnection, rows: &[NewCustomerRow<'_>]) -> QueryResult<Vec<CustomerRow>> {
    let insert = diesel::insert_into(customers::table).values(rows).returning(CustomerRow::as_returning());
    PreparedIfFew::new(insert, rows.len()).get_results(&mut conn).await
}

async fn insert_history_rows(mut conn: &AsyncPgConnection, rows: &[NewHistoryRow<'_>]) -> QueryResult<()> {
    let insert = diesel::insert_into(customer_status_history::table).values(rows);
    PreparedIfFew::new(insert, rows.len()).execute(&mut conn).await?;
    Ok(())
}

/// Inserts one status change of customer `customer_id`; call inside a transaction.
pub(crate) async fn insert_history(
    conn: &AsyncPgConnection,
    customer_id: Uuid,
    change: &StatusChange,
) -> QueryResult<()> {
    insert_history_rows(conn, &[NewHistoryRow::new(customer_id, change)]).await
}

/// The non-deleted customer `id`.
pub(crate) async fn load_customer(conn: &mut AsyncPgConnection, id: Uuid) -> QueryResult<Option<CustomerRow>> {
    customers::table
        .filter(customers::id.eq(id).and(customers::deleted_at.is_null()))
        .select(CustomerRow::as_select())
        .first(conn)
        .await
        .optional()
}
