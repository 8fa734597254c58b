//! `If-Match` against the version the database keeps on every resource row
//! (migration 000011): checked under a row lock, in the request's transaction,
//! so the check and the write it guards are one atomic step.

use diesel::sql_types::{Array, BigInt, Bool, Nullable, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use crate::{DbError, DbPool};

/// The tables whose rows carry a `version`; the statement names come from here only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionedTable {
    Companies,
    Customers,
    Deals,
    Interactions,
    Users,
    Roles,
    Permissions,
    Contacts,
    Profiles,
    Orders,
    Products,
    Locations,
    Inventory,
    Suppliers,
    PurchaseOrders,
    Transfers,
    WebhookEndpoints,
}

impl VersionedTable {
    /// `$1` the id, `$2` the versions the client holds: is one of them current? The live row
    /// is locked `FOR NO KEY UPDATE` (what an ordinary UPDATE takes) until the transaction ends.
    /// Rows that belong to a user (contacts, profiles) are seen only by their owner (`$3`;
    /// NULL for an administrator): anyone else's request is left to the handler's refusal,
    /// with nothing locked and nothing told about the row.
    fn owned(self) -> bool {
        matches!(self, Self::Contacts | Self::Profiles)
    }

    fn statement(self) -> &'static str {
        /// The check on a table's live row; `owned` rows are seen by their owner only.
        macro_rules! check {
            ($table:literal) => {
                concat!(
                    "SELECT version = ANY($2) AS current FROM ",
                    $table,
                    " WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE"
                )
            };
            ($table:literal, owned) => {
                concat!(
                    "SELECT version = ANY($2) AS current FROM ",
                    $table,
                    " WHERE id = $1 AND deleted_at IS NULL AND ($3::uuid IS NULL OR user_id = $3) FOR NO KEY UPDATE"
                )
            };
        }
        match self {
            Self::Companies => check!("companies"),
            Self::Customers => check!("customers"),
            Self::Deals => check!("deals"),
            Self::Interactions => check!("interactions"),
            Self::Users => check!("users"),
            Self::Roles => check!("roles"),
            // Permissions are deleted for good, never soft-deleted.
            Self::Permissions => "SELECT version = ANY($2) AS current FROM permissions WHERE id = $1 FOR NO KEY UPDATE",
            Self::Contacts => check!("contacts", owned),
            Self::Profiles => check!("profiles", owned),
            Self::Orders => check!("orders"),
            Self::Products => check!("products"),
            Self::Locations => check!("locations"),
            Self::Inventory => check!("inventory"),
            Self::Suppliers => check!("suppliers"),
            // Purchase orders and transfers are never deleted: no `deleted_at`.
            Self::PurchaseOrders => {
                "SELECT version = ANY($2) AS current FROM purchase_orders WHERE id = $1 FOR NO KEY UPDATE"
            }
            Self::Transfers => "SELECT version = ANY($2) AS current FROM transfers WHERE id = $1 FOR NO KEY UPDATE",
            // Endpoints are deleted outright: no `deleted_at`.
            Self::WebhookEndpoints => {
                "SELECT version = ANY($2) AS current FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE"
            }
        }
    }
}

#[derive(diesel::QueryableByName)]
struct Current {
    #[diesel(sql_type = Bool)]
    current: bool,
}

/// Whether the row's version is one of `versions` (`None`: `If-Match: *`, any live row
/// matches); `None` when there is no live row. Run inside a request transaction: the lock
/// lasts until it ends.
pub async fn matches_current(
    pool: &DbPool,
    table: VersionedTable,
    id: Uuid,
    versions: Option<&[i64]>,
    owner: Option<Uuid>,
) -> Result<Option<bool>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let query =
        diesel::sql_query(table.statement()).bind::<SqlUuid, _>(id).bind::<Array<BigInt>, _>(versions.unwrap_or(&[]));
    let found: Result<Current, _> = if table.owned() {
        query.bind::<Nullable<SqlUuid>, _>(owner).get_result(&mut conn).await
    } else {
        query.get_result(&mut conn).await
    };
    let found = found.map(Some).or_else(|e| if e == diesel::result::Error::NotFound { Ok(None) } else { Err(e) })?;
    Ok(found.map(|row| versions.is_none() || row.current))
}

/// Makes the request's transaction refuse every write from here on (`SET TRANSACTION READ ONLY`,
/// which PostgreSQL allows at any point). A write whose `If-Match` failed runs its handler this way
/// only to learn whether the request is otherwise well-formed (RFC 9110 §13.2.1): nothing it tries
/// can change a row.
pub async fn refuse_writes(pool: &DbPool) -> Result<(), DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    diesel::sql_query("SET TRANSACTION READ ONLY").execute(&mut conn).await?;
    Ok(())
}
