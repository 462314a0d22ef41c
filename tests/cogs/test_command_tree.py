"""The slash commands a player sees — every command, group, option, choice, range and permission, exactly as the
bot registers them with Discord — are the ones recorded in `golden/commands.json`: under "global" the ones every
server has, under each rule set's name its own groups, registered on a server once a game of it starts there.

The commands are built from the command table (`engine.commands`); this test keeps what Discord shows from
changing by accident. A deliberate change rewrites the record: `REFEREE_REGEN_GOLDEN=1 pytest` on this file,
then read the difference before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from discordkit import settle, table

from engine.rulesets import RULESETS

GOLDEN = Path(__file__).parent / "golden" / "commands.json"


def _clean(payload: object) -> object:
    """A registered command as Discord keeps it, without what the fake adds (ids, versions) and sorted by name."""
    if isinstance(payload, list):
        return [_clean(item) for item in payload]
    if isinstance(payload, dict):
        return {k: _clean(v) for k, v in sorted(payload.items())
                if k not in ("id", "application_id", "version", "guild_id")}
    return payload


async def registered(tmp_path: Path) -> dict[str, list[object]]:
    """What Discord keeps: the global commands, then each rule set's own, registered on a server once a game of it
    starts there (one channel each)."""
    async with table(tmp_path) as t, t.bot():
        found: dict[str, list[object]] = {"global": [_clean(c) for c in sorted(
            t.fake.global_commands, key=lambda c: (c.get("type", 1), c["name"]))]}
        for name in RULESETS:
            guild = t.fake.add_guild(name)
            channel = t.fake.add_channel(guild, name)
            member = t.fake.add_member(guild, t.fake.add_user(f"gm-{name}"))
            await t.fake.invoke(guild, channel, member, "game start", options={"ruleset": name})
            await settle(t.fake)
            found[name] = [_clean(c) for c in sorted(t.fake.guild_commands(guild), key=lambda c: c["name"])]
        return found


async def test_the_registered_commands_are_the_recorded_ones(tmp_path):
    """Global ones, and each rule set's ("nations": [...]) on the servers that play it."""
    found = await registered(tmp_path)
    text = json.dumps(found, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("REFEREE_REGEN_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert list(found) == ["global", *RULESETS] and sorted(recorded) == sorted(found)
    for scope, commands in recorded.items():
        for command in commands:  # one top-level command at a time: a difference names its command
            name = command["name"]
            mine = next((c for c in found[scope] if c["name"] == name), None)  # type: ignore[index]
            assert mine == command, f"/{name} ({scope}) differs from golden/commands.json"
        assert [c["name"] for c in found[scope]] == [c["name"] for c in commands]  # type: ignore[index]


def _described(node: object, path: str) -> list[tuple[str, str]]:
    """Every description in a built command (its own, its subcommands', its options'), with where it is."""
    found = [(path, str(getattr(node, "description", "")))]
    for param in getattr(node, "parameters", []):
        found.append((f"{path} {param.name}:", str(param.description)))
    for child in getattr(node, "commands", []):
        found += _described(child, f"{path} {child.name}")
    return found


def test_every_description_fits_whole():
    """Each description a player reads is the table's own words, within Discord's 100 characters: none shortened
    with "…", none marked (GM) twice."""
    from cogs.slash import DESCRIPTION_LIMIT, build
    from engine.commands import COMMANDS

    for command in COMMANDS:  # at the source: the table's words fit, so `fit` never cuts one
        assert len(command.described) <= DESCRIPTION_LIMIT, f"/{command.path}: {command.described!r}"
        for param in command.params_for("discord"):
            assert len(param.help or param.name) <= DESCRIPTION_LIMIT, f"/{command.path} {param.name}: {param.help!r}"
    described = [found for top in build() for found in _described(top, f"/{top.name}")]
    assert len(described) > 300
    for where, text in described:
        assert 0 < len(text) <= DESCRIPTION_LIMIT, where
        assert not text.endswith("…"), f"{where} {text!r}"
        assert "(GM) (GM)" not in text and "(GM)(GM)" not in text, f"{where} {text!r}"
