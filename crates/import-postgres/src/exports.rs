//! The exports' reads (docs/imports-and-exports.md, "Exports"): every matching record of a
//! resource, its view's fields as typed values (an order as the JSON its statement builds), from
//! one snapshot, fetched a slice at a time through a cursor so memory stays flat however many rows
//! there are.
//!
//! Like the analytics read model (docs/adr/0005-analytics-reads-across-contexts.md), these read
//! several contexts' tables and write nothing.

use bulk_data::FieldValue;
use diesel::deserialize::{self, FromSql, QueryableByName};
use diesel::pg::{Pg, PgValue};
use diesel::query_builder::BoxedSqlQuery;
use diesel::row::{Field, NamedRow};
use diesel::sql_types::{Array, BigInt, Bool, Date, Integer, Nullable, SmallInt, Text, Timestamptz, Uuid as SqlUuid};
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
    /// A `smallint` (a rank column's value).
    Rank(Option<i16>),
    Text(Option<String>),
    Uuid(Option<Uuid>),
    Texts(Vec<String>),
    Instant(Option<OffsetDateTime>),
}

/// How an export's statement gives its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// The view's fields, one column each, in the view's order ([`Exports::fetch_fields`]).
    Fields,
    /// One column `j`, each record's JSON object as text ([`Exports::fetch_json`]).
    Json,
}

/// One export's statement, in its records' order.
#[derive(Debug, Clone)]
pub struct ExportQuery {
    pub sql: String,
    pub binds: Vec<Bind>,
    pub records: Records,
}

#[derive(diesel::QueryableByName)]
struct JsonRecord {
    #[diesel(sql_type = Text)]
    j: String,
}

/// A record's fields, read by their place and each by its column's type, so one reader serves
/// every resource.
struct FieldRecord(Vec<FieldValue>);

// PostgreSQL's type oids (`pg_type`) of the columns the export statements select.
const BOOL: u32 = 16;
const INT8: u32 = 20;
const INT2: u32 = 21;
const INT4: u32 = 23;
const TEXT: u32 = 25;
const BPCHAR: u32 = 1042;
const VARCHAR: u32 = 1043;
const DATE: u32 = 1082;
const TIMESTAMPTZ: u32 = 1184;
const UUID: u32 = 2950;
const TEXT_ARRAY: u32 = 1009;
const VARCHAR_ARRAY: u32 = 1015;
const UUID_ARRAY: u32 = 2951;

fn field_value(value: Option<PgValue<'_>>) -> deserialize::Result<FieldValue> {
    let Some(value) = value else { return Ok(FieldValue::Null) };
    Ok(match value.get_oid().get() {
        BOOL => FieldValue::Boolean(<bool as FromSql<Bool, Pg>>::from_sql(value)?),
        INT8 => FieldValue::Integer(<i64 as FromSql<BigInt, Pg>>::from_sql(value)?),
        INT4 => FieldValue::Integer(<i32 as FromSql<Integer, Pg>>::from_sql(value)?.into()),
        INT2 => FieldValue::Integer(<i16 as FromSql<SmallInt, Pg>>::from_sql(value)?.into()),
        TEXT | BPCHAR | VARCHAR => FieldValue::Text(<String as FromSql<Text, Pg>>::from_sql(value)?),
        DATE => FieldValue::Date(<time::Date as FromSql<Date, Pg>>::from_sql(value)?),
        TIMESTAMPTZ => FieldValue::Instant(<time::OffsetDateTime as FromSql<Timestamptz, Pg>>::from_sql(value)?),
        UUID => FieldValue::Uuid(<Uuid as FromSql<SqlUuid, Pg>>::from_sql(value)?),
        TEXT_ARRAY | VARCHAR_ARRAY => FieldValue::List(<Vec<String> as FromSql<Array<Text>, Pg>>::from_sql(value)?),
        UUID_ARRAY => FieldValue::List(
            <Vec<Uuid> as FromSql<Array<SqlUuid>, Pg>>::from_sql(value)?.iter().map(Uuid::to_string).collect(),
        ),
        other => return Err(format!("an export column of type oid {other}, which exports do not read").into()),
    })
}

impl QueryableByName<Pg> for FieldRecord {
    fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
        let count = diesel::row::Row::field_count(row);
        let mut fields = Vec::with_capacity(count);
        for i in 0..count {
            let field = diesel::row::Row::get(row, i).ok_or("an export column went missing")?;
            fields.push(field_value(field.value())?);
        }
        Ok(Self(fields))
    }
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
            Bind::Rank(value) => query.bind::<Nullable<SmallInt>, _>(value),
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

    /// The next `n` records' fields ([`Records::Fields`]); fewer at the end, none after it.
    pub async fn fetch_fields(&self, n: u32) -> Result<Vec<Vec<FieldValue>>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let records: Vec<FieldRecord> =
            diesel::sql_query(format!("FETCH {n} FROM {CURSOR}")).load(&mut *conn).await.map_err(storage)?;
        Ok(records.into_iter().map(|r| r.0).collect())
    }

    /// The next `n` records' JSON texts ([`Records::Json`]); fewer at the end, none after it.
    pub async fn fetch_json(&self, n: u32) -> Result<Vec<String>, StorageError> {
        let mut conn = connect(&self.pool).await?;
        let records: Vec<JsonRecord> =
            diesel::sql_query(format!("FETCH {n} FROM {CURSOR}")).load(&mut *conn).await.map_err(storage)?;
        Ok(records.into_iter().map(|r| r.j).collect())
    }
}
