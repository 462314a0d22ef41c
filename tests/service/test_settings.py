"""The settings (service/settings.py): each variable read by its exact name from the environment, then from the
`.env` beside bot.py; a bad value is one line naming the variable; nothing else reaches a field."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

import service.settings as settings_module
from service.settings import DEFAULT_WEB_HOST, LOG_LEVELS, Settings

TOKEN = "secret-token-123"


@pytest.fixture
def environment(tmp_path, monkeypatch) -> Path:
    """A process environment without any of the settings' variables, and bot.py's folder a fresh one (no `.env`
    read but the one a test writes there): that folder."""
    for name in Settings.variables():
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "referee"
    folder.mkdir()
    monkeypatch.setattr(settings_module, "BOT_FOLDER", folder)
    return folder


def test_every_variable_has_its_field_and_the_defaults_are_today_s():
    assert Settings.variables() == ["DISCORD_TOKEN", "REFEREE_DB", "DISCORD_GUILD_ID", "GM_ROLE", "LOG_LEVEL",
                                    "LOG_FORMAT", "SHARD_COUNT", "SHARD_IDS", "HEALTH_FILE", "REFEREE_EXPORT_DIR",
                                    "WEB_PORT", "WEB_HOST", "PUBLIC_URL", "WEB_TRUST_PROXY"]
    assert Settings.from_env({}) == Settings() == Settings(
        token=None, db_path="referee.db", guild_id=None, gm_role="GM", log_level="INFO", log_format="text",
        shard_count=None, shard_ids=None, health_file=None, export_dir=None, web_port=None, web_host=DEFAULT_WEB_HOST,
        public_url=None, web_trust_proxy=False)


def test_each_variable_is_read():
    read = Settings.from_env({"DISCORD_TOKEN": TOKEN, "REFEREE_DB": "game.db", "DISCORD_GUILD_ID": " 42 ",
                              "GM_ROLE": "Umpire", "LOG_LEVEL": "warning", "HEALTH_FILE": " /run/health ",
                              "REFEREE_EXPORT_DIR": "/srv/exports", "WEB_PORT": "8443"})
    assert (read.token, read.db_path, read.guild_id, read.gm_role, read.log_level, read.health_file,
            read.export_dir, read.web_port) == (TOKEN, "game.db", 42, "Umpire", "WARNING", "/run/health",
                                                "/srv/exports", 8443)
    empty = Settings.from_env(dict.fromkeys(Settings.variables(), ""))  # set but empty: not set
    assert empty == Settings()


@pytest.mark.parametrize("level", ["debug", "INFO", "Warning", " error ", ""])
def test_the_log_level_is_read_whatever_its_case(level):
    assert Settings.from_env({"LOG_LEVEL": level}).log_level == (level.strip().upper() or "INFO")
    assert Settings.from_env({"LOG_LEVEL": level}).log_level in LOG_LEVELS


@pytest.mark.parametrize(("env", "line"), [
    ({"LOG_LEVEL": "INFOO"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'INFOO'"),
    ({"LOG_LEVEL": "verbose"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'verbose'"),
    ({"LOG_LEVEL": "CRITICAL"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'CRITICAL'"),
    ({"WEB_PORT": "99999"}, "WEB_PORT must be a port number from 1 to 65535, not '99999'"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0,5"}, "SHARD_IDS must be below SHARD_COUNT (2): '0,5'"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0;1"}, "SHARD_IDS must be shard numbers separated by commas (0,1), not '0;1'"),
    ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT (how many shards in all)"),
    ({"SHARD_COUNT": "two", "SHARD_IDS": "0"}, "SHARD_COUNT must be a whole number from 1 to 1024, not 'two'"),
    ({"DISCORD_GUILD_ID": "²"}, "DISCORD_GUILD_ID must be a server id (digits), not '²'"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be text or json, not 'xml'"),
    ({"REFEREE_EXPORT_DIR": "exports\nrm"},
     "REFEREE_EXPORT_DIR must be a folder's path without control characters, not 'exports\\nrm'"),
    ({"WEB_TRUST_PROXY": "maybe"}, "WEB_TRUST_PROXY must be 1 or 0, not 'maybe'"),
    # two bad values: the first variable (in the listed order) is the one named
    ({"WEB_PORT": "http", "LOG_LEVEL": "loud"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'loud'"),
])
def test_a_bad_value_is_one_line_naming_the_variable(env, line):
    with pytest.raises(ValueError) as refused:
        Settings.from_env({"DISCORD_TOKEN": TOKEN, **env})
    assert type(refused.value) is ValueError and not isinstance(refused.value, ValidationError)
    assert str(refused.value) == line


def test_the_env_file_is_looked_for_beside_bot_py():
    assert (settings_module.BOT_FOLDER / "bot.py").is_file()


def test_the_environment_is_read_and_wins_over_the_env_file(environment, monkeypatch):
    (environment / ".env").write_text("DISCORD_TOKEN=from-the-file\nGM_ROLE=FileRole\nLOG_LEVEL=debug\n"
                                      "WEB_PORT=9000\nPGPASSWORD=not-ours\n# a comment\n", encoding="utf-8")
    monkeypatch.setenv("GM_ROLE", "EnvRole")
    monkeypatch.setenv("WEB_PORT", "")  # set, though empty: the environment's, so not set
    read = Settings.from_env()
    assert (read.token, read.gm_role, read.log_level, read.web_port) == ("from-the-file", "EnvRole", "DEBUG", None)
    assert "PGPASSWORD" not in os.environ  # the file's other lines are not the settings' (nor put in the process)


def test_the_env_file_is_the_nearest_above_bot_py_as_python_dotenv_found_it(environment, monkeypatch):
    (environment.parent / ".env").write_text("GM_ROLE=Above\n", encoding="utf-8")
    assert Settings.from_env().gm_role == "Above"
    (environment / ".env").write_text("LOG_FORMAT=json\n", encoding="utf-8")
    assert (Settings.from_env().gm_role, Settings.from_env().log_format) == ("GM", "json")  # the nearest alone


def test_a_bad_value_in_the_env_file_is_one_line_too(environment, monkeypatch):
    (environment / ".env").write_text("LOG_LEVEL=INFOO\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'INFOO'$"):
        Settings.from_env()
    monkeypatch.setenv("LOG_LEVEL", "info")  # the environment's value is the one read
    assert Settings.from_env().log_level == "INFO"


@pytest.mark.parametrize("name", ["CLOCK", "ROLLER", "SYNC_COMMANDS", "FREEZE_STARTUP", "clock", "roller",
                                  "token", "db_path", "web_port", "log_level", "discord_token", "Gm_Role"])
def test_no_other_variable_reaches_a_setting(environment, monkeypatch, name):
    """Only the listed names, exactly: not a field's own name, not another case, not the runtime's options."""
    (environment / ".env").write_text(f"{name}=1\n", encoding="utf-8")
    assert Settings.from_env({name: "1"}) == Settings()
    assert Settings.from_env() == Settings()
    monkeypatch.setenv(name, "7")
    assert Settings.from_env() == Settings()
    assert not {"clock", "roller", "sync_commands", "freeze_startup"} & set(Settings.model_fields)


def test_settings_made_in_code_read_no_environment(environment, monkeypatch):
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("GM_ROLE", "EnvRole")
    (environment / ".env").write_text("LOG_LEVEL=INFOO\n", encoding="utf-8")
    made = Settings(token="x", db_path="game.db")
    assert (made.shard_count, made.gm_role, made.log_level, made.db_path) == (None, "GM", "INFO", "game.db")
    with pytest.raises(ValidationError):  # a misspelt setting is not silently dropped
        Settings(tokn="x")


def test_the_settings_are_frozen_and_copied_with_a_change():
    read = Settings.from_env({"REFEREE_DB": "a.db"})
    with pytest.raises(ValidationError):
        read.db_path = "b.db"  # type: ignore[misc]
    assert (read.model_copy(update={"db_path": "b.db"}).db_path, read.db_path) == ("b.db", "a.db")


def test_the_token_and_the_database_password_are_never_shown():
    made = Settings.from_env({"DISCORD_TOKEN": TOKEN, "REFEREE_DB": "postgresql://referee:hunter2@db/referee"})
    for shown in (repr(made), str(made), f"{made}", f"{made!r}"):
        assert TOKEN not in shown and "hunter2" not in shown
    assert repr(made) == "Settings(db_path='postgresql://referee:***@db/referee', guild_id=None, gm_role='GM')"
