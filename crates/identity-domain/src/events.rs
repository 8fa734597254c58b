//! Event names of the identity context (the spec's names, prefixed with
//! the context as other contexts subscribe to them).

pub const USER_REGISTERED: &str = "identity.user.registered";
pub const USER_ACTIVATED: &str = "identity.user.activated";
pub const USER_SUSPENDED: &str = "identity.user.suspended";
pub const USER_BANNED: &str = "identity.user.banned";
pub const USER_PASSWORD_CHANGED: &str = "identity.user.password_changed";
pub const CONTACT_CREATED: &str = "identity.contact.created";
pub const CONTACT_UPDATED: &str = "identity.contact.updated";
pub const CONTACT_VERIFIED: &str = "identity.contact.verified";
pub const CONTACT_DELETED: &str = "identity.contact.deleted";
pub const PROFILE_CREATED: &str = "identity.profile.created";
pub const PROFILE_UPDATED: &str = "identity.profile.updated";
pub const PROFILE_VERIFIED: &str = "identity.profile.verified";
pub const PROFILE_BANNED: &str = "identity.profile.banned";
/// Not in the specification's list; emitted so consumers see deletions as for contacts.
pub const PROFILE_DELETED: &str = "identity.profile.deleted";
