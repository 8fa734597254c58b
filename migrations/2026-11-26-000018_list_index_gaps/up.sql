-- Lists whose filter or sort no index served (docs/adr/0017-indexes-for-lists-and-lean-writes.md).

-- `GET /products?sort=-price` orders by `price DESC NULLS LAST, id DESC`; the (price, id) index read
-- backwards gives NULLS FIRST, so every such page sorted all live products.
CREATE INDEX products_price_desc_idx ON products (price DESC NULLS LAST, id DESC) WHERE deleted_at IS NULL;

-- The user list filtered by status or by verification sorts newest first with `id` as the last key.
DROP INDEX users_status_idx;
CREATE INDEX users_status_idx ON users (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
DROP INDEX users_verified_idx;
CREATE INDEX users_verified_idx ON users (is_email_verified, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Follow-ups of one creator, soonest due first.
CREATE INDEX interactions_follow_up_creator_idx ON interactions (created_by, follow_up_date ASC NULLS LAST, id)
    WHERE follow_up_required AND deleted_at IS NULL;
