DROP INDEX customers_assigned_idx;
CREATE INDEX customers_assigned_idx ON customers (assigned_to, created_at DESC, id DESC) WHERE deleted_at IS NULL;
DROP INDEX customers_tier_idx;
CREATE INDEX customers_tier_idx ON customers (tier_rank, created_at DESC, id DESC) WHERE deleted_at IS NULL;
DROP INDEX customers_status_idx;
CREATE INDEX customers_status_idx ON customers (status_rank, created_at DESC, id DESC) WHERE deleted_at IS NULL;
DROP INDEX customers_list_idx;
CREATE INDEX customers_list_idx ON customers (created_at DESC, id DESC) WHERE deleted_at IS NULL;
