-- Timestamps are stored in UTC. Rows written before this migration hold Europe/Berlin wall-clock time.
ALTER TABLE usage_events
    ALTER COLUMN at TYPE TIMESTAMPTZ USING at AT TIME ZONE 'Europe/Berlin';
