-- The log-only rollover (issue 35): a clock rollover appends a game's turn-end events to its log and updates the
-- few fields its clock reads (`clock`: JSON of the rule set's `clock_fields`, written beside the snapshot by every
-- other write), without rewriting the snapshot. `log_ahead` counts the newest logged actions the snapshot does not
-- hold yet: a load replays their events on it, and the next write of the snapshot (any command) sets it back to 0.
-- A row written before has no clock fields: its next rollover is the full one, which writes them.
ALTER TABLE games ADD COLUMN clock BLOB;
ALTER TABLE games ADD COLUMN log_ahead INTEGER NOT NULL DEFAULT 0;
