//! [`ProfileRepository`] in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;

use super::{InMemoryIdentity, State};
use crate::events::{PROFILE_BANNED, PROFILE_CREATED, PROFILE_DELETED, PROFILE_UPDATED, PROFILE_VERIFIED};
use crate::ports::RepoError;
use crate::profile::{
    Gender, Moderation, NewProfile, ProfileCreation, ProfileFields, ProfileRecord, ProfileRepository,
};

/// Reference data no store knows, for tests of `MissingReference`.
const UNKNOWN: [(&str, &str); 3] = [("country", "XX"), ("language", "xx"), ("timezone", "Nowhere/Unknown")];

fn check_references(fields: &ProfileFields) -> Result<(), RepoError> {
    for (field, value) in [("country", &fields.country), ("language", &fields.language), ("timezone", &fields.timezone)]
    {
        if UNKNOWN.contains(&(field, value.as_deref().unwrap_or_default())) {
            return Err(RepoError::MissingReference { field });
        }
    }
    Ok(())
}

/// An optional text as stored: an empty one clears the field.
fn text(value: Option<String>, current: &mut Option<String>) {
    if let Some(value) = value {
        *current = (!value.is_empty()).then_some(value);
    }
}

fn apply(record: &mut ProfileRecord, fields: ProfileFields) {
    if let Some(name) = fields.display_name {
        record.display_name = name;
    }
    text(fields.first_name, &mut record.first_name);
    text(fields.last_name, &mut record.last_name);
    if let Some(gender) = fields.gender {
        record.gender = Gender::parse(&gender);
    }
    if let Some(date) = fields.date_of_birth {
        record.date_of_birth = Some(date);
    }
    text(fields.bio, &mut record.bio);
    text(fields.avatar_url, &mut record.avatar_url);
    text(fields.timezone, &mut record.timezone);
    text(fields.language, &mut record.language);
    text(fields.country, &mut record.country);
    text(fields.website, &mut record.website);
    text(fields.linkedin_url, &mut record.linkedin_url);
    text(fields.twitter_url, &mut record.twitter_url);
    text(fields.github_url, &mut record.github_url);
    if let Some(public) = fields.is_public {
        record.is_public = public;
    }
}

impl State {
    fn live_profile(&mut self, id: Uuid) -> Result<&mut ProfileRecord, RepoError> {
        match self.profiles.get_mut(&id) {
            Some((profile, false)) => Ok(profile),
            _ => Err(RepoError::NotFound),
        }
    }
}

#[async_trait]
impl ProfileRepository for InMemoryIdentity {
    async fn create(&self, profile: NewProfile) -> Result<ProfileCreation, RepoError> {
        check_references(&profile.fields)?;
        let now = self.now();
        let mut state = self.lock();
        let of_user = || state.profiles.values().filter(|(p, _)| p.user_id == profile.user_id);
        if of_user().any(|(p, _)| p.is_banned) {
            return Ok(ProfileCreation::Banned);
        }
        if of_user().any(|(_, deleted)| !deleted) {
            return Err(RepoError::Conflict { field: "user_id" });
        }
        if !state.users.contains_key(&profile.user_id) {
            return Err(RepoError::MissingReference { field: "user_id" });
        }
        let mut record = ProfileRecord {
            id: profile.id,
            user_id: profile.user_id,
            display_name: String::new(),
            first_name: None,
            last_name: None,
            gender: None,
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
            is_public: false,
            is_active: true,
            is_banned: false,
            is_verified: false,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        apply(&mut record, profile.fields);
        state.profiles.insert(record.id, (record.clone(), false));
        state.events.push(record.event(PROFILE_CREATED));
        Ok(ProfileCreation::Created(Box::new(record)))
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<ProfileRecord>, RepoError> {
        Ok(self.lock().live_profile(id).ok().map(|p| p.clone()))
    }

    async fn find_by_user(&self, user_id: Uuid) -> Result<Option<ProfileRecord>, RepoError> {
        Ok(self.lock().profiles.values().find(|(p, deleted)| !deleted && p.user_id == user_id).map(|(p, _)| p.clone()))
    }

    async fn update(&self, owner: Uuid, id: Uuid, fields: ProfileFields) -> Result<ProfileRecord, RepoError> {
        check_references(&fields)?;
        let now = self.now();
        let mut state = self.lock();
        let profile = state.live_profile(id).ok().filter(|p| p.user_id == owner).ok_or(RepoError::NotFound)?;
        apply(profile, fields);
        profile.version += 1;
        profile.updated_at = now;
        let profile = profile.clone();
        state.events.push(profile.event(PROFILE_UPDATED));
        Ok(profile)
    }

    async fn delete(&self, owner: Uuid, id: Uuid) -> Result<(), RepoError> {
        let mut state = self.lock();
        let profile = state.live_profile(id).ok().filter(|p| p.user_id == owner).ok_or(RepoError::NotFound)?.clone();
        if let Some(entry) = state.profiles.get_mut(&id) {
            entry.1 = true;
        }
        state.events.push(profile.event(PROFILE_DELETED));
        Ok(())
    }

    async fn moderate(&self, id: Uuid, action: Moderation) -> Result<ProfileRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let profile = state.live_profile(id)?;
        let (flag, name) = match action {
            Moderation::Verify => (&mut profile.is_verified, PROFILE_VERIFIED),
            Moderation::Ban => (&mut profile.is_banned, PROFILE_BANNED),
        };
        if *flag {
            return Ok(profile.clone());
        }
        *flag = true;
        profile.version += 1;
        profile.updated_at = now;
        let profile = profile.clone();
        state.events.push(profile.event(name));
        Ok(profile)
    }

    async fn list_public(&self, page: PageRequest) -> Result<Page<ProfileRecord>, RepoError> {
        let mut profiles: Vec<ProfileRecord> = self
            .lock()
            .profiles
            .values()
            .filter(|(p, deleted)| !deleted && p.is_publicly_visible())
            .map(|(p, _)| p.clone())
            .collect();
        profiles.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(super::page_of(profiles, page))
    }
}
