//! The exports' reads (docs/imports-and-exports.md, "Exports"): every matching record of a
//! resource as the API's view shows it (JSON built by the statement), from one snapshot, fetched a
//! slice at a time through a cursor so memory stays flat however many rows there are.
//!
//! Like the analytics read model (docs/adr/0005-analytics-reads-across-contexts.md), these read
//! several contexts' tables and write nothing.

use diesel::pg::Pg;
use diesel::query_builder::BoxedSqlQuery;
use diesel::sql_types::{Array, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;
use shared_kernel::StorageError;
use time::OffsetDateTime;
use uuid::Uuid;

use super::storage;

/// A value a filter compares with.
#[derive(Debug, Clone)]
pub enum Bind {
    Text(Option<String>),
    Uuid(Option<Uuid>),
    Texts(Vec<String>),
    Instant(Option<OffsetDateTime>),
}

/// One export's statement: a `SELECT` of one column `j`, each record's JSON text, in order.
#[derive(Debug, Clone)]
pub struct ExportQuery {
    pub sql: String,
    pub binds: Vec<Bind>,
}

#[derive(QueryableByName)]
struct Record {
    #[diesel(sql_type = Text)]
    j: String,
}

/// The exports' statements, on the connection of the transaction they run in (`request_tx`).
#[derive(Clone)]
pub struct Exports {
    pool: DbPool,
}

const CURSOR: &str = "tally_export";

fn bound(sql: String, binds: &[Bind]) -> BoxedSqlQuery<'static, Pg, diesel::query_builder::SqlQuery> {
    let mut query = diesel::sql_query(sql).into_boxed();
    for bind in binds {
        query = match bind.clone() {
            Bind::Text(value) => query.bind::<Nullable<Text>, _>(value),
            Bind::Uuid(value) => query.bind::<Nullable<SqlUuid>, _>(value),
            Bind::Texts(values) => query.bind::<Array<Text>, _>(values),
            Bind::Instant(value) => query.bind::<Nullable<Timestamptz>, _>(value),
        };
    }
    query
}

impl Exports {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// The pool whose connection an export's transaction holds.
    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// First thing in the export's transaction: one snapshot for every slice, read only; then the
    /// cursor over `query`.
    pub async fn open(&self, query: &ExportQuery) -> Result<(), StorageError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *conn)
            .await
            .map_err(storage)?;
        bound(format!("DECLARE {CURSOR} NO SCROLL CURSOR FOR {}", query.sql), &query.binds)
            .execute(&mut *conn)
            .await
            .map(drop)
            .map_err(storage)
    }

    /// The next `n` records' JSON texts; fewer at the end, none after it.
    pub async fn fetch(&self, n: u32) -> Result<Vec<String>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let records: Vec<Record> =
            diesel::sql_query(format!("FETCH {n} FROM {CURSOR}")).load(&mut *conn).await.map_err(storage)?;
        Ok(records.into_iter().map(|r| r.j).collect())
    }
}
