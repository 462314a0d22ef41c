"""docs/nations.md, the Nations players' and GMs' guide, stays true to the code and the data.

It names every command a Nations game offers (the shared ones and the Nations ones) with their options,
every house setting with its default and range, and the seed's numbers as data/nations.toml holds them.
No file of the repository sends a reader to ../shared, which a clone does not have.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields

import pytest
from storehelpers import REPO, console_on, said

from engine.commands import COMMANDS
from engine.commands import GUIDE as HELP_GUIDE
from engine.nations.rules import HouseSettings

GUIDE = REPO / "docs" / "nations.md"
TEXT = GUIDE.read_text(encoding="utf-8")
DATA = tomllib.loads((REPO / "data" / "nations.toml").read_text(encoding="utf-8"))
NATIONS_COMMANDS = [c for c in COMMANDS if c.ruleset in (None, "nations")]


def section(title: str) -> str:
    """The guide's `## title` section, up to the next `## ` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert match, f"docs/nations.md has no section {title!r}"
    return match.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The cells of every markdown table row of `text` (separator rows left out)."""
    rows = []
    for line in (raw.strip() for raw in text.splitlines()):
        if line.startswith("|") and not re.fullmatch(r"[|\s:-]+", line):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def number(value: float) -> str:
    """A number as the guide writes it: 12, 0.1, 336."""
    return f"{value:g}"


# --- commands --------------------------------------------------------------------------------------


def test_the_nations_vocabulary_is_what_the_guide_covers():
    paths = {c.path for c in NATIONS_COMMANDS}
    assert {"game start", "nation claim", "attack declare", "gm house", "help", "log rolls"} <= paths
    assert not any(c.ruleset not in (None, "nations") and c.path in paths for c in COMMANDS)


@pytest.mark.parametrize("command", NATIONS_COMMANDS, ids=lambda c: c.path)
def test_the_guide_lists_every_command_with_its_options(command):
    """Each command present in the vocabulary has a row of the guide's command tables naming every option
    (commands that other work is adding are tested once they are in engine.commands.COMMANDS)."""
    rows = [row for row in table_rows(section("Commands"))
            if re.match(rf"`/{re.escape(command.path)}(`| )", row[0])]
    assert len(rows) == 1, f"/{command.path} has {len(rows)} rows in the guide's command tables"
    written = rows[0][0]
    for param in command.params:
        assert f"{param.name}:" in written, f"/{command.path}'s option {param.name}: is not in {written!r}"
    assert rows[0][1], f"/{command.path} has no description"


def test_the_gm_commands_are_in_the_gm_table():
    gm_table = section("Commands").split("**The GM**", 1)[1]
    for command in NATIONS_COMMANDS:
        if command.path.startswith("gm "):
            assert f"`/{command.path}" in gm_table, command.path


# --- house settings --------------------------------------------------------------------------------


def written_default(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number(value)
    return str(value)


@pytest.mark.parametrize("key", [f.name for f in fields(HouseSettings)])
def test_every_house_setting_has_its_default_and_range(key):
    rows = {row[0].strip("`"): row for row in table_rows(section("House settings"))}
    assert key in rows, f"house setting {key} is not in the guide's House settings table"
    _, default, allowed, what = rows[key]
    shipped = DATA["house"][key]
    assert getattr(HouseSettings(), key) == shipped  # the code's default is the data file's
    assert default == written_default(shipped), f"{key}: the guide says {default!r}, the data {shipped!r}"
    if key in HouseSettings.RANGES:
        low, high = HouseSettings.RANGES[key]
        assert f"{number(low)}–{number(high)}" in allowed, f"{key}: range {low}–{high} not in {allowed!r}"
    if key in HouseSettings.OFF_AT_ZERO:
        assert allowed.startswith("0 ("), allowed
    for choice in HouseSettings.CHOICES.get(key, ()):
        assert choice in allowed
    if isinstance(shipped, bool):
        assert allowed == "true/false"
    assert what


def test_the_house_table_has_no_setting_the_code_lacks():
    keys = {f.name for f in fields(HouseSettings)}
    written = {row[0].strip("`") for row in table_rows(section("House settings"))} - {"setting"}
    assert written == keys


# --- the seed's numbers, as data/nations.toml holds them -------------------------------------------


def test_the_turn_the_actions_the_bonus_and_the_die():
    house = DATA["house"]
    turn = section("The turn and its actions")
    assert f"A turn lasts **{number(house['turn_hours'])} hours**" in turn
    assert f"may make **{house['actions_per_turn']}** rolled actions" in turn
    assert f"Every roll is **one d{DATA['dice']['sides']}**" in section("Dice and stat checks")
    assert f"lasts **{number(house['bonus_hours'])} hours** from the roll" in section("Propaganda")
    assert f"d10 × **{house['spoils_multiplier']}**" in section("Propaganda")
    assert f"send **1 to {DATA['war']['max_units']}** of your units" in section("War")
    assert f"the defender loses {DATA['land']['province']} LAND" in section("War")
    trade = DATA["stability"]
    assert f"trades {trade['trade_military']} MILITARY, for good, for {trade['trade_stability']} STABILITY" in TEXT
    assert f"retreated: {DATA['promotion']['retreat_penalty']} to the roll".replace("-", "−") in section("War")
    share = {2: "half", 3: "third", 4: "quarter"}[DATA["war"]["choice_turn_divisor"]]
    assert house["choice_deadline_hours"] == 0  # the default: a share of the turn
    hours = number(house["turn_hours"] / DATA["war"]["choice_turn_divisor"])
    assert f"has a deadline of a {share} of the turn: {hours} hours in a {number(house['turn_hours'])}-hour turn" \
        in " ".join(section("War").split())
    assert DATA["war"]["choice_reminder_share"] == 0.5 and "Half-way to the deadline" in section("War")


def test_the_stat_modifier_table():
    header, values = [row for row in table_rows(section("Dice and stat checks")) if row[0] in ("score", "modifier")]
    written: dict[int, int] = {}
    for scores, modifier in zip(header[1:], values[1:], strict=True):
        low, _, high = scores.partition("–")
        for score in range(int(low), int(high or low) + 1):
            written[score] = int(modifier.replace("−", "-"))
    assert written == {int(k): v for k, v in DATA["stat_modifiers"].items()}


def test_the_propaganda_table():
    header, values = [row for row in table_rows(section("Propaganda")) if row[0] in ("check total", "bonus")]
    table = {int(k): v for k, v in DATA["propaganda_bonus"].items()}
    for totals, bonus in zip(header[1:], values[1:], strict=True):
        if bonus == "none":
            assert totals == f"{min(table) - 1} or less"
            continue
        low = int(re.match(r"\d+", totals).group())
        high = max(table) if totals.endswith("or more") else int(totals.split("–")[-1])
        for total in range(low, high + 1):
            assert table[total] == int(bonus), (total, bonus)
    assert header[-1] == f"{min(t for t, b in table.items() if b == max(table.values()))} or more"


@pytest.mark.parametrize("unit", list(DATA["units"]))
def test_the_units_table(unit):
    data = DATA["units"][unit]
    rows = {row[0]: row for row in table_rows(section("Units"))}
    row = rows[f"{unit} ({data['code']})"]
    assert row[1:4] == [str(data["rd"]), str(data["mp"]), f"{data['combat']:+d}"]
    for against, value in data["wins"].items():
        assert row[4] == f"{value:+d} vs {against}"
    for against, value in data["fails"].items():
        assert row[5] == f"{value:+d} vs {against}".replace("-", "−")
    for column, change in ((6, data["strength"]), (7, data["weakness"])):
        for key, value in change.items():
            word = {"rd": "RD", "mp": "MP", "combat": "COMBAT", "hp": "HP"}.get(key, key)
            shown = str(value) if key in ("rd", "mp") else f"{value:+d}".replace("-", "−")
            assert shown in row[column] and word in row[column], (row[column], key, value)


def test_the_ranks_and_the_promotion_and_demotion_tables():
    ranks = DATA["ranks"]["order"]
    hp = [f"{r.upper()} ({DATA['ranks']['hp'][r]}{' HP' if i == 0 else ''})" for i, r in enumerate(ranks)]
    assert f"A unit is {', '.join(hp[:-1])} or {hp[-1]}." in " ".join(section("Units").split())
    rows = {row[0]: row[1:] for row in table_rows(section("War"))}
    for rank in ranks:
        assert rows[rank.upper()] == [str(DATA["promotion"][rank][c]) for c in ranks], rank
    for rank in (ranks[1], ranks[-1]):
        written = "/".join(str(DATA["demotion"][rank][c]) for c in ranks)
        assert f"{rank.upper()} {written}" in section("War")


@pytest.mark.parametrize("preset", DATA["presets"], ids=lambda p: str(p["slot"]))
def test_the_presets(preset):
    rows = {row[0]: row for row in table_rows(section("Starting a game")) if row[0].isdigit()}
    row = rows[str(preset["slot"])]
    assert row[1] == (preset["name"] or "*(unnamed)*")
    assert row[2:6] == [str(preset[s]) for s in ("economy", "stability", "military", "propaganda")]
    assert row[6:8] == [preset["strength"], preset["weakness"]]
    for unit, count in preset["units"].items():
        assert f"{count} {unit}" in row[8]
    assert f"Each starts with\n  {DATA['house']['new_nation_land']} LAND" in section("Starting a game")


# --- links --------------------------------------------------------------------------------------


def test_the_readme_points_to_the_guide():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    nations_bullet = readme.split("- **Nations**", 1)[1].split("\n- **", 1)[0]
    assert "[docs/nations.md](docs/nations.md)" in nations_bullet
    docs_row = next(line for line in readme.splitlines() if line.startswith("| `docs/` |"))
    assert "(docs/nations.md)" in docs_row
    assert "## Rulings the referee adds (Nations)" not in readme  # the rulings live in the guide
    assert "## Rulings the referee adds" in TEXT


def repo_texts() -> list:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "cogs").glob("*.py")),
            *sorted((REPO / "engine").rglob("*.py"))]


def test_no_file_sends_readers_to_shared():
    files = repo_texts()
    assert len(files) > 20
    mentions = [str(p.relative_to(REPO)) for p in files if "../shared" in p.read_text(encoding="utf-8")]
    assert mentions == []


def test_help_points_to_the_guides_in_the_repository():
    """/help (console and Discord) ends with the guide line, which names every guide docs/ has, and only those."""
    named = set(re.findall(r"docs/[\w-]+\.md", HELP_GUIDE))
    assert named == {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}


async def test_console_help_ends_with_the_guide_line(tmp_path):
    console, store, out = await console_on(tmp_path / "g.db")
    try:
        await console.handle("alice /help")
        assert said(out)[-1] == HELP_GUIDE
        await console.handle("alice /help topic:economy")  # one group's commands: no guide line
        assert HELP_GUIDE not in said(out)
    finally:
        await store.close()
