//! The identity use cases on the in-memory adapters: each rule's happy path and refusals, in the
//! order the HTTP contract pins, and a lost race decided again.

#![cfg(feature = "memory")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use identity_domain::application::ports::AccessDirectory;
use identity_domain::application::{
    AccountPolicy, Actor, AdminAccount, ContactInput, IdentityApplication, IdentityPorts, KeyRequest, PasswordChange,
    PresentedToken, Registration,
};
use identity_domain::memory::fakes::{CountingKeySecrets, DigitPhoneNumbers, PlainPasswordHasher};
use identity_domain::memory::InMemoryIdentity;
use identity_domain::ports::*;
use identity_domain::profile::{Moderation, ProfileFields};
use identity_domain::roles::RoleRepository;
use identity_domain::user::{StatusChange, UserStatus};
use identity_domain::{IdentityError, Missing, PermissionSet, Refusal};
use shared_kernel::application::block_on;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use uuid::Uuid;

fn policy(registration_open: bool) -> AccountPolicy {
    AccountPolicy {
        registration_open,
        max_failed_logins: 2,
        lock_for: Duration::from_secs(600),
        refresh_ttl: Duration::from_secs(3600),
    }
}

fn app_with(store: &InMemoryIdentity, users: Arc<dyn UserRepository>, open: bool) -> IdentityApplication {
    let ports = IdentityPorts {
        users,
        roles: Arc::new(store.clone()),
        contacts: Arc::new(store.clone()),
        profiles: Arc::new(store.clone()),
        api_keys: Arc::new(store.clone()),
        revocations: Arc::new(store.clone()),
        hasher: Arc::new(PlainPasswordHasher),
        access: Arc::new(store.clone()),
        secrets: Arc::new(CountingKeySecrets::default()),
        phones: Arc::new(DigitPhoneNumbers),
        clock: Arc::new(shared_kernel::application::SystemClock),
    };
    IdentityApplication::new(ports, policy(open))
}

fn app(store: &InMemoryIdentity) -> IdentityApplication {
    app_with(store, Arc::new(store.clone()), true)
}

fn registration(email: &str) -> Registration {
    Registration { email: email.into(), name: "Ann".into(), password: "password-1".into() }
}

async fn user_with_role(store: &InMemoryIdentity, app: &IdentityApplication, email: &str, role: &str) -> Uuid {
    let id = app.accounts.register(registration(email)).await.expect("registered").user.id;
    let role = store.find_role_by_name(role).await.expect("find").expect("seeded");
    store.assign_role(id, role.id).await.expect("assign");
    id
}

const ADMIN: &[String] = &[];

fn roles(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[test]
fn registration_checks_in_order() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let closed = app_with(&store, Arc::new(store.clone()), false);
        let bad = Registration { email: "not an email".into(), name: String::new(), password: "x".into() };
        assert_eq!(closed.accounts.register(bad.clone()).await.err(), Some(IdentityError::RegistrationClosed));
        let app = app(&store);
        assert_eq!(app.accounts.register(bad).await.err(), Some(IdentityError::InvalidEmail));
        let signed = app.accounts.register(registration(" Ann@Example.com ")).await.expect("registered");
        assert_eq!(
            (signed.user.email.as_str(), signed.roles.as_slice()),
            ("ann@example.com", &["user".to_owned()][..])
        );
        assert_eq!(app.accounts.register(registration("ann@example.com")).await.err(), Some(IdentityError::EmailTaken));
        assert_eq!(store.events()[0].name, "identity.user.registered");
    });
}

#[test]
fn login_counts_failures_locks_and_refuses_barred_accounts() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let id = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        assert_eq!(
            app.accounts.login("nobody@example.com", "password-1").await.err(),
            Some(IdentityError::InvalidCredentials)
        );
        assert!(app.accounts.login("ANN@example.com", "password-1").await.is_ok());
        assert_eq!(app.accounts.login("ann@example.com", "wrong").await.err(), Some(IdentityError::InvalidCredentials));
        assert_eq!(app.accounts.login("ann@example.com", "wrong").await.err(), Some(IdentityError::InvalidCredentials));
        assert_eq!(app.accounts.login("ann@example.com", "password-1").await.err(), Some(IdentityError::AccountLocked));
        store.unlock(id).await.expect("unlock");
        let suspend = UserStatus::Active.move_to(UserStatus::Suspended).expect("allowed");
        store.change_status(id, suspend, Vec::new()).await.expect("suspend");
        assert_eq!(
            app.accounts.login("ann@example.com", "password-1").await.err(),
            Some(IdentityError::AccountSuspended)
        );
        let ban = UserStatus::Suspended.move_to(UserStatus::Banned).expect("allowed");
        store.change_status(id, ban, Vec::new()).await.expect("ban");
        assert_eq!(app.accounts.login("ann@example.com", "password-1").await.err(), Some(IdentityError::AccountBanned));
    });
}

#[test]
fn the_first_admin_is_created_once_and_an_existing_account_is_promoted_only_when_asked() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let admin = |email: &str| AdminAccount { email: email.into(), password: "Admin-Passw0rd".into(), name: None };
        let bad = AdminAccount { email: "not an email".into(), ..admin("x@example.com") };
        assert_eq!(app.accounts.provision_admin(bad, ExistingAccount::Refuse).await, Err(IdentityError::InvalidEmail));
        let created = app.accounts.provision_admin(admin("root@example.com"), ExistingAccount::Refuse).await;
        let Ok(AdminProvision::Created(id)) = created else { panic!("created: {created:?}") };
        let user = store.find_by_id(id).await.expect("find").expect("stored");
        assert_eq!(user.name, "Administrator", "a blank name is the default");
        assert_eq!(store.roles_of(id).await.expect("roles"), roles(&["admin", "superadmin"]));
        let again = app.accounts.provision_admin(admin("root@example.com"), ExistingAccount::Refuse).await;
        assert_eq!(again, Ok(AdminProvision::AlreadyAdmin(id)), "a restart changes nothing");

        let ann = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let refused = app.accounts.provision_admin(admin("ann@example.com"), ExistingAccount::Refuse).await;
        assert_eq!(refused, Ok(AdminProvision::RefusedNotAdmin), "not promoted unless asked");
        assert_eq!(store.roles_of(ann).await.expect("roles"), roles(&["user"]));
        let promoted = app.accounts.provision_admin(admin("ann@example.com"), ExistingAccount::Promote).await;
        assert_eq!(promoted, Ok(AdminProvision::Promoted(ann)));
        assert!(app.accounts.login("ann@example.com", "Admin-Passw0rd").await.is_ok(), "its password was set");
    });
}

#[test]
fn a_password_change_revokes_api_keys_unless_kept() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let id = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let (held, permissions) = (roles(&["user"]), PermissionSet::from_names(["customers:*"]));
        let actor = Actor { user_id: id, roles: &held, permissions: &permissions };
        let key = |password: &str| KeyRequest {
            name: "sync".into(),
            permissions: vec!["customers:read".into()],
            expires_at: None,
            current_password: password.into(),
        };
        let beyond = KeyRequest { permissions: vec!["orders:read".into()], ..key("") };
        assert_eq!(
            app.api_keys.create(&actor, beyond).await.err(),
            Some(IdentityError::KeyBeyondCreator("orders:read".into()))
        );
        assert!(matches!(
            app.api_keys.create(&actor, key("")).await,
            Err(IdentityError::Invalid { field: "current_password", .. })
        ));
        assert_eq!(app.api_keys.create(&actor, key("wrong")).await.err(), Some(IdentityError::InvalidCredentials));
        let first = app.api_keys.create(&actor, key("password-1")).await.expect("made");
        assert!(first.key.starts_with("tly_"));

        let weak =
            PasswordChange { current_password: "wrong".into(), new_password: "short".into(), keep_api_keys: false };
        assert!(matches!(
            app.accounts.change_password(id, weak).await,
            Err(IdentityError::Invalid { field: "new_password", .. })
        ));
        let keep = PasswordChange {
            current_password: "password-1".into(),
            new_password: "password-2".into(),
            keep_api_keys: true,
        };
        assert!(!app.accounts.change_password(id, keep).await.expect("changed").api_keys_revoked);
        let page = PageRequest::new(None, None).expect("page");
        assert!(app.api_keys.list(&actor, page).await.expect("list").items.iter().all(|k| k.revoked_at.is_none()));
        let change = PasswordChange {
            current_password: "password-2".into(),
            new_password: "password-3".into(),
            keep_api_keys: false,
        };
        assert!(app.accounts.change_password(id, change).await.expect("changed").api_keys_revoked);
        assert!(app.api_keys.list(&actor, page).await.expect("list").items.iter().all(|k| k.revoked_at.is_some()));
        assert_eq!(store.find_by_id(id).await.expect("find").expect("exists").token_version, 2);
    });
}

#[test]
fn a_refresh_token_is_spent_once_and_follows_the_users_version() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let id = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let exp = time::OffsetDateTime::now_utc().unix_timestamp() + 600;
        let token = PresentedToken {
            jti: Uuid::from_u128(1),
            family: Some(Uuid::from_u128(9)),
            user_id: id,
            token_version: 0,
            expires_at: exp,
        };
        let renewal = app.sessions.refresh(token).await.expect("renewed");
        assert_eq!((renewal.family, renewal.roles.as_slice()), (Uuid::from_u128(9), &["user".to_owned()][..]));
        assert_eq!(app.sessions.refresh(token).await.err(), Some(IdentityError::TokenRevoked), "reused");
        let next = PresentedToken { jti: Uuid::from_u128(2), ..token };
        assert_eq!(app.sessions.refresh(next).await.err(), Some(IdentityError::TokenRevoked), "its family ended");
        let outdated = PresentedToken { jti: Uuid::from_u128(3), family: None, token_version: 5, ..token };
        assert_eq!(app.sessions.refresh(outdated).await.err(), Some(IdentityError::TokenRevoked));
        let gone = PresentedToken { jti: Uuid::from_u128(4), user_id: Uuid::from_u128(77), ..outdated };
        assert_eq!(app.sessions.refresh(gone).await.err(), Some(IdentityError::TokenUserGone));
    });
}

#[test]
fn superadmins_and_their_role_are_a_superadmins_business() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let admin = user_with_role(&store, &app, "admin@example.com", "admin").await;
        let root = user_with_role(&store, &app, "root@example.com", "superadmin").await;
        let ann = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let (held, all) = (roles(&["admin"]), PermissionSet::from_names(["*:*"]));
        let actor = Actor { user_id: admin, roles: &held, permissions: &all };
        let superadmin = store.find_role_by_name("superadmin").await.expect("find").expect("seeded");
        assert_eq!(
            app.users.change_status(&actor, root, UserStatus::Suspended, None).await.err(),
            Some(IdentityError::SuperadminOnly)
        );
        assert_eq!(
            app.users.change_status(&actor, admin, UserStatus::Suspended, None).await.err(),
            Some(IdentityError::OwnAccount)
        );
        assert_eq!(app.roles.assign_role(&actor, ann, superadmin.id).await.err(), Some(IdentityError::SuperadminOnly));
        assert_eq!(
            app.roles.grant_permissions(&actor, superadmin.id, &[Uuid::from_u128(9)]).await.err(),
            Some(IdentityError::SuperadminOnly)
        );
        let exp = time::OffsetDateTime::now_utc().unix_timestamp() + 600;
        let roots =
            PresentedToken { jti: Uuid::from_u128(5), family: None, user_id: root, token_version: 0, expires_at: exp };
        assert_eq!(app.sessions.revoke(&actor, roots).await.err(), Some(IdentityError::SuperadminOnly));
        let nobody = Actor { user_id: ann, roles: ADMIN, permissions: &all };
        assert_eq!(app.sessions.revoke(&nobody, roots).await.err(), Some(IdentityError::Refused(Refusal::OthersToken)));
        assert_eq!(app.users.view(&nobody, root).await.err(), Some(IdentityError::Refused(Refusal::NoPermission)));
        let moved = app.users.change_status(&actor, ann, UserStatus::Suspended, Some(" spam ")).await.expect("moved");
        assert_eq!((moved.status, moved.token_version), (UserStatus::Suspended, 1));
        assert_eq!(
            app.users.change_status(&actor, ann, UserStatus::Suspended, None).await.err(),
            Some(IdentityError::InvalidStatusTransition { from: "suspended", to: "suspended" })
        );
        let admin_role = store.find_role_by_name("admin").await.expect("find").expect("seeded");
        assert_eq!(
            app.roles.delete_role(admin_role.id).await.err(),
            Some(IdentityError::Refused(Refusal::DeleteSystemRole))
        );
        assert_eq!(app.roles.user_roles(Uuid::from_u128(77)).await.err(), Some(IdentityError::NotFound(Missing::User)));
    });
}

/// Users whose first status move loses its race: another administrator suspends the user first.
struct RacingUsers {
    inner: InMemoryIdentity,
    raced: AtomicBool,
}

#[async_trait]
impl UserRepository for RacingUsers {
    async fn create(&self, user: NewUser, events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError> {
        self.inner.create(user, events).await
    }
    async fn find_by_id(&self, id: Uuid) -> Result<Option<UserRecord>, RepoError> {
        self.inner.find_by_id(id).await
    }
    async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, RepoError> {
        self.inner.find_by_email(email).await
    }
    async fn names(&self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, RepoError> {
        self.inner.names(ids).await
    }
    async fn list(&self, filter: &UserFilter, page: PageRequest) -> Result<Page<UserRecord>, RepoError> {
        self.inner.list(filter, page).await
    }
    async fn record_failed_login(&self, id: Uuid, max: u32, lock_for: Duration) -> Result<FailedLogin, RepoError> {
        self.inner.record_failed_login(id, max, lock_for).await
    }
    async fn record_successful_login(&self, id: Uuid) -> Result<bool, RepoError> {
        self.inner.record_successful_login(id).await
    }
    async fn change_status(
        &self,
        id: Uuid,
        change: StatusChange,
        events: Vec<EventEnvelope>,
    ) -> Result<UserRecord, RepoError> {
        if !self.raced.swap(true, Ordering::SeqCst) {
            let first = UserStatus::Active.move_to(UserStatus::Suspended).expect("allowed");
            self.inner.change_status(id, first, Vec::new()).await?;
        }
        self.inner.change_status(id, change, events).await
    }
    async fn change_password(
        &self,
        id: Uuid,
        hash: String,
        revoke: bool,
        events: Vec<EventEnvelope>,
    ) -> Result<(), RepoError> {
        self.inner.change_password(id, hash, revoke, events).await
    }
    async fn unlock(&self, id: Uuid) -> Result<UserRecord, RepoError> {
        self.inner.unlock(id).await
    }
    async fn access_profile(&self, id: Uuid) -> Result<Option<AccessProfile>, RepoError> {
        self.inner.access_profile(id).await
    }
    async fn ensure_admin(
        &self,
        user: NewUser,
        roles: &[&str],
        existing: ExistingAccount,
        events: Vec<EventEnvelope>,
    ) -> Result<AdminProvision, RepoError> {
        self.inner.ensure_admin(user, roles, existing, events).await
    }
}

#[test]
fn a_status_move_that_lost_its_race_is_decided_again() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let racing = Arc::new(RacingUsers { inner: store.clone(), raced: AtomicBool::new(false) });
        let app = app_with(&store, racing, true);
        let admin = user_with_role(&store, &app, "admin@example.com", "admin").await;
        let ann = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let (held, all) = (roles(&["admin"]), PermissionSet::from_names(["*:*"]));
        let actor = Actor { user_id: admin, roles: &held, permissions: &all };
        // Read active, lost to a suspension, decided again from suspended: a ban still holds.
        let banned = app.users.change_status(&actor, ann, UserStatus::Banned, None).await.expect("banned");
        assert_eq!(banned.status, UserStatus::Banned);
        let names: Vec<String> = store.events().into_iter().map(|e| e.name).collect();
        assert_eq!(names.last().map(String::as_str), Some("identity.user.banned"));
    });
}

#[test]
fn contacts_and_profiles_keep_their_rules() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let ann = app.accounts.register(registration("ann@example.com")).await.expect("registered").user.id;
        let phone = ContactInput {
            contact_type: Some("phone".into()),
            phone: Some("+380 44 123 4567".into()),
            ..ContactInput::default()
        };
        let created = app.contacts.create(ann, phone).await.expect("created");
        assert_eq!(created.phone.as_deref(), Some("+380441234567"));
        let wrong = ContactInput { email: Some("a@example.com".into()), ..ContactInput::default() };
        assert!(matches!(
            app.contacts.update(ann, created.id, wrong).await,
            Err(IdentityError::Invalid { field: "email", .. })
        ));
        let retype = ContactInput { contact_type: Some("email".into()), ..ContactInput::default() };
        assert!(matches!(
            app.contacts.update(ann, created.id, retype).await,
            Err(IdentityError::Invalid { field: "type", .. })
        ));
        let bad = ContactInput {
            contact_type: Some("phone".into()),
            phone: Some("0441234567".into()),
            ..ContactInput::default()
        };
        assert_eq!(app.contacts.create(ann, bad).await.err(), Some(IdentityError::InvalidPhone));
        assert_eq!(
            app.contacts.find(Uuid::from_u128(1), created.id).await.err(),
            Some(IdentityError::NotFound(Missing::Contact))
        );

        let fields = ProfileFields { display_name: Some("Ann".into()), ..ProfileFields::default() };
        let profile = app.profiles.create(ann, fields.clone()).await.expect("created");
        assert_eq!(
            app.profiles.view(Uuid::from_u128(1), profile.id).await.err(),
            Some(IdentityError::NotFound(Missing::Profile)),
            "private"
        );
        assert_eq!(
            app.profiles.delete(Uuid::from_u128(1), profile.id).await.err(),
            Some(IdentityError::Refused(Refusal::OthersProfile))
        );
        let root = user_with_role(&store, &app, "root@example.com", "superadmin").await;
        let (held, all) = (roles(&["superadmin"]), PermissionSet::from_names(["*:*"]));
        let moderator = Actor { user_id: root, roles: &held, permissions: &all };
        assert!(app.profiles.moderate(&moderator, profile.id, Moderation::Ban).await.expect("banned").is_banned);
        app.profiles.delete(ann, profile.id).await.expect("deleted");
        assert_eq!(app.profiles.create(ann, fields).await.err(), Some(IdentityError::ProfileBanned));
    });
}

#[test]
fn a_grant_names_one_to_two_hundred_permissions_before_the_role_is_looked_at() {
    block_on(async {
        let store = InMemoryIdentity::new();
        let app = app(&store);
        let admin = user_with_role(&store, &app, "admin@example.com", "admin").await;
        let (held, all) = (roles(&["admin"]), PermissionSet::from_names(["*:*"]));
        let actor = Actor { user_id: admin, roles: &held, permissions: &all };
        let superadmin = store.find_role_by_name("superadmin").await.expect("find").expect("seeded");
        let none = app.roles.grant_permissions(&actor, superadmin.id, &[]).await.err();
        assert_eq!(none, Some(IdentityError::invalid("permission_ids", "must name at least one permission")));
        let too_many = vec![Uuid::from_u128(1); 201];
        let refused = app.roles.grant_permissions(&actor, Uuid::from_u128(404), &too_many).await.err();
        assert!(matches!(refused, Some(IdentityError::Invalid { field: "permission_ids", .. })), "{refused:?}");
        let role = app
            .roles
            .create_role(identity_domain::roles::NewRole {
                name: identity_domain::RoleName::parse("auditor").expect("name"),
                display_name: "Auditor".into(),
                description: String::new(),
            })
            .await
            .expect("created");
        let permission = store.list_permissions().await.expect("permissions")[0].id;
        let granted = app.roles.grant_permissions(&actor, role.id, &[permission; 200]).await.expect("granted");
        assert_eq!(granted, 1, "duplicates count once");
    });
}
