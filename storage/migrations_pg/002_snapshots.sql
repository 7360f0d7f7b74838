-- A game's latest snapshot per engine version, as in SQLite's 004_snapshots.sql: the
-- engine's saved state after event ``seq``, whose hash is the one that event records.
-- A snapshot is a cache: deleting one costs a full replay, nothing else.

CREATE TABLE snapshots (
    game_id        BIGINT  NOT NULL REFERENCES games (id),
    engine_version INTEGER NOT NULL,
    seq            INTEGER NOT NULL CHECK (seq >= 1),
    state_hash     TEXT    NOT NULL,
    data           BYTEA   NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, engine_version)
);
