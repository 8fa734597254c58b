//! [`TokenRevocations`] in memory.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use super::InMemoryIdentity;
use crate::ports::RepoError;
use crate::sessions::{Rotation, TokenRef, TokenRevocations};

#[async_trait]
impl TokenRevocations for InMemoryIdentity {
    async fn revoke(&self, jti: Uuid, expires_at: OffsetDateTime) -> Result<(), RepoError> {
        self.lock().tokens.entry(jti).and_modify(|(revoked, _)| *revoked = true).or_insert((true, expires_at));
        Ok(())
    }

    /// Also revoked: a token of a missing user, or of an earlier token version (as PostgreSQL answers).
    async fn is_revoked(&self, token: &TokenRef) -> Result<bool, RepoError> {
        let state = self.lock();
        let own = state.tokens.get(&token.jti).is_some_and(|(revoked, _)| *revoked);
        let family = token.family.is_some_and(|f| state.families.contains_key(&f));
        let outdated = state.users.get(&token.user_id).is_none_or(|u| u.token_version != token.token_version);
        Ok(own || family || outdated)
    }

    async fn rotate(
        &self,
        jti: Uuid,
        expires_at: OffsetDateTime,
        family: Uuid,
        family_expires_at: OffsetDateTime,
    ) -> Result<Rotation, RepoError> {
        let mut state = self.lock();
        let family_was_revoked = state.families.contains_key(&family);
        let first_use = !state.tokens.contains_key(&jti);
        if first_use {
            state.tokens.insert(jti, (false, expires_at));
        } else {
            let until = state.families.entry(family).or_insert(family_expires_at);
            *until = (*until).max(family_expires_at);
        }
        Ok(match (first_use, family_was_revoked) {
            (_, true) => Rotation::FamilyRevoked,
            (true, false) => Rotation::Rotated,
            (false, false) => Rotation::Reused,
        })
    }

    async fn sweep(&self) -> Result<u64, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let before = state.tokens.len() + state.families.len();
        state.tokens.retain(|_, (_, until)| *until >= now);
        state.families.retain(|_, until| *until >= now);
        Ok(u64::try_from(before - state.tokens.len() - state.families.len()).unwrap_or(u64::MAX))
    }
}
