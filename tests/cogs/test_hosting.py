"""Hosting the bot (issue 20): shards from the environment, every process running every game's clock, the
pinning failure told in the channel, JSON logs, the health file, `--help`'s environment, the systemd unit."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from discordkit import Config, at, config, settle, start_war, table, texts
from fakediscord import ADMINISTRATOR, HANG_TIMEOUT, MANAGE_MESSAGES, PIN_MESSAGES

import bot as bot_module
import service.settings as settings_module
from bot import REAL_RUN, AutoShardedRefereeBot, RefereeBot, Runtime, Settings, create_bot
from service import logformat
from service.referee import utc_now

REPO = Path(__file__).resolve().parents[2]
TOKEN = "secret-token-123"


# --- settings from the environment ---------------------------------------------------------------------


def test_the_hosting_settings_are_read_from_the_environment():
    read = Settings.from_env({"SHARD_COUNT": "4", "SHARD_IDS": " 0, 1 ", "LOG_FORMAT": "JSON",
                              "HEALTH_FILE": "/var/lib/referee/health"})
    assert (read.shard_count, read.shard_ids, read.log_format, read.health_file) == (
        4, (0, 1), "json", "/var/lib/referee/health")
    unsharded = Settings.from_env({})
    assert (unsharded.shard_count, unsharded.shard_ids, unsharded.log_format, unsharded.health_file) == (
        None, None, "text", None)
    every_shard = Settings.from_env({"SHARD_COUNT": "2"})
    assert (every_shard.shard_count, every_shard.shard_ids) == (2, None)
    assert type(create_bot(Settings(token="x"))) is RefereeBot
    sharded = create_bot(read.model_copy(update={"token": "x"}))
    assert isinstance(sharded, AutoShardedRefereeBot)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [0, 1])
    all_shards = create_bot(every_shard.model_copy(update={"token": "x"}))
    assert isinstance(all_shards, AutoShardedRefereeBot) and (all_shards.shard_count, all_shards.shard_ids) == (
        2, None)


@pytest.mark.parametrize(("env", "named"), [
    ({"SHARD_COUNT": "two"}, "SHARD_COUNT"),
    ({"SHARD_COUNT": "0"}, "SHARD_COUNT"),
    ({"SHARD_COUNT": "1025"}, "SHARD_COUNT"),
    ({"SHARD_COUNT": "-1"}, "SHARD_COUNT"),
    ({"SHARD_COUNT": "2.0"}, "SHARD_COUNT"),
    ({"SHARD_COUNT": "²"}, "SHARD_COUNT"),
    ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "SHARD_IDS"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "1,1"}, "SHARD_IDS"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0;1"}, "SHARD_IDS"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0,"}, "SHARD_IDS"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "-1"}, "SHARD_IDS"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"),
])
def test_a_bad_hosting_setting_is_refused(env, named):
    with pytest.raises(ValueError, match=named) as refused:
        Settings.from_env(env)
    assert "\n" not in str(refused.value) and "validation error" not in str(refused.value)  # never pydantic's


def test_no_variable_reaches_the_runtime(tmp_path, monkeypatch):
    """The clock, the dice, syncing the commands and freezing what starting made are the process's (the tests'
    fakes), never the environment's: not as CLOCK, ROLLER…, nor by any other name."""
    monkeypatch.setattr(settings_module, "BOT_FOLDER", tmp_path)  # no .env
    for name in Settings.variables():
        monkeypatch.delenv(name, raising=False)
    for name in ("CLOCK", "ROLLER", "SYNC_COMMANDS", "FREEZE_STARTUP", "RUNTIME"):
        monkeypatch.setenv(name, "0")
        monkeypatch.setenv(name.lower(), "0")
    real = create_bot()  # read from the environment: a real run
    assert real.runtime is REAL_RUN
    assert REAL_RUN == Runtime(clock=utc_now, roller=None, sync_commands=True, freeze_startup=True)
    assert create_bot(Settings.from_env()).runtime == Runtime(clock=utc_now, roller=None, sync_commands=True,
                                                              freeze_startup=False)


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "REFEREE_", "SHARD_", "LOG_", "HEALTH_", "WEB_", "PUBLIC_URL"))}
    return {**env, "REFEREE_DB": str(tmp_path / "never.db"), **extra}


@pytest.mark.parametrize("env", [{"SHARD_COUNT": "2", "SHARD_IDS": "0,5"}, {"LOG_FORMAT": "yaml"},
                                 {"LOG_LEVEL": "INFOO"}])
def test_bot_py_refuses_a_bad_hosting_setting_with_one_line_and_status_2(tmp_path, env):
    done = subprocess.run([sys.executable, str(REPO / "bot.py")], cwd=tmp_path,
                          env=clean_env(tmp_path, DISCORD_TOKEN=TOKEN, **env), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and next(iter(env)) in line and done.stdout == ""
    assert not (tmp_path / "never.db").exists()


def test_bot_py_discord_without_a_token_is_one_line_and_status_1_not_the_console(tmp_path):
    """What the systemd unit runs: no token must fail (and be restarted), not run the console and exit 0."""
    done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--discord"], cwd=tmp_path, env=clean_env(tmp_path),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line == "error: --discord runs the Discord bot: set DISCORD_TOKEN (environment or .env)"
    assert not (tmp_path / "never.db").exists()


# --- shards and the clock --------------------------------------------------------------------------------


def from_env(t, **env: str) -> Config:
    """The settings a process reads from `env`, on the table's database, clock and dice."""
    read = Settings.from_env({"DISCORD_TOKEN": "fake-bot-token", "REFEREE_DB": str(t.db), **env})
    return Config(read, Runtime(clock=t.clock, roller=t.dice))


async def two_rooms(t):
    """A second server on the other shard of two, with its own #nations and the gm as a member: (channel of
    shard 0, channel of shard 1), (server of shard 0, server of shard 1)."""
    other = t.fake.add_guild("Far Room")
    while other.shard_id(2) == t.guild.shard_id(2):
        other = t.fake.add_guild("Far Room")
    far = t.fake.add_channel(other, "nations")
    t.fake.add_member(other, t.gm.user)
    if t.guild.shard_id(2) == 0:
        return (t.channel, far), (t.guild, other)
    return (far, t.channel), (other, t.guild)


async def test_a_process_configured_for_shard_0_of_2_gets_the_servers_of_shard_0_only(tmp_path):
    async with table(tmp_path) as t:
        (shard_0, shard_1), (guild_0, guild_1) = await two_rooms(t)
        bot = create_bot(*from_env(t, SHARD_COUNT="2", SHARD_IDS="0"), guild_ready_timeout=0.05)
        assert isinstance(bot, AutoShardedRefereeBot)
        rb = await t.fake.start_bot(bot)
        try:
            assert (bot.shard_count, bot.shard_ids) == (2, [0]) and t.fake.connected_sessions() == 1
            assert {g.id for g in bot.guilds} == {g.id for g in t.fake.guilds.values() if g.shard_id(2) == 0}
            assert guild_0.id in {g.id for g in bot.guilds} and guild_1.id not in {g.id for g in bot.guilds}
            started = await t.fake.invoke(guild_0, shard_0, t.gm, "game start", options={"turn_hours": 12})
            await settle(t.fake)
            assert t.status_message(shard_0).embeds[0]["title"] == "Nations — turn 1 (12 h)"
            assert started.acknowledged
        finally:
            await settle(t.fake, check_errors=False)
            await rb.close()


async def test_two_processes_running_at_once_announce_each_rollover_once(tmp_path):
    """Shard 0's process and shard 1's on one database, a game in a server of each shard: when the turns end,
    both clocks try every game at once, and each rollover is applied and announced once, in its channel."""
    async with table(tmp_path) as t:
        (shard_0, shard_1), (guild_0, guild_1) = await two_rooms(t)
        bots = [create_bot(*from_env(t, SHARD_COUNT="2", SHARD_IDS=shard), guild_ready_timeout=0.05)
                for shard in ("0", "1")]
        running = [await t.fake.start_bot(b) for b in bots]
        try:
            for guild, channel in ((guild_0, shard_0), (guild_1, shard_1)):
                await t.fake.invoke(guild, channel, t.gm, "game start", options={"turn_hours": 12})
                await settle(t.fake)
            posted = {channel.id: len(t.messages(channel)) for channel in (shard_0, shard_1)}
            t.clock.advance(hours=13)
            await asyncio.gather(*(b.get_cog("Clock").tick() for b in bots))  # both clocks at once
            await settle(t.fake)
        finally:
            for rb in running:
                await rb.close()
        rollover = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."
        for channel in (shard_0, shard_1):
            [woken] = t.messages(channel)[posted[channel.id]:]
            assert texts(woken).startswith(rollover)
            assert t.status_message(channel).embeds[0]["title"].startswith("Nations — turn 2 (")


# --- the status message that cannot be pinned ------------------------------------------------------------


async def test_a_status_message_that_cannot_be_pinned_is_told_in_the_channel_once(tmp_path):
    async with table(tmp_path) as t:
        [bot_role] = [r for r in t.guild.roles.values() if r.bot_id == t.fake.bot_user.id]
        bot_role.permissions &= ~ADMINISTRATOR  # (an administrator may do anything anywhere)
        refusing = {"id": str(t.fake.bot_user.id), "type": 1, "allow": "0", "deny": str(MANAGE_MESSAGES | PIN_MESSAGES)}
        t.channel.overwrites.append(refusing)  # the bot may not pin in this channel

        def status_messages():
            return [m for m in t.messages() if m.embeds and m.embeds[0].get("title", "").startswith("Nations")]

        def notes():
            return [m for m in t.messages() if m.content.startswith("I cannot pin")]

        async with t.bot():
            await start_war(t)
            [status] = status_messages()
            assert not status.pinned and t.fake.pinned_messages(t.channel) == []
            [note] = notes()
            assert note.mention_ids == [] and "*Pin Messages*" in note.content
            t.dice.push(9)
            await t.run(t.alice, "economy military")  # the status is edited in place: no pin tried, nothing told
            assert status_messages() == [status] and len(status.history) >= 2 and notes() == [note]
            # A status message someone deleted is posted anew and pinning fails again: told once is enough.
            t.fake._delete_message(status)
            await t.run(t.gm, "gm clock pause")
            [fresh] = status_messages()
            assert fresh is not status and not fresh.pinned and notes() == [note]
        async with t.bot():  # after a restart the stored status message is edited, not pinned again: no note
            await t.run(t.gm, "gm clock resume")
            assert status_messages() == [fresh] and notes() == [note]
        t.channel.overwrites.remove(refusing)
        async with t.bot():  # once allowed, a status message posted anew is pinned
            t.fake._delete_message(fresh)
            await t.run(t.gm, "gm clock pause")
            assert t.status_message() is status_messages()[0] and notes() == [note]


# --- logs --------------------------------------------------------------------------------------------------


@pytest.fixture
def log_stream(monkeypatch):
    """The root logger writing through one handler into a string, as `main` sets it up."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    stream = io.StringIO()

    def configure(fmt: str, token: str | None = TOKEN) -> io.StringIO:
        root.handlers = []  # (pytest's own capture handler is put back afterwards)
        logformat.configure("INFO", fmt)
        [handler] = root.handlers
        handler.setStream(stream)
        bot_module.install_redaction(token)
        return stream

    return configure


def test_json_log_lines_carry_the_ids_and_the_traceback_without_the_token(log_stream):
    stream = log_stream("json")
    log = logging.getLogger("referee.clock")
    log.warning("could not pin the status message of game %s", 7,
                extra={"game_id": 7, "guild_id": 10**18, "channel_id": None})
    log.info("request with %s failed", TOKEN)
    try:
        raise ValueError(f"header Bot {TOKEN}")
    except ValueError:
        log.exception("the clock failed to wake game %s", 8, extra={"game_id": 8})
    logging.getLogger("discord.http").debug("not at INFO")
    text = stream.getvalue()
    assert TOKEN not in text
    pinned, request, failed = (json.loads(line) for line in text.splitlines())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", pinned["time"])
    assert {k: v for k, v in pinned.items() if k != "time"} == {
        "level": "WARNING", "logger": "referee.clock", "message": "could not pin the status message of game 7",
        "game_id": 7, "guild_id": 10**18}
    assert request["message"] == "request with [token] failed" and "game_id" not in request
    assert failed["level"] == "ERROR" and failed["game_id"] == 8
    assert failed["exc"].startswith("Traceback") and failed["exc"].endswith("ValueError: header Bot [token]")


def test_text_log_lines_are_as_before(log_stream):
    stream = log_stream("text")
    logging.getLogger("referee.bot").warning("with %s", TOKEN, extra={"game_id": 3})
    [line] = stream.getvalue().splitlines()
    assert line.endswith(" WARNING referee.bot: with [token]") and not line.startswith("{")


async def test_a_command_failure_is_logged_with_its_game_server_and_channel(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", turn_hours=12)
        game = await rb.bot.referee.game_id(t.key())

        async def broken(channel):
            raise RuntimeError("a fault")

        rb.bot.referee.shown_state = broken
        answer = await t.fake.invoke(t.guild, t.channel, t.alice, "game status")
        await settle(t.fake, check_errors=False)
        assert answer.ephemeral and "hit a problem" in texts(answer)
        [record] = t.fake.take_errors()
        assert record.getMessage().startswith("command /game status failed")
        assert (record.game_id, record.guild_id, record.channel_id) == (game, t.guild.id, t.channel.id)
        assert json.loads(logformat.JsonFormatter().format(record))["exc"].endswith("RuntimeError: a fault")


# --- the health file -------------------------------------------------------------------------------------


async def test_the_clock_writes_the_health_file_while_the_bot_runs(tmp_path):
    from cogs.clock import HEALTH_INTERVAL

    health = tmp_path / "health"
    async with table(tmp_path) as t:
        async with running_with(t, health_file=str(health)) as rb:
            assert health.exists()  # the start's catch-up (the timer) wrote it
            written = health.read_text()
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\n", written)
            scheduler = rb.bot.get_cog("Clock").scheduler
            job = scheduler.get_job("health")
            assert job.trigger.interval.total_seconds() == HEALTH_INTERVAL <= 60
            # (discord.py loads each extension's module afresh, so a test cannot patch the constant before the
            # load: the job is made to beat faster instead)
            scheduler.reschedule_job("health", trigger="interval", seconds=0.05)
            health.unlink()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + HANG_TIMEOUT  # written again at the next beats (the bound: a hang)
            while not health.exists():
                assert loop.time() < deadline, "the health file was not written again"
                await asyncio.sleep(0.02)
        health.unlink()
        await asyncio.sleep(0.2)
        assert not health.exists()  # closed: no longer written


async def test_a_health_file_that_cannot_be_written_is_a_warning_once(tmp_path, caplog):
    health = tmp_path / "missing-folder" / "health"
    async with table(tmp_path) as t, running_with(t, health_file=str(health)) as rb:
        clock = rb.bot.get_cog("Clock")
        clock.touch_health()
        clock.touch_health()
        assert not health.exists()
        warned = [r for r in caplog.records if r.name == "referee.clock" and "health file" in r.getMessage()]
        assert len(warned) == 1 and warned[0].levelname == "WARNING"


def running_with(t, **extra):
    """The bot on the table's database, clock and dice, with more settings."""
    from discordkit import running

    return running(t.fake, config(t.db, t.clock, t.dice, **extra))


async def test_no_health_file_no_health_job(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        assert rb.bot.get_cog("Clock").scheduler.get_job("health") is None


# --- --help and the README -------------------------------------------------------------------------------


def help_variables() -> list[str]:
    text = subprocess.run([sys.executable, str(REPO / "bot.py"), "--help"], capture_output=True, text=True,
                          timeout=60, env=clean_env(REPO), stdin=subprocess.DEVNULL).stdout
    return re.findall(r"^  ([A-Z][A-Z0-9_]+)  ", text.split("environment", 1)[1], re.MULTILINE)


def readme_variables() -> list[str]:
    """The variables of the README's environment table (its first column)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Running it on Discord", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^ *\| `([A-Z][A-Z0-9_]+)` \|", section, re.MULTILINE)


def test_help_lists_every_environment_variable_and_so_does_the_readme():
    listed = help_variables()
    assert len(listed) == len(set(listed)) >= 10
    assert sorted(listed) == sorted(readme_variables())
    # the settings read exactly the listed variables; any other read of one (the console names its export folder's
    # in a message) is of a listed one
    assert sorted(Settings.variables()) == sorted(listed)
    read: set[str] = set()
    for path in (REPO / "bot.py", *REPO.joinpath("console").glob("*.py"), *REPO.joinpath("service").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        read |= set(re.findall(r"(?:env\.get|environ\.get|getenv)\(\"([A-Z][A-Z0-9_]+)\"", source))
        read |= set(re.findall(r"^[A-Z_]+_ENV = \"([A-Z][A-Z0-9_]+)\"", source, re.MULTILINE))
    assert "REFEREE_EXPORT_DIR" in read  # (the console's name for it, in its messages)
    assert read <= set(listed)


# --- the systemd unit --------------------------------------------------------------------------------------


def test_the_systemd_unit_verifies(tmp_path):
    unit = (REPO / "deploy" / "referee.service").read_text(encoding="utf-8")
    settings_of = dict(line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.startswith("#"))
    assert settings_of["Type"] == "simple" and settings_of["Restart"] == "on-failure"
    assert settings_of["EnvironmentFile"] == "/etc/referee/referee.env"
    assert settings_of["ExecStart"].endswith("/.venv/bin/python /opt/referee/bot.py --discord")
    for line in ("Environment=REFEREE_DB=/var/lib/referee/referee.db", "Environment=LOG_FORMAT=json",
                 "Environment=HEALTH_FILE=/var/lib/referee/health", "NoNewPrivileges=yes",
                 "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "StateDirectory=referee"):
        assert line in unit.splitlines()
    example = (REPO / "deploy" / "referee.env.example").read_text(encoding="utf-8")
    assert "DISCORD_TOKEN=" in example
    assert set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", example, re.MULTILINE)) <= set(help_variables())

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here: the unit is not verified")
    # verify wants ExecStart's program to exist: a copy of the unit that runs this Python on this bot.py
    copy = tmp_path / "referee.service"
    here = f"{sys.executable} {REPO / 'bot.py'} --discord"
    copy.write_text(unit.replace(settings_of["ExecStart"], here), encoding="utf-8")
    done = subprocess.run([analyze, "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    said = [line for line in (done.stdout + done.stderr).splitlines() if "referee.service" in line]
    assert said == [] and done.returncode == 0, done.stdout + done.stderr
