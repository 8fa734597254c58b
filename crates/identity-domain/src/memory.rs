//! In-memory adapters of every identity port (feature `memory`): the context without a database,
//! for examples, unit tests of the use cases, and other services that reuse the domain.
//!
//! [`InMemoryIdentity`] is one store behind one lock, so each method is one "transaction" and the
//! ports see each other as the PostgreSQL tables do (a password change revokes the user's API keys;
//! a token of an outdated token version is revoked). It implements [`UserRepository`],
//! [`RoleRepository`], [`ContactRepository`], [`ProfileRepository`], [`ApiKeyRepository`],
//! [`TokenRevocations`] and the use cases' [`AccessDirectory`] (read fresh, nothing cached), and
//! keeps the events each write carried in place of the outbox ([`InMemoryIdentity::events`]).
//! The contract suites ([`crate::contract`], feature `contract`) check it as they check the
//! PostgreSQL adapters (`crates/identity-postgres/src/`).
//!
//! It starts with the five system roles (their PostgreSQL ids) and the `*:*` permission, granted
//! to `superadmin` and `admin`; other seeded permissions are left out. It checks reference data
//! (country, language, timezone) only for shape: two upper-case letters, `XX` being unknown.
//!
//! [`fakes`] holds cheap stand-ins for the other ports: a password "hasher" that is not one, key
//! secrets from a counter, and a phone rule of digits only.

mod api_keys;
mod contacts;
pub mod fakes;
mod profiles;
mod revocations;
mod roles;
mod users;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use shared_kernel::application::{Clock, SystemClock};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::api_key::ApiKeyRecord;
use crate::application::ports::{AccessDirectory, SessionAccess};
use crate::contact::ContactRecord;
use crate::ports::{UserRecord, UserRepository};
use crate::profile::ProfileRecord;
use crate::roles::{PermissionRecord, RoleRecord};
use crate::IdentityError;

#[cfg(doc)]
use crate::{
    api_key::ApiKeyRepository, contact::ContactRepository, profile::ProfileRepository, roles::RoleRepository,
    sessions::TokenRevocations,
};

/// A stored role and whether it was deleted (its name is then free again).
#[derive(Debug, Clone)]
struct StoredRole {
    record: RoleRecord,
    deleted: bool,
}

/// Everything the store holds.
#[derive(Debug, Default)]
struct State {
    users: HashMap<Uuid, UserRecord>,
    roles: HashMap<Uuid, StoredRole>,
    permissions: HashMap<Uuid, PermissionRecord>,
    /// (role, permission) grants.
    grants: HashSet<(Uuid, Uuid)>,
    /// (user, role) assignments.
    assignments: HashSet<(Uuid, Uuid)>,
    /// Contacts, soft-deleted ones included (`None` once deleted).
    contacts: HashMap<Uuid, (ContactRecord, bool)>,
    /// Profiles and whether each was deleted.
    profiles: HashMap<Uuid, (ProfileRecord, bool)>,
    /// Keys and the hash of their secret.
    api_keys: HashMap<Uuid, (ApiKeyRecord, Vec<u8>)>,
    /// Revoked (`true`) or rotated (`false`) tokens, until when.
    tokens: HashMap<Uuid, (bool, OffsetDateTime)>,
    /// Revoked refresh-token families, until when.
    families: HashMap<Uuid, OffsetDateTime>,
    /// Every event written, in write order (the outbox).
    events: Vec<EventEnvelope>,
}

/// Every identity port in process memory; cheap to create, one per test. Clones share the store.
#[derive(Clone)]
pub struct InMemoryIdentity {
    state: Arc<Mutex<State>>,
    clock: Arc<dyn Clock>,
}

impl Default for InMemoryIdentity {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for InMemoryIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryIdentity").finish_non_exhaustive()
    }
}

/// The PostgreSQL ids of the system roles (`migrations/…_identity`).
const SYSTEM_ROLE_IDS: [(&str, u128); 5] = [
    ("superadmin", 0x01900000_0000_7000_8000_000000000001),
    ("admin", 0x01900000_0000_7000_8000_000000000002),
    ("manager", 0x01900000_0000_7000_8000_000000000003),
    ("user", 0x01900000_0000_7000_8000_000000000004),
    ("guest", 0x01900000_0000_7000_8000_000000000005),
];

/// The PostgreSQL id of `*:*`.
const ALL_PERMISSION_ID: u128 = 0x01900000_0000_7000_9000_ffffffffffff;

impl InMemoryIdentity {
    /// An empty store (but for the seeded roles) on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// An empty store (but for the seeded roles) whose timestamps come from `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        let now = clock.now();
        let mut state = State::default();
        let all = Uuid::from_u128(ALL_PERMISSION_ID);
        state.permissions.insert(
            all,
            PermissionRecord {
                id: all,
                resource: "*".into(),
                action: "*".into(),
                name: "*:*".into(),
                description: "Every action on every resource".into(),
                created_at: now,
                version: 1,
            },
        );
        for (name, id) in SYSTEM_ROLE_IDS {
            let id = Uuid::from_u128(id);
            let record = RoleRecord {
                id,
                name: name.into(),
                display_name: name.into(),
                description: String::new(),
                is_system: true,
                permissions_count: 0,
                created_at: now,
                updated_at: now,
                version: 1,
            };
            state.roles.insert(id, StoredRole { record, deleted: false });
            if name == "superadmin" || name == "admin" {
                state.grants.insert((id, all));
            }
        }
        Self { state: Arc::new(Mutex::new(state)), clock }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    /// The events written so far, oldest first.
    pub fn events(&self) -> Vec<EventEnvelope> {
        self.lock().events.clone()
    }

    /// The events written so far, leaving none.
    pub fn take_events(&self) -> Vec<EventEnvelope> {
        std::mem::take(&mut self.lock().events)
    }
}

impl State {
    fn live_role(&self, id: Uuid) -> Option<&RoleRecord> {
        self.roles.get(&id).filter(|r| !r.deleted).map(|r| &r.record)
    }

    /// The role with its permission count as stored now.
    fn role_view(&self, role: &RoleRecord) -> RoleRecord {
        let count = self.grants.iter().filter(|(r, _)| *r == role.id).count();
        RoleRecord { permissions_count: i64::try_from(count).unwrap_or(i64::MAX), ..role.clone() }
    }

    fn roles_of(&self, user_id: Uuid) -> Vec<RoleRecord> {
        let mut roles: Vec<RoleRecord> = self
            .assignments
            .iter()
            .filter(|(u, _)| *u == user_id)
            .filter_map(|(_, r)| self.live_role(*r))
            .map(|r| self.role_view(r))
            .collect();
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        roles
    }
}

#[async_trait]
impl AccessDirectory for InMemoryIdentity {
    async fn roles_of(&self, user_id: Uuid) -> Result<Vec<String>, IdentityError> {
        Ok(self.lock().roles_of(user_id).into_iter().map(|r| r.name).collect())
    }

    async fn reload(&self, user_id: Uuid) -> Result<Option<SessionAccess>, IdentityError> {
        let profile = UserRepository::access_profile(self, user_id).await?;
        Ok(profile.map(|p| SessionAccess { status: p.status, token_version: p.token_version, roles: p.roles }))
    }

    /// Nothing is kept: every read is fresh.
    async fn forget_user(&self, _user_id: Uuid) {}

    async fn forget_everyone(&self) {}
}

/// One page of `items` (already in list order), with an exact total.
fn page_of<T>(items: Vec<T>, page: shared_kernel::PageRequest) -> shared_kernel::Page<T> {
    let total = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from(page.offset()).unwrap_or(usize::MAX);
    let take = usize::try_from(page.limit()).unwrap_or(usize::MAX);
    shared_kernel::Page::new(items.into_iter().skip(skip).take(take).collect(), total, page)
}
