//! Table statistics where the server keeps none.
//!
//! PostgreSQL makes a kept statement's plan again only when something invalidates it, normally the
//! `ANALYZE` autovacuum runs once a table has changed enough. Without autovacuum nothing does, and a
//! plan made while a table held a few rows serves it at any size: on a near-empty table a look-up by
//! key may be planned as a walk of a whole list index or a scan of the heap, and it stays so as the
//! table grows (docs/adr/0019-tables-analysed-by-tally.md). Where the server
//! does not analyse, Tally analyses its own tables by autovacuum's rule.

use diesel::sql_types::{Bool, Integer, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

use super::{DbError, DbPool};
use crate::pipeline::Opening;

/// The first key of the advisory lock an instance holds while it analyses a table; the second is the
/// table's oid. (The two-key form has a space of its own, apart from the one-key locks of
/// idempotency.)
pub const ANALYSIS_LOCK: i32 = 0x7a11_5a75;

/// Whether a table changed by more rows since its last analysis than autovacuum would let pass: its
/// threshold plus its scale factor of the table's rows, by the server's settings (per-table
/// `autovacuum_*` options are not read). Only tables this role may analyse: it owns them.
macro_rules! changed {
    () => {
        "s.schemaname = current_schema() AND pg_has_role(c.relowner, 'USAGE') \
         AND s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 \
             + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)"
    };
}

/// Every table of this schema that [`changed!`], with its oid for its lock.
const CHANGED_TABLES: &str = concat!(
    "SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.relid::int4 AS oid \
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE ",
    changed!(),
    " ORDER BY s.relname"
);

/// Takes a table's lock, if no other instance holds it, and says whether the table still [`changed!`]
/// (another instance may have just analysed it).
const TAKE_TABLE: &str = concat!(
    "SELECT pg_try_advisory_xact_lock($1, $2) AND EXISTS (\
       SELECT FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relid::int4 = $2 AND ",
    changed!(),
    ") AS flag"
);

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    flag: bool,
}

#[derive(QueryableByName)]
struct Table {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Integer)]
    oid: i32,
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

impl Analysis {
    /// Who, by the server's `autovacuum` and `track_counts` settings.
    pub fn by_settings(autovacuum: bool, track_counts: bool) -> Self {
        match (track_counts, autovacuum) {
            (false, _) => Self::Nobody,
            (true, true) => Self::Server,
            (true, false) => Self::Tally,
        }
    }
}

/// Who keeps the statistics, read from the server's settings (which a reload may change).
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
    Ok(Analysis::by_settings(settings.autovacuum, settings.track_counts))
}

/// What one round of [`analyse_changed_tables`] did.
#[derive(Debug, Default)]
pub struct AnalysisRound {
    /// The tables analysed.
    pub analysed: Vec<String>,
    /// The tables that could not be: held locked by another session past 500 ms (a migration, a
    /// `VACUUM FULL`), or another failure. The next round tries them again.
    pub failed: Vec<(String, DbError)>,
}

/// Analyses every table that `changed!` since its last analysis, each in a transaction of its own,
/// so that one failure keeps the others' statistics; a table another instance is analysing is left
/// to it. Each `ANALYZE` makes the plans kept for its table be made again, with the statistics.
pub async fn analyse_changed_tables(pool: &DbPool) -> Result<AnalysisRound, DbError> {
    let mut conn = pool.get().await?;
    let tables: Vec<Table> = diesel::sql_query(CHANGED_TABLES).load(&mut conn).await?;
    let mut round = AnalysisRound::default();
    for table in tables {
        let analysed = crate::pipeline::transaction_opened(
            &mut conn,
            Opening::LockWaitsLimited,
            async |conn: &AsyncPgConnection| -> Result<bool, DbError> {
                let mut conn = conn;
                let taken: Flag = diesel::sql_query(TAKE_TABLE)
                    .bind::<Integer, _>(ANALYSIS_LOCK)
                    .bind::<Integer, _>(table.oid)
                    .get_result(&mut conn)
                    .await?;
                if taken.flag {
                    // The name is the server's own quoting of a table it listed.
                    conn.batch_execute(&format!("ANALYZE {}", table.name)).await?;
                }
                Ok(taken.flag)
            },
        )
        .await;
        match analysed {
            Ok(true) => round.analysed.push(table.name),
            Ok(false) => {}
            Err(error) => round.failed.push((table.name, error)),
        }
    }
    Ok(round)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_analyses_only_where_the_server_counts_changes_but_does_not_analyse() {
        assert_eq!(Analysis::by_settings(true, true), Analysis::Server);
        assert_eq!(Analysis::by_settings(false, true), Analysis::Tally);
        assert_eq!(Analysis::by_settings(true, false), Analysis::Nobody);
        assert_eq!(Analysis::by_settings(false, false), Analysis::Nobody);
    }
}
