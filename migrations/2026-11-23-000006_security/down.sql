DROP TABLE revoked_token_families;
DROP TABLE revoked_tokens;

UPDATE roles SET description = 'Works with the business data' WHERE name = 'user' AND is_system;

INSERT INTO role_permissions (role_id, permission_id)
SELECT r.id, rp.permission_id
FROM roles r, role_permissions rp
WHERE r.name = 'user' AND r.is_system
  AND rp.role_id = (SELECT id FROM roles WHERE name = 'staff' AND deleted_at IS NULL)
ON CONFLICT DO NOTHING;

DELETE FROM roles WHERE id = '01900000-0000-7000-8000-000000000006';
