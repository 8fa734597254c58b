//! The user status machine (decisions §3).
//!
//! active ↔ suspended; active | suspended → banned; banned is permanent.

use serde::{Deserialize, Serialize};

use crate::IdentityError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserStatus {
    Active,
    Suspended,
    Banned,
}

pub const ALL_STATUSES: [UserStatus; 3] = [UserStatus::Active, UserStatus::Suspended, UserStatus::Banned];

impl UserStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Suspended => "suspended",
            Self::Banned => "banned",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        ALL_STATUSES.into_iter().find(|s| s.as_str() == raw.trim().to_ascii_lowercase())
    }

    /// Whether `self → to` is an allowed move.
    pub fn can_move_to(self, to: UserStatus) -> bool {
        matches!(
            (self, to),
            (Self::Active, Self::Suspended)
                | (Self::Suspended, Self::Active)
                | (Self::Active | Self::Suspended, Self::Banned)
        )
    }

    /// Validates a move; the adapter applies it with a conditional update on
    /// the `from` status so concurrent moves cannot both succeed.
    pub fn move_to(self, to: UserStatus) -> Result<StatusChange, IdentityError> {
        if self.can_move_to(to) {
            Ok(StatusChange { from: self, to })
        } else {
            Err(IdentityError::InvalidStatusTransition { from: self.as_str(), to: to.as_str() })
        }
    }

    /// The event a move into this status raises.
    pub fn event_name(self) -> &'static str {
        match self {
            Self::Active => crate::events::USER_ACTIVATED,
            Self::Suspended => crate::events::USER_SUSPENDED,
            Self::Banned => crate::events::USER_BANNED,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusChange {
    pub from: UserStatus,
    pub to: UserStatus,
}

impl StatusChange {
    /// Leaving `active` ends every session the user has.
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
