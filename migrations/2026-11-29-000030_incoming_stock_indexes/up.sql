-- Incoming stock (docs/purchasing-and-transfers.md, "Incoming stock") is what open purchase orders
-- still expect at a location and what transfers in transit bring there. Read for every inventory
-- record shown, it must not walk a product's whole purchasing history: these partial indexes hold
-- only the open documents, so the read can start from the few that are open at the location.
CREATE INDEX purchase_orders_open_at_idx ON purchase_orders (location_id)
    WHERE status IN ('ordered', 'partially_received');
CREATE INDEX transfers_in_transit_to_idx ON transfers (to_location_id) WHERE status = 'in_transit';
