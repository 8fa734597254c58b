CREATE INDEX customers_name_trgm_idx ON customers USING gin (name gin_trgm_ops)
    WITH (gin_pending_list_limit = 64) WHERE deleted_at IS NULL;
CREATE INDEX customers_email_trgm_idx ON customers USING gin (email gin_trgm_ops)
    WITH (gin_pending_list_limit = 64) WHERE deleted_at IS NULL;
CREATE INDEX customers_phone_trgm_idx ON customers USING gin (phone gin_trgm_ops)
    WITH (gin_pending_list_limit = 64) WHERE deleted_at IS NULL AND phone IS NOT NULL;
DROP INDEX customers_search_idx;
ALTER TABLE customers DROP COLUMN search_text;
