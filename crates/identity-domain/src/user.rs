//! The user status machine (docs/identity.md).
//!
//! active ↔ suspended; active | suspended → banned; banned is permanent. A new account is `active`.

use serde::{Deserialize, Serialize};

use crate::IdentityError;

/// Whether an account may be used; snake_case on the wire and in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserStatus {
    /// May log in and use its tokens and keys.
    Active,
    /// Temporarily barred by an administrator: logins answer 403 `ACCOUNT_SUSPENDED` and its tokens
    /// and keys stop working; may be reactivated.
    Suspended,
    /// Barred for good (logins answer 403 `ACCOUNT_BANNED`); no move leaves this status.
    Banned,
}

/// Every status, in the order `active`, `suspended`, `banned`.
pub const ALL_STATUSES: [UserStatus; 3] = [UserStatus::Active, UserStatus::Suspended, UserStatus::Banned];

impl UserStatus {
    /// The wire and database spelling: `active`, `suspended` or `banned`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Suspended => "suspended",
            Self::Banned => "banned",
        }
    }

    /// The status spelled `raw`, in any case and with surrounding blanks; `None` for anything else.
    pub fn parse(raw: &str) -> Option<Self> {
        ALL_STATUSES.into_iter().find(|s| s.as_str() == raw.trim().to_ascii_lowercase())
    }

    /// Whether `self → to` is an allowed move: active ↔ suspended, or active | suspended → banned.
    /// Staying in the same status is not a move.
    pub fn can_move_to(self, to: UserStatus) -> bool {
        matches!(
            (self, to),
            (Self::Active, Self::Suspended)
                | (Self::Suspended, Self::Active)
                | (Self::Active | Self::Suspended, Self::Banned)
        )
    }

    /// Validates a move, [`IdentityError::InvalidStatusTransition`] otherwise; the adapter applies it
    /// with a conditional update on the `from` status so concurrent moves cannot both succeed.
    pub fn move_to(self, to: UserStatus) -> Result<StatusChange, IdentityError> {
        if self.can_move_to(to) {
            Ok(StatusChange { from: self, to })
        } else {
            Err(IdentityError::InvalidStatusTransition { from: self.as_str(), to: to.as_str() })
        }
    }

    /// The event a move into this status raises: `identity.user.activated`, `.suspended` or `.banned`.
    pub fn event_name(self) -> &'static str {
        match self {
            Self::Active => crate::events::USER_ACTIVATED,
            Self::Suspended => crate::events::USER_SUSPENDED,
            Self::Banned => crate::events::USER_BANNED,
        }
    }
}

/// An allowed status move, made only by [`UserStatus::move_to`]; hand it to
/// `UserRepository::change_status`, which applies it only while the user is still in `from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusChange {
    /// The status the user was read in, which the conditional update expects.
    pub from: UserStatus,
    /// The status the user moves to.
    pub to: UserStatus,
}

impl StatusChange {
    /// Whether the move ends every session the user has: true when leaving `active` (the adapter
    /// bumps the token version in the same statement).
    pub fn revokes_tokens(&self) -> bool {
        self.to != UserStatus::Active
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use UserStatus::*;

    #[test]
    fn every_status_against_every_target() {
        let allowed = [(Active, Suspended), (Suspended, Active), (Active, Banned), (Suspended, Banned)];
        for from in ALL_STATUSES {
            for to in ALL_STATUSES {
                let result = from.move_to(to);
                if allowed.contains(&(from, to)) {
                    assert_eq!(result, Ok(StatusChange { from, to }), "{from:?} -> {to:?}");
                } else {
                    let error = result.expect_err("must be refused");
                    assert_eq!(shared_kernel::error::Classified::code(&error), "INVALID_STATUS_TRANSITION");
                }
            }
        }
    }

    #[test]
    fn parsing_and_events() {
        assert_eq!(UserStatus::parse(" Suspended "), Some(Suspended));
        assert_eq!(UserStatus::parse("deleted"), None);
        assert_eq!(Banned.event_name(), "identity.user.banned");
        assert!(Active.move_to(Suspended).expect("allowed").revokes_tokens());
        assert!(!Suspended.move_to(Active).expect("allowed").revokes_tokens());
    }
}
