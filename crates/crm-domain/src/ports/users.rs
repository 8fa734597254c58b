//! What customer management asks about the users of identity (a port the api's wiring implements over
//! identity's own ports, so no CRM adapter reads identity's tables).

use std::collections::HashMap;

use async_trait::async_trait;
use uuid::Uuid;

use super::RepoError;

/// Where a user account stands, as far as customer management cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserStanding {
    /// May be a customer's or a deal's sales rep.
    Active,
    /// Exists (may be linked or attend), but may not be put in charge of anything.
    Inactive,
}

/// The users customer management refers to: sales reps (`assigned_to`), linked accounts (`user_id`)
/// and interaction attendees.
#[async_trait]
pub trait UserDirectory: Send + Sync {
    /// The standing of user `id`; `None` when there is no such user. One read.
    async fn standing(&self, id: Uuid) -> Result<Option<UserStanding>, RepoError>;

    /// The users among `ids` that exist (of any standing), with their names. One read, however many.
    async fn names(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, String>, RepoError>;
}
