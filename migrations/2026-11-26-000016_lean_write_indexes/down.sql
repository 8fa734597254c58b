CREATE INDEX customer_status_history_window_idx ON customer_status_history (changed_at, to_status);
DROP INDEX customers_tags_idx;
CREATE INDEX customers_tags_idx ON customers USING gin (tags) WHERE deleted_at IS NULL;
DROP INDEX customers_phone_trgm_idx;
CREATE INDEX customers_phone_trgm_idx ON customers USING gin (phone gin_trgm_ops) WHERE deleted_at IS NULL;
DROP INDEX customers_assigned_idx;
CREATE INDEX customers_assigned_idx ON customers (assigned_to, created_at DESC, id DESC) WHERE deleted_at IS NULL;
