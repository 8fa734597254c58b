-- Security hardening: least privilege for self-registered accounts, and
-- token revocations that survive restarts without Redis.

-- `staff` carries what `user` carried until now (whatever an operator had
-- granted it); `user` keeps no permission. `staff` is not a system role:
-- operators may edit or delete it. An installation that already has a role
-- named `staff` keeps it and gets the grants added to it.
INSERT INTO roles (id, name, display_name, description, is_system)
SELECT '01900000-0000-7000-8000-000000000006', 'staff', 'Staff', 'Works with the business data', FALSE
WHERE NOT EXISTS (SELECT 1 FROM roles WHERE name = 'staff' AND deleted_at IS NULL);

INSERT INTO role_permissions (role_id, permission_id)
SELECT staff.id, rp.permission_id
FROM roles staff, roles u JOIN role_permissions rp ON rp.role_id = u.id
WHERE staff.name = 'staff' AND staff.deleted_at IS NULL AND u.name = 'user' AND u.is_system
ON CONFLICT DO NOTHING;

-- Nobody loses access: every holder of `user` also gets `staff`.
INSERT INTO user_roles (user_id, role_id)
SELECT ur.user_id, staff.id
FROM user_roles ur JOIN roles u ON u.id = ur.role_id, roles staff
WHERE u.name = 'user' AND u.is_system AND staff.name = 'staff' AND staff.deleted_at IS NULL
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
