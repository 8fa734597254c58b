//! The contract suites of the identity ports (feature `contract`): one async function per port,
//! each panicking (plain `assert!`) when an adapter breaks a promise its trait documents. Every
//! adapter runs them: the in-memory ones in `crates/identity-domain/tests/memory_contract.rs`, the
//! PostgreSQL ones in `tests/tests/api/identity_contract.rs`.
//!
//! The suites make their own users (fresh emails), roles (fresh names) and records through the
//! ports, so other data in the same store does not disturb them; they rely on the seeded system
//! roles and the `*:*` permission.

use std::time::Duration;

use shared_kernel::PageRequest;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::api_key::{ApiKeyRecord, ApiKeyRepository, MAX_LIVE_KEYS_PER_USER};
use crate::contact::{
    Address, ContactChanges, ContactFilter, ContactRepository, ContactType, ContactValue, NewContact,
};
use crate::credentials::Email;
use crate::ports::{FailedLogin, NewUser, RepoError, UserRepository};
use crate::profile::{Moderation, NewProfile, ProfileCreation, ProfileFields, ProfileRepository};
use crate::roles::{NewRole, RoleChanges, RoleRepository};
use crate::sessions::{Rotation, TokenRef, TokenRevocations};
use crate::user::UserStatus;
use crate::RoleName;

/// A fresh user through `users`, with a unique email.
pub async fn new_user(users: &dyn UserRepository) -> Uuid {
    let id = shared_kernel::new_id();
    let user =
        NewUser { id, email: format!("contract-{id}@example.com"), name: "Contract".into(), password_hash: "x".into() };
    users.create(user, Vec::new()).await.expect("a user").id
}

fn unique_name(prefix: &str) -> String {
    format!("{prefix}-{}", &shared_kernel::new_id().simple().to_string()[20..])
}

/// Users: unique emails, look-ups (names of several at once), the login bookkeeping, status moves as compare-and-set, password
/// changes bumping the token version, and the access profile.
pub async fn users(users: &dyn UserRepository) {
    let id = shared_kernel::new_id();
    let email = format!("Contract-{id}@Example.com").to_lowercase();
    let created = users
        .create(NewUser { id, email: email.clone(), name: "Ann".into(), password_hash: "h".into() }, Vec::new())
        .await
        .expect("create");
    assert_eq!((created.status, created.token_version, created.failed_login_count), (UserStatus::Active, 0, 0));
    let again =
        NewUser { id: shared_kernel::new_id(), email: email.clone(), name: "Bob".into(), password_hash: "h".into() };
    assert_eq!(users.create(again, Vec::new()).await.err(), Some(RepoError::Conflict { field: "email" }));
    assert_eq!(
        users.find_by_email(&format!(" {} ", email.to_uppercase())).await.expect("find").map(|u| u.id),
        Some(id)
    );
    assert!(users.find_by_id(shared_kernel::new_id()).await.expect("find").is_none());
    let unknown = shared_kernel::new_id();
    assert_eq!(users.names(&[unknown, id]).await.expect("names"), vec![(id, "Ann".to_owned())], "unknown ids absent");
    assert_eq!(users.names(&[]).await.expect("names"), Vec::new());

    let lock = Duration::from_secs(600);
    assert_eq!(users.record_failed_login(id, 2, lock).await, Ok(FailedLogin::Counted));
    assert_eq!(users.record_failed_login(id, 2, lock).await, Ok(FailedLogin::LockedNow));
    assert_eq!(users.record_failed_login(id, 2, lock).await, Ok(FailedLogin::AlreadyLocked));
    assert_eq!(users.record_successful_login(id).await, Ok(false), "locked");
    let unlocked = users.unlock(id).await.expect("unlock");
    assert_eq!((unlocked.locked_until, unlocked.failed_login_count), (None, 0));
    assert_eq!(users.record_successful_login(id).await, Ok(true));
    assert!(users.find_by_id(id).await.expect("find").and_then(|u| u.last_login_at).is_some());

    let suspend = UserStatus::Active.move_to(UserStatus::Suspended).expect("allowed");
    let suspended = users.change_status(id, suspend, Vec::new()).await.expect("suspend");
    assert_eq!((suspended.status, suspended.token_version), (UserStatus::Suspended, 1));
    assert!(suspended.version > created.version);
    assert_eq!(users.change_status(id, suspend, Vec::new()).await.err(), Some(RepoError::Stale));
    assert_eq!(
        users.change_status(shared_kernel::new_id(), suspend, Vec::new()).await.err(),
        Some(RepoError::NotFound)
    );

    users.change_password(id, "new".into(), true, Vec::new()).await.expect("change password");
    let changed = users.find_by_id(id).await.expect("find").expect("exists");
    assert_eq!((changed.password_hash.as_str(), changed.token_version), ("new", 2));
    assert_eq!(
        users.change_password(shared_kernel::new_id(), "x".into(), false, Vec::new()).await,
        Err(RepoError::NotFound)
    );

    let access = users.access_profile(id).await.expect("profile").expect("exists");
    assert_eq!(
        (access.status, access.token_version, access.roles),
        (UserStatus::Suspended, 2, vec!["user".to_owned()])
    );
    assert!(users.access_profile(shared_kernel::new_id()).await.expect("profile").is_none());
}

/// Roles: unique names, system roles kept, grants counted once, assignments, soft delete.
pub async fn roles(roles: &dyn RoleRepository, users: &dyn UserRepository) {
    let name = unique_name("contract");
    let role = roles
        .create_role(NewRole {
            name: RoleName::parse(&name).expect("valid"),
            display_name: "C".into(),
            description: String::new(),
        })
        .await
        .expect("create");
    assert!(!role.is_system);
    let twin =
        NewRole { name: RoleName::parse(&name).expect("valid"), display_name: "C".into(), description: String::new() };
    assert_eq!(
        roles.create_role(twin).await.err().map(|e| e.to_string()),
        Some(RepoError::Conflict { field: "name" }.to_string())
    );
    assert_eq!(roles.find_role_by_name(&name).await.expect("find").map(|r| r.id), Some(role.id));

    let admin = roles.find_role_by_name("admin").await.expect("find").expect("seeded");
    assert!(admin.is_system);
    let rename = RoleChanges { name: Some(RoleName::parse("administrator").expect("valid")), ..RoleChanges::default() };
    assert_eq!(
        roles.update_role(admin.id, rename).await.err().map(|e| e.to_string()),
        Some(RepoError::Stale.to_string())
    );
    assert_eq!(roles.delete_role(admin.id).await, Err(RepoError::NotFound));
    let described = RoleChanges { description: Some("for the contract".into()), ..RoleChanges::default() };
    assert_eq!(roles.update_role(role.id, described).await.expect("update").description, "for the contract");

    let all = roles.find_permission_by_name(" *:* ").await.expect("find").expect("seeded");
    assert_eq!(roles.grant_permissions(role.id, &[all.id]).await, Ok(1));
    assert_eq!(roles.grant_permissions(role.id, &[all.id]).await, Ok(0), "already granted");
    assert_eq!(roles.grant_permissions(role.id, &[shared_kernel::new_id()]).await, Err(RepoError::NotFound));
    assert_eq!(roles.find_role(role.id).await.expect("find").map(|r| r.permissions_count), Some(1));
    assert_eq!(roles.role_permissions(role.id).await.expect("list").len(), 1);
    assert_eq!(
        roles.update_permission(all.id, None, Some("x".into())).await.err().map(|e| e.to_string()),
        Some(RepoError::NotFound.to_string())
    );

    let user = new_user(users).await;
    assert_eq!(roles.assign_role(user, role.id).await, Ok(true));
    assert_eq!(roles.assign_role(user, role.id).await, Ok(false), "already held");
    assert_eq!(
        roles.assign_role(shared_kernel::new_id(), role.id).await,
        Err(RepoError::MissingReference { field: "user_id" })
    );
    let held: Vec<String> = roles.user_roles(user).await.expect("roles").into_iter().map(|r| r.name).collect();
    assert!(held.contains(&name) && held.contains(&"user".to_owned()), "{held:?}");
    assert!(users
        .access_profile(user)
        .await
        .expect("profile")
        .expect("exists")
        .permissions
        .contains(&"*:*".to_owned()));

    assert_eq!(roles.revoke_permission(role.id, all.id).await, Ok(()));
    assert_eq!(roles.revoke_permission(role.id, all.id).await, Err(RepoError::NotFound));
    assert_eq!(roles.unassign_role(user, role.id).await, Ok(()));
    assert_eq!(roles.unassign_role(user, role.id).await, Err(RepoError::NotFound));
    roles.assign_role(user, role.id).await.expect("assign");
    roles.delete_role(role.id).await.expect("delete");
    assert!(roles.find_role(role.id).await.expect("find").is_none());
    assert!(!roles.user_roles(user).await.expect("roles").iter().any(|r| r.id == role.id), "assignments end");
}

fn email(value: &str) -> ContactValue {
    ContactValue::Email(Email::parse(value).expect("valid"))
}

/// Contacts: owner-scoped, one primary per type, verification cleared by a new value, soft delete.
pub async fn contacts(contacts: &dyn ContactRepository, users: &dyn UserRepository) {
    let (owner, stranger) = (new_user(users).await, new_user(users).await);
    let new = |value, is_primary| NewContact {
        id: shared_kernel::new_id(),
        user_id: owner,
        label: "home".into(),
        value,
        is_primary,
        is_public: false,
    };
    let first = contacts.create(new(email("a@example.com"), true)).await.expect("create");
    let second = contacts.create(new(email("b@example.com"), true)).await.expect("create");
    assert_eq!(first.contact_type, ContactType::Email);
    assert!(!contacts.find(owner, first.id).await.expect("find").expect("exists").is_primary, "one primary per type");
    let primaries = contacts
        .list(owner, ContactFilter { contact_type: Some(ContactType::Email), is_primary: Some(true) })
        .await
        .expect("list");
    assert_eq!(primaries.iter().map(|c| c.id).collect::<Vec<_>>(), [second.id]);
    assert_eq!(contacts.list(owner, ContactFilter::default()).await.expect("list").len(), 2);
    assert!(contacts.set_primary(owner, first.id).await.expect("primary").is_primary);

    assert!(contacts.find(stranger, first.id).await.expect("find").is_none(), "someone else's is missing");
    assert_eq!(contacts.verify(stranger, first.id).await.err(), Some(RepoError::NotFound));

    assert!(contacts.verify(owner, first.id).await.expect("verify").is_verified);
    let same = ContactChanges { value: Some(email("A@example.com")), ..ContactChanges::default() };
    assert!(contacts.update(owner, first.id, same).await.expect("update").is_verified, "the same value keeps it");
    let moved = ContactChanges { value: Some(email("c@example.com")), ..ContactChanges::default() };
    let updated = contacts.update(owner, first.id, moved).await.expect("update");
    assert_eq!((updated.email.as_deref(), updated.is_verified), (Some("c@example.com"), false));

    let nowhere = ContactValue::Address(Address { country: "XX".into(), ..Address::default() });
    assert_eq!(
        contacts.create(new(nowhere, false)).await.err(),
        Some(RepoError::MissingReference { field: "country" })
    );

    contacts.delete(owner, first.id).await.expect("delete");
    assert!(contacts.find(owner, first.id).await.expect("find").is_none());
    assert_eq!(contacts.delete(owner, first.id).await, Err(RepoError::NotFound));
}

/// Profiles: one live per user, owner-scoped changes, moderation, and a ban that outlives the profile.
pub async fn profiles(profiles: &dyn ProfileRepository, users: &dyn UserRepository) {
    let owner = new_user(users).await;
    let fields = ProfileFields { display_name: Some("Ann".into()), is_public: Some(true), ..ProfileFields::default() };
    let create = || NewProfile { id: shared_kernel::new_id(), user_id: owner, fields: fields.clone() };
    let ProfileCreation::Created(profile) = profiles.create(create()).await.expect("create") else {
        panic!("not banned")
    };
    assert!(profile.is_public && profile.is_active && !profile.is_banned);
    assert_eq!(profiles.create(create()).await.err(), Some(RepoError::Conflict { field: "user_id" }));
    assert_eq!(profiles.find_by_user(owner).await.expect("find").map(|p| p.id), Some(profile.id));

    let bio = ProfileFields { bio: Some("Hello".into()), ..ProfileFields::default() };
    assert_eq!(profiles.update(owner, profile.id, bio).await.expect("update").bio.as_deref(), Some("Hello"));
    let cleared = ProfileFields { bio: Some(String::new()), ..ProfileFields::default() };
    assert_eq!(profiles.update(owner, profile.id, cleared).await.expect("update").bio, None, "empty clears");
    let stranger = shared_kernel::new_id();
    assert_eq!(profiles.update(stranger, profile.id, ProfileFields::default()).await.err(), Some(RepoError::NotFound));
    let nowhere = ProfileFields { country: Some("XX".into()), ..ProfileFields::default() };
    assert_eq!(
        profiles.update(owner, profile.id, nowhere).await.err(),
        Some(RepoError::MissingReference { field: "country" })
    );

    assert!(profiles.moderate(profile.id, Moderation::Verify).await.expect("verify").is_verified);
    assert!(profiles.moderate(profile.id, Moderation::Ban).await.expect("ban").is_banned);
    profiles.delete(owner, profile.id).await.expect("delete");
    assert!(profiles.find_by_id(profile.id).await.expect("find").is_none());
    assert!(matches!(profiles.create(create()).await, Ok(ProfileCreation::Banned)), "a ban outlives the profile");
}

/// A fresh key hash of 32 bytes, a sha256's length (the PostgreSQL table checks it).
fn key_hash() -> Vec<u8> {
    [shared_kernel::new_id().into_bytes(), shared_kernel::new_id().into_bytes()].concat()
}

fn key(owner: Uuid, now: OffsetDateTime) -> ApiKeyRecord {
    ApiKeyRecord {
        id: shared_kernel::new_id(),
        user_id: owner,
        name: "contract".into(),
        prefix: "tly_c0ffee00".into(),
        permissions: vec!["customers:read".into()],
        created_at: now,
        last_used_at: None,
        expires_at: None,
        revoked_at: None,
    }
}

/// API keys: stored with their hash, the live-key limit, owner-scoped lists and revocation.
pub async fn api_keys(keys: &dyn ApiKeyRepository, users: &dyn UserRepository) {
    let owner = new_user(users).await;
    let now = OffsetDateTime::from_unix_timestamp(OffsetDateTime::now_utc().unix_timestamp()).expect("a time");
    let hash = key_hash();
    let first = keys.create(&key(owner, now), &hash).await.expect("create").expect("under the limit");
    assert_eq!(keys.find(first.id).await.expect("find").map(|k| k.user_id), Some(owner));
    assert_eq!(keys.find_by_hash(&hash).await.expect("find").map(|k| k.id), Some(first.id));
    for _ in 1..MAX_LIVE_KEYS_PER_USER {
        let hash = key_hash();
        keys.create(&key(owner, now), &hash).await.expect("create").expect("under the limit");
    }
    let over = key_hash();
    assert_eq!(keys.create(&key(owner, now), &over).await, Ok(None), "the limit");
    let page = PageRequest::new(Some(1), Some(100)).expect("a page");
    assert_eq!(keys.list(Some(owner), page).await.expect("list").total, MAX_LIVE_KEYS_PER_USER);

    assert_eq!(keys.revoke(first.id, Some(shared_kernel::new_id()), now).await, Err(RepoError::NotFound));
    let revoked = keys.revoke(first.id, Some(owner), now).await.expect("revoke");
    assert!(revoked.revoked_at.is_some());
    let again = keys.revoke(first.id, None, now + time::Duration::minutes(5)).await.expect("again");
    assert_eq!(again.revoked_at, revoked.revoked_at, "revoking again changes nothing");
    assert!(keys.create(&key(owner, now), &over).await.expect("create").is_some(), "a revoked key frees a place");
}

/// Revocations: a refresh token is spent once, a reuse ends its family, a revoked token is revoked,
/// and a token of an outdated version is too.
pub async fn revocations(revocations: &dyn TokenRevocations, users: &dyn UserRepository) {
    let user = new_user(users).await;
    let soon = OffsetDateTime::now_utc() + time::Duration::hours(1);
    let (jti, family) = (shared_kernel::new_id(), shared_kernel::new_id());
    let token = |jti, family| TokenRef { jti, family, user_id: user, token_version: 0 };
    assert_eq!(revocations.is_revoked(&token(jti, Some(family))).await, Ok(false));
    assert_eq!(revocations.rotate(jti, soon, family, soon).await, Ok(Rotation::Rotated));
    assert_eq!(revocations.rotate(jti, soon, family, soon).await, Ok(Rotation::Reused));
    assert_eq!(revocations.rotate(shared_kernel::new_id(), soon, family, soon).await, Ok(Rotation::FamilyRevoked));
    assert_eq!(
        revocations.is_revoked(&token(shared_kernel::new_id(), Some(family))).await,
        Ok(true),
        "the family ended"
    );

    let other = shared_kernel::new_id();
    revocations.revoke(other, soon).await.expect("revoke");
    assert_eq!(revocations.is_revoked(&token(other, None)).await, Ok(true));
    let outdated = TokenRef { token_version: 7, ..token(shared_kernel::new_id(), None) };
    assert_eq!(revocations.is_revoked(&outdated).await, Ok(true), "an outdated token version");
}
