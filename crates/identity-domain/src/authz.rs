//! Roles and permissions: names, `resource:action` matching with the
//! `resource:*` and `*:*` wildcards, and the superadmin rule.

use std::collections::HashSet;

use crate::IdentityError;

/// The roles Tally seeds and relies on: they cannot be renamed or deleted. `user` is what
/// registration grants (no permission on business resources); `admin` and `superadmin` are the
/// administrators.
pub const SYSTEM_ROLES: [&str; 5] = ["superadmin", "admin", "manager", "user", "guest"];

/// The role only a superadmin may hand out, take away, change, or act upon.
pub const SUPERADMIN: &str = "superadmin";

/// What an administrator does to a user's account or what belongs to it (the target), or to a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountAction<'a> {
    /// Suspend, ban, or any other status change.
    ChangeStatus,
    /// Grant the role of this name.
    GrantRole(&'a str),
    /// Remove the role of this name.
    RemoveRole(&'a str),
    /// Lift the lock-out that failed logins set.
    Unlock,
    /// Revoke one of the account's tokens or API keys.
    RevokeCredential,
    /// Verify or ban the account's profile.
    ModerateProfile,
    /// Change a role: its permissions, name or description. Every holder of the role is
    /// changed with it, so the target's roles are the role itself.
    EditRole,
}

fn holds<R: AsRef<str>>(roles: &[R], name: &str) -> bool {
    roles.iter().any(|r| r.as_ref() == name)
}

/// Only a superadmin may grant or remove `superadmin`,
/// change that role, or do anything to a user who holds it (status, roles,
/// lock-out, tokens, keys, profile). Everything else is left to the route's own
/// guard (admin). `target_roles` must be the target's current roles, read from
/// the database just before the write; for [`AccountAction::EditRole`], the
/// edited role's name. A refusal is [`IdentityError::SuperadminOnly`] (docs/identity.md,
/// "Authorization").
pub fn may_administer<A: AsRef<str>, T: AsRef<str>>(
    actor_roles: &[A],
    target_roles: &[T],
    action: AccountAction<'_>,
) -> Result<(), IdentityError> {
    if holds(actor_roles, SUPERADMIN) {
        return Ok(());
    }
    let touches_superadmin_role = match action {
        AccountAction::GrantRole(role) | AccountAction::RemoveRole(role) => role == SUPERADMIN,
        AccountAction::ChangeStatus
        | AccountAction::Unlock
        | AccountAction::RevokeCredential
        | AccountAction::ModerateProfile
        | AccountAction::EditRole => false,
    };
    if touches_superadmin_role || holds(target_roles, SUPERADMIN) {
        Err(IdentityError::SuperadminOnly)
    } else {
        Ok(())
    }
}

/// Nobody locks themselves out by accident (a choice, see docs/identity.md):
/// an actor may not change their own account's status, nor remove their own
/// `admin` or `superadmin` role ([`IdentityError::OwnAccount`]). Granting oneself a role is left to
/// the guards; one's own lock-out, tokens, keys and profile are one's own business.
pub fn may_act_on_self(action: AccountAction<'_>) -> Result<(), IdentityError> {
    match action {
        AccountAction::ChangeStatus => Err(IdentityError::OwnAccount),
        AccountAction::RemoveRole(role) if role == "admin" || role == SUPERADMIN => Err(IdentityError::OwnAccount),
        AccountAction::RemoveRole(_)
        | AccountAction::GrantRole(_)
        | AccountAction::Unlock
        | AccountAction::RevokeCredential
        | AccountAction::ModerateProfile
        | AccountAction::EditRole => Ok(()),
    }
}

/// A role name: `^[a-z][a-z0-9_-]{1,49}$` (2..=50 characters, a lower-case letter first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoleName(String);

impl RoleName {
    /// The name in `raw`, surrounding blanks ignored; `Invalid { field: "name" }` when it does not
    /// match the pattern.
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        let name = raw.trim();
        let mut chars = name.chars();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
        let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if first_ok && rest_ok && (2..=50).contains(&name.len()) {
            Ok(Self(name.to_owned()))
        } else {
            Err(IdentityError::invalid("name", "must match ^[a-z][a-z0-9_-]{1,49}$"))
        }
    }

    /// The validated name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it names one of the [`SYSTEM_ROLES`].
    pub fn is_system(&self) -> bool {
        SYSTEM_ROLES.contains(&self.0.as_str())
    }
}

/// One side of a permission name: `*` or a lower-case identifier.
fn is_part(part: &str) -> bool {
    part == "*"
        || (part.len() <= 50
            && part.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
}

/// A permission's name, `resource:action`: each side is `*` (every resource, every action) or a
/// lower-case identifier of at most 50 characters (`[a-z][a-z0-9_]*`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PermissionName {
    /// What the permission is about (`customers`, `orders`, or `*`).
    pub resource: String,
    /// What it allows on it (`read`, `update`, or `*`).
    pub action: String,
}

impl PermissionName {
    /// The pair, each side trimmed and checked; `Invalid` naming `resource` or `action` otherwise.
    pub fn new(resource: &str, action: &str) -> Result<Self, IdentityError> {
        let (resource, action) = (resource.trim(), action.trim());
        if !is_part(resource) {
            return Err(IdentityError::invalid("resource", "must be * or a lower-case name of at most 50 characters"));
        }
        if !is_part(action) {
            return Err(IdentityError::invalid("action", "must be * or a lower-case name of at most 50 characters"));
        }
        Ok(Self { resource: resource.to_owned(), action: action.to_owned() })
    }

    /// Splits `resource:action` at its first colon and checks both sides; `Invalid { field:
    /// "name" }` without a colon.
    pub fn parse(name: &str) -> Result<Self, IdentityError> {
        let (resource, action) =
            name.split_once(':').ok_or_else(|| IdentityError::invalid("name", "must be resource:action"))?;
        Self::new(resource, action)
    }

    /// The stored and wire form, `resource:action`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.resource, self.action)
    }

    /// Whether this one permission grants `action` on `resource`, a `*` side matching anything.
    pub fn covers(&self, resource: &str, action: &str) -> bool {
        (self.resource == "*" || self.resource == resource) && (self.action == "*" || self.action == action)
    }
}

/// What a caller may do: the union of their roles' permissions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionSet {
    names: HashSet<String>,
}

impl PermissionSet {
    /// The set of the given permission names (`resource:action`, as stored); duplicates collapse.
    pub fn from_names<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> Self {
        Self { names: names.into_iter().map(Into::into).collect() }
    }

    /// `resource:action`, `resource:*` or `*:*` grants it. (`*:action` is a
    /// valid grant too: an action on every resource.)
    pub fn allows(&self, resource: &str, action: &str) -> bool {
        self.names.contains("*:*")
            || self.names.contains(&format!("{resource}:{action}"))
            || self.names.contains(&format!("{resource}:*"))
            || self.names.contains(&format!("*:{action}"))
    }

    /// The names in the set, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names() {
        for good in ["ab", "sales-rep", "team_2", &format!("a{}", "b".repeat(49))] {
            assert!(RoleName::parse(good).is_ok(), "{good}");
        }
        for bad in ["a", "Admin", "1team", "sales rep", "", &format!("a{}", "b".repeat(50)), "ümlaut"] {
            assert!(RoleName::parse(bad).is_err(), "{bad}");
        }
        assert!(RoleName::parse("manager").expect("valid").is_system());
        assert!(!RoleName::parse("sales").expect("valid").is_system());
    }

    #[test]
    fn permission_names_derive_and_validate() {
        let name = PermissionName::new("customers", "read").expect("valid");
        assert_eq!(name.name(), "customers:read");
        assert_eq!(PermissionName::parse("orders:*").expect("valid").action, "*");
        assert!(PermissionName::parse("orders").is_err());
        assert!(PermissionName::new("Orders", "read").is_err());
        assert!(PermissionName::new("orders", "re ad").is_err());
        assert!(name.covers("customers", "read") && !name.covers("customers", "update"));
        assert!(PermissionName::parse("*:*").expect("valid").covers("anything", "at_all"));
    }

    #[test]
    fn only_a_superadmin_touches_superadmins_and_their_role() {
        use AccountAction::{ChangeStatus, GrantRole, ModerateProfile, RemoveRole, RevokeCredential, Unlock};
        let superadmin = ["admin", "superadmin"];
        let admin = ["admin"];
        let user = ["user"];
        let none: [&str; 0] = [];
        let actions = [
            ChangeStatus,
            GrantRole("staff"),
            RemoveRole("user"),
            GrantRole(SUPERADMIN),
            RemoveRole(SUPERADMIN),
            Unlock,
            RevokeCredential,
            ModerateProfile,
        ];
        // A superadmin may do everything, to anyone.
        for target in [&superadmin[..], &admin, &user, &none] {
            for action in actions {
                assert_eq!(may_administer(&superadmin, target, action), Ok(()), "{target:?} {action:?}");
            }
        }
        // An admin: ordinary actions on ordinary users...
        for target in [&admin[..], &user, &none] {
            for action in
                [ChangeStatus, GrantRole("admin"), RemoveRole("staff"), Unlock, RevokeCredential, ModerateProfile]
            {
                assert_eq!(may_administer(&admin, target, action), Ok(()), "{target:?} {action:?}");
            }
            // ...but never the superadmin role itself.
            for action in [GrantRole(SUPERADMIN), RemoveRole(SUPERADMIN)] {
                assert_eq!(may_administer(&admin, target, action), Err(IdentityError::SuperadminOnly));
            }
        }
        // Nothing at all on a superadmin, not even an unrelated role.
        for action in actions {
            assert_eq!(may_administer(&admin, &superadmin, action), Err(IdentityError::SuperadminOnly), "{action:?}");
            assert_eq!(may_administer(&none, &["superadmin"], action), Err(IdentityError::SuperadminOnly));
        }
        // Changing a role changes its holders: the superadmin role is a superadmin's to change.
        assert_eq!(may_administer(&admin, &[SUPERADMIN], AccountAction::EditRole), Err(IdentityError::SuperadminOnly));
        assert_eq!(may_administer(&superadmin, &[SUPERADMIN], AccountAction::EditRole), Ok(()));
        assert_eq!(may_administer(&admin, &["admin"], AccountAction::EditRole), Ok(()));
        // Role names are exact: a look-alike is not the superadmin role.
        assert_eq!(may_administer(&admin, &["superadmins"], GrantRole("superadmin-x")), Ok(()));
        // Owned strings work as well as literals.
        let owned = vec![String::from("superadmin")];
        assert_eq!(may_administer(&owned, &owned, ChangeStatus), Ok(()));
    }

    #[test]
    fn nobody_locks_themselves_out() {
        use AccountAction::{ChangeStatus, GrantRole, RemoveRole};
        assert_eq!(may_act_on_self(ChangeStatus), Err(IdentityError::OwnAccount));
        assert_eq!(may_act_on_self(RemoveRole("admin")), Err(IdentityError::OwnAccount));
        assert_eq!(may_act_on_self(RemoveRole(SUPERADMIN)), Err(IdentityError::OwnAccount));
        assert_eq!(may_act_on_self(RemoveRole("staff")), Ok(()));
        assert_eq!(may_act_on_self(GrantRole("staff")), Ok(()));
        assert_eq!(may_act_on_self(GrantRole(SUPERADMIN)), Ok(()));
        for own in [AccountAction::Unlock, AccountAction::RevokeCredential, AccountAction::ModerateProfile] {
            assert_eq!(may_act_on_self(own), Ok(()), "{own:?}");
        }
    }

    #[test]
    fn wildcards_grant_what_they_say() {
        let exact = PermissionSet::from_names(["customers:read"]);
        assert!(exact.allows("customers", "read"));
        assert!(!exact.allows("customers", "update"));
        assert!(!exact.allows("orders", "read"));
        let resource = PermissionSet::from_names(["orders:*"]);
        assert!(resource.allows("orders", "delete") && !resource.allows("deals", "read"));
        let all = PermissionSet::from_names(["*:*"]);
        assert!(all.allows("events", "read"));
        let action = PermissionSet::from_names(["*:read"]);
        assert!(action.allows("products", "read") && !action.allows("products", "create"));
        assert!(!PermissionSet::default().allows("customers", "read"));
    }
}
