//! Subscriber: every registered user becomes a customer (docs/customer-management.md).
//!
//! A customer with the user's email and no company is linked instead of duplicated. The inbox mark,
//! the link or insert, the history row and `customer.created` commit together, so a redelivered or
//! re-published event changes nothing.

use async_trait::async_trait;
use crm_domain::{Customer, CustomerStatus, NewCustomer, Tier};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use event_contracts::identity::UserRegistered;
use event_contracts::Topic;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

use super::customer_rows::insert_customer;
use super::schema::customers;
use crate::events::Delivery;
use crate::pipeline::transaction;
use crate::prepared::Prepared;
use crate::DbPool;

pub const HANDLER_NAME: &str = "crm.customer_from_user";

pub struct CustomerFromUser {
    pool: DbPool,
}

impl CustomerFromUser {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

fn failed(error: impl std::fmt::Display) -> HandlerError {
    HandlerError::new(error.to_string())
}

#[async_trait]
impl EventHandler for CustomerFromUser {
    fn name(&self) -> &'static str {
        HANDLER_NAME
    }

    fn handles(&self, event_name: &str) -> bool {
        event_name == UserRegistered::NAME
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        // The contract's `email` is a `shared_kernel::Email`: parsed by the rule identity applied at
        // registration, so an address identity accepted is one a customer may have.
        let user: UserRegistered = event.payload().map_err(failed)?;
        let now = OffsetDateTime::now_utc();
        let email = user.email;
        let input = NewCustomer {
            user_id: Some(user.user_id),
            name: user.name,
            email: email.as_str().to_owned(),
            status: Some(CustomerStatus::Lead),
            tier: Some(Tier::Free),
            source: Some("website".to_owned()),
            ..NewCustomer::default()
        };
        let created = Customer::new(input, now).map_err(failed)?;
        let mut conn = self.pool.get().await.map_err(failed)?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), diesel::result::Error> {
            if !Delivery::new(event.id, HANDLER_NAME).claim(conn).await? {
                return Ok(());
            }
            let already_linked: i64 = customers::table
                .filter(customers::user_id.eq(user.user_id).and(customers::deleted_at.is_null()))
                .count()
                .get_result(&mut conn)
                .await?;
            if already_linked > 0 {
                return Ok(());
            }
            let linked = Prepared(
                diesel::update(customers::table)
                    .filter(customers::email.eq(email.as_str()))
                    .filter(customers::company_id.is_null().and(customers::deleted_at.is_null()))
                    .set((customers::user_id.eq(user.user_id), customers::updated_at.eq(now))),
            )
            .execute(&mut conn)
            .await?;
            if linked == 0 {
                insert_customer(conn, &created).await?;
            }
            Ok(())
        })
        .await
        .map_err(failed)
    }
}
