-- Customer lists at scale (#12, docs/performance.md "Customer lists at 10^6").
-- The btree indexes a list walks in created_at order carry `tags`, so a tags filter joined to them
-- (tags with status, tier, a rep, or alone) is counted and paged from the index alone instead of
-- visiting a heap row per candidate.
DROP INDEX customers_list_idx;
CREATE INDEX customers_list_idx ON customers (created_at DESC, id DESC) INCLUDE (tags) WHERE deleted_at IS NULL;
DROP INDEX customers_status_idx;
CREATE INDEX customers_status_idx ON customers (status_rank, created_at DESC, id DESC) INCLUDE (tags)
    WHERE deleted_at IS NULL;
DROP INDEX customers_tier_idx;
CREATE INDEX customers_tier_idx ON customers (tier_rank, created_at DESC, id DESC) INCLUDE (tags)
    WHERE deleted_at IS NULL;
DROP INDEX customers_assigned_idx;
CREATE INDEX customers_assigned_idx ON customers (assigned_to, created_at DESC, id DESC) INCLUDE (tags)
    WHERE deleted_at IS NULL;
