//! Subscriber: every registered user becomes a customer (docs/customer-management.md). The rule is
//! `crm_domain::application::CustomerFromUserService`'s; this consumer parses the event, calls it and
//! maps its failure for the bus (which retries, then dead-letters).

use std::sync::Arc;

use async_trait::async_trait;
use crm_domain::application::{CustomerFromUserService, RegisteredUser, SystemClock};
use event_contracts::identity::UserRegistered;
use event_contracts::Topic;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;

use super::user_customers::PgUserCustomers;
pub use super::user_customers::HANDLER_NAME;
use postgres_toolkit::DbPool;

pub struct CustomerFromUser {
    customers: CustomerFromUserService,
}

impl CustomerFromUser {
    pub fn new(pool: DbPool) -> Self {
        Self { customers: CustomerFromUserService::new(Arc::new(PgUserCustomers::new(pool)), Arc::new(SystemClock)) }
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

    #[tracing::instrument(skip_all, fields(event_id = %event.id, event = %event.name))]
    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        // The contract's `email` is a `shared_kernel::Email`: parsed by the rule identity applied at
        // registration, so an address identity accepted is one a customer may have.
        let user: UserRegistered = event.payload().map_err(failed)?;
        let registered = RegisteredUser { user_id: user.user_id, name: user.name, email: user.email };
        self.customers.customer_from_user(event.id, registered).await.map(|_| ()).map_err(failed)
    }
}
