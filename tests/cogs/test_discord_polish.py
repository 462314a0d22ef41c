"""Issue 11's Discord polish, through discord.py against the fake Discord: every option described, the
commands guild-only (/gm for every member, the bot checking; /server for Manage Server), the GM's decision worded
as his, times both relative and absolute, and each player's own retreat select."""

from __future__ import annotations

from datetime import timedelta

from discordkit import START, at, mention, start_war, table, texts

MANAGE_GUILD = 1 << 5


def options_of(command: dict, prefix: str = "") -> list[tuple[str, dict]]:
    """Every (command path, option) of a registered command, through its groups and subcommands."""
    found: list[tuple[str, dict]] = []

    def walk(path: str, options: list[dict]) -> None:
        for option in options:
            if option["type"] in (1, 2):
                walk(f"{path} {option['name']}", option.get("options", []))
            else:
                found.append((path, option))

    walk(command["name"], command.get("options", []))
    return found


async def test_every_option_of_every_command_has_a_description(tmp_path):
    async with table(tmp_path) as t, t.bot():
        options = [pair for command in t.fake.global_commands for pair in options_of(command)]
        assert len(options) > 60
        missing = [f"/{path} {option['name']}" for path, option in options
                   if not option.get("description", "").strip() or option["description"] == "…"]
        assert missing == [], "\n".join(missing)
        cut = [f"/{path} {option['name']}" for path, option in options  # over Discord's 100: cut with "…"
               if option["description"].endswith("…") and not option["description"].endswith(", …")]
        assert cut == []


async def test_commands_are_guild_only_and_only_server_is_for_manage_server_by_default(tmp_path):
    async with table(tmp_path) as t, t.bot():
        for command in t.fake.global_commands:
            assert command["dm_permission"] is False, command["name"]
            assert command["contexts"] == [0], command["name"]  # guild only: no bot DM, no private channel
            permissions = command["default_member_permissions"]
            assert (int(permissions) if permissions is not None else None) == (
                MANAGE_GUILD if command["name"] == "server" else None), command["name"]
        await t.run(t.alice, "game start")  # alice's game: she is its GM by the engine's check, and Discord offers /gm
        ended = await t.run(t.alice, "gm turn end")
        assert not ended.ephemeral
        refused = await t.run(t.bob, "gm turn end")  # bob is not this game's GM: the handler's check
        assert refused.ephemeral and texts(refused) == "⛔ only the game's GM or a co-GM may use /gm commands"


async def test_gm_decide_is_worded_as_the_gms_decision(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        await t.run(t.alice, "attack declare", target="Charon", units="1")
        t.dice.push(10, 8)  # initiative: the attacker wins
        decided = await t.run(t.gm, "gm decide", battle=1)
        lines = texts(decided).replace(mention(t.gm), "@gm").splitlines()
        assert not [line for line in lines if "Time is up" in line]
        assert "⚖ GM @gm decided Charon's commit in battle #1: its strongest free units #6, #7, #8." in lines


async def test_a_duel_the_gm_made_the_only_pairing_of_is_not_paired_by_only_pairing(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        await t.run(t.alice, "attack declare", target="Charon", units="1")
        t.dice.push(10, 8)
        decided = await t.run(t.gm, "gm decide", battle=1, units="6")
        text = texts(decided)
        assert "paired by only pairing" not in text
        assert "(the only pairing)" in text


async def test_times_are_shown_absolute_and_relative(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        end = int((START + timedelta(hours=12)).timestamp())
        both = f"<t:{end}:f> (<t:{end}:R>)"  # discord.utils.format_dt's :f and :R
        assert at(12) == both
        status = texts(await t.run(t.alice, "game status"))
        assert f"ends {both}" in status
        assert f"ends <t:{end}:R>" not in status
        t.dice.push(8)
        await t.run(t.alice, "propaganda encourage", kind="morale")
        shown = texts(await t.run(t.alice, "nation show"))
        bonus_end = int((START + timedelta(hours=36)).timestamp())
        assert f"Morale +2 until <t:{bonus_end}:f> (<t:{bonus_end}:R>)" in shown
        log = texts(await t.run(t.alice, "log rolls", limit=1))
        now = int(START.timestamp())
        assert f"T1 <t:{now}:f> (<t:{now}:R>) 🎲" in log
        pinned = texts(t.status_message())
        assert both in pinned


def labels(result: object, custom_id: str) -> list[str]:
    return [o["label"] for o in result.message.find_component(custom_id)["options"]]  # type: ignore[attr-defined]


async def test_order_a_retreat_offers_each_clicker_their_own_units_even_after_a_restart(tmp_path):
    async with table(tmp_path) as t:
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))
        async with t.bot() as rb:
            await start_war(t)
            game = await rb.bot.referee.game_id(t.key())  # type: ignore[attr-defined]
            await t.run(t.alice, "attack declare", target="Charon", units="1 2")
            t.dice.push(10, 8)  # initiative: the attacker wins
            await t.run(t.bob, "attack commit", units="6 7")
            [pairing] = [m for m in t.messages() if "pick the next pairing" in m.content]
            ask = f"referee:retreat-ask:{game}:1"
            assert pairing.custom_ids == [f"referee:pair:{game}:1", ask]
            button = pairing.find_component(ask)
            assert button["label"] == "Order a retreat"
            refused = await t.click(carol, pairing, ask)
            assert refused.ephemeral and texts(refused) == "⛔ you have no units in battle #1"
            gm = await t.click(t.gm, pairing, ask)  # the GM, with no nation: both sides
            assert gm.ephemeral and labels(gm, f"referee:retreat:{game}:1") == [
                "Retreat #1 infantry GREEN (Gracchan Republic)", "Retreat #2 infantry GREEN (Gracchan Republic)",
                "Retreat #6 armour GREEN (Charon)", "Retreat #7 armour GREEN (Charon)"]
        async with t.bot() as rb:  # the button is a DynamicItem: it still answers after a restart
            mine = await t.click(t.alice, pairing, ask)
            assert mine.ephemeral and labels(mine, f"referee:retreat:{game}:1") == [
                "Retreat #1 infantry GREEN (Gracchan Republic)", "Retreat #2 infantry GREEN (Gracchan Republic)"]
            ordered = await t.select(t.alice, mine.message, f"referee:retreat:{game}:1", ["2"])
            assert not ordered.ephemeral and texts(ordered) == "Unit #2 retreats now (battle #1)."
            assert (await t.state(rb)).battles[1].retreat_orders == {2: None}
