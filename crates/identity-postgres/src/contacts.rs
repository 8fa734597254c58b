//! Contacts: a user's emails, phones and addresses, with one primary per
//! type. Every query is scoped to the owner (`WHERE user_id = $owner`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use identity_domain::contact::{
    Address, ContactChanges, ContactFilter, ContactRecord, ContactRepository, ContactType, ContactValue, NewContact,
};
use identity_domain::events;
use identity_domain::ports::RepoError;
use time::OffsetDateTime;
use uuid::Uuid;

use super::from_diesel;
use crate::schema::contacts;
use postgres_toolkit::events::record_event;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

/// How often a create is retried when a concurrent create took the first
/// primary of a type (nothing to lock yet, so the unique index decided).
const PRIMARY_RACE_ATTEMPTS: usize = 3;

#[derive(Queryable, Selectable)]
#[diesel(table_name = contacts)]
struct ContactRow {
    id: Uuid,
    user_id: Uuid,
    contact_type: String,
    label: String,
    email: Option<String>,
    phone: Option<String>,
    street: Option<String>,
    city: Option<String>,
    state: Option<String>,
    postal_code: Option<String>,
    country: Option<String>,
    is_primary: bool,
    is_verified: bool,
    is_public: bool,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    version: i64,
}

impl From<ContactRow> for ContactRecord {
    fn from(r: ContactRow) -> Self {
        // The CHECK constraint admits only the three types.
        let contact_type = ContactType::parse(&r.contact_type).unwrap_or(ContactType::Email);
        let address = (contact_type == ContactType::Address).then(|| Address {
            street: r.street,
            city: r.city,
            state: r.state,
            postal_code: r.postal_code,
            country: r.country.unwrap_or_default(),
        });
        ContactRecord {
            version: r.version,
            id: r.id,
            user_id: r.user_id,
            contact_type,
            label: r.label,
            email: r.email,
            phone: r.phone,
            address,
            is_primary: r.is_primary,
            is_verified: r.is_verified,
            is_public: r.is_public,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The value columns of a contact; only those of its type are set.
#[derive(Default)]
struct ValueColumns<'a> {
    email: Option<&'a str>,
    phone: Option<&'a str>,
    street: Option<&'a str>,
    city: Option<&'a str>,
    state: Option<&'a str>,
    postal_code: Option<&'a str>,
    country: Option<&'a str>,
}

impl<'a> From<&'a ContactValue> for ValueColumns<'a> {
    fn from(value: &'a ContactValue) -> Self {
        match value {
            ContactValue::Email(email) => Self { email: Some(email.as_str()), ..Self::default() },
            ContactValue::Phone(phone) => Self { phone: Some(phone), ..Self::default() },
            ContactValue::Address(a) => Self {
                street: a.street.as_deref(),
                city: a.city.as_deref(),
                state: a.state.as_deref(),
                postal_code: a.postal_code.as_deref(),
                country: Some(&a.country),
                ..Self::default()
            },
        }
    }
}

#[derive(Insertable)]
#[diesel(table_name = contacts)]
struct NewContactRow<'a> {
    id: Uuid,
    user_id: Uuid,
    contact_type: &'a str,
    label: &'a str,
    email: Option<&'a str>,
    phone: Option<&'a str>,
    street: Option<&'a str>,
    city: Option<&'a str>,
    state: Option<&'a str>,
    postal_code: Option<&'a str>,
    country: Option<&'a str>,
    is_primary: bool,
    is_public: bool,
}

/// `None` leaves a column alone; `Some(None)` clears it.
#[derive(AsChangeset)]
#[diesel(table_name = contacts)]
struct ContactChangeset<'a> {
    label: Option<&'a str>,
    email: Option<&'a str>,
    phone: Option<&'a str>,
    street: Option<Option<&'a str>>,
    city: Option<Option<&'a str>>,
    state: Option<Option<&'a str>>,
    postal_code: Option<Option<&'a str>>,
    country: Option<&'a str>,
    is_primary: Option<bool>,
    is_public: Option<bool>,
    /// `Some(false)` when the value changes (the domain decides).
    is_verified: Option<bool>,
}

impl<'a> ContactChangeset<'a> {
    fn new(changes: &'a ContactChanges, clears_verification: bool) -> Self {
        let value = changes.value.as_ref();
        let columns = value.map(ValueColumns::from).unwrap_or_default();
        let is_address = matches!(value, Some(ContactValue::Address(_)));
        let part = |p: Option<&'a str>| is_address.then_some(p);
        Self {
            label: changes.label.as_deref(),
            email: columns.email,
            phone: columns.phone,
            street: part(columns.street),
            city: part(columns.city),
            state: part(columns.state),
            postal_code: part(columns.postal_code),
            country: columns.country,
            is_primary: changes.is_primary,
            is_public: changes.is_public,
            is_verified: clears_verification.then_some(false),
        }
    }
}

#[derive(Clone)]
pub struct PgContactRepository {
    pool: DbPool,
}

impl PgContactRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

/// The owner's live contact `id`, not locked (its type never changes).
async fn load(mut conn: &AsyncPgConnection, user_id: Uuid, id: Uuid) -> QueryResult<ContactRecord> {
    contacts::table
        .filter(contacts::id.eq(id).and(contacts::user_id.eq(user_id)).and(contacts::deleted_at.is_null()))
        .select(ContactRow::as_select())
        .first(&mut conn)
        .await
        .map(ContactRecord::from)
}

/// The owner's live contact `id`, locked until the transaction ends.
async fn load_for_update(mut conn: &AsyncPgConnection, user_id: Uuid, id: Uuid) -> QueryResult<ContactRecord> {
    contacts::table
        .filter(contacts::id.eq(id).and(contacts::user_id.eq(user_id)).and(contacts::deleted_at.is_null()))
        .select(ContactRow::as_select())
        .for_update()
        .first(&mut conn)
        .await
        .map(ContactRecord::from)
}

/// Locks the owner's live contacts of `kind` in id order, so concurrent
/// primary switches queue up instead of deadlocking.
async fn lock_type(mut conn: &AsyncPgConnection, user_id: Uuid, kind: ContactType) -> QueryResult<Vec<Uuid>> {
    contacts::table
        .filter(contacts::user_id.eq(user_id))
        .filter(contacts::contact_type.eq(kind.as_str()))
        .filter(contacts::deleted_at.is_null())
        .order(contacts::id)
        .select(contacts::id)
        .for_update()
        .load(&mut conn)
        .await
}

/// Un-marks the owner's primary of `kind` other than `keep`; returns the
/// contacts it changed. Call after [`lock_type`].
async fn unmark_primary(
    mut conn: &AsyncPgConnection,
    user_id: Uuid,
    kind: ContactType,
    keep: Uuid,
) -> QueryResult<Vec<ContactRecord>> {
    let rows: Vec<ContactRow> = Prepared(
        diesel::update(contacts::table)
            .filter(contacts::user_id.eq(user_id))
            .filter(contacts::contact_type.eq(kind.as_str()))
            .filter(contacts::is_primary.eq(true).and(contacts::deleted_at.is_null()))
            .filter(contacts::id.ne(keep))
            .set((contacts::is_primary.eq(false), contacts::updated_at.eq(diesel::dsl::now)))
            .returning(ContactRow::as_returning()),
    )
    .get_results(&mut conn)
    .await?;
    Ok(rows.into_iter().map(ContactRecord::from).collect())
}

/// Locks the type and un-marks its other primary, recording the changes.
async fn make_room_for_primary(
    conn: &AsyncPgConnection,
    user_id: Uuid,
    kind: ContactType,
    keep: Uuid,
) -> QueryResult<()> {
    lock_type(conn, user_id, kind).await?;
    let unmarked = unmark_primary(conn, user_id, kind, keep).await?;
    let events: Vec<_> = unmarked.iter().map(|c| c.event(events::CONTACT_UPDATED)).collect();
    record_event(conn, &events).await
}

fn is_primary_race(error: &RepoError) -> bool {
    matches!(error, RepoError::Conflict { field: "is_primary" })
}

#[async_trait]
impl ContactRepository for PgContactRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, contact: NewContact) -> Result<ContactRecord, RepoError> {
        let written: Result<ContactRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            let kind = contact.value.kind();
            let columns = ValueColumns::from(&contact.value);
            let row = NewContactRow {
                id: contact.id,
                user_id: contact.user_id,
                contact_type: kind.as_str(),
                label: &contact.label,
                email: columns.email,
                phone: columns.phone,
                street: columns.street,
                city: columns.city,
                state: columns.state,
                postal_code: columns.postal_code,
                country: columns.country,
                is_primary: contact.is_primary,
                is_public: contact.is_public,
            };
            let mut attempt = 1;
            loop {
                let outcome = transaction(
                    &mut conn,
                    async |mut conn: &AsyncPgConnection| -> Result<ContactRecord, diesel::result::Error> {
                        if contact.is_primary {
                            make_room_for_primary(conn, contact.user_id, kind, contact.id).await?;
                        }
                        // Not kept prepared (`postgres_toolkit::prepared`): its text varies with the optional fields given.
                        let created: ContactRecord = diesel::insert_into(contacts::table)
                            .values(&row)
                            .returning(ContactRow::as_returning())
                            .get_result(&mut conn)
                            .await
                            .map(ContactRecord::from)?;
                        record_event(conn, &[created.event(events::CONTACT_CREATED)]).await?;
                        Ok(created)
                    },
                )
                .await
                .map_err(from_diesel);
                match outcome {
                    Err(error) if is_primary_race(&error) && attempt < PRIMARY_RACE_ATTEMPTS => attempt += 1,
                    other => return other,
                }
            }
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(user_id = %user_id))]
    async fn list(&self, user_id: Uuid, filter: ContactFilter) -> Result<Vec<ContactRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let mut query =
            contacts::table.filter(contacts::user_id.eq(user_id).and(contacts::deleted_at.is_null())).into_boxed();
        if let Some(kind) = filter.contact_type {
            query = query.filter(contacts::contact_type.eq(kind.as_str()));
        }
        if let Some(primary) = filter.is_primary {
            query = query.filter(contacts::is_primary.eq(primary));
        }
        let rows = query
            .order((contacts::created_at.desc(), contacts::id.desc()))
            .select(ContactRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().map(ContactRecord::from).collect())
    }

    #[tracing::instrument(skip_all, fields(id = %id, user_id = %user_id))]
    async fn find(&self, user_id: Uuid, id: Uuid) -> Result<Option<ContactRecord>, RepoError> {
        let conn = connect(&self.pool).await?;
        load(&conn, user_id, id).await.optional().map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id, user_id = %user_id))]
    async fn update(&self, user_id: Uuid, id: Uuid, changes: ContactChanges) -> Result<ContactRecord, RepoError> {
        let written: Result<ContactRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<ContactRecord, diesel::result::Error> {
                    let kind = load(conn, user_id, id).await?.contact_type;
                    if changes.value.as_ref().is_some_and(|v| v.kind() != kind) {
                        return Err(diesel::result::Error::NotFound);
                    }
                    if changes.is_primary == Some(true) {
                        // Locks the type's contacts, this one included, in id order.
                        make_room_for_primary(conn, user_id, kind, id).await?;
                    }
                    // The row as it is now and stays until commit: whether the value
                    // changes (and verification goes) is decided on it, so a
                    // concurrent change or verification cannot slip in between.
                    let current = load_for_update(conn, user_id, id).await?;
                    let changeset = ContactChangeset::new(&changes, changes.clears_verification(&current));
                    // Not kept prepared (`postgres_toolkit::prepared`): its text varies with the optional fields given.
                    let updated: ContactRecord = diesel::update(contacts::table)
                        .filter(
                            contacts::id.eq(id).and(contacts::user_id.eq(user_id)).and(contacts::deleted_at.is_null()),
                        )
                        .set((&changeset, contacts::updated_at.eq(diesel::dsl::now)))
                        .returning(ContactRow::as_returning())
                        .get_result(&mut conn)
                        .await
                        .map(ContactRecord::from)?;
                    record_event(conn, &[updated.event(events::CONTACT_UPDATED)]).await?;
                    Ok(updated)
                },
            )
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id, user_id = %user_id))]
    async fn set_primary(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError> {
        let written: Result<ContactRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<ContactRecord, diesel::result::Error> {
                    let current = load(conn, user_id, id).await?;
                    make_room_for_primary(conn, user_id, current.contact_type, id).await?;
                    let updated: ContactRecord = Prepared(
                        diesel::update(contacts::table)
                            .filter(
                                contacts::id
                                    .eq(id)
                                    .and(contacts::user_id.eq(user_id))
                                    .and(contacts::deleted_at.is_null()),
                            )
                            .set((contacts::is_primary.eq(true), contacts::updated_at.eq(diesel::dsl::now)))
                            .returning(ContactRow::as_returning()),
                    )
                    .get_result(&mut conn)
                    .await
                    .map(ContactRecord::from)?;
                    record_event(conn, &[updated.event(events::CONTACT_UPDATED)]).await?;
                    Ok(updated)
                },
            )
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id, user_id = %user_id))]
    async fn verify(&self, user_id: Uuid, id: Uuid) -> Result<ContactRecord, RepoError> {
        let written: Result<ContactRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<ContactRecord, diesel::result::Error> {
                    let verified: Option<ContactRecord> = Prepared(
                        diesel::update(contacts::table)
                            .filter(
                                contacts::id
                                    .eq(id)
                                    .and(contacts::user_id.eq(user_id))
                                    .and(contacts::deleted_at.is_null()),
                            )
                            .filter(contacts::is_verified.eq(false))
                            .set((contacts::is_verified.eq(true), contacts::updated_at.eq(diesel::dsl::now)))
                            .returning(ContactRow::as_returning()),
                    )
                    .get_result(&mut conn)
                    .await
                    .optional()?
                    .map(ContactRecord::from);
                    match verified {
                        Some(contact) => {
                            record_event(conn, &[contact.event(events::CONTACT_VERIFIED)]).await?;
                            Ok(contact)
                        }
                        // Already verified (or missing: `load` says which).
                        None => load(conn, user_id, id).await,
                    }
                },
            )
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id, user_id = %user_id))]
    async fn delete(&self, user_id: Uuid, id: Uuid) -> Result<(), RepoError> {
        let written: Result<(), RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), diesel::result::Error> {
                let deleted: ContactRecord = Prepared(
                    diesel::update(contacts::table)
                        .filter(
                            contacts::id.eq(id).and(contacts::user_id.eq(user_id)).and(contacts::deleted_at.is_null()),
                        )
                        .set((contacts::deleted_at.eq(diesel::dsl::now), contacts::updated_at.eq(diesel::dsl::now)))
                        .returning(ContactRow::as_returning()),
                )
                .get_result(&mut conn)
                .await
                .map(ContactRecord::from)?;
                record_event(conn, &[deleted.event(events::CONTACT_DELETED)]).await
            })
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }
}
