-- A game with no move for a long while (`troika run --archive-after 60d`) is archived:
-- it leaves `games` and reminders but stays readable; `unarchive` clears the time.

ALTER TABLE games ADD COLUMN archived_at TEXT;
