-- /remind me quiet: (issue 34): a player's quiet hours, one setting for all their games. Their reminders by DM that
-- fall due in this span of their own day wait until it ends; deadlines do not move. Minutes of the player's day
-- (0 to 1439) on their wall clock in `zone` (a tz database name such as Europe/Paris, 'UTC', or an offset '+02:00');
-- `ends` before `starts`: the span crosses midnight. No row: no quiet hours.
CREATE TABLE quiet_hours (
    player        TEXT    PRIMARY KEY,          -- the player's Discord user id
    starts_minute INTEGER NOT NULL CHECK (starts_minute BETWEEN 0 AND 1439),
    ends_minute   INTEGER NOT NULL CHECK (ends_minute BETWEEN 0 AND 1439 AND ends_minute <> starts_minute),
    zone          TEXT    NOT NULL
);
