-- The slash commands registered with Discord (issue 34): the commands every server needs are global, and a rule
-- set's own commands are registered on the servers that play it. Each set registered, by where it is
-- (`<application id>:global`, `<application id>:<server id>`), with the digest of what was sent, so that a start or
-- a change sends a server's commands again only when its set changed. No row: nothing registered there.
CREATE TABLE command_sets (
    scope      TEXT PRIMARY KEY,
    digest     TEXT NOT NULL,
    synced_at  TEXT NOT NULL               -- ISO-8601 UTC
);
