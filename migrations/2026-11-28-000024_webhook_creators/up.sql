-- Webhooks deliver only what their creator may read (docs/webhooks.md).
--
-- An endpoint made through an API key records the key beside its owner (`created_by`): the key's
-- permissions and its owner's both bound what the endpoint hears. Endpoints saved before this build
-- keep the user recorded as their creator (every one has it: the API has always written it); those
-- made through a key are from now on bound by their owner's permissions, which cover the key's. A key
-- is revoked, never deleted, so the reference holds for as long as the endpoint does.
ALTER TABLE webhook_endpoints
    ADD COLUMN created_by_key UUID REFERENCES api_keys (id),
    ADD CONSTRAINT webhook_endpoints_key_has_owner_check CHECK (created_by_key IS NULL OR created_by IS NOT NULL);
CREATE INDEX webhook_endpoints_created_by_key_idx ON webhook_endpoints (created_by_key);

-- The permission resource whose `read` a delivery's payload needs (`customers`, `orders`, ..., `*` for
-- an event of no listed family); NULL for a test ping, which every endpoint gets. Decided when the
-- delivery is made (infrastructure::webhooks::access), checked again before each attempt and when
-- a caller reads the payload.
ALTER TABLE webhook_deliveries ADD COLUMN read_resource VARCHAR(50);
-- Deliveries made before this build, by the same rule as `access::read_resource`.
UPDATE webhook_deliveries SET read_resource = CASE
        WHEN event_type = 'webhook.test' THEN NULL
        WHEN event_type LIKE 'customer.deal.%' THEN 'deals'
        WHEN event_type LIKE 'customer.%' THEN 'customers'
        WHEN event_type LIKE 'interaction.%' THEN 'interactions'
        WHEN event_type LIKE 'order.%' THEN 'orders'
        WHEN event_type LIKE 'warehouse.%' OR event_type LIKE 'purchase\_order.%' OR event_type LIKE 'transfer.%'
            THEN 'inventory'
        WHEN event_type LIKE 'identity.%' THEN 'users'
        WHEN event_type LIKE 'import.%' THEN 'imports'
        ELSE '*'
    END;
