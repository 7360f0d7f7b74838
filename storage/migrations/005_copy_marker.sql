-- While `troika migrate` (or a PostgreSQL backup) copies games into this database, one
-- row says since when; it is removed once the copy is proved, and Troika refuses to run
-- on a database that still holds it (a copy killed half-way looks complete otherwise).

CREATE TABLE copy_marker (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    started_at TEXT    NOT NULL
);
