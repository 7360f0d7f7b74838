-- Which bot process delivers a game's posts and reminders, until when (ISO-8601 UTC text).

CREATE TABLE claims (
    game_id    INTEGER NOT NULL PRIMARY KEY REFERENCES games (id),
    owner      TEXT    NOT NULL,
    expires_at TEXT    NOT NULL
);
