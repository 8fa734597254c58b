//! No caller can hold what others need (docs/bounded-work.md): bodies that never arrive, locks held by
//! another session, floods of health checks and made-up keys, error lists a client can inflate, and
//! answers read across concurrent changes. Each test is an attack that worked on the build before.

mod bodies;
mod floods;
mod locks;
mod snapshots;

use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

/// A second session holding a transaction open after `statements` (row locks, say) until it is
/// rolled back or dropped.
pub struct Holder(AsyncPgConnection);

impl Holder {
    pub async fn start(url: &str, statements: &str) -> Self {
        let mut conn = AsyncPgConnection::establish(url).await.expect("a second session");
        conn.batch_execute(&format!("BEGIN; {statements}")).await.expect("the holder's statements");
        Self(conn)
    }

    pub async fn release(mut self) {
        self.0.batch_execute("ROLLBACK").await.expect("rollback");
    }
}
