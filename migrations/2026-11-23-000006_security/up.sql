-- Security hardening: least privilege for self-registered accounts, and
-- token revocations that survive restarts without Redis.

-- `staff` carries what `user` used to carry; `user` keeps no business permission.
-- Not a system role: operators may edit or delete it.
INSERT INTO roles (id, name, display_name, description, is_system)
VALUES ('01900000-0000-7000-8000-000000000006', 'staff', 'Staff', 'Works with the business data', FALSE)
ON CONFLICT DO NOTHING;

INSERT INTO role_permissions (role_id, permission_id)
SELECT '01900000-0000-7000-8000-000000000006', p.id FROM permissions p
WHERE (p.resource IN ('customers', 'companies', 'deals', 'interactions', 'orders') AND p.action IN ('create', 'read', 'update'))
   OR (p.resource IN ('products', 'inventory', 'stock_movements', 'locations') AND p.action = 'read')
   OR p.name IN ('analytics:read', 'interactions:delete')
ON CONFLICT DO NOTHING;

-- Nobody loses access: every holder of `user` also gets `staff`.
INSERT INTO user_roles (user_id, role_id)
SELECT ur.user_id, '01900000-0000-7000-8000-000000000006'
FROM user_roles ur JOIN roles r ON r.id = ur.role_id
WHERE r.name = 'user' AND r.deleted_at IS NULL
ON CONFLICT DO NOTHING;

DELETE FROM role_permissions rp USING roles r
WHERE rp.role_id = r.id AND r.name = 'user' AND r.is_system;

UPDATE roles SET description = 'Manages only its own identity (self-registered accounts)'
WHERE name = 'user' AND is_system;

-- Revoked access and refresh tokens (by jti) and rotated refresh tokens, kept
-- until the token would have expired anyway, then swept.
CREATE TABLE revoked_tokens (
    jti        UUID        PRIMARY KEY,
    reason     VARCHAR(16) NOT NULL CHECK (reason IN ('revoked', 'rotated')),
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX revoked_tokens_expiry_idx ON revoked_tokens (expires_at);

-- Refresh-token families (one per login) ended by the reuse of a rotated token.
CREATE TABLE revoked_token_families (
    family_id  UUID        PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX revoked_token_families_expiry_idx ON revoked_token_families (expires_at);
