ALTER TABLE outbox_events ADD COLUMN completed_at TIMESTAMPTZ;
-- Every published event not in flight was finished; when is not known any more: its publication.
UPDATE outbox_events SET completed_at = published_at
WHERE published_at IS NOT NULL AND id NOT IN (SELECT event_id FROM outbox_in_flight);
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_check
    CHECK (completed_at IS NULL OR published_at IS NOT NULL);
CREATE INDEX outbox_incomplete_idx ON outbox_events (id) WHERE published_at IS NOT NULL AND completed_at IS NULL;
DROP TABLE outbox_in_flight;
