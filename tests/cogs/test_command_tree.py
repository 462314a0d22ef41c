"""The slash commands a player sees — every command, group, option, choice, range and permission, exactly as the
bot registers them with Discord — are the ones recorded in `golden/commands.json`.

The commands are built from the command table (`engine.commands`); this test keeps what Discord shows from
changing by accident. A deliberate change rewrites the record: `REFEREE_REGEN_GOLDEN=1 pytest` on this file,
then read the difference before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from discordkit import table

GOLDEN = Path(__file__).parent / "golden" / "commands.json"


def _clean(payload: object) -> object:
    """A registered command as Discord keeps it, without what the fake adds (ids, versions) and sorted by name."""
    if isinstance(payload, list):
        return [_clean(item) for item in payload]
    if isinstance(payload, dict):
        return {k: _clean(v) for k, v in sorted(payload.items())
                if k not in ("id", "application_id", "version", "guild_id")}
    return payload


async def registered(tmp_path: Path) -> list[object]:
    async with table(tmp_path) as t, t.bot():
        commands = sorted(t.fake.global_commands, key=lambda c: (c.get("type", 1), c["name"]))
        return [_clean(c) for c in commands]


async def test_the_registered_commands_are_the_recorded_ones(tmp_path):
    found = await registered(tmp_path)
    text = json.dumps(found, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("REFEREE_REGEN_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for command in recorded:  # one top-level command at a time: a difference names its command
        name = command["name"]
        mine = next((c for c in found if c["name"] == name), None)  # type: ignore[index]
        assert mine == command, f"/{name} differs from golden/commands.json"
    assert [c["name"] for c in found] == [c["name"] for c in recorded]  # type: ignore[index]


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
