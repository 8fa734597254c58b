//! Sessions: renewing one with its refresh token, and revoking a token (docs/identity.md, "Tokens").
//! Signing and checking a token's signature is the api's (`auth/tokens.rs`); what a verified token
//! may still do is decided here.

use std::sync::Arc;

use shared_kernel::application::Clock;
use time::OffsetDateTime;
use tracing::instrument;
use uuid::Uuid;

use super::guard::{authorize, Target};
use super::ports::AccessDirectory;
use super::{AccountPolicy, Actor, IdentityPorts};
use crate::authz::AccountAction;
use crate::roles::RoleRepository;
use crate::sessions::TokenRevocations;
use crate::user::UserStatus;
use crate::{IdentityError, Refusal};

/// The claims of a token whose signature was verified, that decide what it may still do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresentedToken {
    /// The token's id (`jti`).
    pub jti: Uuid,
    /// Its refresh-token family (`fam`); `None` for a token issued before families existed.
    pub family: Option<Uuid>,
    /// Whose it is.
    pub user_id: Uuid,
    /// The user's token version it was issued with (`tv`).
    pub token_version: i32,
    /// When it expires, in Unix seconds (`exp`).
    pub expires_at: i64,
}

impl PresentedToken {
    /// The token's family: tokens issued before families existed form a family of their own.
    pub fn family(&self) -> Uuid {
        self.family.unwrap_or(self.jti)
    }
}

/// What a renewed session's new pair carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renewal {
    /// The session's family, kept across renewals.
    pub family: Uuid,
    /// The user's roles now.
    pub roles: Vec<String>,
    /// The user's token version now.
    pub token_version: i32,
}

/// Token refresh and revocation.
#[derive(Clone)]
pub struct Sessions {
    revocations: Arc<dyn TokenRevocations>,
    access: Arc<dyn AccessDirectory>,
    roles: Arc<dyn RoleRepository>,
    clock: Arc<dyn Clock>,
    refresh_ttl: std::time::Duration,
}

fn instant(unix: i64, otherwise: OffsetDateTime) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(unix).unwrap_or(otherwise)
}

impl Sessions {
    /// The service over `ports`, with the session length of `policy`.
    pub fn new(ports: &IdentityPorts, policy: AccountPolicy) -> Self {
        Self {
            revocations: ports.revocations.clone(),
            access: ports.access.clone(),
            roles: ports.roles.clone(),
            clock: ports.clock.clone(),
            refresh_ttl: policy.refresh_ttl,
        }
    }

    /// Spends a refresh token and says what the next pair carries. The first presenter spends it;
    /// presenting it again means it was copied, and its whole family ends (`TokenRevoked`). Then
    /// the user must still exist (`TokenUserGone`), be active (`AccountNotActive`) and hold the
    /// token's version (`TokenRevoked`).
    #[instrument(skip_all, fields(user_id = %token.user_id, family = %token.family()))]
    pub async fn refresh(&self, token: PresentedToken) -> Result<Renewal, IdentityError> {
        let family = token.family();
        let now = self.clock.now();
        let rotation =
            self.revocations.rotate(token.jti, instant(token.expires_at, now), family, now + self.refresh_ttl).await?;
        if rotation == crate::Rotation::Reused {
            tracing::warn!(user_id = %token.user_id, %family, "refresh token reused; its family is revoked");
        }
        if !rotation.allows_refresh() {
            return Err(IdentityError::TokenRevoked);
        }
        let access = self.access.reload(token.user_id).await?.ok_or(IdentityError::TokenUserGone)?;
        if access.status != UserStatus::Active {
            return Err(IdentityError::AccountNotActive(access.status.as_str()));
        }
        if access.token_version != token.token_version {
            return Err(IdentityError::TokenRevoked);
        }
        Ok(Renewal { family, roles: access.roles, token_version: access.token_version })
    }

    /// Revokes a token until it would have expired (an expired one needs nothing). Someone else's
    /// only as an administrator (`Refused(OthersToken)`), and a superadmin's only as a superadmin.
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %token.user_id))]
    pub async fn revoke(&self, actor: &Actor<'_>, token: PresentedToken) -> Result<(), IdentityError> {
        if token.user_id != actor.user_id {
            if !actor.is_admin() {
                return Err(IdentityError::Refused(Refusal::OthersToken));
            }
            authorize(&*self.roles, actor, Target::User(token.user_id), AccountAction::RevokeCredential).await?;
        }
        let now = self.clock.now();
        if token.expires_at > now.unix_timestamp() {
            self.revocations.revoke(token.jti, instant(token.expires_at, now)).await?;
        }
        Ok(())
    }
}
