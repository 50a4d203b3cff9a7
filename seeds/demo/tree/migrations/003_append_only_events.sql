-- ADR-0003: usage_events is an append-only log. A correction is a new row that points at the row it corrects.
ALTER TABLE usage_events ADD COLUMN corrects_id BIGINT REFERENCES usage_events (id);

REVOKE UPDATE, DELETE ON usage_events FROM tollgate_app;
