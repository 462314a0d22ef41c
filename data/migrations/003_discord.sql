-- The Discord front-end's bookkeeping per game: the pinned status message and the last turn reminded.

ALTER TABLE games ADD COLUMN status_message_id INTEGER;
ALTER TABLE games ADD COLUMN reminded_turn INTEGER NOT NULL DEFAULT 0;
