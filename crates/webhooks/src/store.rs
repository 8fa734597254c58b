//! PostgreSQL store of webhook endpoints and their delivery log (the request side; the
//! delivery engine's statements are in `queue`).

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::model::{Attempt, Creator, Delivery, DeliveryDetail, DeliveryStatus, Endpoint, EndpointInput, WebhookError};
use super::schema::{webhook_attempts, webhook_deliveries, webhook_endpoints};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, Constraints};
use postgres_toolkit::DbPool;

/// No constraint of these tables is a caller's mistake: input is checked before it is written.
const CONSTRAINTS: Constraints = Constraints::new(&[]);

/// The columns of [`DeliveryRow`], for statements written out in SQL.
const DELIVERY_COLUMNS: &str = "id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, \
    last_attempt_at, last_response_status, created_at, completed_at";

fn storage(error: diesel::result::Error) -> WebhookError {
    match CONSTRAINTS.map(error) {
        StorageError::NotFound => WebhookError::NotFound,
        other => WebhookError::Storage(other),
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
struct EndpointRow {
    id: Uuid,
    url: String,
    description: Option<String>,
    events: Vec<String>,
    enabled: bool,
    disabled_reason: Option<String>,
    failing_since: Option<OffsetDateTime>,
    created_by: Option<Uuid>,
    created_by_key: Option<Uuid>,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    version: i64,
}

impl From<EndpointRow> for Endpoint {
    fn from(r: EndpointRow) -> Self {
        Endpoint {
            id: r.id,
            url: r.url,
            description: r.description,
            events: r.events,
            enabled: r.enabled,
            disabled_reason: r.disabled_reason,
            failing_since: r.failing_since,
            created_by: r.created_by,
            created_by_key: r.created_by_key,
            created_at: r.created_at,
            updated_at: r.updated_at,
            version: r.version,
        }
    }
}

#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = webhook_deliveries)]
struct DeliveryRow {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Option<Uuid>,
    event_type: String,
    status: String,
    attempts: i32,
    next_attempt_at: Option<OffsetDateTime>,
    last_attempt_at: Option<OffsetDateTime>,
    last_response_status: Option<i32>,
    created_at: OffsetDateTime,
    completed_at: Option<OffsetDateTime>,
}

impl From<DeliveryRow> for Delivery {
    fn from(r: DeliveryRow) -> Self {
        Delivery {
            id: r.id,
            endpoint_id: r.endpoint_id,
            event_id: r.event_id,
            event_type: r.event_type,
            status: r.status,
            attempts: r.attempts,
            next_attempt_at: r.next_attempt_at,
            last_attempt_at: r.last_attempt_at,
            last_response_status: r.last_response_status,
            created_at: r.created_at,
            completed_at: r.completed_at,
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_attempts)]
struct AttemptRow {
    attempted_at: OffsetDateTime,
    response_status: Option<i32>,
    duration_ms: i32,
    response_body: String,
    error: Option<String>,
}

/// Counts for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, QueryableByName)]
pub struct Backlog {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub pending_deliveries: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub failing_endpoints: i64,
}

/// A new endpoint: what its owner asked for, who that is, and its secret's salt.
pub struct NewEndpoint<'a> {
    pub id: Uuid,
    pub input: &'a EndpointInput,
    pub created_by: Creator,
    pub salt: &'a [u8],
    pub at: OffsetDateTime,
}

#[derive(Clone)]
pub struct PgWebhookStore {
    pool: DbPool,
}

impl PgWebhookStore {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    pub async fn create(&self, new: NewEndpoint<'_>) -> Result<Endpoint, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(
            diesel::insert_into(webhook_endpoints::table)
                .values((
                    webhook_endpoints::id.eq(new.id),
                    webhook_endpoints::url.eq(&new.input.url),
                    webhook_endpoints::description.eq(&new.input.description),
                    webhook_endpoints::events.eq(&new.input.events),
                    webhook_endpoints::secret_salt.eq(new.salt),
                    webhook_endpoints::enabled.eq(new.input.enabled),
                    webhook_endpoints::disabled_reason.eq((!new.input.enabled).then_some("manual")),
                    webhook_endpoints::created_by.eq(new.created_by.user),
                    webhook_endpoints::created_by_key.eq(new.created_by.key),
                    webhook_endpoints::created_at.eq(new.at),
                    webhook_endpoints::updated_at.eq(new.at),
                ))
                .returning(EndpointRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(Endpoint::from)
        .map_err(storage)
    }

    pub async fn list(&self, page: PageRequest) -> Result<Page<Endpoint>, WebhookError> {
        let conn = connect(&self.pool).await?;
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            webhook_endpoints::table,
            webhook_endpoints::table
                .order((webhook_endpoints::created_at.desc(), webhook_endpoints::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(EndpointRow::as_select())
        )
        .await
        .map_err(storage)?;
        Ok(Page::new(rows.into_iter().map(Endpoint::from).collect(), total, page))
    }

    pub async fn get(&self, id: Uuid) -> Result<Endpoint, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        webhook_endpoints::table
            .find(id)
            .select(EndpointRow::as_select())
            .first(&mut conn)
            .await
            .map(Endpoint::from)
            .map_err(storage)
    }

    /// Replaces what the owner describes. Disabling keeps a `failing` reason; enabling a disabled
    /// endpoint resets its failure clock, editing an enabled one keeps it. Whoever replaces it
    /// becomes its creator: they chose where it sends, so it hears only what they may read.
    pub async fn update(
        &self,
        id: Uuid,
        input: &EndpointInput,
        by: Creator,
        at: OffsetDateTime,
    ) -> Result<Endpoint, WebhookError> {
        use diesel::dsl::sql;
        use diesel::sql_types::{Nullable, Timestamptz, Varchar};
        let mut conn = connect(&self.pool).await?;
        let (reason, failing_since) = if input.enabled {
            // Enabling starts the failure clock afresh; an edit of an enabled endpoint keeps it.
            (sql::<Nullable<Varchar>>("NULL"), sql::<Nullable<Timestamptz>>("CASE WHEN enabled THEN failing_since END"))
        } else {
            (
                sql::<Nullable<Varchar>>("CASE WHEN enabled THEN 'manual' ELSE disabled_reason END"),
                sql::<Nullable<Timestamptz>>("failing_since"),
            )
        };
        Prepared(
            diesel::update(webhook_endpoints::table.find(id))
                .set((
                    webhook_endpoints::url.eq(&input.url),
                    webhook_endpoints::description.eq(&input.description),
                    webhook_endpoints::events.eq(&input.events),
                    webhook_endpoints::enabled.eq(input.enabled),
                    webhook_endpoints::disabled_reason.eq(reason),
                    webhook_endpoints::failing_since.eq(failing_since),
                    webhook_endpoints::created_by.eq(by.user),
                    webhook_endpoints::created_by_key.eq(by.key),
                    webhook_endpoints::updated_at.eq(at),
                ))
                .returning(EndpointRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(Endpoint::from)
        .map_err(storage)
    }

    /// Deletes the endpoint and its delivery log; `false` when there was none.
    pub async fn delete(&self, id: Uuid) -> Result<bool, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        let deleted = diesel::delete(webhook_endpoints::table.find(id)).execute(&mut conn).await.map_err(storage)?;
        Ok(deleted > 0)
    }

    /// Gives the endpoint a new secret; the previous one keeps signing beside it until `grace_until`.
    pub async fn rotate_secret(
        &self,
        id: Uuid,
        salt: &[u8],
        grace_until: OffsetDateTime,
        at: OffsetDateTime,
    ) -> Result<Endpoint, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(
            diesel::update(webhook_endpoints::table.find(id))
                .set((
                    webhook_endpoints::previous_secret_salt.eq(webhook_endpoints::secret_salt.nullable()),
                    webhook_endpoints::previous_secret_until.eq(Some(grace_until)),
                    webhook_endpoints::secret_salt.eq(salt),
                    webhook_endpoints::updated_at.eq(at),
                ))
                .returning(EndpointRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(Endpoint::from)
        .map_err(storage)
    }

    /// What an operator watches: deliveries still pending, endpoints failing.
    pub async fn backlog(&self) -> Result<Backlog, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query(
            "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending_deliveries, \
                    (SELECT count(*) FROM webhook_endpoints WHERE failing_since IS NOT NULL) AS failing_endpoints",
        )
        .get_result(&mut conn)
        .await
        .map_err(storage)
    }

    /// Queues a delivery of `payload` to an enabled endpoint, due now.
    pub async fn enqueue(
        &self,
        endpoint_id: Uuid,
        delivery_id: Uuid,
        event_type: &str,
        payload: &str,
    ) -> Result<Delivery, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        // One statement, so an endpoint deleted or disabled meanwhile gets nothing.
        let queued = diesel::sql_query(format!(
            "INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload, read_resource, next_attempt_at) \
             SELECT $1, id, $3, $4, $5, now() FROM webhook_endpoints WHERE id = $2 AND enabled \
             RETURNING {DELIVERY_COLUMNS}"
        ))
        .bind::<diesel::sql_types::Uuid, _>(delivery_id)
        .bind::<diesel::sql_types::Uuid, _>(endpoint_id)
        .bind::<diesel::sql_types::Text, _>(event_type)
        .bind::<diesel::sql_types::Text, _>(payload)
        .bind::<diesel::sql_types::Nullable<diesel::sql_types::Text>, _>(super::access::read_resource(event_type))
        .get_result::<DeliveryRow>(&mut conn)
        .await
        .optional()
        .map_err(storage)?;
        match queued {
            Some(row) => Ok(row.into()),
            None => Err(why_not(&mut conn, endpoint_id).await?),
        }
    }

    /// An endpoint's deliveries, newest first, all or in one status.
    pub async fn deliveries(
        &self,
        endpoint_id: Uuid,
        status: Option<DeliveryStatus>,
        page: PageRequest,
    ) -> Result<Page<Delivery>, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        let filtered = || {
            let mut query =
                webhook_deliveries::table.filter(webhook_deliveries::endpoint_id.eq(endpoint_id)).into_boxed();
            if let Some(status) = status {
                query = query.filter(webhook_deliveries::status.eq(status.as_str()));
            }
            query
        };
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            filtered(),
            filtered()
                .order((webhook_deliveries::created_at.desc(), webhook_deliveries::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(DeliveryRow::as_select())
        )
        .await
        .map_err(storage)?;
        if total.count == 0 {
            // An empty log of an endpoint that does not exist is a 404, not an empty page.
            let exists: bool = diesel::select(diesel::dsl::exists(webhook_endpoints::table.find(endpoint_id)))
                .get_result(&mut conn)
                .await
                .map_err(storage)?;
            if !exists {
                return Err(WebhookError::NotFound);
            }
        }
        Ok(Page::new(rows.into_iter().map(Delivery::from).collect(), total, page))
    }

    /// One delivery of the endpoint with its body and attempts.
    pub async fn delivery(&self, endpoint_id: Uuid, delivery_id: Uuid) -> Result<DeliveryDetail, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        let (row, read_resource, payload): (DeliveryRow, Option<String>, String) = webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(delivery_id).and(webhook_deliveries::endpoint_id.eq(endpoint_id)))
            .select((DeliveryRow::as_select(), webhook_deliveries::read_resource, webhook_deliveries::payload))
            .first(&mut conn)
            .await
            .map_err(storage)?;
        let attempts = webhook_attempts::table
            .filter(webhook_attempts::delivery_id.eq(delivery_id))
            .order(webhook_attempts::id.asc())
            .select(AttemptRow::as_select())
            .load(&mut conn)
            .await
            .map_err(storage)?
            .into_iter()
            .map(|a| Attempt {
                attempted_at: a.attempted_at,
                response_status: a.response_status,
                duration_ms: a.duration_ms,
                response_body: a.response_body,
                error: a.error,
            })
            .collect();
        Ok(DeliveryDetail { delivery: row.into(), read_resource, payload, attempts })
    }

    /// The permission resource whose `read` the delivery's payload needs (`None`: a test ping);
    /// `NotFound` when the endpoint has no such delivery.
    pub async fn read_resource(&self, endpoint_id: Uuid, delivery_id: Uuid) -> Result<Option<String>, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(delivery_id).and(webhook_deliveries::endpoint_id.eq(endpoint_id)))
            .select(webhook_deliveries::read_resource)
            .first(&mut conn)
            .await
            .map_err(storage)
    }

    /// Makes a delivery due now, whatever its status: one more attempt for a failed one, a resend
    /// for a succeeded one. Refused while an instance is sending it or its endpoint is disabled.
    pub async fn retry(&self, endpoint_id: Uuid, delivery_id: Uuid) -> Result<Delivery, WebhookError> {
        let mut conn = connect(&self.pool).await?;
        let retried = diesel::sql_query(
            "UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), completed_at = NULL, \
                 claim = NULL \
             FROM webhook_endpoints e \
             WHERE d.id = $1 AND d.endpoint_id = $2 AND e.id = d.endpoint_id AND e.enabled \
               AND NOT (d.claim IS NOT NULL AND d.next_attempt_at > now()) \
             RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at, \
                 d.last_attempt_at, d.last_response_status, d.created_at, d.completed_at",
        )
        .bind::<diesel::sql_types::Uuid, _>(delivery_id)
        .bind::<diesel::sql_types::Uuid, _>(endpoint_id)
        .get_result::<DeliveryRow>(&mut conn)
        .await
        .optional()
        .map_err(storage)?;
        if let Some(row) = retried {
            return Ok(row.into());
        }
        // Why not: no such delivery, a disabled endpoint, or an attempt under way.
        let found: Option<bool> = webhook_deliveries::table
            .inner_join(webhook_endpoints::table)
            .filter(webhook_deliveries::id.eq(delivery_id).and(webhook_deliveries::endpoint_id.eq(endpoint_id)))
            .select(webhook_endpoints::enabled)
            .first(&mut conn)
            .await
            .optional()
            .map_err(storage)?;
        Err(match found {
            None => WebhookError::NotFound,
            Some(false) => WebhookError::Disabled,
            Some(true) => WebhookError::InProgress,
        })
    }
}

/// Why an endpoint took nothing: it does not exist, or it is disabled.
async fn why_not(conn: &mut AsyncPgConnection, endpoint_id: Uuid) -> Result<WebhookError, WebhookError> {
    let enabled: Option<bool> = webhook_endpoints::table
        .find(endpoint_id)
        .select(webhook_endpoints::enabled)
        .first(conn)
        .await
        .optional()
        .map_err(storage)?;
    Ok(if enabled.is_some() { WebhookError::Disabled } else { WebhookError::NotFound })
}
