DELETE FROM role_permissions WHERE permission_id IN (SELECT id FROM permissions WHERE resource = 'webhooks');
DELETE FROM permissions WHERE resource = 'webhooks';
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
