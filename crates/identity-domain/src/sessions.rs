//! Sessions: refresh-token families and token revocation.
//!
//! Every login starts a *family*; each refresh rotates the presented refresh
//! token (it can be used once) and issues the next one in the same family.
//! Presenting an already-rotated refresh token means it was copied: the whole
//! family is revoked, access tokens included.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::ports::RepoError;

/// What presenting a refresh token found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotation {
    /// First use: the token is spent now and a successor may be issued.
    Rotated,
    /// The token was already rotated or revoked: its family is revoked now.
    Reused,
    /// The family had already been revoked.
    FamilyRevoked,
}

impl Rotation {
    /// Whether a new pair may be issued.
    pub fn allows_refresh(self) -> bool {
        matches!(self, Self::Rotated)
    }
}

/// The token being checked: what of its claims decides whether it is revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenRef {
    /// The token's own id (claim `jti`).
    pub jti: Uuid,
    /// The session family it descends from (claim `fam`); `None` for a token issued outside one.
    pub family: Option<Uuid>,
    /// The user the token is for (claim `sub`).
    pub user_id: Uuid,
    /// The user's token version when the token was issued.
    pub token_version: i32,
}

/// Where revocations live: PostgreSQL without Redis, Redis with it. Entries
/// are kept until the tokens they name would have expired anyway.
#[async_trait]
pub trait TokenRevocations: Send + Sync {
    /// Revokes one token (by `jti`) until `expires_at`.
    async fn revoke(&self, jti: Uuid, expires_at: OffsetDateTime) -> Result<(), RepoError>;
    /// Whether the token, or the family it belongs to, is revoked. The
    /// PostgreSQL store also answers for the user's token version in the same
    /// lookup, so a password change, suspension or promotion made by another
    /// process ends the user's sessions at once, whatever a cache still holds.
    async fn is_revoked(&self, token: &TokenRef) -> Result<bool, RepoError>;
    /// Spends a refresh token atomically; on reuse revokes its family until
    /// `family_expires_at` (the latest expiry any member can have).
    async fn rotate(
        &self,
        jti: Uuid,
        expires_at: OffsetDateTime,
        family: Uuid,
        family_expires_at: OffsetDateTime,
    ) -> Result<Rotation, RepoError>;
    /// Forgets entries whose tokens have expired; returns how many.
    async fn sweep(&self) -> Result<u64, RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_first_rotation_refreshes() {
        assert!(Rotation::Rotated.allows_refresh());
        assert!(!Rotation::Reused.allows_refresh());
        assert!(!Rotation::FamilyRevoked.allows_refresh());
    }
}
