"""How the bot's log lines look: plain text (the default) or one JSON object a line (LOG_FORMAT=json), for a
log collector.

A JSON line holds `time` (UTC, ISO 8601), `level`, `logger`, `message`, the `game_id`, `guild_id` and
`channel_id` a call passed as `extra` when it knew them, and `exc` (the traceback) for an exception. The
handlers' filters (the token's redaction, `bot.RedactToken`) run before the formatter, so they apply to JSON
lines too.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CONTEXT = ("game_id", "guild_id", "channel_id")  # the ids a log call may pass as `extra`


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in CONTEXT:
            value = getattr(record, key, None)
            if value is not None:
                line[key] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Log to stderr at `level`, as text or JSON lines (`fmt`: "text" or "json")."""
    logging.basicConfig(level=getattr(logging, level, logging.INFO), format=TEXT_FORMAT)
    if fmt == "json":
        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonFormatter())
