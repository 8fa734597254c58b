//! API keys (docs/identity.md, "API keys"): a service's credential, owned by a user, scoped to a subset of
//! that user's permissions and checked against the owner's current ones on every use.
//! The secret itself never reaches this module's records: adapters keep only its hash.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::authz::{PermissionName, PermissionSet};
use crate::error::IdentityError;
use crate::ports::RepoError;

/// Every key starts with this, so a bearer token says what it is.
pub const KEY_PREFIX: &str = "tly_";
/// The longest key name, in characters after trimming.
pub const MAX_NAME_CHARS: usize = 100;
/// The most permissions one key may list, counted as sent.
pub const MAX_PERMISSIONS: usize = 200;
/// Live (not revoked, not expired) keys a user may hold: each key has a rate budget of its own,
/// so the number of keys bounds what one person can spend.
pub const MAX_LIVE_KEYS_PER_USER: i64 = 25;

/// A key to create: validated, and every permission within the creator's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    /// What the key is for, as its owner names it (trimmed, 1..=[`MAX_NAME_CHARS`] characters).
    pub name: String,
    /// What the key may do, duplicates removed, first-listed order kept.
    pub permissions: Vec<PermissionName>,
    /// When the key stops working; `None` for never.
    pub expires_at: Option<OffsetDateTime>,
}

impl NewApiKey {
    /// `name` 1..=100 characters; 1..=200 permissions `resource:action` (wildcards allowed), each
    /// one the creator holds (`creator`); `expires_at`, when given, in the future. Refusals are
    /// `Invalid` naming `name`, `permissions` or `expires_at`, or [`IdentityError::KeyBeyondCreator`].
    pub fn validate(
        name: &str,
        permissions: &[String],
        expires_at: Option<OffsetDateTime>,
        creator: &PermissionSet,
        now: OffsetDateTime,
    ) -> Result<Self, IdentityError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
            return Err(IdentityError::invalid("name", "must be 1 to 100 characters"));
        }
        if permissions.is_empty() || permissions.len() > MAX_PERMISSIONS {
            return Err(IdentityError::invalid("permissions", "must list 1 to 200 permissions"));
        }
        let mut parsed: Vec<PermissionName> = Vec::with_capacity(permissions.len());
        for name in permissions {
            let permission = PermissionName::parse(name)
                .map_err(|_| IdentityError::invalid("permissions", "each must be resource:action"))?;
            if !creator.allows(&permission.resource, &permission.action) {
                return Err(IdentityError::KeyBeyondCreator(permission.name()));
            }
            if !parsed.contains(&permission) {
                parsed.push(permission);
            }
        }
        if expires_at.is_some_and(|at| at <= now) {
            return Err(IdentityError::invalid("expires_at", "must be in the future"));
        }
        Ok(Self { name: name.to_owned(), permissions: parsed, expires_at })
    }
}

/// A stored key (without its secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    /// The key's identity.
    pub id: Uuid,
    /// The owner: the key acts as this user, within the owner's current permissions.
    pub user_id: Uuid,
    /// What the key is for, as its owner named it.
    pub name: String,
    /// The first characters of the key, to recognise it in a list.
    pub prefix: String,
    /// The key's permission names (`resource:action`).
    pub permissions: Vec<String>,
    /// When the key was made.
    pub created_at: OffsetDateTime,
    /// When the key was last used, recorded at most about once a minute.
    pub last_used_at: Option<OffsetDateTime>,
    /// When the key stops working; `None` for never.
    pub expires_at: Option<OffsetDateTime>,
    /// When the key was revoked; a revoked key never works again.
    pub revoked_at: Option<OffsetDateTime>,
}

/// Why a presented key does not authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRefusal {
    /// The key was revoked (401 `TOKEN_REVOKED`); checked before expiry.
    Revoked,
    /// `expires_at` is not after now (401 `TOKEN_EXPIRED`).
    Expired,
}

impl ApiKeyRecord {
    /// Whether the key may be used at `now`: not revoked, and not expired (`expires_at` after `now`).
    pub fn usable(&self, now: OffsetDateTime) -> Result<(), KeyRefusal> {
        if self.revoked_at.is_some() {
            Err(KeyRefusal::Revoked)
        } else if self.expires_at.is_some_and(|at| at <= now) {
            Err(KeyRefusal::Expired)
        } else {
            Ok(())
        }
    }

    /// The key's own permissions as a set (the caller's guard also asks the owner's).
    pub fn permission_set(&self) -> PermissionSet {
        PermissionSet::from_names(self.permissions.iter().cloned())
    }
}

/// Keys in storage. `find_by_hash` is the authentication look-up: it also records the use
/// (`last_used_at`, at most about once a minute per key, so use does not cost a write per request).
#[async_trait]
pub trait ApiKeyRepository: Send + Sync {
    /// Stores a new key; `None` (nothing stored) when its owner already holds
    /// [`MAX_LIVE_KEYS_PER_USER`] live keys.
    async fn create(&self, key: &ApiKeyRecord, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError>;
    /// The keys of `owner`, or every key when `None`; newest first.
    async fn list(&self, owner: Option<Uuid>, page: PageRequest) -> Result<Page<ApiKeyRecord>, RepoError>;
    /// Revokes key `id` (of `owner`, when given); `NotFound` when there is no such key.
    /// Revoking a revoked key changes nothing and returns it.
    async fn revoke(&self, id: Uuid, owner: Option<Uuid>, at: OffsetDateTime) -> Result<ApiKeyRecord, RepoError>;
    /// Key `id`, whoever owns it (to know whose key an administrator is about to revoke).
    async fn find(&self, id: Uuid) -> Result<Option<ApiKeyRecord>, RepoError>;
    /// The key whose secret hashes to `key_hash`, revoked and expired ones included (the caller
    /// asks [`ApiKeyRecord::usable`]); records the use as the trait says.
    async fn find_by_hash(&self, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError>;
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-24 12:00 UTC);

    fn creator() -> PermissionSet {
        PermissionSet::from_names(["customers:*", "orders:read"])
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_key_holds_a_subset_of_its_creators_permissions() {
        let key = NewApiKey::validate(
            " sync ",
            &names(&["customers:read", "orders:read", "customers:read"]),
            None,
            &creator(),
            NOW,
        )
        .expect("valid");
        assert_eq!(key.name, "sync");
        assert_eq!(key.permissions.len(), 2, "duplicates collapse");
        assert!(NewApiKey::validate("all customers", &names(&["customers:*"]), None, &creator(), NOW).is_ok());
        let beyond = NewApiKey::validate("x", &names(&["orders:create"]), None, &creator(), NOW).expect_err("beyond");
        assert_eq!(beyond, IdentityError::KeyBeyondCreator("orders:create".into()));
        let wider = NewApiKey::validate("x", &names(&["*:*"]), None, &creator(), NOW).expect_err("wider");
        assert_eq!(wider, IdentityError::KeyBeyondCreator("*:*".into()));
    }

    #[test]
    fn names_permissions_and_expiry_are_checked() {
        let field = |r: Result<NewApiKey, IdentityError>| r.expect_err("invalid").field();
        assert_eq!(field(NewApiKey::validate(" ", &names(&["orders:read"]), None, &creator(), NOW)), Some("name"));
        let long = "n".repeat(101);
        assert_eq!(field(NewApiKey::validate(&long, &names(&["orders:read"]), None, &creator(), NOW)), Some("name"));
        assert_eq!(field(NewApiKey::validate("x", &[], None, &creator(), NOW)), Some("permissions"));
        assert_eq!(field(NewApiKey::validate("x", &names(&["orders"]), None, &creator(), NOW)), Some("permissions"));
        let many: Vec<String> = (0..201).map(|i| format!("customers:a{i}")).collect();
        assert_eq!(field(NewApiKey::validate("x", &many, None, &creator(), NOW)), Some("permissions"));
        let past = Some(datetime!(2026-11-24 11:59 UTC));
        assert_eq!(
            field(NewApiKey::validate("x", &names(&["orders:read"]), past, &creator(), NOW)),
            Some("expires_at")
        );
    }

    #[test]
    fn every_state_of_a_key_against_use() {
        let key = ApiKeyRecord {
            id: Uuid::nil(),
            user_id: Uuid::nil(),
            name: "k".into(),
            prefix: "tly_abcd".into(),
            permissions: names(&["orders:read"]),
            created_at: datetime!(2026-11-01 00:00 UTC),
            last_used_at: None,
            expires_at: None,
            revoked_at: None,
        };
        assert_eq!(key.usable(NOW), Ok(()));
        let expiring = ApiKeyRecord { expires_at: Some(datetime!(2026-11-25 00:00 UTC)), ..key.clone() };
        assert_eq!(expiring.usable(NOW), Ok(()));
        assert_eq!(expiring.usable(datetime!(2026-11-25 00:00 UTC)), Err(KeyRefusal::Expired));
        let revoked = ApiKeyRecord { revoked_at: Some(NOW), ..expiring };
        assert_eq!(revoked.usable(NOW), Err(KeyRefusal::Revoked), "revocation wins over a future expiry");
        assert!(key.permission_set().allows("orders", "read"));
        assert!(!key.permission_set().allows("orders", "create"));
    }
}
