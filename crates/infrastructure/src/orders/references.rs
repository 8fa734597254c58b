//! Existence checks the order handlers make before creating an order (the foreign keys would refuse
//! the row anyway; these give the caller a precise 404).

use diesel::sql_types::{Bool, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use crate::db::DbError;
use crate::DbPool;

#[derive(diesel::QueryableByName)]
struct Found {
    #[diesel(sql_type = Bool)]
    found: bool,
}

async fn exists(pool: &DbPool, sql: &str, id: Uuid) -> Result<bool, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let row: Found = diesel::sql_query(sql).bind::<SqlUuid, _>(id).get_result(&mut conn).await?;
    Ok(row.found)
}

/// A live (not deleted) customer with this id.
pub async fn customer_exists(pool: &DbPool, id: Uuid) -> Result<bool, DbError> {
    exists(pool, "SELECT EXISTS (SELECT 1 FROM customers WHERE id = $1 AND deleted_at IS NULL) AS found", id).await
}

/// A live (not deleted) company with this id.
pub async fn company_exists(pool: &DbPool, id: Uuid) -> Result<bool, DbError> {
    exists(pool, "SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND deleted_at IS NULL) AS found", id).await
}
