//! The one way from the pool and diesel to [`StorageError`]: a connection
//! helper, a transaction error that carries a decided refusal, and one
//! diesel mapper driven by each context's table of constraint names.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use shared_kernel::StorageError;

use crate::db::DbPool;
use crate::request_tx::{Conn, ReadConn};
use crate::DbError;

/// A context's constraints, by name, and the request field each one guards.
/// Unique and listed `CHECK` violations become `Conflict { field }`, foreign
/// keys `MissingReference { field }`; an unlisted name reports `resource`.
pub struct Constraints(&'static [(&'static str, &'static str)]);

impl Constraints {
    pub const fn new(names: &'static [(&'static str, &'static str)]) -> Self {
        Self(names)
    }

    /// Every constraint name the table knows (the schema tests check they exist).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(name, _)| *name)
    }

    /// The request field `constraint` guards, if the table names it.
    pub fn field(&self, constraint: Option<&str>) -> Option<&'static str> {
        let name = constraint?;
        self.0.iter().find(|(known, _)| *known == name).map(|(_, field)| *field)
    }

    /// The storage meaning of a diesel error.
    pub fn map(&self, error: DieselError) -> StorageError {
        match error {
            DieselError::NotFound => StorageError::NotFound,
            DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                StorageError::Conflict { field: self.field(info.constraint_name()).unwrap_or("resource") }
            }
            // A foreign key the table does not name is the adapter's bug, not the caller's mistake.
            DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info) => {
                match self.field(info.constraint_name()) {
                    Some(field) => StorageError::MissingReference { field },
                    None => StorageError::Unknown(format!(
                        "unlisted foreign key {}: {}",
                        info.constraint_name().unwrap_or("?"),
                        info.message()
                    )),
                }
            }
            DieselError::DatabaseError(DatabaseErrorKind::CheckViolation, ref info)
                if self.field(info.constraint_name()).is_some() =>
            {
                StorageError::Conflict { field: self.field(info.constraint_name()).unwrap_or("resource") }
            }
            // A connection that broke under a statement (diesel-async reports an error without a
            // SQLSTATE as `UnableToSendCommand`): the database, not the request, failed.
            DieselError::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            ) => StorageError::Unavailable(info.message().to_owned()),
            // A lock or statement waited past the session's limit (`db::SessionLimits`): the database
            // was busy, not the request wrong; the caller may try again.
            DieselError::DatabaseError(_, ref info) if gave_up_waiting(info.message()) => {
                StorageError::Unavailable(info.message().to_owned())
            }
            other => StorageError::Unknown(other.to_string()),
        }
    }
}

/// Whether PostgreSQL cancelled a statement for a session limit. diesel does not expose the SQLSTATE
/// (55P03 `lock_not_available`, 57014 `query_canceled`), so the server's own words are matched; Tally's
/// connections never change `lc_messages`.
pub fn gave_up_waiting(message: &str) -> bool {
    message.contains("due to lock timeout") || message.contains("due to statement timeout")
}

/// The connection a repository works on: the request transaction's when the
/// request runs in one (see [`crate::request_tx`]), else a pooled one; a pool
/// that cannot give one is `Unavailable`.
pub async fn connect(pool: &DbPool) -> Result<Conn, StorageError> {
    crate::db::checkout(pool).await.map_err(StorageError::from)
}

/// The connection for reads outside any transaction (a by-id read): the request transaction's when the request runs in
/// one, else a pooled one that other such reads may share while it runs (pipelined, `crate::db`'s
/// pool); a pool that cannot give one is `Unavailable`. Run the statement on `&*conn`: a shared
/// connection never holds a transaction.
pub async fn connect_shared(pool: &DbPool) -> Result<ReadConn, StorageError> {
    crate::db::checkout_shared(pool).await.map_err(StorageError::from)
}

/// What a transaction body fails with: the database (the transaction rolls
/// back and the error is mapped by the context's constraints) or a refusal
/// the body decided (rolls back too, and is passed on as it is).
#[derive(Debug)]
pub enum TxError<E> {
    Db(DieselError),
    Refused(E),
}

impl<E> From<DieselError> for TxError<E> {
    fn from(error: DieselError) -> Self {
        Self::Db(error)
    }
}

impl From<StorageError> for TxError<StorageError> {
    fn from(error: StorageError) -> Self {
        Self::Refused(error)
    }
}

impl<E: From<StorageError>> TxError<E> {
    /// The port's error: a database failure through `constraints`, a refusal as decided.
    pub fn resolve(self, constraints: &Constraints) -> E {
        match self {
            Self::Db(error) => E::from(constraints.map(error)),
            Self::Refused(error) => error,
        }
    }
}

/// A row read by its id alone, with its `deleted_at`: the row, unless it is deleted.
///
/// A read by id selects by `id` alone and checks the deletion here. With `deleted_at IS NULL` in the
/// statement, the partial list indexes (`WHERE deleted_at IS NULL`, ending in `id`) match it too, and
/// on a table PostgreSQL has no statistics for (never analysed: autovacuum off, or not yet run) a kept
/// plan may walk one of them whole instead of probing the primary key
/// (docs/adr/0008-statements-kept-prepared.md).
pub fn live<R>(found: Option<(R, Option<time::OffsetDateTime>)>) -> Option<R> {
    found.and_then(|(row, deleted_at)| deleted_at.is_none().then_some(row))
}

/// A stored value the `CHECK` constraints should have made impossible.
pub fn corrupt(what: &str, value: &str) -> StorageError {
    StorageError::Unknown(format!("stored {what} '{value}' is not valid"))
}

impl From<DbError> for StorageError {
    fn from(error: DbError) -> Self {
        match error {
            DbError::Unavailable(message) => StorageError::Unavailable(message),
            DbError::Query(error) => Constraints::new(&[]).map(error),
            other => StorageError::Unknown(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Constraints = Constraints::new(&[("users_email_key", "email"), ("stock_check", "quantity")]);

    #[test]
    fn constraints_name_their_fields_exactly() {
        assert_eq!(TABLE.field(Some("users_email_key")), Some("email"));
        assert_eq!(TABLE.field(Some("users_email_key_2")), None, "no substring matching");
        assert_eq!(TABLE.field(None), None);
        assert_eq!(TABLE.map(DieselError::NotFound), StorageError::NotFound);
        assert!(matches!(TABLE.map(DieselError::RollbackTransaction), StorageError::Unknown(_)));
        let broken = DieselError::DatabaseError(DatabaseErrorKind::UnableToSendCommand, Box::new("closed".to_owned()));
        assert_eq!(TABLE.map(broken), StorageError::Unavailable("closed".to_owned()), "a broken connection is a 503");
        let waited = DieselError::DatabaseError(
            DatabaseErrorKind::Unknown,
            Box::new("canceling statement due to lock timeout".to_owned()),
        );
        assert!(matches!(TABLE.map(waited), StorageError::Unavailable(_)), "a lock wait that ran out is a 503");
    }

    #[test]
    fn refusals_pass_through_a_transaction_and_database_errors_are_mapped() {
        let refused: TxError<StorageError> = TxError::Refused(StorageError::Stale);
        assert_eq!(refused.resolve(&TABLE), StorageError::Stale);
        let failed: TxError<StorageError> = TxError::Db(DieselError::NotFound);
        assert_eq!(failed.resolve(&TABLE), StorageError::NotFound);
    }
}
