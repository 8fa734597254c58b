//! Customer rows: loading, the insert shared by the repository and the registration subscriber,
//! and the status history.

use crm_domain::{Customer, CustomerCreated, CustomerStatus, Email, RepoError, StatusChange, Tier};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::corrupt;
use super::schema::{customer_status_history, customers};
use crate::prepared::Prepared;

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

#[derive(Insertable)]
#[diesel(table_name = customers)]
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

/// Inserts the customer, its first history row and its events; call inside a transaction.
pub(crate) async fn insert_customer(conn: &AsyncPgConnection, created: &CustomerCreated) -> QueryResult<CustomerRow> {
    let c = &created.customer;
    // The three inserts are sent at once, pipelined on the connection: one round trip instead of
    // three. They run in order, so the history row's foreign key finds the customer; if the customer
    // insert fails (a taken email), its error is the one returned and the transaction rolls back.
    let (row, (), ()) = futures_util::future::try_join3(
        insert_row(conn, c),
        insert_history(conn, c.id, &created.history),
        crate::events::record_event(conn, &created.events),
    )
    .await?;
    Ok(row)
}

async fn insert_row(mut conn: &AsyncPgConnection, c: &Customer) -> QueryResult<CustomerRow> {
    Prepared(
        diesel::insert_into(customers::table)
            .values(NewCustomerRow {
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
            })
            .returning(CustomerRow::as_returning()),
    )
    .get_result(&mut conn)
    .await
}

pub(crate) async fn insert_history(
    mut conn: &AsyncPgConnection,
    customer_id: Uuid,
    change: &StatusChange,
) -> QueryResult<()> {
    Prepared(diesel::insert_into(customer_status_history::table).values((
        customer_status_history::customer_id.eq(customer_id),
        customer_status_history::from_status.eq(change.from.map(CustomerStatus::as_str)),
        customer_status_history::to_status.eq(change.to.as_str()),
        customer_status_history::reason.eq(change.reason.as_deref()),
        customer_status_history::changed_at.eq(change.at),
    )))
    .execute(&mut conn)
    .await?;
    Ok(())
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
