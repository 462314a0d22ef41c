-- A server's own settings (issue 34): the role whose members are GMs of every game in the server, set by a server
-- admin with /server gmrole (beside the GM_ROLE environment setting). One row a server that set something.
CREATE TABLE guild_settings (
    guild_id   INTEGER PRIMARY KEY,          -- the Discord server's id
    gm_role_id INTEGER,                      -- the server GM role's id (NULL: none set in the bot)
    updated_at TEXT    NOT NULL              -- ISO-8601 UTC
);
