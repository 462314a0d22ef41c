-- PostgreSQL's words for migration 021 (quiet hours, /remind me quiet:): the same table; it has no rowid to leave out.
CREATE TABLE quiet_hours (
    player        TEXT    PRIMARY KEY,
    starts_minute INTEGER NOT NULL CHECK (starts_minute BETWEEN 0 AND 1439),
    ends_minute   INTEGER NOT NULL CHECK (ends_minute BETWEEN 0 AND 1439 AND ends_minute <> starts_minute),
    zone          TEXT    NOT NULL
);
