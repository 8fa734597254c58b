//! Webhooks deliver only what their creator may read (docs/webhooks.md). Each event family needs
//! `read` on one permission resource; an endpoint hears an event only while its creator holds it
//! now: a user through their roles, an API key through its own permissions and its owner's
//! (docs/identity.md). The rule is evaluated in SQL, for every endpoint at once, where events become
//! deliveries (`queue::DeliveryQueue::fan_out`) and again before each attempt (`claim`).

/// The permission resource whose `read` an event's payload needs; `None` for a test ping, which
/// every endpoint gets. An event of no listed family needs `read` on everything (`*`), so a new
/// family is never delivered more widely than its data allows.
pub fn read_resource(event: &str) -> Option<&'static str> {
    const FAMILIES: [(&str, &str); 9] = [
        // Deals are customer events by name, and a resource of their own.
        ("customer.deal.", "deals"),
        ("customer.", "customers"),
        ("interaction.", "interactions"),
        ("order.", "orders"),
        ("warehouse.", "inventory"),
        // Purchase orders carry suppliers and unit costs, transfers their own documents: each needs
        // its own resource's `read`, not the inventory's.
        ("purchase_order.", "purchase_orders"),
        ("transfer.", "transfers"),
        ("identity.", "users"),
        // A job is read by its owner and by administrators only (staff and managers hold
        // `imports:read` for their own jobs), so its events go only where everything may be read.
        ("import.", "*"),
    ];
    if event == TEST_EVENT {
        return None;
    }
    Some(FAMILIES.iter().find(|(prefix, _)| event.starts_with(prefix)).map_or("*", |(_, resource)| resource))
}

/// The ping `POST /webhooks/{id}/test` sends.
pub const TEST_EVENT: &str = "webhook.test";

/// `readers`: each enabled endpoint with what its creator may do now: `owner_grants`, the
/// permission names of the user's roles (none when the user, or the key they made it with, may not
/// be used: suspended, banned, deleted, a revoked or expired key), and `key_grants`, the key's own
/// permissions (NULL for an endpoint a user made directly). Materialized: once per statement, not
/// once per event. The same join as the caller's access profile (identity::users).
pub(super) const READERS: &str = "readers AS MATERIALIZED (\
     SELECT e.id, coalesce(g.names, '{}') AS owner_grants, k.permissions AS key_grants \
     FROM webhook_endpoints e \
     LEFT JOIN api_keys k ON k.id = e.created_by_key \
     LEFT JOIN LATERAL (SELECT array_agg(p.name::text) AS names FROM users u \
         JOIN user_roles ur ON ur.user_id = u.id \
         JOIN roles r ON r.id = ur.role_id AND r.deleted_at IS NULL \
         JOIN role_permissions rp ON rp.role_id = r.id \
         JOIN permissions p ON p.id = rp.permission_id \
         WHERE u.id = coalesce(k.user_id, e.created_by) AND u.status = 'active' AND u.deleted_at IS NULL \
           AND (e.created_by_key IS NULL \
                OR (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())))) g ON true \
     WHERE e.enabled)";

/// Whether the `readers` row `r` may read `resource` (an SQL expression): `resource:read`,
/// `resource:*`, `*:read` or `*:*` granted to the owner and, for a key, to the key as well
/// (`identity_domain::PermissionSet::allows`). A NULL resource (a test ping) is always readable.
pub(super) fn may_read(resource: &str) -> String {
    let wanted = format!("ARRAY['*:*', '*:read', {resource} || ':read', {resource} || ':*']");
    format!(
        "({resource} IS NULL OR (r.owner_grants && {wanted} AND (r.key_grants IS NULL OR r.key_grants && {wanted})))"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_needs_its_resource() {
        for (event, resource) in [
            ("customer.created", Some("customers")),
            ("customer.deal.won", Some("deals")),
            ("interaction.logged", Some("interactions")),
            ("order.confirmed", Some("orders")),
            ("warehouse.stock_reserved", Some("inventory")),
            ("purchase_order.received", Some("purchase_orders")),
            ("transfer.shipped", Some("transfers")),
            ("identity.user.registered", Some("users")),
            ("import.finished", Some("*")),
            ("webhook.test", None),
            ("company.created", Some("*")),
            ("orders.confirmed", Some("*")),
            ("customerx.created", Some("*")),
        ] {
            assert_eq!(read_resource(event), resource, "{event}");
        }
    }
}
