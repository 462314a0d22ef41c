"""Issue 9 on Discord: simultaneous interactions apply once, player-given names neither ping nor format,
and hostile option values through discord.py end in a clean answer (fuzzed, seeds kept).

Everything runs the real bot (discord.py) against the fake Discord; dice are forced where outcomes matter.
"""

from __future__ import annotations

import random
import re
from typing import Any

from discordkit import at_once, invoke_raw, settle, start_war, table, texts
from fakediscord import BotErrorLogged, FakeMessage, OptionType


def refusals(results: list[Any]) -> list[str]:
    return [texts(r) for r in results if r.ephemeral and texts(r).startswith("⛔")]


# --- concurrency -------------------------------------------------------------------------------------------


async def test_fifty_actions_at_once_on_one_nation_apply_once_each(tmp_path):
    """25 ECONOMY and 25 PROPAGANDA actions at once by one nation: one of each applies (one action of a kind a
    turn), the other 48 are refused with the reason, every interaction answered."""
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.gm, "gm set", nation="Gracchan Republic", stat="land", value="40")  # room to grow
        sends = [t.fake.invoke(t.guild, t.channel, t.alice, "economy grow") if i % 2 else
                 t.fake.invoke(t.guild, t.channel, t.alice, "propaganda encourage", options={"kind": "workers"})
                 for i in range(50)]
        results = await at_once(*sends)
        await settle(t.fake)
        applied = [r for r in results if not r.ephemeral]
        refused = refusals(results)
        assert len(applied) == 2 and len(refused) == 48, set(refused)
        assert set(refused) == {
            "⛔ Gracchan Republic has already made its ECONOMY action this turn (turn 1); no doubling up",
            "⛔ Gracchan Republic has already made its PROPAGANDA action this turn (turn 1); no doubling up"}
        log = await rb.bot.referee.store.actions(await rb.bot.referee.game_id(t.key()), limit=100)
        assert sum(1 for a in log if a.command.startswith(("/economy grow", "/propaganda encourage"))) == 2


async def test_fifty_commit_selects_at_once_commit_once(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.alice, "attack declare", target="Charon", units="1 2")
        [choice] = [m for m in t.messages() if m.content.startswith("⚔ Battle #1:")]
        [select] = choice.custom_ids
        t.dice.push(5, 5, 9, 3)  # initiative (a tie, then the defender wins: whatever it takes, once)
        results = await at_once(*(t.fake.select(t.guild, t.channel, t.bob, choice, select, ["6"])
                                  for _ in range(50)))
        await settle(t.fake)
        committed = [r for r in results if not r.ephemeral]
        assert len(committed) == 1, [texts(r) for r in committed]
        assert len(refusals(results)) == 49
        battle = (await t.state(rb)).battles[1]
        assert battle.stage != "commit" and battle.in_fight_defending == [6]
        log = await rb.bot.referee.store.actions(await rb.bot.referee.game_id(t.key()), limit=100)
        assert sum(1 for a in log if a.command.startswith("/attack commit")) == 1


async def test_fifty_undo_clicks_undo_once(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start")
        for value in ("3", "4", "5"):
            await t.run(t.gm, "gm dice", values=value, purpose="any")
        asked = await t.run(t.gm, "gm undo")
        assert texts(asked).splitlines()[1].startswith("1. ") and "“/gm dice values:(1 die entered)”" in texts(asked)
        button, cancel = asked.custom_ids
        assert cancel.startswith("referee:cancel:undo:")
        target = await rb.bot.referee.undo_target(t.key())
        assert target is not None and button.endswith(f":{target.id}")
        results = await at_once(*(t.fake.click(t.guild, t.channel, t.gm, asked.message, button) for _ in range(50)))
        await settle(t.fake)
        followups = [f for r in results for f in r.followups]
        undone = [f for f in followups if not f.ephemeral]
        told = [texts(f) for f in followups if f.ephemeral]
        assert len(undone) == 1 and "undid" in texts(undone[0])
        assert len(told) == 49 and all("already undone" in text for text in told), set(told)
        assert (await t.state(rb)).forced_dice == [3, 4]


async def test_an_old_undo_button_without_its_action_is_refused_cleanly(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start")
        await t.run(t.gm, "gm dice", values="3", purpose="any")
        asked = await t.run(t.gm, "gm undo")
        game_id = await rb.bot.referee.game_id(t.key())
        old = f"referee:confirm:undo:{game_id}:{t.gm.id}"  # as posted by the version before this one
        asked.message.components = [{"type": 1, "components": [
            {"type": 2, "custom_id": old, "label": "Undo it", "style": 4}]}]
        refused = await t.click(t.gm, asked.message, old)
        assert refused.ephemeral and texts(refused) == ("⛔ this confirmation is too old to say what it undoes: "
                                                        "/gm undo again")
        assert (await t.state(rb)).forced_dice == [3]


async def test_fifty_end_clicks_end_the_game_once(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        asked = await t.run(t.gm, "game end")
        button, _cancel = asked.custom_ids
        game_id = await rb.bot.referee.game_id(t.key())
        results = await at_once(*(t.fake.click(t.guild, t.channel, t.gm, asked.message, button) for _ in range(50)))
        await settle(t.fake)
        followups = [f for r in results for f in r.followups]
        assert [texts(f) for f in followups if not f.ephemeral] == ["The game is over."]
        assert sum(1 for f in followups if f.ephemeral and texts(f).startswith("⛔")) == 49
        log = await rb.bot.referee.store.actions(game_id, limit=200)
        assert sum(1 for a in log if a.command == "/game end") == 1


async def test_a_double_clicked_god_dice_roll_button_rolls_once(tmp_path):
    from test_discord_goddice import DRAFT

    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", ruleset="goddice")
        for player in (t.alice, t.bob):
            await t.run(player, "goddice join")
        await t.run(t.gm, "gm dice", values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
        await t.run(t.gm, "goddice begin")
        await t.run(t.alice, "goddice choose", first="attack")
        for player, card in zip([t.bob, t.alice] * 4, DRAFT, strict=True):
            await t.run(player, "goddice pick", character=card)
        await t.run(t.alice, "goddice declare", attacker="hero")
        await t.run(t.gm, "gm dice", values="S A", purpose="any")
        defended = await t.run(t.bob, "goddice defend", character="monk")
        [opening] = [c for c in defended.custom_ids if c.endswith(":opening")]
        await t.run(t.gm, "gm dice", values="B B B R O O 5 5 5 B B B R O O 5 5 5", purpose="any")
        results = await at_once(*(t.fake.click(t.guild, t.channel, t.alice, defended.message, opening)
                                  for _ in range(2)))
        await settle(t.fake)
        assert len([r for r in results if not r.ephemeral]) == 1
        assert len(refusals(results)) == 1
        state = await t.state(rb)
        assert len(state.forced_dice) == 9  # one opening roll took nine of the eighteen entered dice


# --- escaping ----------------------------------------------------------------------------------------------

HOSTILE_NAMES = ("<@123456789>", "@everyone", "**bold**")
LIVE = re.compile(r"<@[!&]?\d+>|@(everyone|here)\b")


def unescaped(text: str, name: str) -> bool:
    """Whether `name` shows live in `text`: as written, with nothing escaping it."""
    return name in text


async def test_hostile_nation_names_neither_ping_nor_format(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        carol = t.fake.add_member(t.guild, t.fake.add_user("carol"))
        dave = t.fake.add_member(t.guild, t.fake.add_user("dave"))
        erin = t.fake.add_member(t.guild, t.fake.add_user("erin"))
        for member, name in zip((carol, dave, erin), HOSTILE_NAMES, strict=True):
            made = await t.run(member, "nation create", name=name, economy=10, military=10,
                               strength="infantry", weakness="armour", units="infantry:3 armour:1")
            assert not made.ephemeral, texts(made)
        await t.run(t.gm, "gm house", key="reminder_hours", value="3")
        t.dice.push(1)
        await t.run(t.alice, "propaganda attack", target="**bold**")
        await t.run(t.bob, "attack declare", target="<@123456789>", units="6")
        for command, options in [("nation list", {}), ("game status", {}), ("attack status", {}),
                                 ("nation show", {"nation": "@everyone"}), ("army show", {"nation": "**bold**"}),
                                 ("log rolls", {"nation": "<@123456789>"}), ("nation show", {"nation": "<@999>"})]:
            await t.run(t.alice, command, **options)
        t.clock.advance(hours=9, minutes=1)  # the reminder, 3 hours before the turn ends
        await rb.bot.get_cog("Clock").tick()
        await settle(t.fake)

        players = {t.alice.id, t.bob.id, carol.id, dave.id, erin.id, t.gm.id}
        messages: list[FakeMessage] = [m for r in t.fake.interactions for m in r.messages]
        messages += t.messages()
        assert any("Still to act" in m.content for m in messages)  # the reminder was sent
        seen = "\n".join(texts(m) for m in messages)
        for name in HOSTILE_NAMES:
            assert not unescaped(seen, name), name
        # shown as written: the Markdown escaped, a zero-width space after the < and @ of a mention
        assert "\\*\\*bold\\*\\*" in seen and "@\u200beveryone" in seen and "<\u200b@\u200b123456789>" in seen
        for message in messages:
            allowed = message.allowed_mentions
            assert allowed is not None, texts(message)
            assert allowed.get("parse", []) == [], (texts(message), allowed)
            assert {int(u) for u in allowed.get("users", [])} <= players, (texts(message), allowed)
            live = {m.group() for m in LIVE.finditer(texts(message))}
            assert live <= {f"<@{p}>" for p in players}, (texts(message), live)


# --- fuzz -------------------------------------------------------------------------------------------------

# (No lone surrogates: Discord sends UTF-8 JSON, and discord.py's orjson refuses them at the gateway.)
HOSTILE_TEXT = [
    "", " ", "x" * 6000, "\x00\x01\x1f\x7f", "\u200b", "Fo\u200co", "\u202eevil", "<@1>", "<@&1>", "<#1>",
    "@everyone", "@here", "**bold** __u__ ~~s~~ `c` ||spoiler||", "> quote", "# head", "\U0001F600" * 30,
    "\U0010FFFF", "1e308", "-1e308", "NaN", "nan", "inf", "-0", str(10**30), "-1", "0",
    "3", "1 2 3", "6 7 8 9", "1:6", "infantry:3 armour:1", "infantry:999999", "Charon", "gracchan republic",
    "clear", "9 3", "11", "Y Y Y", "hero", "monk", "basic", "lacerate", "decline", "Sage 2", "keep", "+5",
    "-5", "turn_hours", "reminder_hours", "preset_unit_rank", "actions_per_turn", "1e-300", "0.0001",
    "\n\n\n", "a\tb", "'\"\\", "${jndi:x}", "%s%n", "../../etc/passwd", "/dev/zero", "null", "[]", "{}",
]
HOSTILE_NUMBERS = [0, -1, 1, 2, 6, 10**30, -(10**30), 2**63, 1e308, -0.0, 0.1, 1e-300, 336.0, 999]


def registered(fake) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every slash command the bot registered, with its option definitions."""
    found: list[tuple[str, list[dict[str, Any]]]] = []

    def walk(prefix: str, options: list[dict[str, Any]]) -> None:
        subs = [o for o in options if o["type"] in (1, 2)]
        if not subs:
            found.append((prefix, options))
        for sub in subs:
            walk(f"{prefix} {sub['name']}", sub.get("options", []))

    for command in fake.global_commands:
        walk(command["name"], command.get("options", []))
    return sorted(found)


def hostile_value(rng: random.Random, d: dict[str, Any], members: list[Any], typed: bool) -> Any:
    """A hostile value for option `d`; `typed`: of the option's type, within its declared limits and choices
    (what Discord itself lets through), else anything (what a broken client could send)."""
    kind = d["type"]
    roll = rng.random()
    if d.get("choices") and (typed or roll < 0.4):
        return rng.choice(d["choices"])["value"]
    if kind == OptionType.USER:
        return str(rng.choice(members).id) if typed or roll < 0.8 else rng.choice(["1", "0", "x", 5])
    if kind in (OptionType.INTEGER, OptionType.NUMBER):
        if typed:
            low, high = d.get("min_value", -(2**53)), d.get("max_value", 2**53)
            numbers = [n for n in HOSTILE_NUMBERS + [low, high] if low <= n <= high
                       and (kind == OptionType.NUMBER or isinstance(n, int))]
            return rng.choice(numbers)
        return rng.choice(HOSTILE_NUMBERS) if roll < 0.7 else rng.choice(HOSTILE_TEXT)  # a str where a number goes
    if kind == OptionType.BOOLEAN:
        return rng.choice([True, False] if typed else [True, False, "yes", 1])
    if typed:
        low, high = d.get("min_length", 0), d.get("max_length", 6000)
        return rng.choice([text for text in HOSTILE_TEXT if low <= len(text) <= high])
    return rng.choice(HOSTILE_TEXT) if roll < 0.85 else rng.choice(HOSTILE_NUMBERS)  # a number where a str goes


def hostile_options(rng: random.Random, defs: list[dict[str, Any]], members: list[Any],
                    typed: bool) -> list[dict[str, Any]]:
    options = []
    for d in defs:
        if d["type"] == OptionType.ATTACHMENT:
            continue  # files: the import attack tests
        if rng.random() < (0.0 if typed and d.get("required") else 0.1 if d.get("required") else 0.5):
            continue  # a missing option (required ones too, untyped)
        options.append({"name": d["name"], "type": d["type"], "value": hostile_value(rng, d, members, typed)})
    return options


async def fuzz(tmp_path, seed: int, count: int, typed: bool = True) -> dict[str, int]:
    rng = random.Random(seed)
    figures = {"interactions": 0, "refused": 0, "unchanged": 0}
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        dice_channel = t.fake.add_channel(t.guild, "goddice")
        await t.run(t.gm, "game start", channel=dice_channel, ruleset="goddice")
        for member in (t.alice, t.bob):
            await t.run(member, "goddice join", channel=dice_channel)
        t.dice.fallback.rng.seed(seed)
        commands = [(path, defs) for path, defs in registered(t.fake)  # files: the import attack tests
                    if not typed or not any(d["type"] == OptionType.ATTACHMENT and d.get("required") for d in defs)]
        members = [t.gm, t.alice, t.bob]
        referee = rb.bot.referee
        problems: list[str] = []
        for _ in range(count):
            path, defs = rng.choice(commands)
            channel = rng.choice([t.channel, dice_channel])
            key = t.key(channel)
            options = hostile_options(rng, defs, members, typed)
            before = await referee.export(key) if await referee.store.live_game(key) else None
            try:
                result = await invoke_raw(t.fake, t.guild, channel, rng.choice(members), path, options)
            except BotErrorLogged:  # an error logged by the interaction before: reported below
                result = await invoke_raw(t.fake, t.guild, channel, rng.choice(members), path, options)
            await settle(t.fake, check_errors=False)
            figures["interactions"] += 1
            for record in t.fake.take_errors():
                problems.append(f"/{path} {options!r:.300}: {record.getMessage()[:300]} {record.exc_info!r:.300}")
            assert result.acknowledged, result.describe()
            if result.ephemeral and texts(result).startswith("⛔"):
                figures["refused"] += 1
                after = await referee.export(key) if await referee.store.live_game(key) else None
                assert after == before, f"/{path} {options!r:.300} was refused but changed the game"
                figures["unchanged"] += 1
            for record in t.fake.take_errors():
                problems.append(f"/{path} {options!r:.300}: {record.getMessage()[:300]} {record.exc_info!r:.300}")
            if before is not None and await referee.store.live_game(key) is None:  # ended: start again
                if channel is t.channel:
                    await t.run(t.gm, "game start")
                else:
                    await t.run(t.gm, "game start", channel=channel, ruleset="goddice")
        assert problems == [], "\n".join(problems)
    return figures


FUZZ_SEEDS = (9, 2026, 31337)  # kept as regression tests


async def test_discord_fuzz_hostile_option_values(tmp_path):
    """Hostile values of each option's type (what Discord lets through) for every registered command, 450
    interactions: every one answered, no error logged, and a refusal changes nothing."""
    totals = {"interactions": 0, "refused": 0, "unchanged": 0}
    for seed in FUZZ_SEEDS:
        (tmp_path / str(seed)).mkdir()
        figures = await fuzz(tmp_path / str(seed), seed, 150)
        totals = {k: totals[k] + figures[k] for k in totals}
    # each interaction answered: the fake Discord fails one never acknowledged (a hang: `HANG_TIMEOUT`)
    assert totals["interactions"] == 150 * len(FUZZ_SEEDS)
    assert totals["refused"] == totals["unchanged"] and totals["refused"] > 100


async def test_discord_fuzz_wrong_types_and_missing_options(tmp_path):
    """Values no Discord client sends: a number for a text, text for a number, a value outside the choices,
    required options missing. Every one answered, no error logged, a refusal changes nothing."""
    figures = await fuzz(tmp_path, 7, 150, typed=False)
    assert figures["refused"] == figures["unchanged"]
