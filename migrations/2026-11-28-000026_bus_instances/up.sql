-- With the in-process bus, each instance holds the events it has in flight in its memory. So that an
-- instance killed for good does not leave them waiting until some instance restarts, every instance
-- says it is alive here (`seen_at`, renewed every 10 s), and each event in flight names the instance
-- holding it: the session setting `tally.instance`, which every Tally connection sets. A live instance
-- hands the events of one unseen for 30 s to the relay again (docs/events.md).
CREATE TABLE bus_instances (
    id UUID PRIMARY KEY,
    seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- No foreign key: an instance's row goes when it is found dead, and its events in flight are taken
-- over in the same statement. NULL: a connection without the setting (an operator's, a tool's).
ALTER TABLE outbox_in_flight
    ADD COLUMN instance_id UUID DEFAULT NULLIF(current_setting('tally.instance', true), '')::uuid;
CREATE INDEX outbox_in_flight_instance_idx ON outbox_in_flight (instance_id);
