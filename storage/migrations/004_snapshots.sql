-- A game's latest snapshot per engine version: the engine's saved state after event
-- ``seq``, whose hash is the one that event records, so a cold load replays only the
-- events after it. A snapshot is a cache: deleting one costs a full replay, nothing else.

CREATE TABLE snapshots (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    engine_version INTEGER NOT NULL,
    seq            INTEGER NOT NULL CHECK (seq >= 1),
    state_hash     TEXT    NOT NULL,
    data           BLOB    NOT NULL,
    created_at     TEXT    NOT NULL,
    PRIMARY KEY (game_id, engine_version)
);
