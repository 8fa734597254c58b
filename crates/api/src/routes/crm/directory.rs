//! Customer management's view of identity's users (`crm_domain::UserDirectory`), over identity's
//! own port: the wiring is the one place the two contexts meet.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use crm_domain::{RepoError, UserDirectory, UserStanding};
use identity_domain::ports::UserRepository;
use identity_domain::UserStatus;
use uuid::Uuid;

/// Asks identity's [`UserRepository`] whether a user exists and is active.
pub struct IdentityUsers {
    users: Arc<dyn UserRepository>,
}

impl IdentityUsers {
    pub fn new(users: Arc<dyn UserRepository>) -> Self {
        Self { users }
    }
}

#[async_trait]
impl UserDirectory for IdentityUsers {
    #[tracing::instrument(skip_all, fields(user_id = %id))]
    async fn standing(&self, id: Uuid) -> Result<Option<UserStanding>, RepoError> {
        let user = self.users.find_by_id(id).await?;
        Ok(user.map(|user| match user.status {
            UserStatus::Active => UserStanding::Active,
            _ => UserStanding::Inactive,
        }))
    }

    #[tracing::instrument(skip_all, fields(users = ids.len()))]
    async fn names(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, String>, RepoError> {
        Ok(self.users.names(ids).await?.into_iter().collect())
    }
}
