-- While `troika migrate` copies games into this database, one row says since when; it is
-- removed once the copy is proved, and Troika refuses to run on a database that still
-- holds it (as SQLite's 005_copy_marker.sql).

CREATE TABLE copy_marker (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    started_at TIMESTAMPTZ NOT NULL
);
