DROP INDEX interactions_follow_up_creator_idx;
DROP INDEX users_verified_idx;
CREATE INDEX users_verified_idx ON users (is_email_verified, created_at DESC) WHERE deleted_at IS NULL;
DROP INDEX users_status_idx;
CREATE INDEX users_status_idx ON users (status, created_at DESC) WHERE deleted_at IS NULL;
DROP INDEX products_price_desc_idx;
