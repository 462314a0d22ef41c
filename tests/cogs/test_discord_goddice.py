"""God Dice on Discord: the real bot (discord.py) against the fake Discord.

The rulebook's sample attack phase with its dice entered by the GM, made partly with the type buttons and
the select of legal attacks; keep and re-roll; the GM's life and card file; the status embed; the other
rule set's commands refused; the reminder the clock announces. Players are their Discord ids: the bot
writes them as mentions, which these tests read back as @names.
"""

from __future__ import annotations

from pathlib import Path

from discordkit import settle, table, texts
from fakediscord import FakeAttachment

from engine.commands import COMMANDS
from engine.rulesets import ruleset_of

REPO = Path(__file__).resolve().parents[2]
KEEP_OR_REROLL = ("⏳ @alice, your move: keep or re-roll the opening roll (/goddice favor choice:keep or "
                  "/goddice favor choice:reroll).")
DRAFT = ["monk", "hero", "sage", "cleric", "assassin", "bowman", "hero", "sage"]  # bob, alice, bob, alice…


def named(t, *items) -> str:
    """`texts` with each member's mention (or bare id, in a refusal's reason) as @name."""
    text = texts(*items)
    for member in (t.gm, t.alice, t.bob):
        text = text.replace(f"<@{member.id}>", f"@{member.user.name}").replace(str(member.id), f"@{member.user.name}")
    return text


def lines(t, item) -> list[str]:
    return named(t, item).splitlines()


def pinged(message) -> list[int]:
    """The users a message notifies: those it mentions, if its allowed mentions let users be pinged."""
    allowed = message.allowed_mentions or {}
    named = {int(user) for user in allowed.get("users", [])}
    return [m for m in message.mention_ids if "users" in allowed.get("parse", []) or m in named]


def snapshot(state) -> dict:
    return ruleset_of(state).state_to_dict(state)


async def drafted(t, rb, options: str | None = None) -> int:
    """A God Dice game here, seated and drafted with entered dice: alice won the roll-off and chose to attack
    first, so bob picked first; alice has Hero, Cleric, Bowman, Sage; bob Monk, Sage, Assassin, Hero.
    Turn 1 is alice's. Returns the game's id."""
    started = await t.run(t.gm, "game start", ruleset="goddice", **({"options": options} if options else {}))
    extra = f" Optional rules: {options}." if options else ""
    assert lines(t, started) == [
        ("A God Dice game begins, refereed by the bot; GM: @gm. Take a seat with /goddice join (2 to 4 players); "
         f"the GM starts with /goddice begin.{extra}")]
    for player in (t.alice, t.bob):
        joined = await t.run(player, "goddice join")
        assert joined.content == "" and joined.custom_ids == []  # seating waits for no one in particular
    await t.run(t.gm, "gm dice", values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
    begun = await t.run(t.gm, "goddice begin")
    assert lines(t, begun) == [
        "⏳ @alice, your move: choose to attack first or select first (/goddice choose first:attack|select).",
        "🎲 @alice, rolloff: Y\\* Y\\* Y\\* B\\* B\\* B\\* B\\* B\\* B\\* (\\* entered by the GM)",
        "🎲 @bob, rolloff: B\\* B\\* B\\* B\\* B\\* B\\* B\\* B\\* B\\* (\\* entered by the GM)",
        "🏆 @alice wins the roll-off with 3 YELLOW.",
    ]
    assert pinged(begun.message) == [t.alice.id]  # pinged: the GM moved, alice is awaited
    chosen = await t.run(t.alice, "goddice choose", first="attack")
    assert chosen.content == f"⏳ <@{t.bob.id}>, your move: pick a character (/goddice pick)."
    for player, card in zip([t.bob, t.alice] * 4, DRAFT, strict=True):
        picked = await t.run(player, "goddice pick", character=card)
        assert not picked.ephemeral, texts(picked)
    assert lines(t, picked) == ["⏳ @alice, your move: declare an attacker (/goddice declare).",
                                "🃏 @alice picks the Sage (35 life).", "▶ Turn 1: @alice attacks."]
    return await rb.bot.referee.game_id(t.key())


def stale_copy(t, message, custom_id: str, kind: int = 2):
    """A copy of an old message as a client that missed its edit still shows it, with one control."""
    stale = t.fake.get_message(message.id)
    control = {"type": kind, "custom_id": custom_id}
    control.update({"label": "old", "style": 1} if kind == 2 else {"options": [{"label": "x", "value": "basic"}]})
    stale.components = [{"type": 1, "components": [control]}]
    return stale


async def test_the_rulebook_sample_attack_phase_with_buttons_and_the_attack_select(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        game = await drafted(t, rb)
        alice, bob = str(t.alice.id), str(t.bob.id)
        attackers = await t.fake.autocomplete(t.guild, t.channel, t.alice, "goddice declare", focused="attacker")
        assert [(c["name"], c["value"]) for c in attackers] == [
            ("Hero (75/75 life)", "Hero"), ("Cleric (65/65 life)", "Cleric"), ("Bowman (45/45 life)", "Bowman"),
            ("Sage (35/35 life)", "Sage")]
        targets = await t.fake.autocomplete(t.guild, t.channel, t.alice, "goddice declare", focused="target")
        assert [c["value"] for c in targets] == [alice, bob]
        assert [c["name"] for c in targets] == ["Seat 1: alice (you) — Hero, Cleric, Bowman, Sage",
                                                "Seat 2 — Monk, Sage, Assassin, Hero"]  # bob is not in the cache

        declared = await t.run(t.alice, "goddice declare", attacker="hero")
        assert lines(t, declared) == ["⏳ @bob, your move: declare a defender (/goddice defend).",
                                      "⚔ @alice's Hero attacks @bob."]
        defenders = await t.fake.autocomplete(t.guild, t.channel, t.bob, "goddice defend", focused="character",
                                              options={"character": "s"})
        assert [c["value"] for c in defenders] == ["Sage", "Assassin"]
        await t.run(t.gm, "gm dice", values="S A", purpose="any")
        defended = await t.run(t.bob, "goddice defend", character="monk")
        assert lines(t, defended) == [
            "⏳ @alice, your move: make the opening roll (/goddice roll).",
            "🛡 @bob defends with the Monk.",
            "🎲 @alice, god: S\\* A\\* (\\* entered by the GM)",
            "The God dice have no effect.",
        ]
        assert pinged(defended.message) == [t.alice.id]
        assert defended.message.button_labels() == ["Opening roll"]
        assert defended.custom_ids == [f"referee:goddice:roll:{game}:1-0:opening"]

        # ROLL # 1, the opening roll, by its button.
        await t.run(t.gm, "gm dice", values="B B B R O O 5 5 5", purpose="any")
        opened = await t.click(t.alice, defended.message, defended.custom_ids[0])
        assert not opened.ephemeral and opened.message is not defended.message
        assert lines(t, opened) == [
            "⏳ @alice, your move: roll a type or attack (/goddice roll type:…, /goddice attack).",
            "Dice: 🟦 🟦 🟦 🟥 ⭕ ⭕ 5️⃣ 5️⃣ 5️⃣",
            "🎲 @alice, opening: B\\* B\\* B\\* R\\* O\\* O\\* 5\\* 5\\* 5\\* (\\* entered by the GM)",
            "   dice: B B B R O O 5 5 5 — legal: basic 15",
        ]
        assert pinged(opened.message) == []  # alice made the move herself: mentioned, not pinged
        assert f"<@{alice}>" in opened.content
        assert defended.custom_ids == []  # the opening roll's button is gone
        assert opened.message.button_labels() == ["Roll BLUE ×3", "Roll RED ×1", "Roll O ×2", "Roll 5 ×3"]
        roll_o = f"referee:goddice:roll:{game}:1-1:O"
        attack_1 = f"referee:goddice:attack:{game}:1-1"
        assert opened.custom_ids == [f"referee:goddice:roll:{game}:1-1:B", f"referee:goddice:roll:{game}:1-1:R",
                                     roll_o, f"referee:goddice:roll:{game}:1-1:5", attack_1]
        assert [(o["label"], o["value"]) for o in opened.message.find_component(attack_1)["options"]] == [
            ("basic (normal): 15 damage", "basic")]

        # Bob may not roll alice's dice: refused to him alone, and nothing changes (the entered dice wait).
        await t.run(t.gm, "gm dice", values="Y O", purpose="any")
        before = snapshot(await t.state(rb))
        for control in (roll_o, attack_1):
            if control == roll_o:
                refused = await t.click(t.bob, opened.message, control)
            else:
                refused = await t.select(t.bob, opened.message, control, ["basic"])
            assert refused.ephemeral
            assert named(t, refused) == ("⛔ it is not your move: @alice rolls a type or attacks "
                                         "(/goddice roll type:…, /goddice attack)")
        assert snapshot(await t.state(rb)) == before and before["game"]["forced_dice"] == ["Y", "O"]
        assert opened.custom_ids[2] == roll_o  # the controls stay for alice

        # ROLL # 2: the two O's.
        rolled = await t.click(t.alice, opened.message, roll_o)
        assert lines(t, rolled)[1:] == ["Dice: 🟦 🟦 🟦 🟥 🟨 ⭕ 5️⃣ 5️⃣ 5️⃣",
                                        "🎲 @alice, o: Y\\* O\\* (\\* entered by the GM)",
                                        "   dice: B B B R Y O 5 5 5 — legal: basic 15"]
        assert rolled.message.button_labels() == ["Roll BLUE ×3", "Roll RED ×1", "Roll YELLOW ×1", "Roll 5 ×3"]
        assert opened.custom_ids == []

        # ROLL # 3 by the slash command: the three BLUE, and no legal attack at all (no select).
        await t.run(t.gm, "gm dice", values="R O 5", purpose="any")
        third = await t.run(t.alice, "goddice roll", type="blue")
        assert lines(t, third)[1:] == ["Dice: 🟥 🟥 🟨 ⭕ ⭕ 5️⃣ 5️⃣ 5️⃣ 5️⃣",
                                       "🎲 @alice, blue: R\\* O\\* 5\\* (\\* entered by the GM)",
                                       "   dice: R R Y O O 5 5 5 5 — no legal attack"]
        assert third.message.button_labels() == ["Roll RED ×2", "Roll YELLOW ×1", "Roll 5 ×4"]
        assert [c for c in third.custom_ids if ":attack:" in c] == []
        assert rolled.custom_ids == []  # the slash command's answer took over the controls
        # A control of a move that is over (a client that missed the edit): refused with the reason.
        stale = stale_copy(t, opened.message, f"referee:goddice:roll:{game}:1-1:R")
        over = await t.click(t.alice, stale, f"referee:goddice:roll:{game}:1-1:R")
        assert over.ephemeral and texts(over) == "⛔ that move is over"
        stale = stale_copy(t, rolled.message, f"referee:goddice:attack:{game}:1-2", kind=3)
        over = await t.select(t.alice, stale, f"referee:goddice:attack:{game}:1-2", ["basic"])
        assert over.ephemeral and texts(over) == "⛔ that move is over"

        # ROLLS # 4, # 5 and # 6 by their buttons.
        await t.run(t.gm, "gm dice", values="B O", purpose="any")
        fourth = await t.click(t.alice, third.message, f"referee:goddice:roll:{game}:1-3:R")
        assert lines(t, fourth)[-1] == "   dice: B Y O O O 5 5 5 5 — legal: basic 20"
        await t.run(t.gm, "gm dice", values="O", purpose="any")
        fifth = await t.click(t.alice, fourth.message, f"referee:goddice:roll:{game}:1-4:Y")
        assert lines(t, fifth)[-1] == "   dice: B O O O O 5 5 5 5 — legal: basic 20"
        assert fifth.message.button_labels() == ["Roll 5 ×4"]
        await t.run(t.gm, "gm dice", values="R O 5 5", purpose="any")
        sixth = await t.click(t.alice, fifth.message, f"referee:goddice:roll:{game}:1-5:5")
        assert lines(t, sixth)[1:] == [
            "Dice: 🟦 🟥 ⭕ ⭕ ⭕ ⭕ ⭕ 5️⃣ 5️⃣",
            "🎲 @alice, 5: R\\* O\\* 5\\* 5\\* (\\* entered by the GM)",
            "   dice: B R O O O O O 5 5 — legal: basic 10, cleave 20, lacerate 25, lunge 15",
        ]
        attack_6 = f"referee:goddice:attack:{game}:1-6"
        assert sixth.custom_ids == [attack_6] and sixth.message.button_labels() == []  # every type rolled
        assert [(o["label"], o["value"]) for o in sixth.message.find_component(attack_6)["options"]] == [
            ("basic (normal): 10 damage", "basic"), ("cleave (Wild: +10): 20 damage", "cleave"),
            ("lacerate (Wild: +15): 25 damage", "lacerate"), ("lunge (Wild: +5, Heal Any 5): 15 damage", "lunge")]
        twice = await t.run(t.alice, "goddice roll", type="5")
        assert twice.ephemeral and named(t, twice) == "⛔ @alice has rolled the 5 dice this turn: each type once"
        names = await t.fake.autocomplete(t.guild, t.channel, t.alice, "goddice attack", focused="name",
                                          options={"name": "la"})
        assert names == [{"name": "lacerate (Wild: +15): 25 damage", "value": "lacerate"}]
        hit = await t.fake.autocomplete(t.guild, t.channel, t.alice, "goddice attack", focused="targets",
                                        options={"name": "lunge", "targets": "monk, as"})
        assert hit == [{"name": "monk, Assassin (25/25 life)", "value": "monk, Assassin"}]
        healed = await t.fake.autocomplete(t.guild, t.channel, t.alice, "goddice attack", focused="heal",
                                           options={"name": "lunge"})
        assert healed == []  # none of alice's characters is wounded

        # The status: whose move, the characters' life, the turn with its dice as faces and the legal attacks.
        status = await t.run(t.bob, "game status")
        assert status.embed == (await t.run(t.bob, "goddice status")).embed
        embed = status.embed
        assert embed["title"] == "God Dice"
        assert named(t, status).splitlines()[1:] == [
            "GM @gm — turn 1, attacks go clockwise",
            "⏳ @alice's move: roll a type or attack (/goddice roll type:…, /goddice attack)",
            ("Seat 1: @alice — Hero ██████████ 75/75; Cleric ██████████ 65/65; Bowman ██████████ 45/45; "
             "Sage ██████████ 35/35"),
            ("Seat 2: @bob — Monk ██████████ 55/55; Sage ██████████ 35/35; Assassin ██████████ 25/25; "
             "Hero ██████████ 75/75"),
            "@alice's Hero attacks @bob's Monk", "God dice: S A",
            "Dice: B R O O O O O 5 5 (rolled: opening, o, blue, red, yellow, 5)",
            ("Legal attacks: basic (normal): 10 damage; cleave (Wild: +10): 20 damage; lacerate (Wild: +15): "
             "25 damage; lunge (Wild: +5, Heal Any 5): 15 damage")]
        assert t.status_message().embeds[0] == embed  # the pinned status message is the same embed

        # Lacerate for 25, through the select: the Monk is at 30 and bob's turn begins (he is pinged).
        attacked = await t.select(t.alice, sixth.message, attack_6, ["lacerate"])
        assert lines(t, attacked) == [
            "⏳ @bob, your move: declare an attacker (/goddice declare).",
            "💥 @alice's Hero: Lacerate for 25 damage to @bob's Monk.",
            "   @bob's Monk: -25 → 30/55 life (Lacerate).",
            "▶ Turn 2: @bob attacks.",
        ]
        assert pinged(attacked.message) == [t.bob.id] and attacked.custom_ids == []
        assert sixth.custom_ids == []
        state = await t.state(rb)
        monk = state.player(bob).characters[0]
        assert (monk.type, monk.life, state.turn, state.active, state.phase) == ("monk", 30, 2, bob, "declare")
        pinned = t.status_message().embeds[0]
        assert pinned["title"] == "God Dice" and "Monk █████░░░░░ 30/55" in pinned["description"]
        assert "Dice:" not in pinned["description"]  # no turn under way yet

        # The log shows the faces rolled; one player's rolls on their own.
        logged = await t.run(t.bob, "log rolls", limit=2)
        assert logged.embed["title"] == "Latest rolls"
        assert [line.split(" ", 3)[3].split(" [↗](https://discord.com/channels/")[0]  # a link to its answer
                for line in lines(t, logged)[1:]] == [
            "🎲 @alice, yellow: O\\* (\\* entered by the GM)",
            "🎲 @alice, 5: R\\* O\\* 5\\* 5\\* (\\* entered by the GM)"]
        theirs = await t.run(t.alice, "log rolls", nation=bob)
        assert lines(t, theirs)[1] == "Rolls of @bob:"
        assert [line.split(" ", 3)[3].split(" [↗](")[0] for line in lines(t, theirs)[2:]] == [
            "🎲 @bob, rolloff: B\\* B\\* B\\* B\\* B\\* B\\* B\\* B\\* B\\* (\\* entered by the GM)"]
        players = await t.fake.autocomplete(t.guild, t.channel, t.alice, "log rolls", focused="nation")
        assert [c["value"] for c in players] == [alice, bob]
        assert t.dice.all_used()  # every die was entered


async def test_keep_and_re_roll_buttons_for_whoever_is_in_favor(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        game = await drafted(t, rb)
        await t.run(t.alice, "goddice declare", attacker="hero")
        await t.run(t.gm, "gm dice", values="H C", purpose="any")  # the Hero's face: the attacker is in favor
        defended = await t.run(t.bob, "goddice defend", character="monk")
        assert lines(t, defended)[-1] == ("🙏 The attacker is in favor with the Gods: the attacker decides whether "
                                          "the opening roll stands.")
        await t.run(t.gm, "gm dice", values="B B B R O O 5 5 5", purpose="any")
        opened = await t.run(t.alice, "goddice roll")
        assert lines(t, opened)[:2] == [
            KEEP_OR_REROLL,
            "Dice: 🟦 🟦 🟦 🟥 ⭕ ⭕ 5️⃣ 5️⃣ 5️⃣"]
        assert opened.message.button_labels() == ["Keep", "Re-roll"]
        keep, reroll = opened.custom_ids
        assert (keep, reroll) == (f"referee:goddice:favor:{game}:1-1:keep", f"referee:goddice:favor:{game}:1-1:reroll")
        assert defended.custom_ids == []

        refused = await t.click(t.bob, opened.message, keep)
        assert refused.ephemeral and named(t, refused) == (
            "⛔ it is not your move: @alice is in favor and says keep or reroll (/goddice favor)")
        assert (await t.state(rb)).phase == "favor"

        await t.run(t.gm, "gm dice", values="B B B B 5 5 5 5 5", purpose="any")
        rerolled = await t.click(t.alice, opened.message, reroll)
        assert lines(t, rerolled) == [
            "⏳ @alice, your move: roll a type or attack (/goddice roll type:…, /goddice attack).",
            "Dice: 🟦 🟦 🟦 🟦 5️⃣ 5️⃣ 5️⃣ 5️⃣ 5️⃣",
            "@alice says: re-roll it.",
            "🎲 @alice, favor: B\\* B\\* B\\* B\\* 5\\* 5\\* 5\\* 5\\* 5\\* (\\* entered by the GM)",
            "   dice: B B B B 5 5 5 5 5 — legal: basic 25",
        ]
        assert opened.custom_ids == []
        assert rerolled.message.button_labels() == ["Roll BLUE ×4", "Roll 5 ×5"]
        attacked = await t.select(t.alice, rerolled.message, f"referee:goddice:attack:{game}:1-2", ["basic"])
        assert "   @bob's Monk: -25 → 30/55 life (Basic)." in lines(t, attacked)

        # Turn 2: bob's Monk against alice's Hero; the Hero's face puts the defender in favor: alice decides.
        await t.run(t.bob, "goddice declare", attacker="monk")
        await t.run(t.gm, "gm dice", values="H C", purpose="any")
        defended = await t.run(t.alice, "goddice defend", character="hero")
        assert lines(t, defended)[-1] == ("🙏 The defender is in favor with the Gods: the defender decides whether "
                                          "the opening roll stands.")
        await t.run(t.gm, "gm dice", values="B B R O O O 5 5 5", purpose="any")
        opened = await t.click(t.bob, defended.message, f"referee:goddice:roll:{game}:2-0:opening")
        assert lines(t, opened)[0] == KEEP_OR_REROLL
        assert pinged(opened.message) == [t.alice.id]
        refused = await t.run(t.bob, "goddice favor", choice="keep")
        assert refused.ephemeral and named(t, refused) == (
            "⛔ it is not your move: @alice is in favor and says keep or reroll (/goddice favor)")
        kept = await t.click(t.alice, opened.message, f"referee:goddice:favor:{game}:2-1:keep")
        assert lines(t, kept) == [
            "⏳ @bob, your move: roll a type or attack (/goddice roll type:…, /goddice attack).",
            "Dice: 🟦 🟦 🟥 ⭕ ⭕ ⭕ 5️⃣ 5️⃣ 5️⃣",
            "@alice says: keep the opening roll.",
        ]
        assert kept.message.button_labels() == ["Roll BLUE ×2", "Roll RED ×1", "Roll O ×3", "Roll 5 ×3"]
        assert pinged(kept.message) == [t.bob.id]

        # The GM undoes the keep: the answer offers alice her choice again (and bob's rolls come off).
        asked = await t.run(t.gm, "gm undo")
        [undone] = (await t.click(t.gm, asked.message, asked.custom_ids[0])).followups
        assert not undone.ephemeral
        assert lines(t, undone) == [
            KEEP_OR_REROLL,
            "Dice: 🟦 🟦 🟥 ⭕ ⭕ ⭕ 5️⃣ 5️⃣ 5️⃣",
            "↩ GM @gm undid @alice's “/goddice favor choice:keep” and all its rolls."]
        assert undone.custom_ids == [f"referee:goddice:favor:{game}:2-1:{choice}" for choice in ("keep", "reroll")]
        assert kept.custom_ids == [] and pinged(undone) == [t.alice.id]
        assert (await t.state(rb)).phase == "favor"

        # The GM ends the game: the controls come off, the status says it is over.
        asked = await t.run(t.gm, "game end")
        await t.click(t.gm, asked.message, asked.custom_ids[0])
        assert undone.custom_ids == []
        pinned = t.status_message().embeds[0]
        assert pinned["title"] == "God Dice" and "**GAME OVER**" in pinned["description"]
        assert t.dice.all_used()


async def test_the_gm_sets_life_and_loads_a_card_file(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await t.run(t.gm, "game start", ruleset="goddice")
        await t.run(t.alice, "goddice join")
        await t.run(t.bob, "goddice join")

        shipped = (REPO / "data" / "goddice.toml").read_text()
        card_file = shipped.replace('title = "Hero"', 'title = "Champion"').encode()
        loaded = await t.run(t.gm, "gm cards", file=FakeAttachment("champion.toml", card_file))
        assert loaded.deferred and loaded.ephemeral
        confirmed = await loaded.wait_for_final_message()
        assert confirmed.ephemeral and confirmed.content == "champion.toml read."
        [announced] = [m for m in loaded.followups if not m.ephemeral]
        assert named(t, announced) == ("GM @gm loaded another card file for this game: Champion, Cleric, Monk, Bowman, "
                                       "Sage, Assassin (/goddice cards shows them).")
        cards = await t.run(t.bob, "goddice cards")
        assert cards.embed["description"].splitlines()[0].startswith(
            r"Champion (75 life, God die H): Basic [1B] normal; Critical\* [2B 2Y] ×2;")

        for name, data, reason in [
            ("notes.toml", b"[dice\nbroken", "⛔ cannot read notes.toml as a card file: "),
            ("empty.toml", b"title = 'no cards'", "⛔ that card file is not valid: "),
            ("huge.toml", b"#" * 200_001, "⛔ that file is too large for a card file (200001 bytes; at most 200000)"),
        ]:
            refused = await t.run(t.gm, "gm cards", file=FakeAttachment(name, data))
            answer = await refused.wait_for_final_message() if refused.deferred else refused.message
            assert answer.ephemeral and texts(answer).startswith(reason), texts(answer)
        t.fake.allow(t.guild, "gm", t.alice)  # /gm is for Manage Server by default; the server shows it her
        stranger = await t.run(t.alice, "gm cards", file=FakeAttachment("champion.toml", card_file))
        assert stranger.ephemeral and texts(stranger) == "⛔ only the game's GM or a co-GM may use /gm commands"
        assert (await t.state(rb)).cards.characters["hero"].title == "Champion"

        # /gm life, after the draft: the Monk killed, then brought back.
        await t.run(t.gm, "gm dice", values="Y Y Y B B B B B B  B B B B B B B B B", purpose="any")
        await t.run(t.gm, "goddice begin")
        await t.run(t.alice, "goddice choose", first="attack")
        for player, card in zip([t.bob, t.alice] * 4, DRAFT, strict=True):
            await t.run(player, "goddice pick", character=card)
        bob = str(t.bob.id)
        killed = await t.run(t.gm, "gm life", player=bob, character="monk", life=0)
        assert lines(t, killed) == [
            "⏳ @alice, your move: declare an attacker (/goddice declare).",
            "   @bob's Monk: -55 → 0/55 life (set by GM @gm).",
            "💀 @bob's Monk dies.",
        ]
        choices = await t.fake.autocomplete(t.guild, t.channel, t.gm, "gm life", focused="character",
                                            options={"player": bob})
        assert [c["name"] for c in choices] == ["Monk (dead)", "Sage (35/35 life)", "Assassin (25/25 life)",
                                                "Champion (75/75 life)"]
        players = await t.fake.autocomplete(t.guild, t.channel, t.gm, "gm life", focused="player",
                                            options={"player": "assass"})
        assert [c["value"] for c in players] == [bob]
        assert "Monk ☠ 0/55" in t.status_message().embeds[0]["description"]
        raised = await t.fake.autocomplete(t.guild, t.channel, t.bob, "goddice resurrect", focused="character")
        assert raised == [{"name": "Monk (dead)", "value": "Monk"},
                          {"name": "decline (no resurrection)", "value": "decline"}]
        restored = await t.run(t.gm, "gm life", player=bob, character="monk", life=40)
        assert lines(t, restored)[1] == "   @bob's Monk: +40 → 40/55 life (set by GM @gm)."
        too_much = await t.run(t.gm, "gm life", player=bob, character="sage", life=36)
        assert too_much.ephemeral and texts(too_much) == "⛔ Sage's life is 0 to 35, not 36"
        late = await t.run(t.gm, "gm cards", file=FakeAttachment("champion.toml", card_file))
        refusal = await late.wait_for_final_message()
        assert refusal.ephemeral and texts(refusal) == "⛔ cards can be changed only before the draft"
        assert (await t.state(rb)).player(bob).characters[0].life == 40


async def test_each_rule_set_refuses_the_others_commands_with_the_reason(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await drafted(t, rb)
        nations = t.fake.add_channel(t.guild, "nations-2")
        await t.run(t.gm, "game start", channel=nations)  # a Nations game in the server: its commands are here
        before = snapshot(await t.state(rb))
        for command, options in [("economy grow", {}), ("nation show", {}), ("nation list", {}), ("army show", {}),
                                 ("attack status", {}), ("nation claim", {"preset": "1"}), ("gm turn end", {})]:
            refused = await t.run(t.gm if command.startswith("gm") else t.alice, command, **options)
            assert refused.ephemeral, command
            assert texts(refused) == f"⛔ /{command} is a Nations command, and this channel's game is God Dice"
        assert snapshot(await t.state(rb)) == before
        fake, guild, channel = t.fake, t.guild, t.channel
        assert await fake.autocomplete(guild, channel, t.alice, "nation show", focused="nation") == []
        assert await fake.autocomplete(guild, channel, t.alice, "army disband", focused="unit") == []
        assert await fake.autocomplete(guild, channel, t.alice, "nation claim", focused="preset") == []
        keys = await fake.autocomplete(guild, channel, t.gm, "gm house", focused="key")
        assert keys == [{"name": "reminder_hours (default 12.0)", "value": "reminder_hours"}]

        for command, options in [("goddice status", {}), ("goddice cards", {}), ("goddice join", {}),
                                 ("goddice roll", {"type": "blue"})]:
            refused = await t.run(t.alice, command, channel=nations, **options)
            assert refused.ephemeral, command
            assert texts(refused) == f"⛔ /{command} is a God Dice command, and this channel's game is Nations"
        refused = await t.run(t.gm, "gm life", channel=nations, player="x", character="hero", life=1)
        assert texts(refused) == "⛔ /gm life is a God Dice command, and this channel's game is Nations"
        refused = await t.run(t.gm, "gm cards", channel=nations, file=FakeAttachment("c.toml", b""))
        assert refused.ephemeral
        assert texts(refused) == "⛔ /gm cards is a God Dice command, and this channel's game is Nations"
        for command, focused in [("goddice declare", "attacker"), ("goddice attack", "name"),
                                 ("goddice resurrect", "character"), ("goddice declare", "target")]:
            assert await fake.autocomplete(guild, nations, t.alice, command, focused=focused) == [], command
        status = await t.run(t.alice, "game status", channel=nations)
        assert status.embed["title"].startswith("Nations — turn 1 (")
        assert t.status_message(nations).embeds[0]["title"].startswith("Nations — turn 1 (")
        assert t.status_message().embeds[0]["title"] == "God Dice"


async def wake(rb, t) -> None:
    """What the scheduler does at a deadline: wake the channel's game."""
    await rb.bot.get_cog("Clock").wake(await rb.bot.referee.game_id(t.key()))
    await settle(t.fake)


async def test_the_clock_reminds_the_player_whose_move_it_is_with_its_controls(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            game = await drafted(t, rb)
            await t.run(t.alice, "goddice declare", attacker="cleric")
            await t.run(t.gm, "gm dice", values="H M", purpose="any")  # no Cleric face, no Sage face: no effect
            defended = await t.run(t.bob, "goddice defend", character="sage")
            assert defended.custom_ids == [f"referee:goddice:roll:{game}:1-0:opening"]
            clock = rb.bot.get_cog("Clock")
            assert clock.next_wake(game) is not None  # the reminder, 12 hours from the move
            posted = len(t.messages())

            t.clock.advance(hours=11, minutes=59)
            await wake(rb, t)
            assert len(t.messages()) == posted
            t.clock.advance(minutes=2)
            await wake(rb, t)
            [reminder] = t.messages()[posted:]
            assert named(t, reminder) == (
                "⏰ @alice, the game has waited 12 hours for you to make the opening roll (/goddice roll).")
            assert pinged(reminder) == [t.alice.id]
            assert reminder.custom_ids == [f"referee:goddice:roll:{game}:1-0:opening"]
            assert defended.custom_ids == []  # the reminder carries the move's controls now
            await wake(rb, t)
            assert len(t.messages()) == posted + 1  # reminded once for those 12 hours
            assert t.status_message().embeds[0]["title"] == "God Dice"
            state = await t.state(rb)
            assert (state.reminders, state.phase) == (1, "opening")

        # After a restart the reminder's button still makes the move.
        async with t.bot() as rb:
            await settle(t.fake)
            assert len(t.messages()) == posted + 1  # nothing new fell due
            await t.run(t.gm, "gm dice", values="R R R R O O 5 5 5", purpose="any")
            opened = await t.click(t.alice, reminder, reminder.custom_ids[0])
            assert lines(t, opened)[-1] == "   dice: R R R R O O 5 5 5 — no legal attack"
            assert reminder.custom_ids == []
            assert (await t.state(rb)).phase == "rolling"
            assert t.dice.all_used()


async def test_every_god_dice_option_is_described_and_offers_the_vocabularys_choices(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await t.run(t.gm, "game start", ruleset="goddice")  # /goddice: registered on a server that plays it
        commands = {c.path: c for c in COMMANDS if c.ruleset == "goddice"}
        registered = {}
        for name in ("goddice", "gm"):
            for sub in t.fake.find_command(t.guild, name)["options"]:
                registered[f"{name} {sub['name']}"] = sub
        for path, command in commands.items():
            options = {o["name"]: o for o in registered[path].get("options", [])}
            assert list(options) == [p.name for p in command.params], path
            for param in command.params:
                option = options[param.name]
                assert option["description"] not in ("", "…"), (path, param.name)
                assert bool(option.get("required")) == param.required, (path, param.name)
                if param.choices:
                    assert [c["value"] for c in option["choices"]] == list(param.choices), (path, param.name)


async def test_mended_a_won_game_exports_with_its_winner_and_a_non_player_is_not_seated(tmp_path):
    """Issue 17 on Discord: a member with no seat is told so (ephemeral, nothing changes); the GM kills bob's last
    character, the turn never waits on a player who is out, alice wins, and the GM's /gm export then gives the
    ended game with its winner."""
    import json

    async with table(tmp_path) as t, t.bot() as rb:
        dave = t.fake.add_member(t.guild, t.fake.add_user("dave"))
        await drafted(t, rb)
        before = snapshot(await t.state(rb))
        refused = await t.run(dave, "goddice declare", attacker="hero")
        assert refused.ephemeral and texts(refused) == "⛔ you are not seated in this game"
        assert snapshot(await t.state(rb)) == before
        for card in ("monk", "sage", "assassin"):
            await t.run(t.gm, "gm life", player=str(t.bob.id), character=card, life=0)
        won = await t.run(t.gm, "gm life", player=str(t.bob.id), character="hero", life=0)
        assert "👑 @alice wins: the last with a character still breathing!" in lines(t, won)
        exported = await t.run(t.gm, "gm export")
        assert exported.deferred and exported.ephemeral
        message = await exported.wait_for_final_message()
        assert message.content == "The channel's last game, ended: its export."
        [attachment] = message.attachments
        data = json.loads(attachment.data)
        assert (attachment.filename, data["game"]["winner"], data["game"]["ended"]) == (
            "goddice-game.json", str(t.alice.id), True)
        refused = await t.run(t.gm, "gm undo")  # the other /gm powers still need a live game
        assert refused.ephemeral and texts(refused) == "⛔ there is no game in this channel: start one with /game start"


async def test_mended_a_campaigns_game_2_counts_its_turns_from_1_and_game_1s_controls_stay_over(tmp_path):
    """Issue 17: game 2 of a Campaign starts again from turn 1; its controls are its own (`2.1-0`), so a control
    left over from game 1's turn 1 is refused."""
    async with table(tmp_path) as t, t.bot() as rb:
        game = await drafted(t, rb, "campaign")
        await t.run(t.alice, "goddice declare", attacker="hero")
        await t.run(t.gm, "gm dice", values="S A", purpose="any")
        defended = await t.run(t.bob, "goddice defend", character="monk")
        assert defended.custom_ids == [f"referee:goddice:roll:{game}:1-0:opening"]
        for card in ("hero", "cleric", "bowman"):
            await t.run(t.gm, "gm life", player=str(t.alice.id), character=card, life=0)
        won = await t.run(t.gm, "gm life", player=str(t.alice.id), character="sage", life=0)
        assert lines(t, won)[-2:] == ["Campaign game 2: every character back at full life; turns go clockwise.",
                                      "▶ Turn 1: @alice attacks."]
        await t.run(t.alice, "goddice declare", attacker="hero")
        await t.run(t.gm, "gm dice", values="S A", purpose="any")
        again = await t.run(t.bob, "goddice defend", character="monk")
        assert again.custom_ids == [f"referee:goddice:roll:{game}:2.1-0:opening"]
        assert t.status_message().embeds[0]["title"] == "God Dice"
        stale = stale_copy(t, defended.message, f"referee:goddice:roll:{game}:1-0:opening")
        over = await t.click(t.alice, stale, f"referee:goddice:roll:{game}:1-0:opening")
        assert over.ephemeral and texts(over) == "⛔ that move is over"
        await t.run(t.gm, "gm dice", values="B 5 5 5 O O O O R", purpose="any")
        opened = await t.click(t.alice, again.message, f"referee:goddice:roll:{game}:2.1-0:opening")
        assert "   dice: B R O O O O 5 5 5 — legal: basic 15" in lines(t, opened)
