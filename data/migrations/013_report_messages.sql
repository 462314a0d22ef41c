-- The Discord message that announced a logged action (a command's answer, the clock's announcement of a turn
-- end or a battle's default), so /log rolls can link each roll to it. The front-end records it once the message
-- is sent, for the actions whose report rolled dice; an action with no row (a console game's, an import's, one
-- from before this migration, one whose message could not be recorded) links nowhere.

CREATE TABLE report_messages (
    action_id  INTEGER PRIMARY KEY REFERENCES actions (id) ON DELETE CASCADE,
    channel_id INTEGER,                           -- the Discord channel the message is in
    message_id INTEGER NOT NULL
);
