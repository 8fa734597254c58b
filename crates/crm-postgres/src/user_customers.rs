//! `crm_domain::UserCustomers` on PostgreSQL: the inbox mark, the read of what the user has, and the
//! link or insert the use case decided, in one transaction (docs/customer-management.md,
//! "Registration subscriber").

use async_trait::async_trait;
use crm_domain::ports::DecideUserCustomer;
use crm_domain::{Email, RepoError, UserCustomerMatch, UserCustomerPlan, UserCustomers};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::customer_rows::insert_customer;
use super::errors::CONSTRAINTS;
use super::schema::customers;
use postgres_toolkit::events::Delivery;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, TxError};
use postgres_toolkit::DbPool;

/// The inbox name of the registration subscriber.
pub const HANDLER_NAME: &str = "crm.customer_from_user";

/// Customers made from registered users, in PostgreSQL.
pub struct PgUserCustomers {
    pool: DbPool,
}

impl PgUserCustomers {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

/// What the user has: `(linked, customer with the email and no company)`, in one statement.
async fn found(
    mut conn: &AsyncPgConnection,
    user_id: Uuid,
    email: &Email,
) -> Result<UserCustomerMatch, diesel::result::Error> {
    let live = customers::deleted_at.is_null();
    let linked = customers::table.filter(customers::user_id.eq(user_id).and(live));
    let same_email = customers::table
        .filter(customers::email.eq(email.as_str()).and(customers::company_id.is_null()).and(live))
        .select(customers::id)
        .limit(1)
        .single_value();
    let (linked, same_email): (bool, Option<Uuid>) =
        diesel::select((diesel::dsl::exists(linked), same_email)).get_result(&mut conn).await?;
    Ok(match (linked, same_email) {
        (true, _) => UserCustomerMatch::Linked,
        (false, Some(customer_id)) => UserCustomerMatch::SameEmail { customer_id },
        (false, None) => UserCustomerMatch::Neither,
    })
}

#[async_trait]
impl UserCustomers for PgUserCustomers {
    #[tracing::instrument(skip_all, fields(user_id = %user_id, event_id = %delivery))]
    async fn settle_registration(
        &self,
        delivery: Uuid,
        user_id: Uuid,
        email: &Email,
        decide: DecideUserCustomer<'_>,
    ) -> Result<Option<UserCustomerPlan>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let settled = transaction(
            &mut conn,
            async |mut conn: &AsyncPgConnection| -> Result<Option<UserCustomerPlan>, TxError<RepoError>> {
                if !Delivery::new(delivery, HANDLER_NAME).claim(conn).await? {
                    return Ok(None);
                }
                let plan = decide(found(conn, user_id, email).await?);
                match &plan {
                    UserCustomerPlan::Nothing => {}
                    UserCustomerPlan::Link { customer_id, user_id, at } => {
                        let linked = Prepared(
                            diesel::update(customers::table)
                                .filter(customers::id.eq(customer_id))
                                .filter(customers::company_id.is_null().and(customers::deleted_at.is_null()))
                                .set((customers::user_id.eq(user_id), customers::updated_at.eq(at))),
                        )
                        .execute(&mut conn)
                        .await?;
                        // Deleted or given a company since the read: nothing is kept, the bus retries.
                        if linked == 0 {
                            return Err(TxError::Refused(RepoError::Stale));
                        }
                    }
                    UserCustomerPlan::Create(created) => {
                        insert_customer(conn, created).await?;
                    }
                }
                Ok(Some(plan))
            },
        )
        .await;
        settled.map_err(|error| error.resolve(&CONSTRAINTS))
    }
}
