//! Onboarding, offline: a user registers and logs in, an administrator makes them a manager, the
//! user makes an API key, then changes their password and sees the key revoked. Every step runs
//! the identity use cases on the in-memory adapters, with a plain password "hasher".
//!
//! `cargo run -p identity-domain --features memory --example onboarding`

use std::sync::Arc;
use std::time::Duration;

use identity_domain::application::{
    AccountPolicy, Actor, IdentityApplication, IdentityPorts, KeyRequest, PasswordChange, Registration,
};
use identity_domain::memory::fakes::{CountingKeySecrets, DigitPhoneNumbers, PlainPasswordHasher};
use identity_domain::memory::InMemoryIdentity;
use identity_domain::ports::{NewUser, UserRepository};
use identity_domain::roles::RoleRepository;
use identity_domain::{IdentityError, PermissionSet};
use shared_kernel::application::{block_on, SystemClock};
use shared_kernel::PageRequest;

fn main() -> Result<(), IdentityError> {
    block_on(onboarding())
}

async fn onboarding() -> Result<(), IdentityError> {
    let store = InMemoryIdentity::new();
    let ports = IdentityPorts {
        users: Arc::new(store.clone()),
        roles: Arc::new(store.clone()),
        contacts: Arc::new(store.clone()),
        profiles: Arc::new(store.clone()),
        api_keys: Arc::new(store.clone()),
        revocations: Arc::new(store.clone()),
        hasher: Arc::new(PlainPasswordHasher),
        access: Arc::new(store.clone()),
        secrets: Arc::new(CountingKeySecrets::default()),
        phones: Arc::new(DigitPhoneNumbers),
        clock: Arc::new(SystemClock),
    };
    let policy = AccountPolicy {
        registration_open: true,
        max_failed_logins: 5,
        lock_for: Duration::from_secs(900),
        refresh_ttl: Duration::from_secs(7 * 24 * 3600),
    };
    let identity = IdentityApplication::new(ports, policy);

    // An administrator, as `tally create-admin` would make one.
    let admin_id = shared_kernel::new_id();
    let admin = NewUser {
        id: admin_id,
        email: "root@example.com".into(),
        name: "Root".into(),
        password_hash: "plain:root-password".into(),
    };
    store.create(admin, Vec::new()).await?;
    let admin_role = store.find_role_by_name("admin").await?.expect("seeded");
    store.assign_role(admin_id, admin_role.id).await?;

    let registration =
        Registration { email: " Ann@Example.com ".into(), name: "Ann".into(), password: "first-password".into() };
    let ann = identity.accounts.register(registration).await?;
    println!("registered {} ({}) with roles {:?}", ann.user.email, ann.user.id, ann.roles);

    let signed_in = identity.accounts.login("ann@example.com", "first-password").await?;
    println!("logged in as {}, token version {}", signed_in.user.email, signed_in.user.token_version);
    match identity.accounts.login("ann@example.com", "wrong-password").await {
        Err(error) => println!("a wrong password: {error}"),
        Ok(_) => unreachable!("a wrong password never signs in"),
    }

    let admin_roles = vec!["admin".to_owned()];
    let admin_permissions = PermissionSet::from_names(["*:*"]);
    let root = Actor { user_id: admin_id, roles: &admin_roles, permissions: &admin_permissions };
    let manager = store.find_role_by_name("manager").await?.expect("seeded");
    identity.roles.assign_role(&root, ann.user.id, manager.id).await?;
    let roles: Vec<String> = identity.roles.user_roles(ann.user.id).await?.into_iter().map(|r| r.name).collect();
    println!("the admin made Ann a manager: {roles:?}");

    let ann_permissions = PermissionSet::from_names(["customers:*"]);
    let ann_actor = Actor { user_id: ann.user.id, roles: &roles, permissions: &ann_permissions };
    let request = KeyRequest {
        name: "nightly sync".into(),
        permissions: vec!["customers:read".into()],
        expires_at: None,
        current_password: "first-password".into(),
    };
    let issued = identity.api_keys.create(&ann_actor, request).await?;
    println!(
        "API key {} made ({}…), revoked: {:?}",
        issued.record.name, issued.record.prefix, issued.record.revoked_at
    );

    let change = PasswordChange {
        current_password: "first-password".into(),
        new_password: "second-password".into(),
        keep_api_keys: false,
    };
    let changed = identity.accounts.change_password(ann.user.id, change).await?;
    let keys = identity.api_keys.list(&ann_actor, PageRequest::new(None, None).expect("default page")).await?;
    println!(
        "password changed (keys revoked: {}); the key is now revoked: {}",
        changed.api_keys_revoked,
        keys.items.iter().all(|k| k.revoked_at.is_some())
    );
    assert!(identity.accounts.login("ann@example.com", "first-password").await.is_err());
    identity.accounts.login("ann@example.com", "second-password").await?;
    println!(
        "the new password signs in; events written: {:?}",
        store.events().iter().map(|e| e.name.as_str()).collect::<Vec<_>>()
    );
    Ok(())
}
