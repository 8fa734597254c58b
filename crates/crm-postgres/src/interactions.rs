//! PostgreSQL adapter of `InteractionRepository`. Lists resolve customer, company and creator names
//! in the same query (one joined SELECT per page, no per-row look-ups).

use async_trait::async_trait;
use crm_domain::{FollowUpFilter, Interaction, InteractionFilter, InteractionRepository, InteractionView, RepoError};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::rendered::FirstRenderedOnce;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::{from_diesel, stale_or_missing};
use super::interaction_rows::InteractionRow;
use super::schema::{companies, customers, interactions};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

/// Non-deleted interactions joined to the names a list shows, boxed so filters can be added.
macro_rules! joined {
    () => {
        interactions::table
            .inner_join(customers::table.on(customers::id.eq(interactions::customer_id)))
            .left_join(companies::table.on(companies::id.nullable().eq(interactions::company_id)))
            .filter(interactions::deleted_at.is_null())
            .into_boxed()
    };
}

/// The columns of a [`ViewRow`] over `joined!()`.
macro_rules! view_columns {
    () => {
        (InteractionRow::as_select(), customers::name, companies::name.nullable())
    };
}

type ViewRow = (InteractionRow, String, Option<String>);

fn to_views(rows: Vec<ViewRow>) -> Result<Vec<InteractionView>, RepoError> {
    rows.into_iter()
        .map(|(row, customer_name, company_name)| {
            // The creator's name is identity's: the use case asks the user directory for it.
            Ok(InteractionView {
                interaction: Interaction::try_from(row)?,
                customer_name,
                company_name,
                created_by_name: None,
            })
        })
        .collect()
}

#[derive(Clone)]
pub struct PgInteractionRepository {
    pool: DbPool,
}

impl PgInteractionRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// Writes `interaction`: its row, or `None` when an update found it moved or gone.
    async fn write(
        &self,
        interaction: &Interaction,
        statement: WriteKind,
    ) -> Result<Option<InteractionRow>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(
            &mut conn,
            async |mut conn: &AsyncPgConnection| -> Result<Option<InteractionRow>, diesel::result::Error> {
                let row = match statement {
                    WriteKind::Insert => Some(
                        // Not kept prepared (`postgres_toolkit::prepared`): its text varies with the optional fields given.
                        diesel::insert_into(interactions::table)
                            .values(InteractionRow::from(interaction))
                            .returning(InteractionRow::as_returning())
                            .get_result(&mut conn)
                            .await?,
                    ),
                    WriteKind::Update => Prepared(
                        diesel::update(interactions::table)
                            .filter(interactions::id.eq(interaction.id).and(interactions::deleted_at.is_null()))
                            // Over the version it was read at: every field (the attendee list too) is
                            // written, so a change made meanwhile would otherwise be undone.
                            .filter(interactions::version.eq(interaction.version))
                            .set((
                                interactions::subject.eq(&interaction.subject),
                                interactions::description.eq(interaction.description.as_deref()),
                                interactions::outcome.eq(interaction.outcome.map(|o| o.as_str())),
                                interactions::follow_up_required.eq(interaction.follow_up_required),
                                interactions::follow_up_date.eq(interaction.follow_up_date),
                                interactions::follow_up_notes.eq(interaction.follow_up_notes.as_deref()),
                                interactions::attendees.eq(&interaction.attendees),
                                interactions::updated_at.eq(interaction.updated_at),
                            ))
                            .returning(InteractionRow::as_returning()),
                    )
                    .get_result(&mut conn)
                    .await
                    .optional()?,
                };
                Ok(row)
            },
        )
        .await
        .map_err(from_diesel)
    }
}

#[derive(Clone, Copy)]
enum WriteKind {
    Insert,
    Update,
}

#[async_trait]
impl InteractionRepository for PgInteractionRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        match self.write(interaction, WriteKind::Insert).await? {
            None => Err(RepoError::NotFound),
            Some(row) => Interaction::try_from(row),
        }
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Interaction>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let row = interactions::table
            .filter(interactions::id.eq(id).and(interactions::deleted_at.is_null()))
            .select(InteractionRow::as_select())
            .first_rendered_once(&mut &*conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(Interaction::try_from).transpose()
    }

    #[tracing::instrument(skip_all)]
    async fn list(&self, filter: &InteractionFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = joined!();
            if let Some(customer) = filter.customer_id {
                query = query.filter(interactions::customer_id.eq(customer));
            }
            if let Some(company) = filter.company_id {
                query = query.filter(interactions::company_id.eq(company));
            }
            if let Some(kind) = filter.interaction_type {
                query = query.filter(interactions::interaction_type.eq(kind.as_str()));
            }
            if let Some(creator) = filter.created_by {
                query = query.filter(interactions::created_by.eq(creator));
            }
            query
        };
        let (rows, total): (Vec<ViewRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((interactions::started_at.desc(), interactions::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(view_columns!())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(to_views(rows)?, total, page))
    }

    #[tracing::instrument(skip_all)]
    async fn follow_ups(&self, filter: &FollowUpFilter, page: PageRequest) -> Result<Page<InteractionView>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = joined!().filter(interactions::follow_up_required.eq(true));
            if let Some(due) = filter.due_before {
                query = query.filter(interactions::follow_up_date.lt(due));
            }
            if let Some(creator) = filter.created_by {
                query = query.filter(interactions::created_by.eq(creator));
            }
            query
        };
        let (rows, total): (Vec<ViewRow>, _) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((interactions::follow_up_date.asc().nulls_last(), interactions::id.asc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(view_columns!())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(to_views(rows)?, total, page))
    }

    #[tracing::instrument(skip_all)]
    async fn update(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        match self.write(interaction, WriteKind::Update).await? {
            None => {
                // The write's connection is back in the pool by now.
                let mut conn = connect(&self.pool).await?;
                let live = interactions::table
                    .filter(interactions::id.eq(interaction.id).and(interactions::deleted_at.is_null()));
                Err(stale_or_missing(diesel::select(diesel::dsl::exists(live)).get_result(&mut conn).await))
            }
            Some(row) => Interaction::try_from(row),
        }
    }

    #[tracing::instrument(skip_all)]
    async fn save_end(&self, interaction: &Interaction) -> Result<Interaction, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row = Prepared(
            diesel::update(interactions::table)
                .filter(interactions::id.eq(interaction.id).and(interactions::deleted_at.is_null()))
                .filter(interactions::ended_at.is_null())
                .set((
                    interactions::ended_at.eq(interaction.ended_at),
                    interactions::duration_sec.eq(interaction.duration_sec),
                    interactions::updated_at.eq(interaction.updated_at),
                ))
                .returning(InteractionRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        let Some(row) = row else {
            // Same connection: taking a second one while holding this one can starve the pool.
            let found: i64 = interactions::table
                .filter(interactions::id.eq(interaction.id).and(interactions::deleted_at.is_null()))
                .count()
                .get_result(&mut conn)
                .await
                .map_err(from_diesel)?;
            return Err(if found > 0 { RepoError::Stale } else { RepoError::NotFound });
        };
        Interaction::try_from(row)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let deleted = Prepared(
            diesel::update(interactions::table)
                .filter(interactions::id.eq(id).and(interactions::deleted_at.is_null()))
                .set(interactions::deleted_at.eq(at)),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if deleted == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }
}
