//! Revocations and callers' access held in process memory, kept current by
//! the database's `tally_auth` notices, so an authenticated request needs no
//! query of its own. Only trusted while the listener is connected ("live"):
//! when it is not, every question answers "ask the database" and requests
//! take the checked path, as without this module.
//!
//! A profile loaded from the database is kept only if no notice arrived while
//! it was being read (the `generation` check), so a change that commits during
//! the read can never be overwritten by what the read saw.

use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;
use identity_domain::ports::{AccessProfile, RepoError};
use identity_domain::{PermissionSet, Rotation, TokenRef, TokenRevocations, UserStatus};
use identity_postgres::auth_notices::{AuthNotice, Revoked};
use time::OffsetDateTime;
use uuid::Uuid;

/// More cached callers than this and the cache starts over: a bound on memory,
/// paid for with one query per caller afterwards.
const MAX_PROFILES: usize = 10_000;

/// What a caller may do right now, parsed once and shared by their requests.
#[derive(Debug)]
pub struct CallerAccess {
    pub status: UserStatus,
    pub token_version: i32,
    pub roles: Arc<[String]>,
    pub permissions: Arc<PermissionSet>,
}

impl From<AccessProfile> for CallerAccess {
    fn from(profile: AccessProfile) -> Self {
        Self {
            status: profile.status,
            token_version: profile.token_version,
            roles: profile.roles.into(),
            permissions: Arc::new(PermissionSet::from_names(profile.permissions)),
        }
    }
}

#[derive(Default)]
struct State {
    live: bool,
    /// Bumped by every notice or reset that may make a profile stale.
    generation: u64,
    revoked_tokens: HashMap<Uuid, OffsetDateTime>,
    revoked_families: HashMap<Uuid, OffsetDateTime>,
    profiles: HashMap<Uuid, Arc<CallerAccess>>,
}

/// Shared by the auth guard, the revocation adapter and the listener task.
#[derive(Default)]
pub struct LiveAuth {
    state: RwLock<State>,
}

impl LiveAuth {
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn is_live(&self) -> bool {
        self.read().live
    }

    /// `None` when not live (ask the database).
    pub fn is_revoked(&self, jti: Uuid, family: Option<Uuid>) -> Option<bool> {
        let state = self.read();
        state.live.then(|| {
            state.revoked_tokens.contains_key(&jti) || family.is_some_and(|f| state.revoked_families.contains_key(&f))
        })
    }

    /// The cached profile, or `Err(generation)` to pass to `remember` after
    /// reading it from the database; `None` when not live.
    pub fn profile(&self, user_id: Uuid) -> Option<Result<Arc<CallerAccess>, u64>> {
        let state = self.read();
        state.live.then(|| state.profiles.get(&user_id).cloned().ok_or(state.generation))
    }

    /// The generation to pass to `remember`; `None` when not live.
    pub fn generation(&self) -> Option<u64> {
        let state = self.read();
        state.live.then_some(state.generation)
    }

    /// Keeps `access` unless something changed since `generation`.
    pub fn remember(&self, user_id: Uuid, access: Arc<CallerAccess>, generation: u64) {
        let mut state = self.write();
        if !state.live || state.generation != generation {
            return;
        }
        if state.profiles.len() >= MAX_PROFILES {
            state.profiles.clear();
        }
        state.profiles.insert(user_id, access);
    }

    /// The listener connected: start from the revocations in force.
    #[tracing::instrument(level = "debug", name = "live_auth.go_live", skip_all)]
    pub fn go_live(&self, revoked: Revoked) {
        let now = OffsetDateTime::now_utc();
        let mut state = self.write();
        state.revoked_tokens = revoked.tokens.into_iter().filter(|(_, until)| *until > now).collect();
        state.revoked_families = revoked.families.into_iter().filter(|(_, until)| *until > now).collect();
        state.profiles.clear();
        state.generation += 1;
        state.live = true;
    }

    /// The listener lost its connection: notices may be missed from now on.
    #[tracing::instrument(level = "debug", name = "live_auth.go_down", skip_all)]
    pub fn go_down(&self) {
        let mut state = self.write();
        state.live = false;
        state.profiles.clear();
        state.generation += 1;
    }

    #[tracing::instrument(level = "debug", name = "live_auth.apply", skip_all)]
    pub fn apply(&self, notice: AuthNotice) {
        match notice {
            AuthNotice::User(user_id) => self.forget_user(user_id),
            AuthNotice::All => self.forget_all(),
            AuthNotice::Token { jti, expires_at } => self.revoke_token(jti, expires_at),
            AuthNotice::Family { family, expires_at } => self.revoke_family(family, expires_at),
        }
    }

    /// Also called by this process right after its own change commits, so
    /// its next request does not depend on the notice's arrival.
    pub fn forget_user(&self, user_id: Uuid) {
        let mut state = self.write();
        state.profiles.remove(&user_id);
        state.generation += 1;
    }

    pub fn forget_all(&self) {
        let mut state = self.write();
        state.profiles.clear();
        state.generation += 1;
    }

    pub fn revoke_token(&self, jti: Uuid, expires_at: OffsetDateTime) {
        if expires_at > OffsetDateTime::now_utc() {
            self.write().revoked_tokens.insert(jti, expires_at);
        }
    }

    pub fn revoke_family(&self, family: Uuid, expires_at: OffsetDateTime) {
        if expires_at > OffsetDateTime::now_utc() {
            let mut state = self.write();
            let until = state.revoked_families.entry(family).or_insert(expires_at);
            *until = (*until).max(expires_at);
        }
    }

    /// Drops revocations of tokens that have expired anyway.
    pub fn forget_expired(&self) -> usize {
        let now = OffsetDateTime::now_utc();
        let mut state = self.write();
        let before = state.revoked_tokens.len() + state.revoked_families.len();
        state.revoked_tokens.retain(|_, until| *until > now);
        state.revoked_families.retain(|_, until| *until > now);
        before - state.revoked_tokens.len() - state.revoked_families.len()
    }
}

/// The revocation store with the live state in front of it: questions are
/// answered from memory while live, and this process's own revocations are
/// applied to memory as soon as they commit.
pub struct LiveRevocations {
    stored: Arc<dyn TokenRevocations>,
    live: Arc<LiveAuth>,
}

impl LiveRevocations {
    pub fn new(stored: Arc<dyn TokenRevocations>, live: Arc<LiveAuth>) -> Self {
        Self { stored, live }
    }
}

#[async_trait]
impl TokenRevocations for LiveRevocations {
    async fn revoke(&self, jti: Uuid, expires_at: OffsetDateTime) -> Result<(), RepoError> {
        self.stored.revoke(jti, expires_at).await?;
        self.live.revoke_token(jti, expires_at);
        Ok(())
    }

    /// From memory, the token's own revocation and its family's only: the
    /// token version is checked against the caller's live profile.
    async fn is_revoked(&self, token: &TokenRef) -> Result<bool, RepoError> {
        match self.live.is_revoked(token.jti, token.family) {
            Some(revoked) => Ok(revoked),
            None => self.stored.is_revoked(token).await,
        }
    }

    async fn rotate(
        &self,
        jti: Uuid,
        expires_at: OffsetDateTime,
        family: Uuid,
        family_expires_at: OffsetDateTime,
    ) -> Result<Rotation, RepoError> {
        let rotation = self.stored.rotate(jti, expires_at, family, family_expires_at).await?;
        if rotation != Rotation::Rotated {
            self.live.revoke_family(family, family_expires_at);
        }
        Ok(rotation)
    }

    async fn sweep(&self) -> Result<u64, RepoError> {
        self.live.forget_expired();
        self.stored.sweep().await
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;

    use super::*;

    fn access(version: i32) -> Arc<CallerAccess> {
        Arc::new(CallerAccess::from(AccessProfile {
            status: UserStatus::Active,
            token_version: version,
            roles: vec!["staff".into()],
            permissions: vec!["customers:read".into()],
        }))
    }

    fn live() -> LiveAuth {
        let auth = LiveAuth::default();
        auth.go_live(Revoked::default());
        auth
    }

    fn cached(auth: &LiveAuth, user: Uuid) -> Option<i32> {
        auth.profile(user).and_then(Result::ok).map(|a| a.token_version)
    }

    #[test]
    fn nothing_is_answered_from_memory_until_live() {
        let auth = LiveAuth::default();
        assert_eq!(auth.is_revoked(Uuid::from_u128(1), None), None);
        assert!(auth.profile(Uuid::from_u128(1)).is_none());
        auth.remember(Uuid::from_u128(1), access(0), 0);
        auth.go_live(Revoked::default());
        assert_eq!(cached(&auth, Uuid::from_u128(1)), None, "nothing kept from before");
    }

    #[test]
    fn revocations_from_the_snapshot_and_from_notices() {
        let soon = OffsetDateTime::now_utc() + Duration::minutes(5);
        let past = OffsetDateTime::now_utc() - Duration::minutes(5);
        let (a, b, c, fam) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3), Uuid::from_u128(9));
        let auth = LiveAuth::default();
        auth.go_live(Revoked { tokens: vec![(a, soon), (c, past)], families: vec![] });
        assert_eq!(auth.is_revoked(a, None), Some(true));
        assert_eq!(auth.is_revoked(b, None), Some(false));
        assert_eq!(auth.is_revoked(c, None), Some(false), "expired entries are not kept");
        auth.apply(AuthNotice::Token { jti: b, expires_at: soon });
        auth.apply(AuthNotice::Family { family: fam, expires_at: soon });
        assert_eq!(auth.is_revoked(b, None), Some(true));
        assert_eq!(auth.is_revoked(c, Some(fam)), Some(true), "a revoked family ends its tokens");
        auth.go_down();
        assert_eq!(auth.is_revoked(a, None), None, "not answered while down");
    }

    #[test]
    fn a_profile_read_while_a_notice_arrived_is_not_kept() {
        let auth = live();
        let user = Uuid::from_u128(5);
        let Some(Err(generation)) = auth.profile(user) else { panic!("a miss") };
        auth.apply(AuthNotice::User(Uuid::from_u128(6)));
        auth.remember(user, access(1), generation);
        assert_eq!(cached(&auth, user), None);
        let Some(Err(generation)) = auth.profile(user) else { panic!("a miss") };
        auth.remember(user, access(1), generation);
        assert_eq!(cached(&auth, user), Some(1));
    }

    #[test]
    fn notices_drop_one_profile_or_all() {
        let auth = live();
        let (one, two) = (Uuid::from_u128(1), Uuid::from_u128(2));
        for user in [one, two] {
            let Some(Err(generation)) = auth.profile(user) else { panic!("a miss") };
            auth.remember(user, access(0), generation);
        }
        auth.apply(AuthNotice::User(one));
        assert_eq!((cached(&auth, one), cached(&auth, two)), (None, Some(0)));
        auth.apply(AuthNotice::All);
        assert_eq!(cached(&auth, two), None);
    }

    #[test]
    fn expired_revocations_are_forgotten() {
        let auth = live();
        auth.revoke_token(Uuid::from_u128(1), OffsetDateTime::now_utc() + Duration::seconds(1));
        auth.revoke_token(Uuid::from_u128(2), OffsetDateTime::now_utc() - Duration::seconds(1));
        assert_eq!(auth.is_revoked(Uuid::from_u128(2), None), Some(false), "already expired: not kept");
        assert_eq!(auth.forget_expired(), 0);
        assert_eq!(auth.is_revoked(Uuid::from_u128(1), None), Some(true));
    }
}
