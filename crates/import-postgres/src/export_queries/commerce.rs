//! The order and warehouse resources' statements: products, inventory, stock movements, orders.

use time::Date;
use uuid::Uuid;

use super::{columns, day_range, lower_pattern, order_by, Bind, ExportQuery, Fields, Records, SortKey};

/// The product list's filters (`GET /warehouse/products`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct ProductExport {
    pub status: Option<String>,
    pub category: Option<String>,
    pub brand: Option<String>,
    pub search: Option<String>,
    /// The list's keys, its tie-break on `id` among them.
    pub sort: Vec<SortKey>,
}

pub(super) const PRODUCT_FIELDS: Fields = &[
    ("id", "p.id"),
    ("sku", "p.sku"),
    ("name", "p.name"),
    ("description", "p.description"),
    ("category", "p.category"),
    ("brand", "p.brand"),
    ("weight_grams", "p.weight_grams"),
    ("length_mm", "p.length_mm"),
    ("width_mm", "p.width_mm"),
    ("height_mm", "p.height_mm"),
    ("price", "p.price"),
    ("currency", "p.currency"),
    ("status", "p.status"),
    ("created_at", "p.created_at"),
    ("updated_at", "p.updated_at"),
];

/// Products as `warehouse_postgres::products`' `list` selects them (the `lower(…)` indexes).
pub fn products(f: &ProductExport) -> ExportQuery {
    let exact =
        |v: &Option<String>| Bind::Text(v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
    ExportQuery {
        sql: format!(
            "SELECT {} FROM products p \
             WHERE p.deleted_at IS NULL AND ($1::text IS NULL OR p.status = $1) \
               AND ($2::text IS NULL OR lower(p.category) = lower($2)) \
               AND ($3::text IS NULL OR lower(p.brand) = lower($3)) \
               AND ($4::text IS NULL OR lower(p.sku) LIKE $4 OR lower(p.name) LIKE $4) \
             ORDER BY {}",
            columns(PRODUCT_FIELDS),
            order_by("p", &f.sort)
        ),
        binds: vec![Bind::Text(f.status.clone()), exact(&f.category), exact(&f.brand), lower_pattern(&f.search)],
        records: Records::Fields,
    }
}

pub(super) const INVENTORY_FIELDS: Fields = &[
    ("id", "v.id"),
    ("product_id", "v.product_id"),
    ("location_id", "v.location_id"),
    ("quantity_on_hand", "v.quantity_on_hand"),
    ("quantity_reserved", "v.quantity_reserved"),
    ("quantity_available", "v.quantity_on_hand - v.quantity_reserved"),
    ("quantity_committed", "v.quantity_committed"),
    ("reorder_point", "v.reorder_point"),
    ("min_stock", "v.min_stock"),
    ("max_stock", "v.max_stock"),
    ("created_at", "v.created_at"),
    ("updated_at", "v.updated_at"),
];

/// The inventory list's filters (`GET /warehouse/inventory`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct InventoryExport {
    pub product_id: Option<Uuid>,
    pub location_id: Option<Uuid>,
    /// Only records whose available stock is at or below their reorder point.
    pub low_stock: bool,
}

/// Inventory records as `warehouse_postgres::inventory`' `list` selects them, newest first
/// (`inventory_product_idx`, `inventory_location_idx`, `inventory_low_stock_idx`, `inventory_list_idx`).
pub fn inventory(f: &InventoryExport) -> ExportQuery {
    // Written out rather than bound, so every plan sees the low-stock index's predicate
    // (`reorder_point IS NOT NULL`); the quantities are checked on its rows, as the list does.
    let low_stock = if f.low_stock {
        " AND v.reorder_point IS NOT NULL AND v.quantity_on_hand - v.quantity_reserved <= v.reorder_point"
    } else {
        ""
    };
    ExportQuery {
        sql: format!(
            "SELECT {} FROM inventory v \
             WHERE v.deleted_at IS NULL AND ($1::uuid IS NULL OR v.product_id = $1) \
               AND ($2::uuid IS NULL OR v.location_id = $2){low_stock} \
             ORDER BY {}",
            columns(INVENTORY_FIELDS),
            order_by("v", &[])
        ),
        binds: vec![Bind::Uuid(f.product_id), Bind::Uuid(f.location_id)],
        records: Records::Fields,
    }
}

pub(super) const MOVEMENT_FIELDS: Fields = &[
    ("id", "m.id"),
    ("inventory_id", "m.inventory_id"),
    ("product_id", "m.product_id"),
    ("location_id", "m.location_id"),
    ("type", "m.type"),
    ("quantity", "m.quantity"),
    ("quantity_before", "m.quantity_before"),
    ("quantity_after", "m.quantity_after"),
    ("reserved_before", "m.reserved_before"),
    ("reserved_after", "m.reserved_after"),
    ("unit_cost", "m.unit_cost"),
    ("total_cost", "m.total_cost"),
    ("currency", "m.currency"),
    ("reference_type", "m.reference_type"),
    ("reference_id", "m.reference_id"),
    ("reason", "m.reason"),
    ("created_by", "m.created_by"),
    ("created_at", "m.created_at"),
];

/// The stock movement list's filters (`GET /warehouse/stock-movements`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct MovementExport {
    /// A movement type's stored name.
    pub movement_type: Option<String>,
    pub inventory_id: Option<Uuid>,
    pub product_id: Option<Uuid>,
    pub location_id: Option<Uuid>,
    pub reference_id: Option<Uuid>,
    /// Created on or after this day (UTC).
    pub date_from: Option<Date>,
    /// Created on or before this day (UTC).
    pub date_to: Option<Date>,
}

/// Stock movements as `warehouse_postgres::movements`' `list` selects them, newest first (the
/// `stock_movements_*_idx` of each filter, `stock_movements_list_idx`).
pub fn stock_movements(f: &MovementExport) -> ExportQuery {
    let [from, before] = day_range(f.date_from, f.date_to);
    ExportQuery {
        sql: format!(
            "SELECT {} FROM stock_movements m \
             WHERE ($1::text IS NULL OR m.type = $1) AND ($2::uuid IS NULL OR m.inventory_id = $2) \
               AND ($3::uuid IS NULL OR m.product_id = $3) AND ($4::uuid IS NULL OR m.location_id = $4) \
               AND ($5::uuid IS NULL OR m.reference_id = $5) \
               AND ($6::timestamptz IS NULL OR m.created_at >= $6) AND ($7::timestamptz IS NULL OR m.created_at < $7) \
             ORDER BY {}",
            columns(MOVEMENT_FIELDS),
            order_by("m", &[])
        ),
        binds: vec![
            Bind::Text(f.movement_type.clone()),
            Bind::Uuid(f.inventory_id),
            Bind::Uuid(f.product_id),
            Bind::Uuid(f.location_id),
            Bind::Uuid(f.reference_id),
            from,
            before,
        ],
        records: Records::Fields,
    }
}

/// The order list's filters (`GET /order-mgmt/orders`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct OrderExport {
    /// A status's stored name.
    pub status: Option<String>,
    pub customer_id: Option<Uuid>,
    /// Created on or after this day (UTC).
    pub date_from: Option<Date>,
    /// Created on or before this day (UTC).
    pub date_to: Option<Date>,
}

/// Orders with their lines as `order_postgres`' `list` selects them, newest first
/// (`orders_status_idx`, `orders_customer_idx`, `orders_list_idx`).
pub fn orders(f: &OrderExport) -> ExportQuery {
    let [from, before] = day_range(f.date_from, f.date_to);
    ExportQuery {
        sql: "SELECT json_build_object('id', o.id, 'order_number', o.order_number, 'customer_id', o.customer_id, \
                'company_id', o.company_id, 'status', o.status, 'currency', o.currency, 'subtotal', o.subtotal, \
                'tax', o.tax, 'discount', o.discount, 'total', o.total, 'notes', o.notes, \
                'reservation_status', o.reservation_status, 'reservation_error', o.reservation_error, \
                'confirmed_at', tally_rfc3339(o.confirmed_at), 'fulfilled_at', tally_rfc3339(o.fulfilled_at), \
                'cancelled_at', tally_rfc3339(o.cancelled_at), 'created_at', tally_rfc3339(o.created_at), \
                'updated_at', tally_rfc3339(o.updated_at), \
                'lines', coalesce((SELECT json_agg(json_build_object('id', l.id, 'order_id', l.order_id, \
                    'product_id', l.product_id, 'sku', l.sku, 'description', l.description, \
                    'quantity', l.quantity, 'unit_price', l.unit_price, 'subtotal', l.subtotal, \
                    'created_at', tally_rfc3339(l.created_at), 'updated_at', tally_rfc3339(l.updated_at)) \
                    ORDER BY l.created_at, l.id) FROM order_lines l WHERE l.order_id = o.id), '[]'::json))::text AS j \
              FROM orders o \
              WHERE o.deleted_at IS NULL AND ($1::text IS NULL OR o.status = $1) \
                AND ($2::uuid IS NULL OR o.customer_id = $2) \
                AND ($3::timestamptz IS NULL OR o.created_at >= $3) AND ($4::timestamptz IS NULL OR o.created_at < $4) \
              ORDER BY o.created_at DESC, o.id DESC"
            .to_owned(),
        binds: vec![Bind::Text(f.status.clone()), Bind::Uuid(f.customer_id), from, before],
        records: Records::Json,
    }
}
