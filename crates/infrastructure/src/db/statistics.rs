//! Table statistics where the server keeps none.
//!
//! PostgreSQL makes a kept statement's plan again only when something invalidates it, normally the
//! `ANALYZE` autovacuum runs once a table has changed enough. Without autovacuum nothing does, and a
//! plan made while a table held a few rows serves it at any size: on a near-empty table a look-up by
//! key may be planned as a walk of a whole list index or a scan of the heap, and it stays so as the
//! table grows (docs/performance-journal.md, "Plans made on a small table, kept"). Where the server
//! does not analyse, Tally analyses its own tables by autovacuum's rule.

use diesel::sql_types::{Bool, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

use super::{DbError, DbPool};
use crate::pipeline::Opening;

/// One advisory lock for every instance on the database: one analyses, the others skip the round.
const ANALYSING: &str =
    "SELECT pg_try_advisory_xact_lock(hashtextextended('tally: analyse changed tables', 0)) AS flag";

/// This schema's tables changed by more rows since their last analysis than autovacuum would let
/// pass: its threshold plus its scale factor of the table's rows, by the server's own settings.
const CHANGED_TABLES: &str = "SELECT format('%I.%I', s.schemaname, s.relname) AS name \
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid \
     WHERE s.schemaname = current_schema() \
       AND s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 \
           + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) \
     ORDER BY s.relname";

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    flag: bool,
}

#[derive(QueryableByName)]
struct Table {
    #[diesel(sql_type = Text)]
    name: String,
}

/// Who keeps this database's table statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Analysis {
    /// PostgreSQL: autovacuum is on, with the activity counts it goes by (`track_counts`).
    Server,
    /// Tally ([`analyse_changed_tables`]): autovacuum is off, the activity counts are kept.
    Tally,
    /// Nobody can tell which tables changed: `track_counts` is off.
    Nobody,
}

/// Who keeps the statistics, by the server's settings.
pub async fn who_analyses_tables(pool: &DbPool) -> Result<Analysis, DbError> {
    #[derive(QueryableByName)]
    struct Settings {
        #[diesel(sql_type = Bool)]
        autovacuum: bool,
        #[diesel(sql_type = Bool)]
        track_counts: bool,
    }
    let mut conn = pool.get().await?;
    let settings: Settings = diesel::sql_query(
        "SELECT current_setting('autovacuum')::bool AS autovacuum, \
                current_setting('track_counts')::bool AS track_counts",
    )
    .get_result(&mut conn)
    .await?;
    Ok(match (settings.track_counts, settings.autovacuum) {
        (false, _) => Analysis::Nobody,
        (true, true) => Analysis::Server,
        (true, false) => Analysis::Tally,
    })
}

/// Analyses the tables that changed enough since their last analysis (see [`CHANGED_TABLES`]) and
/// returns their names; none while another instance is at it. Each `ANALYZE` makes the plans kept
/// for its table be made again, with the statistics. A table another session holds locked against
/// it (a migration, a `VACUUM FULL`) fails the round after 500 ms instead of holding it.
pub async fn analyse_changed_tables(pool: &DbPool) -> Result<Vec<String>, DbError> {
    let mut conn = pool.get().await?;
    crate::pipeline::transaction_opened(&mut conn, Opening::LockWaitsLimited, async |conn: &AsyncPgConnection| {
        let mut conn = conn;
        let turn: Flag = diesel::sql_query(ANALYSING).get_result(&mut conn).await?;
        if !turn.flag {
            return Ok(Vec::new());
        }
        let tables: Vec<Table> = diesel::sql_query(CHANGED_TABLES).load(&mut conn).await?;
        for table in &tables {
            // The name is the server's own quoting of a table it listed.
            conn.batch_execute(&format!("ANALYZE {}", table.name)).await?;
        }
        Ok(tables.into_iter().map(|table| table.name).collect())
    })
    .await
}
