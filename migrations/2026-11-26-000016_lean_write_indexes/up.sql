-- Fewer index entries per write, nothing a query uses given up (docs/adr/0017-indexes-for-lists-and-lean-writes.md).

-- Customers: a customer without a sales rep, a phone or tags no longer writes an entry for the missing
-- value. The filters and the search only ever look a present value up (`assigned_to = $1` and
-- `phone LIKE $1` imply NOT NULL; the tag filter says `cardinality(tags) > 0` itself).
DROP INDEX customers_assigned_idx;
CREATE INDEX customers_assigned_idx ON customers (assigned_to, created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND assigned_to IS NOT NULL;
DROP INDEX customers_phone_trgm_idx;
CREATE INDEX customers_phone_trgm_idx ON customers USING gin (phone gin_trgm_ops)
    WHERE deleted_at IS NULL AND phone IS NOT NULL;
DROP INDEX customers_tags_idx;
CREATE INDEX customers_tags_idx ON customers USING gin (tags) WHERE deleted_at IS NULL AND cardinality(tags) > 0;

-- The status history's (changed_at, to_status) index: the analytics index on changed_at, which
-- includes to_status, serves every query that reads a window of the history.
DROP INDEX customer_status_history_window_idx;
