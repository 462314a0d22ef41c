"""Issue 11: one place renders for each front-end (cogs/render.py for Discord, engine/describe for the console),
and unit and rank names are written one way everywhere. Issue 17: /log shows each day's date once."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from cogs import render
from engine.describe import roll_line
from engine.dice import RollRecord

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def free_row(player: str = "123456789012345678") -> RollRecord:
    """A free /roll as the ledger stores it: sides 0, its d20 breakdown in `free`."""
    return RollRecord(nation=player, purpose="free roll", die=0, modifiers={}, total=11, target=None,
                      comparison=None, success=None, forced=False, turn=1, at=AT, sides=0,
                      free="2d6 (3, 5) + 3 = 11")


def test_a_free_roll_row_is_rendered_as_a_free_roll_on_both_front_ends():
    assert roll_line(free_row("alice")) == "🎲 alice, free roll, not a rule roll: 2d6 (3, 5) + 3 = 11"
    line = render.ledger_line(free_row())
    assert line == "🎲 <@123456789012345678>, free roll, not a rule roll: 2d6 (3, 5) + 3 = **11**"
    embed = render.rolls_embed([free_row()], "Latest rolls")
    assert "d0" not in (embed.description or "") and "= **11**" in (embed.description or "")


def test_bold_totals_and_verdicts_never_touch_an_escaped_name_and_never_double():
    from engine.events import DieRolled

    name = "**Evil** = 3 vs _x_: success"  # a nation named to look like a roll's tail, with Markdown in it
    roll = RollRecord(nation=name, purpose="grow economy", die=7, modifiers={"mod(E)": 1}, total=8, target=12,
                      comparison=">", success=False, forced=False, turn=1, at=AT)
    [line] = render.event_lines([DieRolled(roll=roll)])
    assert line == (f"🎲 {render.safe(name)}, grow economy: d10 7 + mod(E) +1 = **8** vs > 12: **failure**")
    assert "****" not in line and line.count("**") == 4
    # the bold comes from the record (`roll_line`'s strong parts), never from the finished text: a plain name
    charon = RollRecord(**{**roll.__dict__, "nation": "Charon"})
    assert render.event_lines([DieRolled(roll=charon)]) == [line.replace(render.safe(name), "Charon")]


def test_a_unit_and_its_rank_are_written_one_way_everywhere(game):
    """`#1 infantry GREEN` in every place a unit is shown: the new-unit line, promotion and demotion lines (the
    rank in capitals), the army on the console and on Discord, the autocomplete label and the battle selects."""
    from cogs.nations.autocomplete import unit_label
    from cogs.nations.controls import CommitSelect, PairSelect, RetreatSelect
    from cogs.render import view_embeds
    from engine.describe import event_line
    from engine.nations.describe import unit_name, unit_ref
    from engine.nations.events import UnitAdded, UnitChanged
    from engine.nations.gm import AddUnit
    from engine.nations.views import army_view
    from engine.nations.war import CommitUnits, DeclareAttack
    from engine.view import text_lines

    assert unit_name("infantry", "green") == "infantry GREEN"
    assert unit_ref(1, "infantry", "green") == "#1 infantry GREEN"
    game.nation_with("Avalon", "alice", strength="infantry", weakness="fighter")
    game.nation_with("Brigid", "bob", strength="armour", weakness="bomber")
    game.do(AddUnit("Avalon", "infantry", "green"))  # #1
    game.do(AddUnit("Avalon", "infantry", "green"))  # #2
    game.do(AddUnit("Brigid", "armour", "green"))  # #3
    game.do(AddUnit("Brigid", "armour", "green"))  # #4: not in the battle
    game.do(DeclareAttack("Brigid", [1, 2]), actor="alice")
    game.do(CommitUnits([3]), actor="bob", dice=[6, 5])  # Avalon wins the initiative: it pairs
    state, battle = game.state, game.state.battles[1]
    avalon = state.nations["Avalon"]

    [added] = [e for e in game.events if isinstance(e, UnitAdded) and e.unit == 1]
    promoted = UnitChanged("Avalon", 1, "regular", 4, "promoted", old_rank="green", old_hp=3, type="infantry")
    demoted = UnitChanged("Avalon", 1, "green", 3, "demoted", old_rank="regular", old_hp=4, type="infantry")
    discord_lines = {f"select: {o.label}" for select in (
        CommitSelect.offer(1, state, battle, 3).item, PairSelect.offer(1, state, battle).item,
        RetreatSelect.offer(1, state, battle, ["Avalon"]).item) for o in select.options}
    places = {
        "new unit (console)": event_line(added),
        "new unit (Discord)": render.event_lines([added])[0],
        "promotion": event_line(promoted),
        "demotion": event_line(demoted),
        "army (console)": text_lines(army_view(avalon, game.rules))[1],
        "army (Discord)": view_embeds(army_view(avalon, game.rules))[0].description.splitlines()[0][2:].replace(
            "\\", ""),
        "autocomplete": unit_label(avalon.units[1]),
        **{line: line for line in discord_lines},
    }
    assert places["new unit (console)"] == "Avalon: #1 infantry GREEN (3 HP), added by GM gm."
    assert places["promotion"] == "Avalon: #1 infantry GREEN 3 HP → REGULAR 4 HP (promoted)."
    assert places["demotion"] == "Avalon: #1 infantry REGULAR 4 HP → GREEN 3 HP (demoted)."
    assert places["army (console)"] == "  #1 infantry GREEN 3/3 HP, in battle #1"
    assert places["autocomplete"] == "#1 infantry GREEN 3 HP"
    assert discord_lines == {"select: #4 armour GREEN 2 HP", "select: #1 infantry GREEN against #3 armour GREEN",
                             "select: #2 infantry GREEN against #3 armour GREEN",
                             "select: Retreat #1 infantry GREEN (Avalon)", "select: Retreat #2 infantry GREEN (Avalon)"}
    for where, line in places.items():
        # one spelling: the id, the type as the rules name it, the rank in capitals (never "GREEN infantry",
        # never "green")
        assert re.search(r"#\d (infantry|armour) (GREEN|REGULAR)\b", line), (where, line)
        assert "green" not in line and "GREEN infantry" not in line and "GREEN armour" not in line, (where, line)


# --- issue 17: /log's dates, once a day -------------------------------------------------------------------


def shown(moment: datetime, style: str) -> str:
    """A ledger row's moment as Discord timestamps: `:f` (date and time) or `:t` (time of day), and `:R`."""
    stamp = int(moment.timestamp())
    return f"<t:{stamp}:{style}> (<t:{stamp}:R>)"


def test_the_log_shows_each_days_date_once_on_its_first_roll():
    def row(turn: int, at: datetime, die: int) -> RollRecord:
        return RollRecord(nation="Charon", purpose="grow economy", die=die, modifiers={}, total=die, target=None,
                          comparison=None, success=None, forced=False, turn=turn, at=at)

    day_one, late = AT, AT.replace(hour=23, minute=59)
    day_two, later = AT + timedelta(hours=12), AT + timedelta(hours=20)
    rows = [row(1, day_one, 3), row(1, late, 4), row(2, day_two, 5), row(2, later, 6),
            row(2, datetime(1970, 1, 1, tzinfo=UTC), 7)]  # a row of no known moment (an old import's): none shown
    embed = render.rolls_embed(rows, "Latest rolls")
    assert (embed.description or "").splitlines() == [
        f"T1 {shown(day_one, 'f')} 🎲 Charon, grow economy: d10 3",
        f"T1 {shown(late, 't')} 🎲 Charon, grow economy: d10 4",
        f"T2 {shown(day_two, 'f')} 🎲 Charon, grow economy: d10 5",  # 2 March, 00:00 UTC: a new day
        f"T2 {shown(later, 't')} 🎲 Charon, grow economy: d10 6",
        "T2  🎲 Charon, grow economy: d10 7"]
    assert render.rolls_embed([], "Latest rolls").description == "No rolls yet."


async def test_a_log_spanning_two_days_shows_each_date_once_on_discord(tmp_path):
    from discordkit import START, table

    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", turn_hours=72)  # no turn ends on the way
        moments = [START, START + timedelta(hours=11, minutes=59), START + timedelta(hours=12),
                   START + timedelta(hours=30)]  # 1 March 12:00 and 23:59, 2 March 00:00 and 18:00 (UTC)
        for die, moment in enumerate(moments, start=1):
            t.clock.now = moment
            t.dice.push(die)
            await t.run(t.alice, "roll", dice="1d6")
        log = await t.run(t.bob, "log rolls")
        alice = f"<@{t.alice.id}>"
        assert log.embed["description"].splitlines() == [
            f"T1 {shown(moments[0], 'f')} 🎲 {alice}, free roll, not a rule roll: 1d6 (1) = **1**",
            f"T1 {shown(moments[1], 't')} 🎲 {alice}, free roll, not a rule roll: 1d6 (2) = **2**",
            f"T1 {shown(moments[2], 'f')} 🎲 {alice}, free roll, not a rule roll: 1d6 (3) = **3**",
            f"T1 {shown(moments[3], 't')} 🎲 {alice}, free roll, not a rule roll: 1d6 (4) = **4**"]
        assert datetime.fromisoformat(log.embed["timestamp"]) == moments[3]  # when it was asked for
