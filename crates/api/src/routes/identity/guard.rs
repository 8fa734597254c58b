//! The account rules every identity route that acts on someone else's account, on what
//! belongs to it, or on a role asks, in one place: nobody locks themselves out
//! ([`may_act_on_self`]), and superadmins and their role are a superadmin's business
//! (docs/identity.md, [`may_administer`]).

use identity_domain::{may_act_on_self, may_administer, AccountAction, SUPERADMIN};
use uuid::Uuid;

use crate::app::AppState;
use crate::auth::Caller;
use crate::http::ApiError;

/// What an administrator acts upon.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A user's account, or something of theirs: status, roles, lock-out, tokens, keys, profile.
    User(Uuid),
    /// A role, by name: changing it changes everyone who holds it.
    Role(&'a str),
}

/// Whether `caller` may do `action` to `target`. A user's roles are read from the database (not
/// the access cache) right before the caller's write; a promotion racing that read can still slip
/// through (docs/identity.md, "Authorization").
pub(crate) async fn guard(
    state: &AppState,
    caller: &Caller,
    target: Target<'_>,
    action: AccountAction<'_>,
) -> Result<(), ApiError> {
    let allowed = match target {
        Target::Role(name) => may_administer(&caller.roles, &[name], action),
        Target::User(id) => {
            if caller.user_id == id {
                may_act_on_self(action).map_err(|e| ApiError::from_domain(&e))?;
            }
            // A superadmin may do anything to anyone: no need to read the target.
            if caller.has_role(SUPERADMIN) {
                return Ok(());
            }
            let roles = state.identity.roles.user_roles(id).await.map_err(ApiError::from)?;
            let names: Vec<&str> = roles.iter().map(|r| r.name.as_str()).collect();
            may_administer(&caller.roles, &names, action)
        }
    };
    allowed.map_err(|e| ApiError::from_domain(&e))
}
