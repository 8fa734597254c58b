//! API keys (docs/identity.md, "API keys"): made only with the person's password asked again,
//! each a subset of its maker's permissions; seen and revoked by their owner, or by an
//! administrator (a superadmin's only by a superadmin).

use std::sync::Arc;

use shared_kernel::application::Clock;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use tracing::instrument;
use uuid::Uuid;

use super::accounts::Credentials;
use super::guard::{authorize, Target};
use super::ports::KeySecrets;
use super::{Actor, IdentityPorts};
use crate::api_key::{ApiKeyRecord, ApiKeyRepository, NewApiKey};
use crate::authz::AccountAction;
use crate::ports::RepoError;
use crate::roles::RoleRepository;
use crate::{IdentityError, Missing};

/// A key as asked for.
#[derive(Debug, Clone)]
pub struct KeyRequest {
    /// What the key is for.
    pub name: String,
    /// `resource:action` names, each one the maker holds.
    pub permissions: Vec<String>,
    /// When it stops working; none: never.
    pub expires_at: Option<OffsetDateTime>,
    /// The maker's password, asked again.
    pub current_password: String,
}

/// A key just made: its record and, this once, the key itself.
#[derive(Debug, Clone)]
pub struct IssuedKey {
    /// The stored key.
    pub record: ApiKeyRecord,
    /// The key (`tly_…`), shown only now.
    pub key: String,
}

/// Service credentials.
#[derive(Clone)]
pub struct ApiKeys {
    keys: Arc<dyn ApiKeyRepository>,
    roles: Arc<dyn RoleRepository>,
    secrets: Arc<dyn KeySecrets>,
    credentials: Credentials,
    clock: Arc<dyn Clock>,
}

/// Whose keys the actor may see and revoke: their own; an administrator's, everyone's (`None`).
fn owner_scope(actor: &Actor<'_>) -> Option<Uuid> {
    (!actor.is_admin()).then_some(actor.user_id)
}

impl ApiKeys {
    pub(crate) fn new(ports: &IdentityPorts, credentials: Credentials) -> Self {
        Self {
            keys: ports.api_keys.clone(),
            roles: ports.roles.clone(),
            secrets: ports.secrets.clone(),
            credentials,
            clock: ports.clock.clone(),
        }
    }

    /// Makes a key for the actor. Refused, in this order: the name, permissions (each one the
    /// actor holds) or expiry; no password; a wrong one (counted toward the lock-out, as at
    /// login); the actor already holds the most live keys (`TooManyApiKeys`).
    #[instrument(skip_all, fields(actor = %actor.user_id))]
    pub async fn create(&self, actor: &Actor<'_>, request: KeyRequest) -> Result<IssuedKey, IdentityError> {
        let now = self.clock.now();
        let key = NewApiKey::validate(&request.name, &request.permissions, request.expires_at, actor.permissions, now)?;
        if request.current_password.is_empty() {
            return Err(IdentityError::invalid("current_password", "is required"));
        }
        self.credentials.confirm(actor.user_id, &request.current_password).await?;
        let secret = self.secrets.generate()?;
        let record = ApiKeyRecord {
            id: shared_kernel::new_id(),
            user_id: actor.user_id,
            name: key.name,
            prefix: secret.shown_prefix,
            permissions: key.permissions.iter().map(|p| p.name()).collect(),
            created_at: now,
            last_used_at: None,
            expires_at: key.expires_at,
            revoked_at: None,
        };
        let saved = self.keys.create(&record, &secret.hash).await?.ok_or(IdentityError::TooManyApiKeys)?;
        Ok(IssuedKey { record: saved, key: secret.key })
    }

    /// The actor's keys, newest first; an administrator's: everyone's.
    #[instrument(skip_all, fields(actor = %actor.user_id))]
    pub async fn list(&self, actor: &Actor<'_>, page: PageRequest) -> Result<Page<ApiKeyRecord>, IdentityError> {
        Ok(self.keys.list(owner_scope(actor), page).await?)
    }

    /// Revokes key `id` at once (again: no change). Someone else's key only as an administrator
    /// (it does not exist for anyone else), a superadmin's only as a superadmin.
    #[instrument(skip_all, fields(actor = %actor.user_id, key_id = %id))]
    pub async fn revoke(&self, actor: &Actor<'_>, id: Uuid) -> Result<ApiKeyRecord, IdentityError> {
        let owner = owner_scope(actor);
        if owner.is_none() {
            let key = self.keys.find(id).await?;
            if let Some(key) = key.filter(|k| k.user_id != actor.user_id) {
                authorize(&*self.roles, actor, Target::User(key.user_id), AccountAction::RevokeCredential).await?;
            }
        }
        self.keys.revoke(id, owner, self.clock.now()).await.map_err(|error| match error {
            RepoError::NotFound => IdentityError::NotFound(Missing::ApiKey),
            other => other.into(),
        })
    }
}
