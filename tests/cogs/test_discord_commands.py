"""The Discord front-end, command by command: the real bot (discord.py) against the fake Discord.

Every slash command of the vocabulary runs here or in test_discord_battle.py / test_discord_clock.py;
dice are forced wherever an outcome matters, so every line of every answer is exact.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import discord
import pytest
from discordkit import at, field, mention, start_war, table, texts
from fakediscord import MANAGE_MESSAGES, FakeAttachment, FakeMember, InvalidInteraction
from storehelpers import check_export_contract, contract_view

from cogs.commandsets import owners
from engine.commands import COMMANDS
from engine.nations.snapshot import state_to_dict
from engine.rulesets import RULESETS
from service import charts

REPO = Path(__file__).resolve().parents[2]
NO_GAME = "⛔ there is no game in this channel: start one with /game start"


def named(result: object, *members: FakeMember) -> str:
    """`texts` with each member as @name, whether the bot wrote a mention or (in a reason) a bare id."""
    text = texts(result)
    for member in members:
        text = text.replace(mention(member), f"@{member.user.name}").replace(str(member.id), f"@{member.user.name}")
    return text


def slash_commands(fake_commands: list[dict]) -> set[str]:
    """Every registered slash command path, e.g. "gm unit add"."""
    paths: set[str] = set()

    def walk(prefix: str, options: list[dict]) -> bool:
        found = False
        for option in options:
            if option["type"] in (1, 2):  # subcommand, subcommand group
                found = True
                if not walk(f"{prefix} {option['name']}", option.get("options", [])):
                    paths.add(f"{prefix} {option['name']}")
        return found

    for command in fake_commands:
        if not walk(command["name"], command.get("options", [])):
            paths.add(command["name"])
    return paths


async def test_the_registered_commands_are_the_vocabulary(tmp_path):
    async with table(tmp_path) as t, t.bot():
        own = {c.path for c in COMMANDS if c.path.split()[0] in owners()}  # a rule set's own groups (issue 34)
        assert slash_commands(t.fake.global_commands) == {c.path for c in COMMANDS} - own
        for name in RULESETS:  # a game of each rule set elsewhere in the server: their own commands come here
            await t.run(t.gm, "game start", ruleset=name, channel=t.fake.add_channel(t.guild, name))
        registered = t.fake.global_commands + t.fake.guild_commands(t.guild)
        assert slash_commands(registered) == {c.path for c in COMMANDS}
        result = await t.run(t.alice, "help")
        assert result.ephemeral
        assert result.embed["title"] == "Referee commands (/help topic:<group> for one group's options)"
        lines = result.embed["description"].splitlines()
        shared = {c.path.split()[0] for c in COMMANDS if c.ruleset is None}
        ids = {c["name"]: c["id"] for c in registered}
        e = ids["economy"]
        # issue 17: no game here, so the groups every game shares (one line a group), then how to start each game
        assert len([line for line in lines if line.startswith("**/")]) == len(shared)
        assert f"**Nations** — </game start:{ids['game']}> `ruleset:nations`, then /nation, /economy, " in (
            result.embed["description"])
        economy = await t.run(t.alice, "help", topic="economy")
        assert economy.embed["title"] == "/economy commands"
        assert f"</economy recruit:{e}> `unit:` `[nation:]` — ECONOMY check to recruit a unit" in (
            economy.embed["description"].splitlines())
        gm_help = (await t.run(t.alice, "help", topic="gm")).embed["description"].splitlines()
        assert (f"</gm undo:{ids['gm']}> `[steps:]` — undo the game's last action (or last N), rolls included, "
                "after a preview (GM)") in gm_help


async def test_a_channel_without_a_game_says_how_to_start_one(tmp_path):
    async with table(tmp_path) as t, t.bot():
        # a Nations game in another channel: its commands are offered in this one too
        await t.run(t.gm, "game start", channel=t.fake.add_channel(t.guild, "elsewhere"))
        for command, options in [("game status", {}), ("nation show", {}), ("economy grow", {}),
                                 ("attack status", {}), ("log rolls", {}), ("game end", {}),
                                 ("nation claim", {"preset": "1"})]:
            result = await t.run(t.alice, command, **options)
            assert result.ephemeral, command
            assert texts(result) == NO_GAME, command
        # The GM's commands say how to become a GM there.
        result = await t.run(t.gm, "gm turn end")
        assert result.ephemeral and texts(result) == ("⛔ no game here: /game start or /game import makes you its GM "
                                                      "(/gm is for a game's GM and co-GMs)")
        assert t.messages() == []  # nothing public, no status message: there is no game


async def test_players_commands(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        dice = t.dice
        started = await t.run(t.gm, "game start", turn_hours=12)
        assert not started.ephemeral
        assert texts(started) == (f"A Nations game begins, refereed by the bot; GM: {mention(t.gm)}. "
                                  f"Turn 1 lasts 12 hours and ends {at(12)}.")
        again = await t.run(t.alice, "game start")
        assert again.ephemeral
        assert texts(again) == "⛔ this channel already has a game running: /game status shows it"

        claimed = await t.run(t.alice, "nation claim", preset="1")
        assert texts(claimed).splitlines() == [
            (f"🏳 Gracchan Republic joins the game, played by {mention(t.alice)}: E 12, S 10, M 8, P 10, L 20; "
            "STRENGTH infantry, WEAKNESS bomber."),
            "Gracchan Republic: #1 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #2 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #3 infantry GREEN (3 HP), starting army.",
            "Gracchan Republic: #4 bomber GREEN (2 HP), starting army.",
            "Gracchan Republic: #5 armour GREEN (2 HP), starting army.",
        ]
        created = await t.run(t.bob, "nation create", name="Bobland", economy=10, military=10,
                              strength="infantry", weakness="armour", units="infantry:3 armour:1")
        assert not created.ephemeral
        assert texts(created).splitlines()[0] == (
            f"🏳 Bobland joins the game, played by {mention(t.bob)}: E 10, S 10, M 10, P 10, L 20; "
            "STRENGTH infantry, WEAKNESS armour.")
        assert "Bobland: #9 armour GREEN (2 HP), starting army." in texts(created)

        shown = await t.run(t.alice, "nation show")
        assert not shown.ephemeral
        embed = shown.embed  # the nation's sheet: its stat block's columns kept in a code block, its army a field
        assert embed["title"] == "Gracchan Republic"
        assert embed["description"].splitlines() == [
            f"played by {mention(t.alice)}", "```", "ECONOMY 12 (+1)  STABILITY 10 (+0)",
            "MILITARY 8 (-1)  PROPAGANDA 10 (+0)  LAND 20 (E+M 20)", "STRENGTH infantry, WEAKNESS bomber", "```",
            "Actions: 2 of 2 left this turn"]
        [army] = embed["fields"]
        assert army["name"] == "Army of Gracchan Republic: 8 of 8 MP"
        assert army["value"].splitlines()[0] == "• \\#1 infantry GREEN 3/3 HP"
        other = await t.run(t.alice, "nation show", nation="bobland")
        assert other.embed["title"] == "Bobland" and "STRENGTH infantry, WEAKNESS armour" in texts(other)
        listed = await t.run(t.bob, "nation list")
        assert [line.split(" — ")[0] for line in listed.embed["description"].splitlines()] == [
            "Gracchan Republic", "Bobland"]

        # A refusal: an ephemeral embed with the engine's reason, and nothing changes.
        before = state_to_dict(await t.state(rb))
        refused = await t.run(t.alice, "economy grow")
        assert refused.ephemeral
        assert texts(refused) == "⛔ no room: E+M = 20 already equals your land 20"
        assert refused.embed["color"] == discord.Colour.red().value
        assert state_to_dict(await t.state(rb)) == before

        dice.push(9)  # 9 + mod(E 12) +1 = 10 > M 8
        grown = await t.run(t.alice, "economy military")
        assert not grown.ephemeral
        assert grown.embed["description"].splitlines() == [
            "🎲 Gracchan Republic, grow military: d10 9 + mod(E) +1 = **10** vs > 8: **success**",
            "Gracchan Republic: MILITARY +1 (grow military).",
            "Gracchan Republic: ECONOMY -1 (cost of growing military).",
        ]
        assert field(grown.embed, "Actions") == f"1 of 2 actions left, turn ends {at(12)}"
        twice = await t.run(t.alice, "economy recruit", unit="infantry")
        assert twice.ephemeral and texts(twice) == (
            "⛔ Gracchan Republic has already made its ECONOMY action this turn (turn 1); no doubling up")

        dice.push(7)  # 7 + mod(E 10) 0 >= RD 7
        recruited = await t.run(t.bob, "economy recruit", unit="infantry")
        assert texts(recruited).splitlines()[:2] == [
            "🎲 Bobland, recruit infantry: d10 7 vs >= 7: **success**",
            "Bobland: #10 infantry GREEN (3 HP), recruited.",
        ]
        traded = await t.run(t.bob, "stability raise")
        assert texts(traded).splitlines() == ["Bobland: MILITARY -2 (traded for stability).",
                                              "Bobland: STABILITY +1 (traded military)."]

        dice.push(8)  # 8 + mod(P 10) 0 → Workers +2
        encouraged = await t.run(t.alice, "propaganda encourage", kind="workers")
        assert encouraged.embed["description"].splitlines() == [
            "🎲 Gracchan Republic, encourage workers: d10 8 vs >= 5: **success**",
            f"✨ Gracchan Republic: Workers +2 until {at(36)}.",
        ]
        assert field(encouraged.embed, "Actions") == f"0 of 2 actions left, turn ends {at(12)}"

        dice.push(10)  # 10 + mod(P 10) 0 is not above Gracchan's S 10
        swayed = await t.run(t.bob, "propaganda attack", target="Gracchan Republic")
        assert swayed.embed["description"].splitlines() == [
            "🎲 Bobland, propaganda attack on Gracchan Republic: d10 10 vs > 10: **failure**",
            "Bobland: PROPAGANDA -1 (failed propaganda attack).",
        ]

        army = await t.run(t.alice, "army show")
        assert army.embed["title"] == "Army of Gracchan Republic: 8 of 9 MP"
        assert army.embed["description"].splitlines() == [
            "• \\#1 infantry GREEN 3/3 HP", "• \\#2 infantry GREEN 3/3 HP", "• \\#3 infantry GREEN 3/3 HP",
            "• \\#4 bomber GREEN 2/2 HP", "• \\#5 armour GREEN 2/2 HP"]
        bobs = await t.run(t.alice, "army show", nation="Bobland")
        assert "• \\#10 infantry GREEN 3/3 HP" in bobs.embed["description"]
        not_yours = await t.run(t.alice, "army disband", unit=6)
        assert not_yours.ephemeral and texts(not_yours) == "⛔ unit #6 belongs to Bobland, not Gracchan Republic"
        disbanded = await t.run(t.alice, "army disband", unit=5)
        assert texts(disbanded) == "Gracchan Republic: #5 armour disbanded."

        battles = await t.run(t.alice, "attack status")
        assert battles.embed["title"] == "No battles."

        rolls = await t.run(t.bob, "log rolls")
        assert rolls.embed["title"] == "Latest rolls"
        same_day = at().replace(":f>", ":t>")  # issue 17: the date on the day's first roll, the time alone after
        rows = rolls.embed["description"].splitlines()
        link = re.compile(r" \[↗\]\(https://discord\.com/channels/\d+/\d+/\d+\)$")  # to its command's answer
        assert all(link.search(row) for row in rows)
        assert [link.sub("", row) for row in rows] == [
            f"T1 {at()} 🎲 Gracchan Republic, grow military: d10 9 + mod(E) +1 = 10 vs > 8: success",
            f"T1 {same_day} 🎲 Bobland, recruit infantry: d10 7 vs >= 7: success",
            f"T1 {same_day} 🎲 Gracchan Republic, encourage workers: d10 8 vs >= 5: success",
            f"T1 {same_day} 🎲 Bobland, propaganda attack on Gracchan Republic: d10 10 vs > 10: failure",
        ]
        mine = await t.run(t.bob, "log rolls", nation="gracchan republic", limit=1)
        assert mine.embed["title"] == "Rolls of Gracchan Republic"
        assert link.sub("", mine.embed["description"]) == (
            f"T1 {at()} 🎲 Gracchan Republic, encourage workers: d10 8 vs >= 5: success")
        assert dice.all_used()

        state = await t.state(rb)
        gracchan, bobland = state.nations["Gracchan Republic"], state.nations["Bobland"]
        assert (gracchan.economy, gracchan.military, gracchan.land, gracchan.bonus("workers")) == (11, 9, 20, 2)
        assert (bobland.military, bobland.stability, bobland.propaganda, bobland.land) == (8, 11, 9, 20)
        assert sorted(gracchan.units) == [1, 2, 3, 4] and 10 in bobland.units


async def test_game_start_takes_a_rule_set(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        [start] = [o for o in t.fake.find_command(None, "game")["options"] if o["name"] == "start"]
        [ruleset] = [o for o in start["options"] if o["name"] == "ruleset"]
        assert not ruleset.get("required") and [c["value"] for c in ruleset["choices"]] == list(RULESETS)

        started = await t.run(t.gm, "game start", ruleset="nations", turn_hours=12)
        assert not started.ephemeral
        assert texts(started) == (f"A Nations game begins, refereed by the bot; GM: {mention(t.gm)}. "
                                  f"Turn 1 lasts 12 hours and ends {at(12)}.")
        assert (await t.state(rb)).ruleset == "nations"
        # The game's log records the options given, and only those.
        referee = rb.bot.referee
        [logged] = await referee.store.actions(await referee.game_id(t.key()))
        assert logged.command == "/game start ruleset:nations turn_hours:12.0"
        plain = t.fake.add_channel(t.guild, "plain")
        await t.run(t.gm, "game start", channel=plain)
        [logged] = await referee.store.actions(await referee.game_id(t.key(plain)))
        assert logged.command == "/game start"
        assert (await t.state(rb, plain)).ruleset == "nations"

        # The Discord client offers only the rule sets registered...
        elsewhere = t.fake.add_channel(t.guild, "elsewhere")
        with pytest.raises(InvalidInteraction):
            await t.fake.invoke(t.guild, elsewhere, t.gm, "game start", options={"ruleset": "chess"})
        # ...but commands registered by another version of the bot may offer one it lacks: refused, ephemeral.
        ruleset["choices"].append({"name": "chess", "value": "chess"})
        refused = await t.run(t.gm, "game start", channel=elsewhere, ruleset="chess")
        assert refused.ephemeral
        assert texts(refused) == f"⛔ unknown rule set 'chess'; rule sets: {', '.join(RULESETS)}"
        assert t.messages(elsewhere) == []
        assert texts(await t.run(t.gm, "game status", channel=elsewhere)) == NO_GAME


async def test_gm_commands(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        gm = mention(t.gm)

        queued = await t.run(t.gm, "gm dice", values="9 4", purpose="any")
        assert queued.ephemeral and texts(queued) == f"GM {gm} entered the next 2 dice."
        grown = await t.run(t.alice, "economy military")
        assert texts(grown).splitlines()[0] == (
            "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = **10** vs > 8: **success**")
        assert (await t.state(rb)).forced_dice == [4]
        cleared = await t.run(t.gm, "gm dice", values="clear")
        assert texts(cleared) == f"GM {gm} cleared the entered dice."
        bad = await t.run(t.gm, "gm dice", values="11")
        assert bad.ephemeral and texts(bad) == "⛔ a d10 shows 1 to 10; not 11"

        adjusted = await t.run(t.gm, "gm set", nation="Charon", stat="propaganda", value="+2")
        assert named(adjusted, t.gm) == "Charon: PROPAGANDA +2 (set by GM @gm)."
        landed = await t.run(t.gm, "gm set", nation="Charon", stat="land", value="25")
        assert named(landed, t.gm) == "Charon: LAND +5 (set by GM @gm)."
        t.dice.push(10)  # room to grow now, but 10 + mod(E 11) 0 is not above E 11
        grown = await t.run(t.bob, "economy grow")
        assert grown.embed["description"] == "🎲 Charon, grow economy: d10 10 vs > 11: **failure**"

        added = await t.run(t.gm, "gm unit add", nation="Gracchan Republic", type="fighter", rank="elite")
        assert named(added, t.gm).splitlines() == [
            "Gracchan Republic: #10 fighter ELITE (4 HP), added by GM @gm.",
            ("⚠ Gracchan Republic's army costs 10 MP against M 9: over its MP cap. It keeps its units but "
            "cannot recruit until it fits; its player may disband units."),
        ]
        ranked = await t.run(t.gm, "gm unit rank", unit=10, rank="guard", hp=3)
        assert named(ranked, t.gm) == "Gracchan Republic: #10 fighter ELITE 4 HP → GUARD 3 HP (changed by GM @gm)."
        removed = await t.run(t.gm, "gm unit remove", unit=10)
        assert named(removed, t.gm) == "Gracchan Republic: #10 fighter removed by GM @gm."

        revoked = await t.run(t.gm, "gm action revoke", nation="Charon", kind="attack")
        assert texts(revoked) == f"GM {gm} takes Charon's ATTACK action away this turn."
        refused = await t.run(t.bob, "attack declare", target="Gracchan Republic", units="6")
        assert refused.ephemeral
        assert texts(refused) == "⛔ Charon has already made its ATTACK action this turn (turn 1); no doubling up"
        granted = await t.run(t.gm, "gm action grant", nation="Charon", kind="attack")
        assert texts(granted) == f"GM {gm} gives Charon its ATTACK action back this turn."

        unassigned = await t.run(t.gm, "gm assign", nation="Charon")
        assert texts(unassigned) == "Charon has no player now."
        assigned = await t.run(t.gm, "gm assign", nation="Charon", player=t.bob)
        assert texts(assigned) == f"Charon is now played by {mention(t.bob)}."
        eliminated = await t.run(t.gm, "gm eliminate", nation="Charon")
        assert named(eliminated, t.gm) == "💀 Charon is eliminated: eliminated by GM @gm."
        restored = await t.run(t.gm, "gm restore", nation="Charon")
        assert texts(restored) == f"Charon is restored to the game by GM {gm}."
        house = await t.run(t.gm, "gm house", key="bonus_hours", value="24")
        assert texts(house) == (  # escaped as engine text
            r"House setting bonus hours (\`bonus\_hours\`) is now 24 for this game.")
        unknown = await t.run(t.gm, "gm house", key="dragons", value="1")
        assert unknown.ephemeral and texts(unknown).startswith("⛔ unknown house setting 'dragons'; settings: ")

        length = await t.run(t.gm, "gm clock length", hours=6)
        assert texts(length) == f"Turns now last 6 hours; this turn ends {at(6)}."
        paused = await t.run(t.gm, "gm clock pause")
        assert texts(paused) == "⏸ The clock is paused: every deadline waits until it resumes."
        assert t.status_message().embeds[0]["title"] == "Nations — turn 1 (6 h), paused: 6 h left of the turn"
        t.clock.advance(hours=2)
        resumed = await t.run(t.gm, "gm clock resume")
        assert texts(resumed) == (  # 6 hours were left
            f"▶ The clock runs again: this turn ends {at(8)}; every deadline has its time left.")
        ended = await t.run(t.gm, "gm turn end")
        assert texts(ended) == (f"⏰ Turn 1 is over (ended by the GM). Turn 2 begins and ends {at(8)}. "
                                "Last turn — Gracchan Republic: ECONOMY; Charon: ECONOMY.")
        assert t.status_message().embeds[0]["title"].startswith("Nations — turn 2 (")

        # Undo shows what it takes back first, ephemerally; only the confirmation undoes, once.
        asked = await t.run(t.gm, "gm undo")
        assert asked.ephemeral
        assert asked.content == "Undo the last action? It takes back, with its rolls and every change it made:"
        assert texts(asked).splitlines()[1].endswith("“/gm turn end” (" + at(2) + ")")
        assert asked.message.button_labels() == ["Confirm", "Cancel"]
        button = asked.custom_ids[0]
        game_id = await rb.bot.referee.game_id(t.key())
        target = await rb.bot.referee.undo_target(t.key())
        assert button == f"referee:confirm:undo:{game_id}:{t.gm.id}:{target.id}"  # the action it undoes
        assert (await t.state(rb)).turn == 2
        confirmed = await t.click(t.gm, asked.message, button)
        assert confirmed.message is asked.message and asked.custom_ids == []  # the button is gone
        [undone] = confirmed.followups
        assert not undone.ephemeral
        assert named(undone, t.gm) == "↩ GM @gm undid @gm's “/gm turn end” and all its rolls."
        assert (await t.state(rb)).turn == 1
        assert t.status_message().embeds[0]["title"].startswith("Nations — turn 1 (")

        # End the game: an ephemeral question, then the button.
        asked = await t.run(t.gm, "game end")
        assert asked.ephemeral and asked.message.button_labels() == ["End the game", "Cancel"]
        assert (await t.state(rb)).ended is False
        confirmed = await t.click(t.gm, asked.message, asked.custom_ids[0])
        assert asked.custom_ids == []
        assert texts(confirmed.followups[0]) == "The game is over."
        assert t.status_message().embeds[0]["title"] == "Nations — turn 1 (6 h), over"
        assert "**GAME OVER**" in t.status_message().embeds[0]["description"]
        over = await t.run(t.alice, "game status")  # issue 11: the last game, shown as over (not "no game")
        assert not over.ephemeral and texts(over).startswith("Game over: this is the channel's last game")


async def test_undo_confirmation_counts_once_and_only_for_its_gm(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start")
        await t.run(t.gm, "gm dice", values="3", purpose="any")
        await t.run(t.gm, "gm dice", values="4", purpose="any")
        asked = await t.run(t.gm, "gm undo")
        button = asked.custom_ids[0]
        stranger = await t.click(t.alice, asked.message, button)  # a forwarded id, say: not for alice
        assert stranger.ephemeral and texts(stranger) == "⛔ this button is not for you"
        assert (await t.state(rb)).forced_dice == [3, 4]
        await t.click(t.gm, asked.message, button)
        assert (await t.state(rb)).forced_dice == [3]
        assert asked.custom_ids == []  # no second click: one confirmation, one undo


async def test_gm_permissions(tmp_path):
    async with table(tmp_path) as t:
        fake, guild = t.fake, t.guild
        gm_role = fake.add_role(guild, "GM")
        admin_role = fake.add_role(guild, "Admins", discord.Permissions(manage_guild=True).value)
        mods = fake.add_role(guild, "Moderators", MANAGE_MESSAGES)
        carol = fake.add_member(guild, fake.add_user("carol"), roles=[gm_role])
        dave = fake.add_member(guild, fake.add_user("dave"), roles=[admin_role])
        erin = fake.add_member(guild, fake.add_user("erin"), roles=[mods])
        for member in (t.alice, carol, erin):  # /gm is for Manage Server by default: the server lets them see it
            fake.allow(guild, "gm", member)
        async with t.bot() as rb:
            await start_war(t)
            before = state_to_dict(await t.state(rb))
            for who in (t.alice, erin):
                refused = await t.run(who, "gm set", nation="Gracchan Republic", stat="land", value="40")
                assert refused.ephemeral
                assert texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"
                refused = await t.run(who, "gm dice", values="10", purpose="any")
                assert refused.ephemeral and texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"
            assert state_to_dict(await t.state(rb)) == before
            # A GM only by the engine's check: /game end is refused before it asks to confirm.
            refused = await t.run(t.alice, "game end")
            assert refused.ephemeral and texts(refused) == "⛔ only the GM may end the game"
            assert (await t.state(rb)).ended is False

            allowed = await t.run(carol, "gm set", nation="Gracchan Republic", stat="land", value="40")
            assert not allowed.ephemeral
            assert named(allowed, carol) == "Gracchan Republic: LAND +20 (set by GM @carol)."
            allowed = await t.run(dave, "gm set", nation="Charon", stat="stability", value="12")
            assert named(allowed, dave) == "Charon: STABILITY +2 (set by GM @dave)."
            state = await t.state(rb)
            assert state.nations["Gracchan Republic"].land == 40 and state.nations["Charon"].stability == 12


async def test_autocomplete(tmp_path):
    async with table(tmp_path) as t:
        fake, guild, channel = t.fake, t.guild, t.channel
        async with t.bot():
            await t.run(t.gm, "game start")
            presets = await fake.autocomplete(guild, channel, t.alice, "nation claim", focused="preset")
            assert [c["name"] for c in presets] == ["1: Gracchan Republic", "7: Charon", "9: Zombiestan",
                                                   "10: Sovatank", "11: (unnamed: name it with name:)"]
            await t.run(t.alice, "nation claim", preset="1")
            await t.run(t.bob, "nation claim", preset="7")
            presets = await fake.autocomplete(guild, channel, t.alice, "nation claim", focused="preset",
                                              options={"preset": "so"})
            assert presets == [{"name": "10: Sovatank", "value": "10"}]
            presets = await fake.autocomplete(guild, channel, t.alice, "nation claim", focused="preset")
            assert [c["value"] for c in presets] == ["9", "10", "11"]  # the claimed ones are gone

            nations = await fake.autocomplete(guild, channel, t.alice, "propaganda attack", focused="target",
                                              options={"target": "CHAR"})
            assert nations == [{"name": "Charon", "value": "Charon"}]
            nations = await fake.autocomplete(guild, channel, t.bob, "nation show", focused="nation")
            assert [c["value"] for c in nations] == ["Gracchan Republic", "Charon"]

            own = await fake.autocomplete(guild, channel, t.alice, "army disband", focused="unit")
            assert own == [{"name": "#1 infantry GREEN 3 HP (Gracchan Republic)", "value": 1},
                           {"name": "#2 infantry GREEN 3 HP (Gracchan Republic)", "value": 2},
                           {"name": "#3 infantry GREEN 3 HP (Gracchan Republic)", "value": 3},
                           {"name": "#4 bomber GREEN 2 HP (Gracchan Republic)", "value": 4},
                           {"name": "#5 armour GREEN 2 HP (Gracchan Republic)", "value": 5}]
            own = await fake.autocomplete(guild, channel, t.bob, "attack retreat", focused="unit",
                                          options={"unit": "bomb"})
            assert own == [{"name": "#9 bomber GREEN 2 HP (Charon)", "value": 9}]
            every = await fake.autocomplete(guild, channel, t.gm, "gm unit remove", focused="unit")
            assert [c["value"] for c in every] == [1, 2, 3, 4, 5, 6, 7, 8, 9]  # the GM sees every unit

            keys = await fake.autocomplete(guild, channel, t.gm, "gm house", focused="key", options={"key": "bonus"})
            assert keys == [{"name": "bonus_hours (default 36.0)", "value": "bonus_hours"}]
            keys = await fake.autocomplete(guild, channel, t.gm, "gm house", focused="key")
            assert len(keys) == 16 and keys[0] == {"name": "turn_hours (default 12.0)", "value": "turn_hours"}

            elsewhere = fake.add_channel(guild, "lobby")  # no game there: nothing to offer but the presets
            assert await fake.autocomplete(guild, elsewhere, t.alice, "nation show", focused="nation") == []
            assert await fake.autocomplete(guild, elsewhere, t.alice, "army disband", focused="unit") == []
            assert len(await fake.autocomplete(guild, elsewhere, t.alice, "nation claim", focused="preset")) == 5


async def test_export_and_import_into_another_channel(tmp_path):
    async with table(tmp_path) as t:
        fake, guild = t.fake, t.guild
        gm_role = fake.add_role(guild, "GM")
        fake.add_member(guild, t.gm.user, roles=[gm_role])  # the GM role: may import where no game is yet
        annex = fake.add_channel(guild, "annex")
        async with t.bot() as rb:
            await start_war(t)
            t.dice.push(8)
            await t.run(t.alice, "propaganda encourage", kind="morale")
            await t.run(t.alice, "attack declare", target="Charon", units="1 2")

            exported = await t.run(t.gm, "gm export")
            assert exported.deferred and exported.ephemeral
            message = await exported.wait_for_final_message()
            assert message.content == "The game's export:"
            [attachment] = message.attachments
            assert attachment.filename == "nations-game.json"
            data = json.loads(attachment.data)
            check_export_contract(data)
            assert [n["name"] for n in data["nations"]] == ["Gracchan Republic", "Charon"]
            assert data["nations"][0]["bonuses"] == [
                {"kind": "morale", "value": 2, "expires_at": "2026-03-03T00:00:00+00:00"}]
            assert data["rolls"][0]["purpose"] == "encourage morale" and data["rolls"][0]["die"] == 8
            assert data["battles"][0]["state"] == "commit"

            garbled = await t.run(t.gm, "game import", channel=annex, file=FakeAttachment("notes.json", b"{oops"))
            refusal = await garbled.wait_for_final_message()
            assert refusal.ephemeral
            assert texts(refusal).startswith("⛔ cannot import notes.json: that export is not valid JSON")
            alien = await t.run(t.gm, "game import", channel=annex, file=FakeAttachment("x.json", b'{"game": {}}'))
            refusal = await alien.wait_for_final_message()
            assert refusal.ephemeral and texts(refusal) == "⛔ that export is not valid: game.turn: is required"
            assert t.messages(annex) == []  # refusals are the importer's alone; no game there

            # /game import is not under /gm (for Manage Server): a plain member imports into a channel with no
            # game and becomes its GM, as the README says.
            imported = await t.run(t.alice, "game import", channel=annex,
                                   file=FakeAttachment("nations-game.json", attachment.data))
            assert imported.deferred and imported.ephemeral
            done = await imported.wait_for_final_message()
            assert done.content == ("Nations game imported from nations-game.json: turn 1, 2 nations; GM: "
                                    f"{mention(t.alice)}.")
            assert (await t.state(rb, annex)).gm == str(t.alice.id)
            status = t.status_message(annex)  # the imported game has its own pinned status message
            assert status.embeds[0]["title"].startswith("Nations — turn 1 (")
            assert t.status_message() is not status

            again = await t.run(t.gm, "gm export", channel=annex)
            copy = json.loads((await again.wait_for_final_message()).attachments[0].data)
            assert contract_view(copy) == contract_view(data)
            assert copy["battles"] == data["battles"]
            original = state_to_dict(await t.state(rb))
            original["game"]["gm"] = str(t.alice.id)  # the importer is the copy's GM
            assert state_to_dict(await t.state(rb, annex)) == original

            busy = await t.run(t.gm, "game import", channel=annex,
                               file=FakeAttachment("nations-game.json", attachment.data))
            assert texts(busy) == "⛔ this channel already has a game running: end it first with /game end"


async def test_slow_commands_are_acknowledged_before_their_slow_work_begins(tmp_path):
    """Discord's 3 s are kept by order, whatever the machine's speed: an export, a chart and /log fairness (scipy
    loaded, the ledger counted) are deferred before their work begins — the fake's order of events, not its clock
    (`table` checks every interaction so at its end) — and the busiest answer (a battle) is answered."""
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        t.dice.push(10, 8)
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        battle = await t.run(t.bob, "attack commit", units="6 7 8")
        exported = await t.run(t.gm, "gm export")
        await exported.wait_for_final_message()
        charted = await t.run(t.bob, "game chart")
        await charted.wait_for_final_message()
        judged = await t.run(t.alice, "log fairness")
        assert battle.acknowledged and texts(battle)
        for result in (exported, charted, judged):
            slow = [note for note in t.fake.notes if note.interaction is result]
            assert slow and result.deferred, result.describe()
            assert all(result.acknowledged_before(note.tick) for note in slow), [note.what for note in slow]
    charts.close_pool()


def test_these_tests_run_every_command_of_the_vocabulary():
    """A guard for later commands: each path is invoked somewhere in the Discord tests (as a quoted string)."""
    sources = "".join((REPO / "tests" / "cogs" / f"test_discord_{name}.py").read_text()
                      for name in ("commands", "battle", "clock", "goddice", "godsfire"))
    sources += "".join((REPO / "tests" / "cogs" / name).read_text()
                       for name in ("test_roll.py", "test_digest.py",  # issue 11
                                    "test_discord_game_list.py",  # issue 17
                                    "test_discord_reminders.py",  # issue 17: /remind me
                                    "test_discord_fairness.py",  # issue 19: /log fairness
                                    "test_discord_story.py",  # issue 19: /log game
                                    "test_discord_ledger.py",  # issue 19: /log rolls, /log export
                                    "test_discord_gm_log.py",  # issue 19: /log gm
                                    "test_discord_charts.py",  # issue 19: /game chart, /nation chart
                                    "test_discord_game_page.py",  # issue 22: /game page, /gm page rotate
                                    "test_discord_map.py",  # issue 32: /godsfire map load, /godsfire map show
                                    "test_discord_secret_roll.py",  # issue 34: /log secret, /log reveal
                                    "test_discord_cogms.py"))  # issue 34: /gm cogm, /gm handover, /server gmrole
    missing = [c.path for c in COMMANDS if f'"{c.path}"' not in sources]
    assert missing == []


def test_bot_py_refuses_a_bad_guild_id_with_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "REFEREE_"))}
    env.update(DISCORD_TOKEN="x", DISCORD_GUILD_ID="abc", REFEREE_DB=str(tmp_path / "never.db"))
    done = subprocess.run([sys.executable, str(REPO / "bot.py")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert "DISCORD_GUILD_ID" in lines[0] and done.stdout == ""
    assert not (tmp_path / "never.db").exists()


def test_importing_bot_connects_nothing(tmp_path):
    probe = (
        "import socket, sys\n"
        "opened = []\n"
        "class Spy(socket.socket):\n"
        "    def __init__(self, *a, **k):\n"
        "        opened.append(a)\n"
        "        super().__init__(*a, **k)\n"
        "socket.socket = Spy\n"
        "def refuse(*a, **k):\n"
        "    opened.append(a)\n"
        "    raise OSError('no connections at import time')\n"
        "socket.create_connection = refuse\n"
        "import bot\n"
        "made = bot.create_bot(bot.Settings(token='x', db_path='unused.db'))\n"
        "print(len(opened), made.is_closed(), made.is_ready())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "REFEREE_"))}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "False", "False"]
    assert not (tmp_path / "unused.db").exists()


async def test_gm_acts_name_the_gm_as_a_mention(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        for command, options in [("gm set", {"nation": "Charon", "stat": "propaganda", "value": "+1"}),
                                 ("gm unit add", {"nation": "Charon", "type": "infantry"}),
                                 ("gm eliminate", {"nation": "Charon"})]:
            text = texts(await t.run(t.gm, command, **options))
            assert mention(t.gm) in text, text
            assert str(t.gm.id) not in text.replace(mention(t.gm), ""), text
