-- Each event may name the incoming request (a Discord message or interaction) that
-- caused it, so a request delivered twice is carried out once.

ALTER TABLE events ADD COLUMN request_key TEXT;

CREATE UNIQUE INDEX events_request_key ON events (request_key) WHERE request_key IS NOT NULL;
