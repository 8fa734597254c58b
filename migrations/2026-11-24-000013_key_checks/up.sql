-- Shapes the code always writes, now held by the database too.
-- An idempotency key belongs to `public`, a user or an API key.
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_scope_shape_check
    CHECK (scope = 'public' OR scope ~ '^(user|key):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$');
-- What lists show of a key: `tly_` and 8 characters of the secret.
ALTER TABLE api_keys ADD CONSTRAINT api_keys_prefix_shape_check CHECK (prefix ~ '^tly_[0-9a-f]{8}$');
-- A key is revoked after it was made.
ALTER TABLE api_keys ADD CONSTRAINT api_keys_revoked_after_created_check
    CHECK (revoked_at IS NULL OR revoked_at >= created_at);
