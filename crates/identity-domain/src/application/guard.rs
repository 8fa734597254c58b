//! The account rules every use case that acts on someone else's account, on what belongs to it, or
//! on a role applies, in one place: nobody locks themselves out ([`may_act_on_self`]), and
//! superadmins and their role are a superadmin's business ([`may_administer`], docs/identity.md).

use uuid::Uuid;

use super::Actor;
use crate::authz::{may_act_on_self, may_administer, AccountAction, SUPERADMIN};
use crate::roles::RoleRepository;
use crate::IdentityError;

/// What an administrator acts upon.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A user's account, or something of theirs: status, roles, lock-out, tokens, keys, profile.
    User(Uuid),
    /// A role, by name: changing it changes everyone who holds it.
    Role(&'a str),
}

/// Whether `actor` may do `action` to `target`. A user's roles are read from storage (not the
/// access cache) right before the actor's write; a promotion racing that read can still slip
/// through (docs/identity.md, "Authorization").
#[tracing::instrument(skip_all, fields(actor = %actor.user_id))]
pub async fn authorize(
    roles: &dyn RoleRepository,
    actor: &Actor<'_>,
    target: Target<'_>,
    action: AccountAction<'_>,
) -> Result<(), IdentityError> {
    match target {
        Target::Role(name) => may_administer(actor.roles, &[name], action),
        Target::User(id) => {
            if actor.user_id == id {
                may_act_on_self(action)?;
            }
            // A superadmin may do anything to anyone: no need to read the target.
            if actor.has_role(SUPERADMIN) {
                return Ok(());
            }
            let held = roles.user_roles(id).await?;
            let names: Vec<&str> = held.iter().map(|r| r.name.as_str()).collect();
            may_administer(actor.roles, &names, action)
        }
    }
}
