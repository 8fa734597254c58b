//! Profiles: one public-facing card per user, with its field rules and moderation
//! (docs/contacts-and-profiles.md). Reference-data checks (timezone, language, country exist) are
//! the adapter's job.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use crate::ports::RepoError;
use crate::IdentityError;

/// The gender a user states on their profile, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gender {
    /// `male`.
    Male,
    /// `female`.
    Female,
    /// `other`.
    Other,
    /// `not_specify`: the user chose not to say.
    NotSpecify,
}

impl Gender {
    /// The wire and database spelling (`male`, `female`, `other`, `not_specify`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Male => "male",
            Self::Female => "female",
            Self::Other => "other",
            Self::NotSpecify => "not_specify",
        }
    }

    /// The gender spelled exactly `raw` (lower case, surrounding blanks ignored); `None` otherwise.
    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Male, Self::Female, Self::Other, Self::NotSpecify].into_iter().find(|g| g.as_str() == raw.trim())
    }
}

/// Every settable profile field; `None` means "not given", and for an optional text an empty
/// string means "clear it". Limits are in characters after trimming ([`ProfileFields::validate`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileFields {
    /// The name shown to others, at most 255; required on create, never empty.
    pub display_name: Option<String>,
    /// Given name, at most 100.
    pub first_name: Option<String>,
    /// Family name, at most 100.
    pub last_name: Option<String>,
    /// A [`Gender`] spelling.
    pub gender: Option<String>,
    /// Birth date, not after today.
    pub date_of_birth: Option<Date>,
    /// Free text about the user, at most 500.
    pub bio: Option<String>,
    /// Picture link: an http(s) URL of at most 500.
    pub avatar_url: Option<String>,
    /// IANA time zone name (`Europe/Kyiv`), at most 50; must exist in the reference data.
    pub timezone: Option<String>,
    /// ISO 639-1 code, stored lower-case; must exist in the reference data.
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 code, stored upper-case; must exist in the reference data.
    pub country: Option<String>,
    /// Personal site: an http(s) URL of at most 500.
    pub website: Option<String>,
    /// LinkedIn link: an http(s) URL of at most 500.
    pub linkedin_url: Option<String>,
    /// Twitter link: an http(s) URL of at most 500.
    pub twitter_url: Option<String>,
    /// GitHub link: an http(s) URL of at most 500.
    pub github_url: Option<String>,
    /// Whether the profile is listed publicly and readable by anyone.
    pub is_public: Option<bool>,
}

/// Trimmed text within `max` characters (`Invalid { field }` beyond); an empty string is kept and
/// clears the field when stored.
pub fn text(field: &'static str, value: Option<String>, max: usize) -> Result<Option<String>, IdentityError> {
    let Some(value) = value else { return Ok(None) };
    let trimmed = value.trim();
    if trimmed.chars().count() > max {
        return Err(IdentityError::invalid(field, format!("must be at most {max} characters")));
    }
    Ok(Some(trimmed.to_owned()))
}

/// An absolute http(s) URL with a host and no blanks, at most 500 characters; empty clears.
/// `Invalid { field }` otherwise (`ftp:` and `javascript:` links included).
pub fn url(field: &'static str, value: Option<String>) -> Result<Option<String>, IdentityError> {
    let Some(value) = text(field, value, 500)? else { return Ok(None) };
    if value.is_empty() {
        return Ok(Some(value));
    }
    let rest = value.strip_prefix("https://").or_else(|| value.strip_prefix("http://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
    match host {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) && !value.contains(' ') => {
            Ok(Some(value))
        }
        _ => Err(IdentityError::invalid(field, "must be an http(s) URL")),
    }
}

impl ProfileFields {
    /// Checks every given field against the limits above and normalises it (trimmed, language
    /// lower-case, country upper-case); `creating` makes `display_name` required. `today` bounds
    /// the birth date. The first broken rule is `Invalid` naming its field.
    pub fn validate(mut self, creating: bool, today: Date) -> Result<Self, IdentityError> {
        self.display_name = text("display_name", self.display_name, 255)?;
        match self.display_name.as_deref() {
            Some("") => return Err(IdentityError::invalid("display_name", "must not be empty")),
            None if creating => return Err(IdentityError::invalid("display_name", "is required")),
            _ => {}
        }
        self.first_name = text("first_name", self.first_name, 100)?;
        self.last_name = text("last_name", self.last_name, 100)?;
        self.bio = text("bio", self.bio, 500)?;
        if let Some(gender) = &self.gender {
            if !gender.is_empty() && Gender::parse(gender).is_none() {
                return Err(IdentityError::invalid("gender", "must be male, female, other or not_specify"));
            }
        }
        if self.date_of_birth.is_some_and(|d| d > today) {
            return Err(IdentityError::invalid("date_of_birth", "must not be in the future"));
        }
        self.avatar_url = url("avatar_url", self.avatar_url)?;
        self.website = url("website", self.website)?;
        self.linkedin_url = url("linkedin_url", self.linkedin_url)?;
        self.twitter_url = url("twitter_url", self.twitter_url)?;
        self.github_url = url("github_url", self.github_url)?;
        self.timezone = text("timezone", self.timezone, 50)?;
        self.language = text("language", self.language, 2)?.map(|l| l.to_ascii_lowercase());
        self.country = text("country", self.country, 2)?.map(|c| c.to_ascii_uppercase());
        Ok(self)
    }
}

/// A stored profile; its fields obey the rules of [`ProfileFields`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRecord {
    /// The profile's identity.
    pub id: Uuid,
    /// The owner; a user has at most one live profile.
    pub user_id: Uuid,
    /// The name shown to others, never empty.
    pub display_name: String,
    /// Given name.
    pub first_name: Option<String>,
    /// Family name.
    pub last_name: Option<String>,
    /// Stated gender.
    pub gender: Option<Gender>,
    /// Birth date.
    pub date_of_birth: Option<Date>,
    /// Free text about the user.
    pub bio: Option<String>,
    /// Picture link.
    pub avatar_url: Option<String>,
    /// IANA time zone name.
    pub timezone: Option<String>,
    /// ISO 639-1 language code, lower-case.
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 country code, upper-case.
    pub country: Option<String>,
    /// Personal site link.
    pub website: Option<String>,
    /// LinkedIn link.
    pub linkedin_url: Option<String>,
    /// Twitter link.
    pub twitter_url: Option<String>,
    /// GitHub link.
    pub github_url: Option<String>,
    /// The owner lets anyone read it.
    pub is_public: bool,
    /// Whether the profile is active: true from creation; an inactive one is never shown publicly.
    pub is_active: bool,
    /// An administrator banned it; a ban is never lifted and outlives the profile.
    pub is_banned: bool,
    /// An administrator verified it.
    pub is_verified: bool,
    /// When the profile was created.
    pub created_at: OffsetDateTime,
    /// When the profile last changed.
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

impl ProfileRecord {
    /// Whether it is listed publicly and readable by anyone: public, active and not banned.
    pub fn is_publicly_visible(&self) -> bool {
        self.is_public && self.is_active && !self.is_banned
    }

    /// The event `name` about this profile (aggregate: the profile).
    pub fn event(&self, name: &'static str) -> EventEnvelope {
        let payload = crate::events::ProfileChanged {
            profile_id: self.id,
            user_id: self.user_id,
            is_public: self.is_public,
            is_verified: self.is_verified,
            is_banned: self.is_banned,
        };
        EventEnvelope::with_payload(name, self.id, OffsetDateTime::now_utc(), &payload)
    }
}

/// A profile to store; `fields` went through [`ProfileFields::validate`].
#[derive(Debug, Clone)]
pub struct NewProfile {
    /// The identity chosen by the caller.
    pub id: Uuid,
    /// The owner.
    pub user_id: Uuid,
    /// The profile's fields, validated with `creating` set.
    pub fields: ProfileFields,
}

/// The moderation flags an admin sets; each is one-way (nothing unsets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moderation {
    /// Mark the profile verified.
    Verify,
    /// Ban the profile: it leaves public lists, and its owner can never create another.
    Ban,
}

/// What creating a profile did.
#[derive(Debug, Clone)]
pub enum ProfileCreation {
    /// The profile was stored, as read back.
    Created(Box<ProfileRecord>),
    /// Refused: the user's profile was banned (409 `PROFILE_BANNED`).
    Banned,
}

/// Profiles, one per user. Changes record their `identity.profile.*` event
/// in their transaction. Owner-scoped methods treat someone else's profile
/// as `NotFound`; unknown `timezone`, `language` or `country` values are
/// `MissingReference { field }` naming that field.
#[async_trait]
pub trait ProfileRepository: Send + Sync {
    /// Records `identity.profile.created`; a second live profile of the
    /// same user is `Conflict { field: "user_id" }`. A user any of whose
    /// profiles, live or deleted, was banned gets `ProfileCreation::Banned`:
    /// a ban outlives the profile, decided in the insert itself.
    async fn create(&self, profile: NewProfile) -> Result<ProfileCreation, RepoError>;
    /// The live profile `id`, whoever owns it, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<ProfileRecord>, RepoError>;
    /// The user's live profile, if any.
    async fn find_by_user(&self, user_id: Uuid) -> Result<Option<ProfileRecord>, RepoError>;
    /// Applies the given fields (an empty text clears it); records
    /// `identity.profile.updated`.
    async fn update(&self, owner: Uuid, id: Uuid, fields: ProfileFields) -> Result<ProfileRecord, RepoError>;
    /// Soft delete; records `identity.profile.deleted`. A banned profile
    /// may be deleted: its ban stays on record and keeps refusing `create`.
    async fn delete(&self, owner: Uuid, id: Uuid) -> Result<(), RepoError>;
    /// Sets a moderation flag; records `identity.profile.verified` or
    /// `identity.profile.banned` when the flag was not set yet.
    async fn moderate(&self, id: Uuid, action: Moderation) -> Result<ProfileRecord, RepoError>;
    /// Public, active, not banned profiles, newest first.
    async fn list_public(&self, page: PageRequest) -> Result<Page<ProfileRecord>, RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    const TODAY: Date = date!(2026 - 11 - 22);

    #[test]
    fn creation_needs_a_display_name() {
        assert!(ProfileFields::default().validate(true, TODAY).is_err());
        assert!(ProfileFields::default().validate(false, TODAY).is_ok());
        let blank = ProfileFields { display_name: Some("  ".into()), ..Default::default() };
        assert!(blank.validate(false, TODAY).is_err());
    }

    #[test]
    fn limits_and_urls() {
        let ok = ProfileFields {
            display_name: Some("Ann".into()),
            bio: Some("b".repeat(500)),
            website: Some("https://ann.example/about".into()),
            github_url: Some("".into()),
            gender: Some("not_specify".into()),
            language: Some("UK".into()),
            country: Some("ua".into()),
            date_of_birth: Some(date!(1990 - 01 - 01)),
            ..Default::default()
        }
        .validate(true, TODAY)
        .expect("valid");
        assert_eq!((ok.language.as_deref(), ok.country.as_deref()), (Some("uk"), Some("UA")));
        for bad in [
            ProfileFields { bio: Some("b".repeat(501)), ..Default::default() },
            ProfileFields { website: Some("ftp://ann.example".into()), ..Default::default() },
            ProfileFields { website: Some("javascript:alert(1)".into()), ..Default::default() },
            ProfileFields {
                linkedin_url: Some(format!("https://x.example/{}", "a".repeat(490))),
                ..Default::default()
            },
            ProfileFields { gender: Some("robot".into()), ..Default::default() },
            ProfileFields { date_of_birth: Some(date!(2030 - 01 - 01)), ..Default::default() },
            ProfileFields { first_name: Some("f".repeat(101)), ..Default::default() },
        ] {
            assert!(bad.clone().validate(false, TODAY).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_public_active_unbanned_profiles_are_visible_to_others() {
        let at = time::macros::datetime!(2026-11-22 10:00 UTC);
        let profile = ProfileRecord {
            version: 1,
            id: Uuid::nil(),
            user_id: Uuid::max(),
            display_name: "Ann".into(),
            first_name: None,
            last_name: None,
            gender: Some(Gender::NotSpecify),
            date_of_birth: None,
            bio: None,
            avatar_url: None,
            timezone: None,
            language: None,
            country: None,
            website: None,
            linkedin_url: None,
            twitter_url: None,
            github_url: None,
            is_public: true,
            is_active: true,
            is_banned: false,
            is_verified: false,
            created_at: at,
            updated_at: at,
        };
        assert!(profile.is_publicly_visible());
        assert!(!ProfileRecord { is_public: false, ..profile.clone() }.is_publicly_visible());
        assert!(!ProfileRecord { is_active: false, ..profile.clone() }.is_publicly_visible());
        assert!(!ProfileRecord { is_banned: true, ..profile.clone() }.is_publicly_visible());
        let event = profile.event(crate::events::PROFILE_BANNED);
        assert_eq!((event.name.as_str(), event.aggregate_id), ("identity.profile.banned", profile.id));
        assert_eq!(event.data["user_id"], serde_json::json!(profile.user_id));
        assert_eq!(event.data["profile_id"], serde_json::json!(profile.id));
    }
}
