//! Profiles: one per user, owner-scoped changes, admin moderation and the
//! public listing.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use identity_domain::events;
use identity_domain::ports::RepoError;
use identity_domain::profile::{
    Gender, Moderation, NewProfile, ProfileCreation, ProfileFields, ProfileRecord, ProfileRepository,
};
use postgres_toolkit::counting;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use super::from_diesel;
use crate::schema::profiles;
use postgres_toolkit::events::record_event;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Queryable, Selectable)]
#[diesel(table_name = profiles)]
struct ProfileRow {
    id: Uuid,
    user_id: Uuid,
    display_name: String,
    first_name: Option<String>,
    last_name: Option<String>,
    gender: Option<String>,
    date_of_birth: Option<Date>,
    bio: Option<String>,
    avatar_url: Option<String>,
    timezone: Option<String>,
    language: Option<String>,
    country: Option<String>,
    website: Option<String>,
    linkedin_url: Option<String>,
    twitter_url: Option<String>,
    github_url: Option<String>,
    is_public: bool,
    is_active: bool,
    is_banned: bool,
    is_verified: bool,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    version: i64,
}

impl From<ProfileRow> for ProfileRecord {
    fn from(r: ProfileRow) -> Self {
        ProfileRecord {
            version: r.version,
            id: r.id,
            user_id: r.user_id,
            display_name: r.display_name,
            first_name: r.first_name,
            last_name: r.last_name,
            gender: r.gender.as_deref().and_then(Gender::parse),
            date_of_birth: r.date_of_birth,
            bio: r.bio,
            avatar_url: r.avatar_url,
            timezone: r.timezone,
            language: r.language,
            country: r.country,
            website: r.website,
            linkedin_url: r.linkedin_url,
            twitter_url: r.twitter_url,
            github_url: r.github_url,
            is_public: r.is_public,
            is_active: r.is_active,
            is_banned: r.is_banned,
            is_verified: r.is_verified,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// A given, non-empty text (empty means "not set" on creation).
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}

/// `None` leaves the column alone; an empty text clears it.
fn change(value: &Option<String>) -> Option<Option<&str>> {
    value.as_deref().map(|v| (!v.is_empty()).then_some(v))
}

/// The stored spelling of a validated gender.
fn gender(value: &Option<String>) -> Option<Option<&'static str>> {
    value.as_deref().map(|g| Gender::parse(g).map(Gender::as_str))
}

/// The values of a new profile (inserted by [`insert_unless_banned`]).
struct NewProfileRow<'a> {
    id: Uuid,
    user_id: Uuid,
    display_name: &'a str,
    first_name: Option<&'a str>,
    last_name: Option<&'a str>,
    gender: Option<&'a str>,
    date_of_birth: Option<Date>,
    bio: Option<&'a str>,
    avatar_url: Option<&'a str>,
    timezone: Option<&'a str>,
    language: Option<&'a str>,
    country: Option<&'a str>,
    website: Option<&'a str>,
    linkedin_url: Option<&'a str>,
    twitter_url: Option<&'a str>,
    github_url: Option<&'a str>,
    is_public: Option<bool>,
}

impl<'a> NewProfileRow<'a> {
    fn new(profile: &'a NewProfile) -> Self {
        let f = &profile.fields;
        Self {
            id: profile.id,
            user_id: profile.user_id,
            display_name: f.display_name.as_deref().unwrap_or_default(),
            first_name: given(&f.first_name),
            last_name: given(&f.last_name),
            gender: gender(&f.gender).flatten(),
            date_of_birth: f.date_of_birth,
            bio: given(&f.bio),
            avatar_url: given(&f.avatar_url),
            timezone: given(&f.timezone),
            language: given(&f.language),
            country: given(&f.country),
            website: given(&f.website),
            linkedin_url: given(&f.linkedin_url),
            twitter_url: given(&f.twitter_url),
            github_url: given(&f.github_url),
            is_public: f.is_public,
        }
    }
}

#[derive(AsChangeset)]
#[diesel(table_name = profiles)]
struct ProfileChangeset<'a> {
    display_name: Option<&'a str>,
    first_name: Option<Option<&'a str>>,
    last_name: Option<Option<&'a str>>,
    gender: Option<Option<&'a str>>,
    date_of_birth: Option<Option<Date>>,
    bio: Option<Option<&'a str>>,
    avatar_url: Option<Option<&'a str>>,
    timezone: Option<Option<&'a str>>,
    language: Option<Option<&'a str>>,
    country: Option<Option<&'a str>>,
    website: Option<Option<&'a str>>,
    linkedin_url: Option<Option<&'a str>>,
    twitter_url: Option<Option<&'a str>>,
    github_url: Option<Option<&'a str>>,
    is_public: Option<bool>,
}

impl<'a> ProfileChangeset<'a> {
    fn new(f: &'a ProfileFields) -> Self {
        Self {
            display_name: given(&f.display_name),
            first_name: change(&f.first_name),
            last_name: change(&f.last_name),
            gender: gender(&f.gender),
            date_of_birth: f.date_of_birth.map(Some),
            bio: change(&f.bio),
            avatar_url: change(&f.avatar_url),
            timezone: change(&f.timezone),
            language: change(&f.language),
            country: change(&f.country),
            website: change(&f.website),
            linkedin_url: change(&f.linkedin_url),
            twitter_url: change(&f.twitter_url),
            github_url: change(&f.github_url),
            is_public: f.is_public,
        }
    }
}

#[derive(Clone)]
pub struct PgProfileRepository {
    pool: DbPool,
}

impl PgProfileRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

async fn load(mut conn: &AsyncPgConnection, id: Uuid) -> QueryResult<ProfileRecord> {
    profiles::table
        .filter(profiles::id.eq(id).and(profiles::deleted_at.is_null()))
        .select(ProfileRow::as_select())
        .first_rendered_once(&mut conn)
        .await
        .map(ProfileRecord::from)
}

/// `INSERT … SELECT … WHERE NOT EXISTS (a banned profile of the user)`:
/// one statement, so the ban check and the insert cannot be separated.
/// A profile is banned only while live (`moderate` skips deleted ones) and
/// a live profile blocks the insert through `profiles_user_key`, so no ban
/// can land between the check and the insert either. `None`: refused.
/// `profiles_banned_user_idx` (migration 000007) keeps the check an index
/// look-up.
async fn insert_unless_banned(
    mut conn: &AsyncPgConnection,
    row: &NewProfileRow<'_>,
) -> QueryResult<Option<ProfileRecord>> {
    use diesel::dsl::{exists, not};
    use diesel::sql_types::{Bool, Date as SqlDate, Nullable, Text, Uuid as SqlUuid};

    let banned = profiles::table.filter(profiles::user_id.eq(row.user_id)).filter(profiles::is_banned.eq(true));
    let values = diesel::select((
        row.id.into_sql::<SqlUuid>(),
        row.user_id.into_sql::<SqlUuid>(),
        row.display_name.into_sql::<Text>(),
        row.first_name.into_sql::<Nullable<Text>>(),
        row.last_name.into_sql::<Nullable<Text>>(),
        row.gender.into_sql::<Nullable<Text>>(),
        row.date_of_birth.into_sql::<Nullable<SqlDate>>(),
        row.bio.into_sql::<Nullable<Text>>(),
        row.avatar_url.into_sql::<Nullable<Text>>(),
        row.timezone.into_sql::<Nullable<Text>>(),
        row.language.into_sql::<Nullable<Text>>(),
        row.country.into_sql::<Nullable<Text>>(),
        row.website.into_sql::<Nullable<Text>>(),
        row.linkedin_url.into_sql::<Nullable<Text>>(),
        row.twitter_url.into_sql::<Nullable<Text>>(),
        row.github_url.into_sql::<Nullable<Text>>(),
        row.is_public.unwrap_or(false).into_sql::<Bool>(),
    ))
    .filter(not(exists(banned)));
    Prepared(
        diesel::insert_into(profiles::table)
            .values(values)
            .into_columns((
                profiles::id,
                profiles::user_id,
                profiles::display_name,
                profiles::first_name,
                profiles::last_name,
                profiles::gender,
                profiles::date_of_birth,
                profiles::bio,
                profiles::avatar_url,
                profiles::timezone,
                profiles::language,
                profiles::country,
                profiles::website,
                profiles::linkedin_url,
                profiles::twitter_url,
                profiles::github_url,
                profiles::is_public,
            ))
            .returning(ProfileRow::as_returning()),
    )
    .get_result(&mut conn)
    .await
    .optional()
    .map(|created| created.map(ProfileRecord::from))
}

#[async_trait]
impl ProfileRepository for PgProfileRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, profile: NewProfile) -> Result<ProfileCreation, RepoError> {
        let written: Result<ProfileCreation, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            let row = NewProfileRow::new(&profile);
            let created = transaction(
                &mut conn,
                async |conn: &AsyncPgConnection| -> Result<Option<ProfileRecord>, diesel::result::Error> {
                    let Some(created) = insert_unless_banned(conn, &row).await? else { return Ok(None) };
                    record_event(conn, &[created.event(events::PROFILE_CREATED)]).await?;
                    Ok(Some(created))
                },
            )
            .await
            .map_err(from_diesel)?;
            // Give the connection back before the look-up takes one (in a request transaction it is
            // the same connection).
            drop(conn);
            match created {
                Some(created) => Ok(ProfileCreation::Created(Box::new(created))),
                // Refused: a banned profile exists. If it is still live, the
                // caller simply already has a profile.
                None => match self.find_by_user(profile.user_id).await? {
                    Some(_) => Err(RepoError::Conflict { field: "user_id" }),
                    None => Ok(ProfileCreation::Banned),
                },
            }
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<ProfileRecord>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        load(&conn, id).await.optional().map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(user_id = %user_id))]
    async fn find_by_user(&self, user_id: Uuid) -> Result<Option<ProfileRecord>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        profiles::table
            .filter(profiles::user_id.eq(user_id).and(profiles::deleted_at.is_null()))
            .select(ProfileRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .optional()
            .map(|row| row.map(ProfileRecord::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id, owner = %owner))]
    async fn update(&self, owner: Uuid, id: Uuid, fields: ProfileFields) -> Result<ProfileRecord, RepoError> {
        let written: Result<ProfileRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            let changeset = ProfileChangeset::new(&fields);
            transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<ProfileRecord, diesel::result::Error> {
                    // Not kept prepared (`postgres_toolkit::prepared`): its text varies with the optional fields given.
                    let updated: ProfileRecord = diesel::update(profiles::table)
                        .filter(
                            profiles::id.eq(id).and(profiles::user_id.eq(owner)).and(profiles::deleted_at.is_null()),
                        )
                        .set((&changeset, profiles::updated_at.eq(diesel::dsl::now)))
                        .returning(ProfileRow::as_returning())
                        .get_result(&mut conn)
                        .await
                        .map(ProfileRecord::from)?;
                    record_event(conn, &[updated.event(events::PROFILE_UPDATED)]).await?;
                    Ok(updated)
                },
            )
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id, owner = %owner))]
    async fn delete(&self, owner: Uuid, id: Uuid) -> Result<(), RepoError> {
        let written: Result<(), RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), diesel::result::Error> {
                let deleted: ProfileRecord = Prepared(
                    diesel::update(profiles::table)
                        .filter(
                            profiles::id.eq(id).and(profiles::user_id.eq(owner)).and(profiles::deleted_at.is_null()),
                        )
                        .set((profiles::deleted_at.eq(diesel::dsl::now), profiles::updated_at.eq(diesel::dsl::now)))
                        .returning(ProfileRow::as_returning()),
                )
                .get_result(&mut conn)
                .await
                .map(ProfileRecord::from)?;
                record_event(conn, &[deleted.event(events::PROFILE_DELETED)]).await
            })
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn moderate(&self, id: Uuid, action: Moderation) -> Result<ProfileRecord, RepoError> {
        let written: Result<ProfileRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<ProfileRecord, diesel::result::Error> {
                    let target = profiles::table.filter(profiles::id.eq(id).and(profiles::deleted_at.is_null()));
                    let changed: Option<ProfileRow> = match action {
                        Moderation::Verify => {
                            Prepared(
                                diesel::update(target.filter(profiles::is_verified.eq(false)))
                                    .set((profiles::is_verified.eq(true), profiles::updated_at.eq(diesel::dsl::now)))
                                    .returning(ProfileRow::as_returning()),
                            )
                            .get_result(&mut conn)
                            .await
                        }
                        Moderation::Ban => {
                            Prepared(
                                diesel::update(target.filter(profiles::is_banned.eq(false)))
                                    .set((profiles::is_banned.eq(true), profiles::updated_at.eq(diesel::dsl::now)))
                                    .returning(ProfileRow::as_returning()),
                            )
                            .get_result(&mut conn)
                            .await
                        }
                    }
                    .optional()?;
                    match changed.map(ProfileRecord::from) {
                        Some(profile) => {
                            let name = match action {
                                Moderation::Verify => events::PROFILE_VERIFIED,
                                Moderation::Ban => events::PROFILE_BANNED,
                            };
                            record_event(conn, &[profile.event(name)]).await?;
                            Ok(profile)
                        }
                        // The flag was already set (or the profile is missing).
                        None => load(conn, id).await,
                    }
                },
            )
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all)]
    async fn list_public(&self, page: PageRequest) -> Result<Page<ProfileRecord>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            profiles::table
                .filter(profiles::deleted_at.is_null())
                .filter(profiles::is_public.eq(true).and(profiles::is_active.eq(true)))
                .filter(profiles::is_banned.eq(false))
                .into_boxed()
        };
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((profiles::created_at.desc(), profiles::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(ProfileRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(rows.into_iter().map(ProfileRecord::from).collect(), total, page))
    }
}
