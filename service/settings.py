"""The referee's settings: one validated object read from the environment (and a `.env` file beside bot.py).

`Settings.from_env()` reads each field from its variable, by that exact name (the field's alias): the
environment first, then `.env` (the environment wins, as python-dotenv's `load_dotenv` did). A bad value is a
`ValueError` of one line, `<VARIABLE> must be …, not '<value>'`, which bot.py prints and exits 2 on.
`Settings(token=…, db_path=…)` is made of the values given alone, nothing read (the tests, the benchmarks).

Only what a person sets lives here; what a process gives the bot besides (a fake clock, forced dice) is
`bot.Runtime`, which no variable can reach.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dotenv import dotenv_values
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from data.postgres import redacted

ENVIRONMENT = """\
environment (also read from a .env file beside bot.py):
  DISCORD_TOKEN       the bot's token; without it the console runs (never logged)
  REFEREE_DB          the database: a SQLite path or a postgresql:// URL (default referee.db)
  DISCORD_GUILD_ID    a test server: every slash command on it alone, at once (else each server its games')
  GM_ROLE             members with this role are GMs of every game in their server (default GM)
  LOG_LEVEL           DEBUG, INFO (default), WARNING or ERROR
  LOG_FORMAT          text (default) or json: one JSON object a line
  SHARD_COUNT         shard the bot: how many shards in all (1 to 1024)
  SHARD_IDS           the shards this process runs, e.g. 0,1 (needs SHARD_COUNT; default all)
  HEALTH_FILE         a file the clock writes the time into at least every minute (a liveness check)
  REFEREE_EXPORT_DIR  console: one more folder /gm export file: may write to
  WEB_PORT            serve each game's page on this port (1 to 65535; default off, --web: 8080)
  WEB_HOST            the address the page server listens on (default 127.0.0.1: behind a reverse proxy)
  PUBLIC_URL          the pages' address players see, http(s) (default http://localhost:<WEB_PORT>)
  WEB_TRUST_PROXY     1: a request's address is the X-Forwarded-For its reverse proxy sets (default 0)
"""

DEFAULT_DB = "referee.db"
DEFAULT_GM_ROLE = "GM"
DEFAULT_WEB_HOST = "127.0.0.1"
DEFAULT_WEB_PORT = 8080  # `--web`'s port when WEB_PORT is not set
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMATS = ("text", "json")
MAX_SHARDS = 1024
BOT_FOLDER = Path(__file__).resolve().parents[1]  # where bot.py is


class Settings(BaseModel):
    """What the bot and the console need to run, each value checked; `from_env` reads it from the environment
    (and `.env`). Frozen: `model_copy(update=…)` makes a changed copy."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True)

    token: str | None = Field(None, validation_alias="DISCORD_TOKEN", repr=False)
    db_path: str = Field(DEFAULT_DB, validation_alias="REFEREE_DB")
    guild_id: int | None = Field(None, validation_alias="DISCORD_GUILD_ID")
    gm_role: str = Field(DEFAULT_GM_ROLE, validation_alias="GM_ROLE")
    log_level: str = Field("INFO", validation_alias="LOG_LEVEL")
    log_format: str = Field("text", validation_alias="LOG_FORMAT")  # or "json": one JSON object a line (`logformat`)
    # sharded: this process runs `shard_ids` (every shard when None) of so many
    shard_count: int | None = Field(None, validation_alias="SHARD_COUNT")
    shard_ids: tuple[int, ...] | None = Field(None, validation_alias="SHARD_IDS")
    # the clock writes the time there at least every minute (a liveness check)
    health_file: str | None = Field(None, validation_alias="HEALTH_FILE")
    export_dir: str | None = Field(None, validation_alias="REFEREE_EXPORT_DIR")  # the console's other export folder
    web_port: int | None = Field(None, validation_alias="WEB_PORT")  # the game pages' server: on when set
    web_host: str = Field(DEFAULT_WEB_HOST, validation_alias="WEB_HOST")
    # the pages' address players see (None: http://localhost:<web_port>)
    public_url: str | None = Field(None, validation_alias="PUBLIC_URL")
    # a request's address from X-Forwarded-For (behind a reverse proxy)
    web_trust_proxy: bool = Field(False, validation_alias="WEB_TRUST_PROXY")

    @classmethod
    def variables(cls) -> list[str]:
        """Every variable the settings are read from, in their order."""
        return [str(field.validation_alias) for field in cls.model_fields.values()]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings from the environment and the `.env` file beside bot.py (the environment wins); from `env`
        alone when given (the tests). ValueError, in one line naming the variable, when a value is not valid."""
        if env is None:
            found = env_file()
            read = dotenv_values(found) if found else {}
            env = {**{name: value for name, value in read.items() if value is not None}, **os.environ}  # env wins
        # each field from its variable, by that exact name: never from a field's own name (`token`) nor another one
        given = {name: env[name] for name in cls.variables() if env.get(name) is not None}
        try:
            return cls.model_validate(given)
        except ValidationError as err:
            raise ValueError(one_line(err)) from None

    @property
    def pages_url(self) -> str:
        """The address of the game pages players see: PUBLIC_URL, else this machine's port."""
        return self.public_url or f"http://localhost:{self.web_port or DEFAULT_WEB_PORT}"

    def __repr__(self) -> str:  # never show the token, nor the database's password
        return (f"Settings(db_path={redacted(self.db_path)!r}, guild_id={self.guild_id}, "
                f"gm_role={self.gm_role!r})")

    __str__ = __repr__

    # --- each variable read and checked: text is the variable's (a value of the field's type is taken as is) ---

    @field_validator("token", mode="before")
    @classmethod
    def _token(cls, value: Any) -> Any:
        return value or None if isinstance(value, str) else value

    @field_validator("db_path", mode="before")
    @classmethod
    def _db_path(cls, value: Any) -> Any:
        return value or DEFAULT_DB if isinstance(value, str) else value

    @field_validator("gm_role", mode="before")
    @classmethod
    def _gm_role(cls, value: Any) -> Any:
        return value or DEFAULT_GM_ROLE if isinstance(value, str) else value

    @field_validator("health_file", mode="before")
    @classmethod
    def _health_file(cls, value: Any) -> Any:
        return value.strip() or None if isinstance(value, str) else value

    @field_validator("guild_id", mode="before")
    @classmethod
    def _guild(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        guild = value.strip()
        if guild and not _whole(guild):
            raise ValueError(f"DISCORD_GUILD_ID must be a server id (digits), not {guild!r}")
        return int(guild) if guild else None

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        level = (value.strip() or "INFO").upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {value!r}")
        return level

    @field_validator("log_format", mode="before")
    @classmethod
    def _log_format(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        log_format = (value or "text").strip().lower()
        if log_format not in LOG_FORMATS:
            raise ValueError(f"LOG_FORMAT must be text or json, not {value!r}")
        return log_format

    @field_validator("shard_count", mode="before")
    @classmethod
    def _shard_count(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        count = value.strip()
        if not count:
            return None
        if not _whole(count) or not 1 <= int(count) <= MAX_SHARDS:
            raise ValueError(f"SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS}, not {count!r}")
        return int(count)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, value: Any, info: ValidationInfo) -> Any:
        """SHARD_IDS ("0,1"), checked against SHARD_COUNT (read before it)."""
        if not isinstance(value, str):
            return value
        ids = value.strip()
        if not ids or "shard_count" not in info.data:  # (a bad SHARD_COUNT is the error already)
            return None
        count = info.data["shard_count"]
        if count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (how many shards in all)")
        parts = [p.strip() for p in ids.split(",")]
        if not all(_whole(p) for p in parts):
            raise ValueError(f"SHARD_IDS must be shard numbers separated by commas (0,1), not {ids!r}")
        shards = tuple(int(p) for p in parts)
        if len(set(shards)) != len(shards):
            raise ValueError(f"SHARD_IDS names a shard twice: {ids!r}")
        if max(shards) >= count:
            raise ValueError(f"SHARD_IDS must be below SHARD_COUNT ({count}): {ids!r}")
        return shards

    @field_validator("export_dir", mode="before")
    @classmethod
    def _export_dir(cls, value: Any) -> Any:
        """A folder's path as given (not set when empty); no control character (a NUL, a line break)."""
        if not isinstance(value, str):
            return value
        if any(not c.isprintable() for c in value):
            raise ValueError(f"REFEREE_EXPORT_DIR must be a folder's path without control characters, not {value!r}")
        return value or None

    @field_validator("web_port", mode="before")
    @classmethod
    def _port(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return None
        if not _whole(text) or not 1 <= int(text) <= 65535:
            raise ValueError(f"WEB_PORT must be a port number from 1 to 65535, not {text!r}")
        return int(text)

    @field_validator("web_host", mode="before")
    @classmethod
    def _host(cls, value: Any) -> Any:
        """An address or host name to listen on (default 127.0.0.1)."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return DEFAULT_WEB_HOST
        if not text.isascii() or not re.fullmatch(r"[A-Za-z0-9.:\-\[\]%_]+", text):
            raise ValueError(f"WEB_HOST must be an address to listen on, e.g. 127.0.0.1 or 0.0.0.0, not {text!r}")
        return text.strip("[]")

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: Any) -> Any:
        """An http(s) address with a host, no query, no fragment, no user or password; without its trailing slash
        (a page's link is it and /g/<token>)."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return None
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018  (a port that is not a number raises here)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"PUBLIC_URL must be the pages' address players see, e.g. https://referee.example.org, "
                             f"not {text!r}")
        if parts.query or parts.fragment or "?" in text or "#" in text:
            raise ValueError(f"PUBLIC_URL must have no query (?) or fragment (#): {text!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError("PUBLIC_URL must not hold a user name or password")
        if any(c.isspace() or not c.isprintable() or not c.isascii() for c in text):
            raise ValueError(f"PUBLIC_URL must be written in plain ASCII without spaces: {text!r}")
        return text.rstrip("/")

    @field_validator("web_trust_proxy", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> Any:
        """A yes/no variable: 1, true or yes; 0, false, no or unset."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.lower() in ("", "0", "false", "no"):
            return False
        if text.lower() in ("1", "true", "yes"):
            return True
        raise ValueError(f"WEB_TRUST_PROXY must be 1 or 0, not {text!r}")


def env_file() -> Path | None:
    """The `.env` file read with the environment: the one beside bot.py, else the nearest in a folder above it
    (where python-dotenv's `find_dotenv` looked); None when there is none."""
    return next((folder / ".env" for folder in (BOT_FOLDER, *BOT_FOLDER.parents) if (folder / ".env").is_file()),
                None)


def one_line(error: ValidationError) -> str:
    """The first problem of a validation error as its one line (a check's own message; else the variable named)."""
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, ValueError):
        return str(cause)
    where = ".".join(str(part) for part in first["loc"]) or "a setting"
    return f"{where}: {first['msg']}"


def _whole(text: str) -> bool:
    return text.isascii() and text.isdigit()
