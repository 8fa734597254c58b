//! Stock alerts (`warehouse.stock_low`, `warehouse.stock_replenished`; docs/purchasing-and-transfers.md):
//! the one place the PostgreSQL adapters raise them. Every quantity write goes through the ledger
//! (`ledger.rs`), whose writes call [`record_alerts`] in the transaction of the change, with what
//! each record held before the write and holds after it; a threshold change calls it too
//! (`inventory.rs`). The rule itself is the domain's ([`warehouse_domain::alerts`]).
//!
//! The quantities "before" are exact: every ledger write is a compare-and-set on the quantities and
//! the version the change was computed from (or runs under the record's row lock), so the record
//! held exactly those when the write landed; a write that missed rolls its transaction back, alerts
//! included.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;
use warehouse_domain::alerts::{stock_alert, stock_alert_event, AlertLevel, StockCrossing};
use warehouse_domain::Inventory;

use super::schema::products;
use postgres_toolkit::events::record_event;

/// One record's write as the alert rule judges it: its level before the write, and the record after.
pub(crate) struct Judged<'a> {
    pub before: AlertLevel,
    pub after: &'a Inventory,
}

/// The crossings among `writes` (at most one per record: the caller judges a record changed several
/// times in one transaction once, from its first state to its last).
fn crossings<'a>(writes: impl IntoIterator<Item = Judged<'a>>) -> Vec<(StockCrossing, &'a Inventory)> {
    writes
        .into_iter()
        .filter_map(|w| stock_alert(Some(w.before), AlertLevel::of(w.after)).map(|c| (c, w.after)))
        .collect()
}

/// Records the alert events `writes` raise, on the caller's transaction: nothing (and no statement)
/// when none crosses its reorder point; else the products' SKUs in one query and the events in one
/// insert.
pub(crate) async fn record_alerts<'a>(
    mut conn: &AsyncPgConnection,
    writes: impl IntoIterator<Item = Judged<'a>>,
) -> QueryResult<()> {
    let crossed = crossings(writes);
    if crossed.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = crossed.iter().map(|(_, record)| record.product_id).collect();
    let skus: HashMap<Uuid, String> = products::table
        .filter(products::id.eq_any(&ids))
        .select((products::id, products::sku))
        .load::<(Uuid, String)>(&mut conn)
        .await?
        .into_iter()
        .collect();
    let events: Vec<_> = crossed
        .iter()
        .map(|(crossing, record)| {
            let sku = skus.get(&record.product_id).map(String::as_str).unwrap_or_default();
            stock_alert_event(*crossing, record, sku, record.updated_at)
        })
        .collect();
    record_event(conn, &events).await
}
