"""Hosting the game pages (issue 22): WEB_PORT, WEB_HOST, PUBLIC_URL and WEB_TRUST_PROXY read and checked (a bad
value is one `error:` line at start, status 2, before anything opens), the pages off by default, a port another
program holds refused in one line, and `python bot.py --web` serving the console database's games."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from discordkit import config, running, table

from bot import DEFAULT_WEB_PORT, Settings, main

REPO = Path(__file__).resolve().parents[2]


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "REFEREE_", "SHARD_", "LOG_", "HEALTH_", "WEB_", "PUBLIC_URL"))}
    return {**env, "REFEREE_DB": str(tmp_path / "never.db"), "PYTHONIOENCODING": "utf-8", **extra}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- the settings ------------------------------------------------------------------------------------------


def test_pages_are_off_by_default():
    read = Settings.from_env({})
    assert (read.web_port, read.web_host, read.public_url, read.web_trust_proxy) == (None, "127.0.0.1", None, False)
    assert read.pages_url == f"http://localhost:{DEFAULT_WEB_PORT}"


def test_the_page_settings_are_read_from_the_environment():
    read = Settings.from_env({"WEB_PORT": "8443", "WEB_HOST": "0.0.0.0", "PUBLIC_URL": "https://referee.example.org/",
                              "WEB_TRUST_PROXY": "1"})
    assert (read.web_port, read.web_host, read.public_url, read.web_trust_proxy) == (
        8443, "0.0.0.0", "https://referee.example.org", True)
    assert read.pages_url == "https://referee.example.org"  # no trailing slash: a link is it and /g/<token>
    local = Settings.from_env({"WEB_PORT": "9000"})
    assert local.pages_url == "http://localhost:9000" and local.web_host == "127.0.0.1"
    under = Settings.from_env({"WEB_PORT": "1", "PUBLIC_URL": "http://example.org:8080/referee",
                               "WEB_HOST": "::1", "WEB_TRUST_PROXY": "no"})
    assert (under.pages_url, under.web_port, under.web_host, under.web_trust_proxy) == (
        "http://example.org:8080/referee", 1, "::1", False)
    assert Settings.from_env({"WEB_PORT": "65535", "WEB_HOST": "[::]"}).web_host == "::"


@pytest.mark.parametrize(("env", "named"), [
    ({"WEB_PORT": "0"}, "WEB_PORT"),
    ({"WEB_PORT": "65536"}, "WEB_PORT"),
    ({"WEB_PORT": "80.5"}, "WEB_PORT"),
    ({"WEB_PORT": "-1"}, "WEB_PORT"),
    ({"WEB_PORT": "http"}, "WEB_PORT"),
    ({"WEB_PORT": "８０８０"}, "WEB_PORT"),  # full-width digits
    ({"WEB_HOST": "local host"}, "WEB_HOST"),
    ({"WEB_HOST": "host;rm"}, "WEB_HOST"),
    ({"PUBLIC_URL": "referee.example.org"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "ftp://referee.example.org"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "javascript:alert(1)"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://referee.example.org/?a=1"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://referee.example.org/#top"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://user:pw@referee.example.org"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://referee.example.org:port"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://referee.example.org/a b"}, "PUBLIC_URL"),
    ({"PUBLIC_URL": "https://réferee.example.org"}, "PUBLIC_URL"),
    ({"WEB_TRUST_PROXY": "maybe"}, "WEB_TRUST_PROXY"),
])
def test_a_bad_page_setting_is_refused(env, named):
    with pytest.raises(ValueError, match=named) as refused:
        Settings.from_env(env)
    assert "\n" not in str(refused.value) and "validation error" not in str(refused.value)  # never pydantic's


@pytest.mark.parametrize("env", [{"WEB_PORT": "99999"}, {"PUBLIC_URL": "example.org"}, {"WEB_TRUST_PROXY": "2"}])
def test_bot_py_refuses_a_bad_page_setting_with_one_line_and_status_2(tmp_path, env):
    for mode in ([], ["--web"]):
        done = subprocess.run([sys.executable, str(REPO / "bot.py"), *mode], cwd=tmp_path,
                              env=clean_env(tmp_path, DISCORD_TOKEN="secret-token-123", **env), capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2, done.stderr
        [line] = done.stderr.splitlines()
        assert line.startswith("error: ") and next(iter(env)) in line and done.stdout == ""
        assert not (tmp_path / "never.db").exists()


def test_web_and_discord_cannot_both_be_given(tmp_path, capsys):
    assert main(["--web", "--discord"]) == 1
    assert capsys.readouterr().err.strip() == "error: --discord and --web cannot both be given"


# --- serving ---------------------------------------------------------------------------------------------------


async def test_a_taken_port_stops_the_bot_with_one_clear_line(tmp_path):
    from bot import PagesUnavailable

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        async with table(tmp_path) as t:
            with pytest.raises(PagesUnavailable, match=rf"cannot serve the game pages on 127\.0\.0\.1:{port} "):
                async with running(t.fake, config(t.db, t.clock, t.dice, web_port=port)):
                    pass


def read_until(stream, pattern: str, deadline: float) -> str:
    seen = ""
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen += line
        if re.search(pattern, seen):
            return seen
    raise AssertionError(f"{pattern!r} not in {seen!r}")


def test_bot_py_web_serves_the_console_games_page_and_stops_with_the_console(tmp_path):
    port = free_port()
    env = clean_env(tmp_path, WEB_PORT=str(port), PUBLIC_URL=f"http://127.0.0.1:{port}/")
    console = subprocess.Popen([sys.executable, str(REPO / "bot.py"), "--web", "--db", str(tmp_path / "forum.db")],
                               cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, encoding="utf-8")
    try:
        deadline = time.monotonic() + 60
        assert console.stdin is not None and console.stdout is not None and console.stderr is not None
        said = read_until(console.stderr, r"Serving the game pages", deadline)
        assert f"127.0.0.1:{port}" in said
        console.stdin.write('gm /game start\ngm /nation claim preset:"Gracchan Republic" player:alice\n'
                            "alice /game page\n")
        console.stdin.flush()
        out = read_until(console.stdout, r"The game's page: \S+", deadline)
        link = re.search(r"The game's page: (\S+)", out).group(1)
        assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/g/[A-Za-z0-9_-]{{24}}", link)
        # the console waits for its next line: the page answers meanwhile
        with urllib.request.urlopen(link, timeout=60) as page:
            assert page.status == 200 and "Gracchan Republic" in page.read().decode("utf-8")
        console.stdin.write("alice /gm page rotate\ngm /gm page rotate\n")
        console.stdin.flush()
        out = read_until(console.stdout, r"new link: \S+", deadline)
        assert "error: only the GM may change the game's page link" in out
        new = re.search(r"new link: (\S+)", out).group(1)
        assert new != link
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(link, timeout=60)
        assert gone.value.code == 404
        console.stdin.close()
        assert console.wait(timeout=60) == 0
        with pytest.raises(OSError):  # the server stopped with the console
            urllib.request.urlopen(new, timeout=60)
    finally:
        if console.poll() is None:
            console.kill()
            console.wait()


def test_bot_py_web_refuses_a_taken_port_in_one_line(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--web", "--db", str(tmp_path / "forum.db")],
                              cwd=tmp_path, env=clean_env(tmp_path, WEB_PORT=str(port)), capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: cannot serve the game pages on 127.0.0.1:{port} ("), line
