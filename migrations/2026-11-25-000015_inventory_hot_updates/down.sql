ALTER TABLE inventory RESET (fillfactor);
DROP INDEX inventory_low_stock_idx;
CREATE INDEX inventory_low_stock_idx ON inventory (created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND reorder_point IS NOT NULL AND quantity_on_hand - quantity_reserved <= reorder_point;
