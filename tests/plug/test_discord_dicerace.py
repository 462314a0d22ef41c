"""Issue 23's done-when on Discord: a fourth rule set, defined in tests/ alone (tests/support/dicerace.py), registered
and played through discord.py against the fake Discord — with nothing of it written outside tests/.

Dice Race has no Discord package of its own (`RuleSet.discord` is None), so the generic cog builds /race from
its command table (`cogs/vocabulary.py`) and its views are laid out from the engine's `View`s: the game is
started, joined, a move is rolled (forced dice), a move out of turn is refused (to its author alone, nothing
changed), the race is shown, the clock passes over a player who waits too long, and the game is exported with
/gm export and imported with /game import into another channel.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from dicerace import NAME, Join, register_dicerace, unregister_dicerace
from discordkit import START, at, mention, table, texts
from fakediscord import FakeAttachment

from engine.commands import BY_PATH
from engine.rulesets import RULESETS, register, ruleset_of
from engine.view import View, view
from engine.vocabulary import Command, Param

NEUTRAL = 0xC27C0E  # `render.COLOUR`: a move neither won nor lost
CLOCK = 0x3498DB
REFUSAL = 0xE74C3C


@pytest.fixture
def dicerace():
    register_dicerace()
    yield
    unregister_dicerace()


def snapshot(state) -> dict:
    return ruleset_of(state).state_to_dict(state)


def report(result) -> tuple[str | None, str, str | None, int]:
    """A report's heading, lines, footer and colour."""
    [embed] = result.embeds
    return embed.get("title"), embed["description"], (embed.get("footer") or {}).get("text"), embed["color"]


async def test_a_fourth_rule_set_plays_on_discord_from_its_command_table(tmp_path, dicerace):
    async with table(tmp_path) as t, t.bot() as rb:
        gm, alice, bob = mention(t.gm), mention(t.alice), mention(t.bob)

        # /game start offers the rule set; /race, its own group, comes to a server once a game of it starts there.
        game = next(c for c in t.fake.global_commands if c["name"] == "game")
        start = next(o for o in game["options"] if o["name"] == "start")
        assert [c["value"] for c in start["options"][0]["choices"]] == list(RULESETS)
        assert NAME in list(RULESETS)
        assert "race" not in {c["name"] for c in t.fake.global_commands + t.fake.guild_commands(t.guild)}

        started = await t.run(t.gm, "game start", ruleset="dicerace")
        assert report(started) == (
            "Race started", f"🏁 Dice Race: first to square 20 wins; a move waits 1 h. GM: {gm}.", "Dice Race · Turn 1",
            NEUTRAL)
        # /race is built from the table: its commands, their descriptions
        race = next(c for c in t.fake.guild_commands(t.guild) if c["name"] == "race")
        assert [(o["name"], o["description"]) for o in race["options"]] == [
            ("join", "Take a place in the race"), ("roll", "Your move: roll a d6 and move that many squares"),
            ("show", "Every racer's square and whose move it is")]
        assert race["contexts"] == [0] and race["default_member_permissions"] is None

        assert report(await t.run(t.alice, "race join")) == (
            "Racer joined", f"{alice} joins the race.", "Dice Race · Turn 1", NEUTRAL)
        assert report(await t.run(t.bob, "race join")) == (
            "Racer joined", f"{bob} joins the race. First move due {at(1)}.", "Dice Race · Turn 1", NEUTRAL)

        # A move: the die forced, the roll shown in the open.
        t.dice.push(4)
        rolled = await t.run(t.alice, "race roll")
        assert not rolled.ephemeral
        assert report(rolled) == ("Move", f"🎲 {alice}, move: d6 4\n{alice} moves 4 squares.", "Dice Race · Turn 2",
                                  NEUTRAL)
        assert t.dice.all_used()

        # Out of turn: refused, to its author alone, and nothing changes.
        before = snapshot(await t.state(rb))
        refused = await t.run(t.alice, "race roll")
        assert refused.ephemeral
        assert [(e["title"], e["description"], e["color"]) for e in refused.embeds] == [
            ("Refused — nothing changed", f"⛔ it is {bob}'s move, not yours", REFUSAL)]
        assert snapshot(await t.state(rb)) == before

        # A query: the engine's view laid out (its title names the GM: cut before the name, the rest heads the text).
        race_now = [f"GM: {gm}", "2 racers", f"• {alice}: square 4", f"• {bob}: square 0 ← to move until {at(1)}"]
        shown = await t.run(t.bob, "race show")
        assert not shown.ephemeral
        assert shown.embeds[0]["title"] == "Dice Race — move 2, goal square 20"
        assert shown.embeds[0]["description"].splitlines() == race_now
        assert t.status_message().embeds[0]["description"].splitlines() == race_now  # the pinned status: the same

        # The clock: bob waits more than the hour; the timer's wake passes him over.
        t.clock.advance(hours=1, minutes=1)
        seen = len(t.messages())
        await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
        [passed] = [m for m in t.messages()[seen:] if m.embeds]
        assert report(passed) == (
            "Racer passed", f"⏰ {bob} did not roll in time and is passed over; next move due {at(2)}.",
            "Dice Race · Turn 3", CLOCK)
        assert (await t.state(rb)).whose_move() == str(t.alice.id)
        assert t.status_message().embeds[0]["description"].splitlines()[2:] == [
            f"• {alice}: square 4 ← to move until {at(2)}", f"• {bob}: square 0"]

        # The roll ledger finds a racer by the rule set's own lookup.
        ledger = await t.run(t.bob, "log rolls", nation=str(t.alice.id))
        stamp = f"<t:{int(START.timestamp())}:f> (<t:{int(START.timestamp())}:R>)"
        heading, row = ledger.embeds[0]["description"].splitlines()
        assert heading == f"Rolls of {alice}:"
        assert re.fullmatch(re.escape(f"T1 {stamp} 🎲 {alice}, move: d6 4")  # with its announcement's link
                            + r" \[↗\]\(https://discord\.com/channels/\d+/\d+/\d+\)", row)

        # Export, then import into another channel: the importer is the copy's GM, with its own pinned status.
        exported = await t.run(t.gm, "gm export")
        assert exported.deferred and exported.ephemeral
        message = await exported.wait_for_final_message()
        [attachment] = message.attachments
        assert (message.content, attachment.filename) == ("The game's export:", "dicerace-game.json")
        data = json.loads(attachment.data)
        assert data["game"]["ruleset"] == "dicerace" and data["game"]["turn"] == 3
        assert data["racers"] == [{"name": str(t.alice.id), "square": 4}, {"name": str(t.bob.id), "square": 0}]
        assert [(r["purpose"], r["die"], r["sides"]) for r in data["rolls"]] == [("move", 4, 6)]

        annex = t.fake.add_channel(t.guild, "annex")
        imported = await t.run(t.bob, "game import", channel=annex,
                               file=FakeAttachment("dicerace-game.json", attachment.data))
        done = await imported.wait_for_final_message()
        assert done.ephemeral
        assert done.content == ("Dice Race game imported from dicerace-game.json: move 3, 2 racers; GM: "
                                f"{mention(t.bob)}.")
        copy = await t.state(rb, annex)
        assert copy.gm == str(t.bob.id)
        original = snapshot(await t.state(rb))
        original["game"]["gm"] = str(t.bob.id)
        assert snapshot(copy) == original
        assert t.status_message(annex).embeds[0]["title"] == "Dice Race — move 3, goal square 20"
        assert t.status_message(annex).embeds[0]["description"].splitlines() == [
            f"GM: {bob}", "2 racers",
            f"• {alice}: square 4 ← to move until {at(2)}", f"• {bob}: square 0"]
        assert t.status_message(annex) is not t.status_message()

        # The copy plays on: alice's move there, refused to bob.
        refused = await t.run(t.bob, "race roll", channel=annex)
        assert refused.ephemeral and texts(refused) == f"⛔ it is {alice}'s move, not yours"


async def test_a_rule_sets_commands_are_refused_in_another_rule_sets_game(tmp_path, dicerace):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start")  # the main game: Nations
        # a Dice Race game elsewhere in the server: /race is offered here too
        await t.run(t.gm, "game start", ruleset="dicerace", channel=t.fake.add_channel(t.guild, "race"))
        refused = await t.run(t.alice, "race join")
        assert refused.ephemeral
        assert texts(refused) == "⛔ /race join is a Dice Race command, and this channel's game is Nations"
        shown = await t.run(t.alice, "race show")
        assert shown.ephemeral
        assert texts(shown) == "⛔ /race show is a Dice Race command, and this channel's game is Nations"
        assert "/race join" in texts(await t.run(t.alice, "help", topic="race"))


def test_unregistered_it_is_gone_from_the_command_table():
    assert NAME not in RULESETS and "race join" not in BY_PATH


# --- the generic cog's options, /gm commands and TOML files, on Dice Race with a few more commands ------------


def echo(state, rules, actor, options) -> View:
    """A query that shows the options it was given, typed."""
    return view("Options", *(f"{name}={value!r}" for name, value in sorted(options.items())))


MORE = (
    Command("race bet", "bet on a racer", (Param("amount", int, True, "how much"), Param("odds", float),
                                           Param("colour", choices=("red", "black")), Param("from", help="whose")),
            view=echo),
    Command("gm race peek", "what only the GM sees", view=echo, gm_only=True),
    Command("gm race load", "load a TOML file, then join", (Param("file", required=True, help="a TOML file"),),
            action=lambda o: Join(), gm_only=True, toml_option="file"),
)


@pytest.fixture
def dicerace_plus():
    found = register_dicerace()
    register(replace(found, commands=found.commands + MORE))
    yield
    unregister_dicerace()


async def test_the_generic_cog_types_describes_and_checks_every_option(tmp_path, dicerace_plus):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="dicerace")  # /race: registered on a server that plays it
        race = next(c for c in t.fake.guild_commands(t.guild) if c["name"] == "race")
        bet = next(o for o in race["options"] if o["name"] == "bet")
        assert [(o["name"], o["type"], o.get("required", False), o["description"], o.get("choices"))
                for o in bet["options"]] == [
            ("amount", 4, True, "How much", None), ("odds", 10, False, "Odds", None),
            ("colour", 3, False, "Colour", [{"name": "red", "value": "red"}, {"name": "black", "value": "black"}]),
            ("from", 3, False, "Whose", None)]
        gm = next(c for c in t.fake.global_commands if c["name"] == "gm")
        group = next(o for o in gm["options"] if o["name"] == "race")
        assert [(o["name"], o["description"]) for o in group["options"]] == [
            ("peek", "What only the GM sees (GM)"), ("load", "Load a TOML file, then join (GM)")]

        shown = await t.run(t.alice, "race bet", amount=3, odds=1.5, colour="red", **{"from": "bob"})
        assert shown.embeds[0]["title"] == "Options"
        assert shown.embeds[0]["description"].splitlines() == [
            "amount=3", "colour='red'", "from='bob'", "odds=1.5"]

        # /gm race …: for the game's GM only (the server lets alice see /gm; she is not this game's GM).
        t.fake.allow(t.guild, "gm", t.alice)
        refused = await t.run(t.alice, "gm race peek")
        assert refused.ephemeral and texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"
        assert (await t.run(t.gm, "gm race peek")).embeds[0]["title"] == "Options"

        # A TOML file: read first (a refusal to its sender alone), then the action, answered to the channel.
        bad = await t.run(t.gm, "gm race load", file=FakeAttachment("bad.toml", b"= oops"))
        refusal = await bad.wait_for_final_message()
        assert refusal.ephemeral and texts(refusal).startswith("⛔ cannot read bad.toml as a TOML file: ")
        loaded = await t.run(t.gm, "gm race load", file=FakeAttachment("good.toml", b"speed = 3"))
        first = await loaded.wait_for_final_message()
        assert first.ephemeral and first.content == "good.toml read."
        [joined] = loaded.followups[1:]
        assert not joined.ephemeral and texts(joined) == f"{mention(t.gm)} joins the race."
