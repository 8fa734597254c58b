ALTER TABLE webhook_deliveries DROP COLUMN read_resource;
DROP INDEX webhook_endpoints_created_by_key_idx;
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_key_has_owner_check,
    DROP COLUMN created_by_key;
