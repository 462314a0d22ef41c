"""/help on Discord (issue 11): per group, each command a clickable mention (`</attack declare:id>`, the id the
top-level command got when the bot registered it) with its options; plain code text when no id is known.

Issue 17: by game. In a channel whose game is of one rule set, that rule set's groups come first (under its
title), then the ones every game shares, and no other rule set's commands; where no game runs, the shared
commands, then how to start each game. The console's /help is ordered the same way."""

from __future__ import annotations

from discordkit import config, running, table

from engine.commands import COMMANDS, GUIDE, help_groups

SHARED_GROUPS = [word for word, commands in help_groups().items() if any(c.ruleset is None for c in commands)]


def ids_of(fake, guild=None) -> dict[str, str]:
    """Each top-level command's id: the global ones', and a server's own (its rule sets' groups)."""
    return {c["name"]: c["id"] for c in [*fake.global_commands, *(fake.guild_commands(guild) if guild else [])]}


def mentions(ids: dict[str, str], ruleset: str | None, word: str) -> str:
    """A group's line: its commands of one rule set (None: the shared ones) as mentions, in the table's order."""
    listed = [c for c in COMMANDS if c.ruleset == ruleset and c.path.split()[0] == word]
    return f"**/{word}** — " + ", ".join(f"</{c.path}:{ids[word]}>" for c in listed)


def words(lines: list[str]) -> list[str]:
    """The headings and the groups (`/economy`) of a group list, in order."""
    return [line.split("**")[1] for line in lines if line.startswith("**")]


async def test_help_in_each_game_lists_its_rule_set_first_then_the_shared_commands(tmp_path):
    async with table(tmp_path) as t, t.bot():
        channels = {name: t.fake.add_channel(t.guild, name) for name in ("goddice", "godsfire", "lobby")}
        await t.run(t.gm, "game start")  # #nations: Nations, the main game
        await t.run(t.gm, "game start", channel=channels["goddice"], ruleset="goddice")
        await t.run(t.gm, "game start", channel=channels["godsfire"], ruleset="godsfire")
        ids = ids_of(t.fake, t.guild)  # (each rule set's own commands: registered on the server by its game)
        shared = ["Every game", *(f"/{word}" for word in SHARED_GROUPS)]

        nations = await t.run(t.alice, "help")
        assert nations.ephemeral and "timestamp" not in nations.embed  # a static help: no report's moment
        assert nations.embed["title"] == "Referee commands (/help topic:<group> for one group's options)"
        lines = nations.embed["description"].splitlines()
        n, e = ids["nation"], ids["economy"]
        assert lines[:3] == ["**Nations** — this channel's game",
                             (f"**/nation** — </nation claim:{n}>, </nation create:{n}>, </nation show:{n}>, "
                              f"</nation chart:{n}>, </nation list:{n}>"),
                             f"**/economy** — </economy grow:{e}>, </economy military:{e}>, </economy recruit:{e}>"]
        assert words(lines) == ["Nations", "/nation", "/economy", "/stability", "/propaganda", "/army", "/attack",
                                "/gm", *shared]
        assert lines[7] == mentions(ids, "nations", "gm") and lines[7].startswith(f"**/gm** — </gm set:{ids['gm']}>, ")
        assert lines[8] == "**Every game**" and lines[9] == mentions(ids, None, "game")
        assert mentions(ids, None, "gm") in lines  # /gm dice, /gm undo, /gm house, /gm export
        assert f"**/help** — </help:{ids['help']}>" in lines
        assert lines[-2:] == ["", GUIDE]  # the guide in the repository: docs/, never a path a clone does not have
        assert "godsfire" not in "\n".join(lines[:-1]) and "goddice" not in "\n".join(lines[:-1])
        assert "gm life" not in nations.embed["description"]  # another rule set's GM command

        goddice = (await t.run(t.alice, "help", channel=channels["goddice"])).embed["description"].splitlines()
        assert goddice[:4] == ["**God Dice** — this channel's game", mentions(ids, "goddice", "goddice"),
                               f"**/gm** — </gm life:{ids['gm']}>, </gm cards:{ids['gm']}>", "**Every game**"]
        assert goddice[1].startswith(f"**/goddice** — </goddice join:{ids['goddice']}>, </goddice begin:")
        assert words(goddice) == ["God Dice", "/goddice", "/gm", *shared]
        assert "economy" not in "\n".join(goddice) and "godsfire" not in "\n".join(goddice[:-1])

        godsfire = (await t.run(t.alice, "help", channel=channels["godsfire"])).embed["description"]
        assert len(godsfire) <= 4096
        lines = godsfire.splitlines()
        assert lines[:3] == ["**Godsfire** — this channel's game", mentions(ids, "godsfire", "godsfire"),
                             "**Every game**"]
        assert lines[1].startswith(f"**/godsfire** — </godsfire status:{ids['godsfire']}>, </godsfire counters:")
        assert words(lines) == ["Godsfire", "/godsfire", *shared]
        assert "</economy" not in godsfire and "goddice" not in "\n".join(lines[:-1])

        lobby = (await t.run(t.alice, "help", channel=channels["lobby"])).embed["description"].splitlines()
        start = f"</game start:{ids['game']}>"
        assert lobby[:2] == ["**Every game** — no game in this channel yet", mentions(ids, None, "game")]
        assert words(lobby) == [*shared, "Start a game", "Nations", "God Dice", "Godsfire"]
        assert lobby[-6:] == [
            "**Start a game**",
            (f"**Nations** — {start} `ruleset:nations`, then /nation, /economy, /stability, /propaganda, /army, "
             "/attack, /gm"),
            f"**God Dice** — {start} `ruleset:goddice`, then /goddice, /gm",
            f"**Godsfire** — {start} `ruleset:godsfire`, then /godsfire",
            "", GUIDE]
        assert "</economy" not in "\n".join(lobby) and "</godsfire" not in "\n".join(lobby)


async def test_help_topic_gives_one_groups_options_in_any_channel(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        # a Nations game in another channel of the server: Nations' commands are registered here
        await t.run(t.gm, "game start", channel=t.fake.add_channel(t.guild, "elsewhere"))
        ids = ids_of(t.fake, t.guild)
        found = rb.bot.command_sets.ids(t.guild.id)
        assert found["attack declare"] == int(ids["attack"])
        assert found["gm unit add"] == int(ids["gm"]) and found["help"] == int(ids["help"])

        # No game here: every group's topic still answers, with all its commands.
        attack = (await t.run(t.alice, "help", topic="attack")).embed
        assert attack["title"] == "/attack commands"
        lines = attack["description"].splitlines()
        assert lines[0] == (f"</attack declare:{ids['attack']}> `target:` `units:` `[retreat_at:]` — "
                            f"{next(c.help for c in COMMANDS if c.path == 'attack declare')}")
        assert f"</attack status:{ids['attack']}> `[battle:]` — " in attack["description"]
        gm = (await t.run(t.alice, "help", topic="gm")).embed["description"].splitlines()
        assert (f"</gm undo:{ids['gm']}> `[steps:]` — undo the game's last action (or last N), rolls included, "
                "after a preview (GM)") in gm
        assert [line.split(">")[0] for line in gm[:-2]] == [f"</{c.path}:{ids['gm']}" for c in help_groups()["gm"]]

        # In a God Dice game: /gm's commands that game takes (the shared ones and God Dice's), in the table's order.
        await t.run(t.gm, "game start", ruleset="goddice")
        gm = (await t.run(t.alice, "help", topic="gm")).embed["description"].splitlines()
        assert [line.split(">")[0] for line in gm[:-2]] == [
            f"</{c.path}:{ids['gm']}" for c in help_groups()["gm"] if c.ruleset in (None, "goddice")]
        shown = [line.split(">")[0] for line in gm[:-2]]
        assert shown[:3] == [f"</gm {p}:{ids['gm']}" for p in ("dice", "life", "cards")]
        assert shown[-3:] == [f"</gm {p}:{ids['gm']}" for p in ("cogm add", "cogm remove", "handover")]
        # another rule set's group: the whole of it (its commands are refused here, but it was asked for)
        economy = (await t.run(t.alice, "help", topic="economy")).embed["description"].splitlines()
        assert economy[0].startswith(f"</economy grow:{ids['economy']}> ")


async def test_help_without_command_ids_shows_plain_commands(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:  # registers the commands
            await t.run(t.gm, "game start")
            ids = ids_of(t.fake, t.guild)
            rb.bot.command_sets.global_ids, rb.bot.command_sets.guild_tops = {}, {}  # as if Discord had not said
            groups = (await t.run(t.alice, "help")).embed["description"].splitlines()
            assert "**/economy** — `/economy grow`, `/economy military`, `/economy recruit`" in groups
            attack = (await t.run(t.alice, "help", topic="attack")).embed["description"].splitlines()
            assert attack[0].startswith("`/attack declare` `target:` `units:` `[retreat_at:]` — ")
            assert "</" not in "\n".join(attack)

        # Not syncing at start: the ids come from the commands registered before.
        synced = len(t.fake.command_syncs)
        async with running(t.fake, config(t.db, t.clock, t.dice, sync_commands=False)) as rb:
            assert len(t.fake.command_syncs) == synced  # nothing re-registered
            assert rb.bot.command_sets.global_ids["gm unit add"] == int(ids["gm"])
            await t.run(t.alice, "help")  # a server's own commands' ids: read when /help first needs them
            assert rb.bot.command_sets.ids(t.guild.id)["attack declare"] == int(ids["attack"])
            attack = (await t.run(t.alice, "help", topic="attack")).embed["description"]
            assert f"</attack declare:{ids['attack']}> `target:`" in attack


def test_every_group_list_fits_an_embed_and_the_longest_groups_name_their_commands_as_text(monkeypatch):
    import cogs.help  # as loaded now (a bot's unloading the extension drops the module an earlier import saw)

    help_text = cogs.help.help_text

    huge = {c.path: 10**19 + 1 for c in COMMANDS}  # ids as long as Discord's get
    for game in (None, "nations", "goddice", "godsfire"):
        lines = help_text(None, huge, game=game)
        assert sum(len(line) + 1 for line in lines) <= cogs.help.GROUPS_LIMIT
        assert "</" in lines[1] and "(/help topic:" not in "\n".join(lines)  # room enough: every one a mention

    monkeypatch.setattr(cogs.help, "GROUPS_LIMIT", 2000)  # too little room: the longest groups go as text
    lines = help_text(None, huge, game="godsfire")
    assert sum(len(line) + 1 for line in lines) <= 2000
    assert lines[0] == "**Godsfire** — this channel's game"
    assert lines[1].startswith("**/godsfire** — status, counters, set, player add, system add, ")
    assert lines[1].endswith(" (/help topic:godsfire)")
    assert lines[-1] == f"**/help** — </help:{10**19 + 1}>"


async def test_console_help_lists_its_games_rule_set_first(tmp_path):
    from storehelpers import console_on

    console, store, out = await console_on(tmp_path / "c.db")
    try:
        await console.handle("gm /help")
        lines = out.getvalue().splitlines()
        assert lines[:3] == ["Referee commands (/help topic:<group> for one group's options):", "Every game:",
                             "/game: " + ", ".join(c.path.split()[1] for c in help_groups()["game"])]
        assert "/gm: " + ", ".join(c.path[3:] for c in help_groups()["gm"] if c.ruleset is None) in lines
        assert any(line.startswith("/gm: dice, ") and line.endswith(", cogm add, cogm remove, handover")
                   for line in lines)
        assert "/server: gmrole" in lines
        assert lines.index("Nations (/game start ruleset:nations):") < lines.index(
            "God Dice (/game start ruleset:goddice):") < lines.index("Godsfire (/game start ruleset:godsfire):")
        assert lines[-2:] == ["", GUIDE]

        await console.handle("gm /game start ruleset:goddice")
        out.truncate(0)
        out.seek(0)
        await console.handle("gm /help")
        lines = out.getvalue().splitlines()
        assert lines[:5] == ["Referee commands (/help topic:<group> for one group's options):", "God Dice (this game):",
                             "/goddice: " + ", ".join(c.path.split()[1] for c in help_groups()["goddice"]),
                             "/gm: life, cards", "Every game:"]
        assert "/economy" not in out.getvalue() and "/godsfire:" not in out.getvalue()
    finally:
        await store.close()
