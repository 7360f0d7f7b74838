-- A post whose text went out while its pictures were still being drawn keeps, until
-- they are attached, where its text went (the frontend's reference to the message), so
-- a bot that dies in between attaches them after it starts again.

ALTER TABLE outbox ADD COLUMN pictures_for TEXT;
