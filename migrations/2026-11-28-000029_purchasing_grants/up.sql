-- Permissions of purchasing and transfers (docs/purchasing-and-transfers.md): suppliers, purchase
-- orders and transfers. Managers may do everything with them; staff and guests read them. Seeded
-- idempotently, so an operator's later changes to these grants are kept on re-runs.
INSERT INTO permissions (id, resource, action, description)
VALUES ('01900000-0000-7000-9003-000000000001', 'suppliers', 'create', 'Create suppliers'),
       ('01900000-0000-7000-9003-000000000002', 'suppliers', 'read', 'Read suppliers'),
       ('01900000-0000-7000-9003-000000000003', 'suppliers', 'update', 'Update suppliers'),
       ('01900000-0000-7000-9003-000000000004', 'suppliers', 'delete', 'Delete suppliers'),
       ('01900000-0000-7000-9003-000000000005', 'suppliers', '*', 'Every action on suppliers'),
       ('01900000-0000-7000-9003-000000000011', 'purchase_orders', 'create', 'Create purchase orders'),
       ('01900000-0000-7000-9003-000000000012', 'purchase_orders', 'read', 'Read purchase orders'),
       ('01900000-0000-7000-9003-000000000013', 'purchase_orders', 'update', 'Update purchase orders'),
       ('01900000-0000-7000-9003-000000000014', 'purchase_orders', 'delete', 'Delete purchase orders'),
       ('01900000-0000-7000-9003-000000000015', 'purchase_orders', '*', 'Every action on purchase orders'),
       ('01900000-0000-7000-9003-000000000021', 'transfers', 'create', 'Create transfers'),
       ('01900000-0000-7000-9003-000000000022', 'transfers', 'read', 'Read transfers'),
       ('01900000-0000-7000-9003-000000000023', 'transfers', 'update', 'Update transfers'),
       ('01900000-0000-7000-9003-000000000024', 'transfers', 'delete', 'Delete transfers'),
       ('01900000-0000-7000-9003-000000000025', 'transfers', '*', 'Every action on transfers')
ON CONFLICT (resource, action) DO NOTHING;

INSERT INTO role_permissions (role_id, permission_id)
SELECT r.id, p.id FROM roles r JOIN permissions p ON p.resource IN ('suppliers', 'purchase_orders', 'transfers')
WHERE r.deleted_at IS NULL
  AND ((r.name = 'manager' AND p.action = '*')
    OR (r.name IN ('staff', 'guest') AND p.action = 'read'))
ON CONFLICT DO NOTHING;
