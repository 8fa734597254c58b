DROP INDEX IF EXISTS inventory_reorder_idx;
