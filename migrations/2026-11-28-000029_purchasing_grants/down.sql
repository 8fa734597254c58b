DELETE FROM permissions WHERE resource IN ('suppliers', 'purchase_orders', 'transfers');
