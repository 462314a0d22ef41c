"""/help on Discord (issue 11): per group, each command a clickable mention (`</attack declare:id>`, the id the
top-level command got when the bot registered it) with its options; plain code text when no id is known."""

from __future__ import annotations

from discordkit import running, settings, table

from engine.commands import COMMANDS, GUIDE, help_groups


def ids_of(fake) -> dict[str, str]:
    return {c["name"]: c["id"] for c in fake.global_commands}


async def test_help_mentions_each_command_with_the_id_discord_gave_it(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        ids = ids_of(t.fake)
        assert rb.bot.command_ids["attack declare"] == int(ids["attack"])
        assert rb.bot.command_ids["gm unit add"] == int(ids["gm"]) and rb.bot.command_ids["help"] == int(ids["help"])

        groups = (await t.run(t.alice, "help")).embed["description"].splitlines()
        assert len([line for line in groups if line.startswith("**/")]) == len(help_groups())  # one line a group
        assert (f"**/economy** — </economy grow:{ids['economy']}>, </economy military:{ids['economy']}>, "
                f"</economy recruit:{ids['economy']}>") in groups
        assert f"**/help** — </help:{ids['help']}>" in groups
        assert f"</gm unit add:{ids['gm']}>" in "\n".join(groups)
        assert "`/" not in "\n".join(groups)  # every command of the vocabulary is a Discord command
        assert groups[-1] == GUIDE  # the guide in the repository: docs/, never a path a clone does not have

        attack = (await t.run(t.alice, "help", topic="attack")).embed
        assert attack["title"] == "/attack commands"
        lines = attack["description"].splitlines()
        assert lines[0] == (f"</attack declare:{ids['attack']}> `target:` `units:` `[retreat_at:]` — "
                            f"{next(c.help for c in COMMANDS if c.path == 'attack declare')}")
        assert f"</attack status:{ids['attack']}> `[battle:]` — " in attack["description"]
        gm = (await t.run(t.alice, "help", topic="gm")).embed["description"].splitlines()
        assert f"</gm undo:{ids['gm']}> — undo the game's last action, rolls included (GM)" in gm


async def test_help_without_command_ids_shows_plain_commands(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:  # registers the commands
            ids = ids_of(t.fake)
            rb.bot.command_ids = {}  # as if Discord had not said
            groups = (await t.run(t.alice, "help")).embed["description"].splitlines()
            assert "**/economy** — `/economy grow`, `/economy military`, `/economy recruit`" in groups
            attack = (await t.run(t.alice, "help", topic="attack")).embed["description"].splitlines()
            assert attack[0].startswith("`/attack declare` `target:` `units:` `[retreat_at:]` — ")
            assert "</" not in "\n".join(attack)

        # Not syncing at start: the ids come from the commands registered before.
        synced = len(t.fake.command_syncs)
        async with running(t.fake, settings(t.db, t.clock, t.dice, sync_commands=False)) as rb:
            assert len(t.fake.command_syncs) == synced  # nothing re-registered
            assert rb.bot.command_ids["attack declare"] == int(ids["attack"])
            attack = (await t.run(t.alice, "help", topic="attack")).embed["description"]
            assert f"</attack declare:{ids['attack']}> `target:`" in attack


def test_a_group_list_too_long_for_one_embed_names_the_longest_groups_as_text():
    from cogs.help import GROUPS_LIMIT, help_text

    def help_list() -> list[str]:
        return list(help_groups())

    huge = {c.path: 10**19 + 1 for c in COMMANDS}  # ids as long as Discord's get
    lines = help_text(None, huge)
    assert sum(len(line) + 1 for line in lines) <= GROUPS_LIMIT
    assert len(lines) == len(help_groups())
    assert lines[help_list().index("godsfire")].startswith("**/godsfire** — player add, system add, ")
    assert lines[help_list().index("godsfire")].endswith(" (/help topic:godsfire)")
    assert lines[-1] == f"**/help** — </help:{10**19 + 1}>"
