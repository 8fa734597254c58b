//! `ReorderRepository` on PostgreSQL: the low records with what is already on its way to them, in
//! one statement (docs/purchasing-and-transfers.md).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::counting;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;
use warehouse_domain::alerts::ReorderCandidate;
use warehouse_domain::purchasing::{ReorderRepository, SuggestionFilter};
use warehouse_domain::RepoError;

use super::errors::from_diesel;

#[derive(Clone)]
pub struct PgReorderRepository {
    pool: DbPool,
}

impl PgReorderRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

/// What open purchase orders (`ordered`, `partially_received`) still expect of a product at a
/// location, plus what transfers in transit bring there: `incoming(product, location)` as SQL, for
/// the reorder candidates and the inventory reads. Reached by `purchase_order_lines_product_idx` and
/// `transfer_lines_product_idx`.
pub(crate) const INCOMING_AT: &str = "least(\
       coalesce((SELECT sum(l.quantity_ordered - l.quantity_received) FROM purchase_order_lines l \
                 JOIN purchase_orders o ON o.id = l.purchase_order_id \
                 WHERE l.product_id = i.product_id AND o.location_id = i.location_id \
                   AND o.status IN ('ordered', 'partially_received')), 0) \
     + coalesce((SELECT sum(tl.quantity) FROM transfer_lines tl JOIN transfers t ON t.id = tl.transfer_id \
                 WHERE tl.product_id = i.product_id AND t.to_location_id = i.location_id \
                   AND t.status = 'in_transit'), 0), \
     9223372036854775807)::bigint";

/// The incoming stock of each (product, location) given as two arrays, in their order (one
/// statement for a page of records).
pub(crate) fn incoming_of_records() -> String {
    format!(
        "SELECT {INCOMING_AT} AS incoming \
         FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS i(product_id, location_id, n) ORDER BY i.n"
    )
}

#[derive(QueryableByName)]
struct Incoming {
    #[diesel(sql_type = BigInt)]
    incoming: i64,
}

/// The incoming stock of each (product, location) of `keys`, in their order, in one statement on
/// the caller's connection (inside its transaction, for a write that answers it).
pub(crate) async fn incoming_of(mut conn: &AsyncPgConnection, keys: &[(Uuid, Uuid)]) -> QueryResult<Vec<i64>> {
    use diesel::sql_types::Array;
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<Incoming> = diesel::sql_query(incoming_of_records())
        .bind::<Array<SqlUuid>, _>(keys.iter().map(|k| k.0).collect::<Vec<_>>())
        .bind::<Array<SqlUuid>, _>(keys.iter().map(|k| k.1).collect::<Vec<_>>())
        .load(&mut conn)
        .await?;
    if rows.len() != keys.len() {
        // One row per key by construction (`unnest … WITH ORDINALITY`).
        return Err(diesel::result::Error::DeserializationError("incoming stock miscounted".into()));
    }
    Ok(rows.into_iter().map(|r| r.incoming).collect())
}

/// Live low records (a reorder point above zero, available at or below it; the rows of
/// `inventory_reorder_idx`) of live products at live, active locations (nothing is bought for a
/// location that takes no stock), with their SKU, preferred supplier and incoming stock.
const CANDIDATES: &str = "SELECT i.id AS inventory_id, i.product_id, p.sku, i.location_id, p.supplier_id, \
            i.quantity_on_hand - i.quantity_reserved AS quantity_available, \
            c.incoming AS quantity_incoming, i.reorder_point, i.max_stock \
     FROM products p JOIN inventory i ON i.product_id = p.id AND i.deleted_at IS NULL \
              AND i.reorder_point > 0 AND i.quantity_on_hand - i.quantity_reserved <= i.reorder_point \
          JOIN locations loc ON loc.id = i.location_id AND loc.deleted_at IS NULL AND loc.is_active \
          CROSS JOIN LATERAL (SELECT ";

/// The candidates' filters and order: by SKU case-insensitively (the order of `products_sku_key`,
/// which is unique among live products), then location (`inventory_reorder_idx` gives a product's
/// records in that order), so a page can be read off the indexes and stop at its end.
const CANDIDATES_WHERE: &str = " WHERE p.deleted_at IS NULL \
       AND ($1::uuid IS NULL OR i.location_id = $1) AND ($2::uuid IS NULL OR p.supplier_id = $2)";

const CANDIDATES_ORDER: &str = " ORDER BY lower(p.sku), i.location_id";

/// Only those with something to order: `suggested_quantity > 0` of `warehouse_domain::alerts`
/// (the target, `max_stock` or twice the reorder point, above what is available and incoming), in
/// `numeric` so no sum can overflow.
const NEEDS_ORDERING: &str = " AND coalesce(i.max_stock::numeric, 2 * i.reorder_point::numeric) \
       - (i.quantity_on_hand - i.quantity_reserved)::numeric - c.incoming::numeric > 0";

fn candidates_from() -> String {
    format!("{CANDIDATES}{INCOMING_AT} AS incoming) c{CANDIDATES_WHERE}")
}

/// Every candidate (for drafting purchase orders at a location).
fn candidates_sql() -> String {
    format!("{}{CANDIDATES_ORDER}", candidates_from())
}

/// One page of the candidates that need ordering: `$3` rows from `$4`.
fn suggestions_sql() -> String {
    format!("{}{NEEDS_ORDERING}{CANDIDATES_ORDER} LIMIT $3 OFFSET $4", candidates_from())
}

/// How many candidates need ordering, counted up to `$3` (`postgres_toolkit::counting`).
fn suggestions_count_sql() -> String {
    format!("SELECT count(*) AS n FROM ({}{NEEDS_ORDERING} LIMIT $3) AS bounded", candidates_from())
}

#[derive(QueryableByName)]
struct Counted {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct CandidateRow {
    #[diesel(sql_type = SqlUuid)]
    inventory_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    product_id: Uuid,
    #[diesel(sql_type = Text)]
    sku: String,
    #[diesel(sql_type = SqlUuid)]
    location_id: Uuid,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    supplier_id: Option<Uuid>,
    #[diesel(sql_type = BigInt)]
    quantity_available: i64,
    #[diesel(sql_type = BigInt)]
    quantity_incoming: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    reorder_point: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    max_stock: Option<i64>,
}

impl CandidateRow {
    fn into_candidate(self) -> ReorderCandidate {
        ReorderCandidate {
            inventory_id: self.inventory_id,
            product_id: self.product_id,
            sku: self.sku,
            location_id: self.location_id,
            supplier_id: self.supplier_id,
            quantity_available: self.quantity_available,
            quantity_incoming: self.quantity_incoming,
            reorder_point: self.reorder_point,
            max_stock: self.max_stock,
        }
    }
}

#[async_trait]
impl ReorderRepository for PgReorderRepository {
    #[tracing::instrument(level = "debug", skip_all)]
    async fn candidates(&self, filter: &SuggestionFilter) -> Result<Vec<ReorderCandidate>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows: Vec<CandidateRow> = diesel::sql_query(candidates_sql())
            .bind::<Nullable<SqlUuid>, _>(filter.location_id)
            .bind::<Nullable<SqlUuid>, _>(filter.supplier_id)
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().map(CandidateRow::into_candidate).collect())
    }

    #[tracing::instrument(level = "debug", skip_all)]
    async fn suggestions(
        &self,
        filter: &SuggestionFilter,
        page: PageRequest,
    ) -> Result<Page<ReorderCandidate>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        // The page and its bounded count, sent together (pipelined) on one connection.
        let (mut for_rows, mut for_count): (&AsyncPgConnection, &AsyncPgConnection) = (&conn, &conn);
        let rows = diesel::sql_query(suggestions_sql())
            .bind::<Nullable<SqlUuid>, _>(filter.location_id)
            .bind::<Nullable<SqlUuid>, _>(filter.supplier_id)
            .bind::<BigInt, _>(page.limit())
            .bind::<BigInt, _>(page.offset())
            .load::<CandidateRow>(&mut for_rows);
        let counted = diesel::sql_query(suggestions_count_sql())
            .bind::<Nullable<SqlUuid>, _>(filter.location_id)
            .bind::<Nullable<SqlUuid>, _>(filter.supplier_id)
            .bind::<BigInt, _>(counting::count_bound(page).saturating_add(1))
            .get_result::<Counted>(&mut for_count);
        let (rows, counted) = futures_util::future::try_join(rows, counted).await.map_err(from_diesel)?;
        let items = rows.into_iter().map(CandidateRow::into_candidate).collect();
        Ok(Page::new(items, counting::total(counted.n, page), page))
    }
}
