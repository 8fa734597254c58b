-- `GET /reorder-suggestions` is paginated by SKU (case-insensitively), then location
-- (docs/purchasing-and-transfers.md): `products_sku_key` gives the live products in that order and
-- this index each one's records with a reorder point in location order, so a page is read off the
-- two indexes. Its columns and predicate are never changed by a quantity write (those stay HOT).
CREATE INDEX inventory_reorder_idx ON inventory (product_id, location_id)
    WHERE deleted_at IS NULL AND reorder_point > 0;
