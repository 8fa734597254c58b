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
use super::schema::customers;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::rendered::FirstRenderedOnce;
use postgres_toolkit::storage::live;

#[derive(Queryable, QueryableByName, Selectable)]
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

/// Status changes, one array per column (customer, from, to, reason, at), from the arrays named.
macro_rules! insert_history_from {
    ($arrays:literal) => {
        concat!(
            "INSERT INTO customer_status_history (customer_id, from_status, to_status, reason, changed_at) \
             SELECT * FROM unnest(",
            $arrays,
            ")"
        )
    };
}

/// New customers and their first status history rows, one array per column, a row per element, in one
/// statement: each statement of a transaction is an answer PostgreSQL flushes to Tally on its own
/// (docs/adr/0011-fewer-statements-a-write.md). One text for any number of
/// rows, so the statement stays prepared. A row's tags are its slice of one flat array, from
/// `tags_from` to `tags_to` (an empty slice when `tags_to < tags_from`): unnest cannot take an array
/// of arrays of different lengths. A history row belongs to the customer of its place (`$1`, the
/// customers' ids); its foreign key is checked at the end of the statement, after the customers are in.
const INSERT_CUSTOMERS: &str = concat!(
    "WITH history AS (",
    insert_history_from!("$1::uuid[], $17::text[], $18::text[], $19::text[], $20::timestamptz[]"),
    ") \
     INSERT INTO customers (id, user_id, company_id, name, email, phone, status, tier, \
     source, assigned_to, tags, created_at, updated_at, churned_at) \
     SELECT v.id, v.user_id, v.company_id, v.name, v.email, v.phone, v.status, v.tier, v.source, v.assigned_to, \
            ($11::text[])[v.tags_from:v.tags_to], v.created_at, v.updated_at, v.churned_at \
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], \
                 $9::text[], $10::uuid[], $12::int4[], $13::int4[], $14::timestamptz[], $15::timestamptz[], \
                 $16::timestamptz[]) \
       AS v(id, user_id, company_id, name, email, phone, status, tier, source, assigned_to, tags_from, tags_to, \
            created_at, updated_at, churned_at) \
     RETURNING id, user_id, company_id, name, email, phone, status, tier, source, assigned_to, tags, created_at, \
               updated_at, churned_at, deleted_at, version"
);

/// Status changes of existing customers, one array per column, as [`INSERT_CUSTOMERS`] takes them.
const INSERT_HISTORY: &str = insert_history_from!("$1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]");

/// Inserts the customer, its first history row and its events; call inside a transaction.
pub(crate) async fn insert_customer(conn: &AsyncPgConnection, created: &CustomerCreated) -> QueryResult<CustomerRow> {
    insert_customers(conn, &[created]).await?.pop().ok_or(diesel::result::Error::NotFound)
}

/// Inserts several new customers, their first history rows and their events in one statement per
/// table (each statement's fixed cost, its planning and its constraints' and indexes' set-up, paid once
/// for all: docs/adr/0012-shared-commits.md); their rows in the order given. Call
/// inside a transaction.
pub(crate) async fn insert_customers(
    conn: &AsyncPgConnection,
    created: &[&CustomerCreated],
) -> QueryResult<Vec<CustomerRow>> {
    let rows: Vec<&Customer> = created.iter().map(|c| &c.customer).collect();
    let history: Vec<&StatusChange> = created.iter().map(|c| &c.history).collect();
    let events: Vec<&EventEnvelope> = created.iter().flat_map(|c| &c.events).collect();
    // The two statements are sent at once, pipelined on the connection: one round trip. If the
    // customers' insert fails (a taken email), its error is the one returned and the transaction
    // rolls back.
    let (inserted, ()) = futures_util::future::try_join(
        insert_rows(conn, &rows, &history),
        postgres_toolkit::events::record_event(conn, &events),
    )
    .await?;
    // RETURNING lists rows as inserted; matched by id all the same.
    let mut by_id: HashMap<Uuid, CustomerRow> = inserted.into_iter().map(|row| (row.id, row)).collect();
    created.iter().map(|c| by_id.remove(&c.customer.id).ok_or(diesel::result::Error::NotFound)).collect()
}

/// `rows` with `history[i]`, the first status change of `rows[i]`.
async fn insert_rows(
    mut conn: &AsyncPgConnection,
    rows: &[&Customer],
    history: &[&StatusChange],
) -> QueryResult<Vec<CustomerRow>> {
    use diesel::sql_types::{Array, Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
    let mut tags: Vec<&str> = Vec::new();
    let (mut tags_from, mut tags_to) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
    for c in rows {
        // PostgreSQL arrays count from 1; at most 50 tags a customer, so the bounds fit an int4.
        tags_from.push(tags.len() as i32 + 1);
        tags.extend(c.tags.iter().map(String::as_str));
        tags_to.push(tags.len() as i32);
    }
    let column = |f: &dyn Fn(&Customer) -> Option<Uuid>| rows.iter().map(|c| f(c)).collect::<Vec<_>>();
    Prepared(
        diesel::sql_query(INSERT_CUSTOMERS)
            .bind::<Array<SqlUuid>, _>(rows.iter().map(|c| c.id).collect::<Vec<_>>())
            .bind::<Array<Nullable<SqlUuid>>, _>(column(&|c| c.user_id))
            .bind::<Array<Nullable<SqlUuid>>, _>(column(&|c| c.company_id))
            .bind::<Array<Text>, _>(rows.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(rows.iter().map(|c| c.email.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|c| c.phone.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(rows.iter().map(|c| c.status.as_str()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(rows.iter().map(|c| c.tier.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|c| c.source.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Nullable<SqlUuid>>, _>(column(&|c| c.assigned_to))
            .bind::<Array<Text>, _>(tags)
            .bind::<Array<Int4>, _>(tags_from)
            .bind::<Array<Int4>, _>(tags_to)
            .bind::<Array<Timestamptz>, _>(rows.iter().map(|c| c.created_at).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(rows.iter().map(|c| c.updated_at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamptz>>, _>(rows.iter().map(|c| c.churned_at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(
                history.iter().map(|c| c.from.map(CustomerStatus::as_str)).collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(history.iter().map(|c| c.to.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(history.iter().map(|c| c.reason.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(history.iter().map(|c| c.at).collect::<Vec<_>>()),
    )
    .get_results(&mut conn)
    .await
}

async fn insert_history_rows(mut conn: &AsyncPgConnection, rows: &[(Uuid, &StatusChange)]) -> QueryResult<()> {
    use diesel::sql_types::{Array, Nullable, Text, Timestamptz, Uuid as SqlUuid};
    Prepared(
        diesel::sql_query(INSERT_HISTORY)
            .bind::<Array<SqlUuid>, _>(rows.iter().map(|(id, _)| *id).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(
                rows.iter().map(|(_, c)| c.from.map(CustomerStatus::as_str)).collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(rows.iter().map(|(_, c)| c.to.as_str()).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(rows.iter().map(|(_, c)| c.reason.as_deref()).collect::<Vec<_>>())
            .bind::<Array<Timestamptz>, _>(rows.iter().map(|(_, c)| c.at).collect::<Vec<_>>()),
    )
    .execute(&mut conn)
    .await?;
    Ok(())
}

/// Inserts one status change of customer `customer_id`; call inside a transaction.
pub(crate) async fn insert_history(
    conn: &AsyncPgConnection,
    customer_id: Uuid,
    change: &StatusChange,
) -> QueryResult<()> {
    insert_history_rows(conn, &[(customer_id, change)]).await
}

/// The non-deleted customer `id`: selected by `id` alone, the deletion checked after ([`live`]).
pub(crate) async fn load_customer(mut conn: &AsyncPgConnection, id: Uuid) -> QueryResult<Option<CustomerRow>> {
    let found = customers::table
        .filter(customers::id.eq(id))
        .select((CustomerRow::as_select(), customers::deleted_at))
        .first_rendered_once(&mut conn)
        .await
        .optional()?;
    Ok(live(found))
}
