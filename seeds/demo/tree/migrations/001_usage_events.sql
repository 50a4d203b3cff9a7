-- ADR-0001: usage events live in Postgres.
CREATE TABLE usage_events (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL,
    meter TEXT NOT NULL,
    quantity BIGINT NOT NULL,
    at TIMESTAMP NOT NULL
);

CREATE INDEX usage_events_account_at ON usage_events (account_id, at);
