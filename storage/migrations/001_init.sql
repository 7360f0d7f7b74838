-- Troika's first schema: games, seats, the append-only event log, the outbox.
-- Times are ISO-8601 UTC text; JSON columns hold compact JSON text.

CREATE TABLE games (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    title          TEXT    NOT NULL,
    options        TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    guild_id       TEXT,
    channel_id     TEXT,
    created_by     TEXT    NOT NULL,
    status         TEXT    NOT NULL
                   CHECK (status IN ('setting-up', 'running', 'finished', 'abandoned')),
    engine_version INTEGER NOT NULL,
    created_at     TEXT    NOT NULL
);

-- One game being set up or running per channel.
CREATE UNIQUE INDEX games_active_channel ON games (channel_id)
    WHERE channel_id IS NOT NULL AND status IN ('setting-up', 'running');

CREATE INDEX games_status ON games (status);

CREATE TABLE seats (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    player_id       TEXT    NOT NULL,
    discord_user_id TEXT,
    display_name    TEXT    NOT NULL,
    commissioner    INTEGER NOT NULL DEFAULT 0 CHECK (commissioner IN (0, 1)),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);

CREATE TABLE events (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'seat', 'admin')),
    action     TEXT    NOT NULL,
    actor      TEXT,
    created_at TEXT    NOT NULL,
    note       TEXT,
    state_hash TEXT,
    UNIQUE (game_id, seq)
);

-- The log is append-only: undo and redo are events too.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id    INTEGER NOT NULL REFERENCES games (id),
    payload    TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    sent_at    TEXT
);

CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
