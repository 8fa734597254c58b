DROP INDEX IF EXISTS transfers_in_transit_to_idx;
DROP INDEX IF EXISTS purchase_orders_open_at_idx;
