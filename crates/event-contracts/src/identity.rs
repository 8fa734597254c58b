//! Events of the identity context. Names carry the context as a prefix, since other contexts subscribe
//! to them (customer management creates a customer from `identity.user.registered`).
//!
//! Aggregate id: the user for `identity.user.*`, the contact for `identity.contact.*`, the profile for
//! `identity.profile.*`.

use serde::{Deserialize, Serialize};
use shared_kernel::Email;
use uuid::Uuid;

use crate::Topic;

/// A new account exists ([`UserRegistered`]); customer management creates a customer from it.
pub const USER_REGISTERED: &str = "identity.user.registered";
/// A suspended account moved back into `active` ([`UserStatusChanged`]).
pub const USER_ACTIVATED: &str = "identity.user.activated";
/// An active account moved into `suspended`, from which it may be reactivated ([`UserStatusChanged`]).
pub const USER_SUSPENDED: &str = "identity.user.suspended";
/// An active or suspended account moved into `banned`, which has no way back ([`UserStatusChanged`]).
pub const USER_BANNED: &str = "identity.user.banned";
/// An account's password was changed ([`UserPasswordChanged`]); the payload never carries it.
pub const USER_PASSWORD_CHANGED: &str = "identity.user.password_changed";
/// A user added a contact (email, phone or address) ([`ContactChanged`]).
pub const CONTACT_CREATED: &str = "identity.contact.created";
/// A contact's value or flags changed ([`ContactChanged`]).
pub const CONTACT_UPDATED: &str = "identity.contact.updated";
/// A contact was verified ([`ContactChanged`]).
pub const CONTACT_VERIFIED: &str = "identity.contact.verified";
/// A contact was deleted; the payload shows its flags as they last were ([`ContactChanged`]).
pub const CONTACT_DELETED: &str = "identity.contact.deleted";
/// A user created a profile ([`ProfileChanged`]).
pub const PROFILE_CREATED: &str = "identity.profile.created";
/// A profile's content or visibility changed ([`ProfileChanged`]).
pub const PROFILE_UPDATED: &str = "identity.profile.updated";
/// A profile was verified ([`ProfileChanged`]).
pub const PROFILE_VERIFIED: &str = "identity.profile.verified";
/// A profile was banned ([`ProfileChanged`]).
pub const PROFILE_BANNED: &str = "identity.profile.banned";
/// Not in the specification's list; emitted so consumers see deletions as for contacts.
pub const PROFILE_DELETED: &str = "identity.profile.deleted";

/// The names [`UserStatusChanged`] travels under: a move into active, suspended or banned.
pub const USER_STATUS_EVENTS: [&str; 3] = [USER_ACTIVATED, USER_SUSPENDED, USER_BANNED];
/// The names [`ContactChanged`] travels under.
pub const CONTACT_EVENTS: [&str; 4] = [CONTACT_CREATED, CONTACT_UPDATED, CONTACT_VERIFIED, CONTACT_DELETED];
/// The names [`ProfileChanged`] travels under.
pub const PROFILE_EVENTS: [&str; 5] =
    [PROFILE_CREATED, PROFILE_UPDATED, PROFILE_VERIFIED, PROFILE_BANNED, PROFILE_DELETED];

/// `identity.user.registered`: a new account (self-registered or the first admin).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRegistered {
    /// The new account's id; also the envelope's aggregate id.
    pub user_id: Uuid,
    /// The address the account signs in with.
    pub email: Email,
    /// The display name given at registration.
    pub name: String,
}

impl Topic for UserRegistered {
    const NAME: &'static str = USER_REGISTERED;
}

/// `identity.user.activated`, `.suspended`, `.banned` ([`USER_STATUS_EVENTS`]); `reason` is `null`
/// when none was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserStatusChanged {
    /// The account whose status moved; also the envelope's aggregate id.
    pub user_id: Uuid,
    /// Why, when the status change gave a reason; `null` or absent on the wire reads as `None`.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `identity.user.password_changed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserPasswordChanged {
    /// The account whose password changed; also the envelope's aggregate id.
    pub user_id: Uuid,
}

impl Topic for UserPasswordChanged {
    const NAME: &'static str = USER_PASSWORD_CHANGED;
}

/// `identity.contact.*` ([`CONTACT_EVENTS`]): the contact, its owner and its flags, never its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactChanged {
    /// The contact; also the envelope's aggregate id.
    pub contact_id: Uuid,
    /// The user who owns the contact.
    pub user_id: Uuid,
    /// `email`, `phone` or `address`.
    #[serde(rename = "type")]
    pub contact_type: String,
    /// Whether it is the owner's primary contact of its type (at most one per type).
    pub is_primary: bool,
    /// Whether the contact has been verified.
    pub is_verified: bool,
    /// Whether other users may see it.
    pub is_public: bool,
}

/// `identity.profile.*` ([`PROFILE_EVENTS`]): the profile, its owner and its flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileChanged {
    /// The profile; also the envelope's aggregate id.
    pub profile_id: Uuid,
    /// The user who owns the profile.
    pub user_id: Uuid,
    /// Whether other users may see it.
    pub is_public: bool,
    /// Whether the profile has been verified.
    pub is_verified: bool,
    /// Whether the profile is banned (hidden from others whatever `is_public` says).
    pub is_banned: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn user_events_keep_their_wire_shape() {
        let email = Email::parse("Ann@Example.com").expect("valid");
        let registered = UserRegistered { user_id: id(1), email, name: "Ann".to_owned() };
        round_trips(&registered, json!({"user_id": id(1), "email": "ann@example.com", "name": "Ann"}));
        round_trips(
            &UserStatusChanged { user_id: id(1), reason: Some("spam".to_owned()) },
            json!({"user_id": id(1), "reason": "spam"}),
        );
        round_trips(&UserStatusChanged { user_id: id(1), reason: None }, json!({"user_id": id(1), "reason": null}));
        round_trips(&UserPasswordChanged { user_id: id(1) }, json!({"user_id": id(1)}));
        assert_eq!(USER_STATUS_EVENTS, ["identity.user.activated", "identity.user.suspended", "identity.user.banned"]);
        assert_eq!(
            (UserRegistered::NAME, UserPasswordChanged::NAME),
            ("identity.user.registered", "identity.user.password_changed")
        );
    }

    #[test]
    fn a_registration_with_an_invalid_email_is_refused() {
        let data = json!({"user_id": id(1), "email": "not-an-email", "name": "Ann"});
        assert!(serde_json::from_value::<UserRegistered>(data).is_err());
    }

    #[test]
    fn contact_and_profile_events_keep_their_wire_shape() {
        let contact = ContactChanged {
            contact_id: id(2),
            user_id: id(1),
            contact_type: "email".to_owned(),
            is_primary: true,
            is_verified: false,
            is_public: false,
        };
        round_trips(
            &contact,
            json!({"contact_id": id(2), "user_id": id(1), "type": "email", "is_primary": true,
                   "is_verified": false, "is_public": false}),
        );
        let profile =
            ProfileChanged { profile_id: id(3), user_id: id(1), is_public: true, is_verified: true, is_banned: false };
        round_trips(
            &profile,
            json!({"profile_id": id(3), "user_id": id(1), "is_public": true, "is_verified": true, "is_banned": false}),
        );
        assert!(CONTACT_EVENTS.iter().all(|n| n.starts_with("identity.contact.")));
        assert!(PROFILE_EVENTS.iter().all(|n| n.starts_with("identity.profile.")));
    }
}
