"""/log gm's ◀ Newer / Older ▶ and /log game's ◀ Previous turn / Next turn ▶ buttons, through discord.py against
the fake Discord: a click from anyone edits the message in place, the buttons are disabled at the ends, keep
working after a restart (their custom ids carry the game and the page or turn) and, once another game runs in
the channel, answer in one line, ephemeral. A story longer than a message is told over several, as /log game
tells it."""

from __future__ import annotations

from discordkit import mention, start_war, table, texts

AT = "<t:1772366400:f>"
ENDS = "<t:1772409600:f> (<t:1772409600:R>)"
VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1]  # the dice the GM enters, one an act (a d10 each)


def buttons(message) -> list[tuple[str, str, bool]]:
    """Each button of the message: its label, its custom id and whether it is disabled."""
    return [(c["label"], c["custom_id"], bool(c.get("disabled")))
            for row in message.components for c in row["components"]]


def gm_acts(gm: str, values: list[int]) -> list[str]:
    return [line for value in values
            for line in (f"{AT} — {gm}: /gm dice values:(1 die entered)", f"  GM {gm} entered the next 1 die.")]


async def end_game(t) -> None:
    asked = await t.run(t.gm, "game end")
    await t.click(t.gm, asked.message, asked.custom_ids[0])


async def test_gm_log_pages_with_buttons_after_a_restart_and_for_a_new_game(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            gm = mention(t.gm)
            for value in VALUES:  # 11 GM acts: page 1 the newest 10, page 2 the first
                await t.run(t.gm, "gm dice", values=str(value), purpose="any")
            first = await t.run(t.alice, "log gm")
            assert not first.ephemeral
            assert first.embed["description"].split("\n") == gm_acts(gm, VALUES[1:])
            assert first.embed["footer"]["text"] == "Page 1 of 2 · 11 GM acts · newest first"
            message = await first.wait_for_final_message()
            game = message.custom_ids[0].split(":")[3]
            assert buttons(message) == [("◀ Newer", f"referee:log:gm:{game}:1", True),
                                        ("Older ▶", f"referee:log:gm:{game}:2", False)]

            older = await t.click(t.bob, message, f"referee:log:gm:{game}:2")  # anyone may page
            assert not older.ephemeral and older.message is message
            assert message.embeds[0]["description"].split("\n") == gm_acts(gm, VALUES[:1])
            assert message.embeds[0]["footer"]["text"] == "Page 2 of 2 · 11 GM acts · newest first"
            assert buttons(message) == [("◀ Newer", f"referee:log:gm:{game}:1", False),
                                        ("Older ▶", f"referee:log:gm:{game}:2", True)]

            single = await t.run(t.bob, "log gm", page=2)  # asked for, the page has the same buttons
            assert buttons(single.message) == buttons(message)

        async with t.bot():  # a restart: the button re-reads the store, which has one more act
            await t.run(t.gm, "gm dice", values="5", purpose="any")
            newer = await t.click(t.alice, message, f"referee:log:gm:{game}:1")
            assert not newer.ephemeral
            assert message.embeds[0]["description"].split("\n") == gm_acts(gm, [*VALUES[2:], 5])
            assert message.embeds[0]["footer"]["text"] == "Page 1 of 2 · 12 GM acts · newest first"
            assert buttons(message)[0][2] and not buttons(message)[1][2]

            await end_game(t)  # over (its end a GM act too): its log still pages, the last game
            over = await t.click(t.bob, message, f"referee:log:gm:{game}:2")
            assert message.embeds[0]["description"].split("\n") == gm_acts(gm, VALUES[:3])
            assert message.embeds[0]["footer"]["text"] == "Page 2 of 2 · 13 GM acts · newest first"
            assert not over.ephemeral

            await t.run(t.gm, "game start", turn_hours=12)  # another game: the old log's buttons say so
            refused = await t.click(t.bob, message, f"referee:log:gm:{game}:1")
            assert refused.ephemeral
            assert texts(refused) == "⛔ that GM's log belongs to an earlier game in this channel: ask /log gm again"
            assert message.embeds[0]["footer"]["text"] == "Page 2 of 2 · 13 GM acts · newest first"  # unchanged

            alone = await t.run(t.alice, "log gm")  # one page: no buttons
            assert alone.custom_ids == [] and alone.embed["description"] == "No GM acts yet."


def turn_over(gm: str, turn: int, last: str, by: str = "/gm turn end") -> list[str]:
    return [f"{AT} — {gm}: {by}",
            f"  ⏰ Turn {turn} is over (ended by the GM). Turn {turn + 1} begins and ends {ENDS}. Last turn — {last}"]


async def test_log_game_steps_through_turns_after_a_restart_and_for_a_new_game(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot():
            await start_war(t)
            gm = mention(t.gm)
            await t.run(t.gm, "gm dice", values="9 8", purpose="any")
            await t.run(t.alice, "economy military")
            await t.run(t.gm, "gm turn end")
            await t.run(t.gm, "gm turn end")
            nothing = "Gracchan Republic: nothing; Charon: nothing."
            turn1 = "Gracchan Republic: ECONOMY; Charon: nothing."
            turn2 = [*turn_over(gm, 1, turn1, "/gm turn end (continued)"), *turn_over(gm, 2, nothing)]
            turn3 = turn_over(gm, 2, nothing, "/gm turn end (continued)")

            told = await t.run(t.bob, "log game", turn=2)
            assert not told.ephemeral
            assert told.embed["title"] == "📜 The story of turn 2 — Nations"
            assert told.embed["description"].split("\n") == turn2
            message = await told.wait_for_final_message()
            game = message.custom_ids[0].split(":")[3]
            assert buttons(message) == [("◀ Previous turn", f"referee:log:game:{game}:1", False),
                                        ("Next turn ▶", f"referee:log:game:{game}:3", False)]

            first = await t.click(t.alice, message, f"referee:log:game:{game}:1")  # anyone may step
            assert not first.ephemeral and first.message is message
            assert message.embeds[0]["title"] == "📜 The story of turn 1 — Nations"
            lines = message.embeds[0]["description"].split("\n")
            assert lines == (await t.run(t.bob, "log game", turn=1)).embed["description"].split("\n")
            assert lines[:3] == [
                f"{AT} — {gm}: /game start turn\\_hours:12.0",
                (f"  A Nations game begins, refereed by the bot; GM: {gm}. Turn 1 lasts 12 hours and ends {ENDS}."),
                f"{AT} — {mention(t.alice)}: /nation claim preset:Gracchan Republic",
            ]
            assert ("  🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = **10** vs > 8: **success**"
                    in lines)
            assert lines[-2:] == turn_over(gm, 1, turn1)
            assert buttons(message) == [("◀ Previous turn", f"referee:log:game:{game}:1", True),
                                        ("Next turn ▶", f"referee:log:game:{game}:2", False)]

        async with t.bot():  # a restart: the buttons still step, to the current turn (so far) at most
            second = await t.click(t.bob, message, f"referee:log:game:{game}:2")
            assert not second.ephemeral
            assert message.embeds[0]["title"] == "📜 The story of turn 2 — Nations"
            assert message.embeds[0]["description"].split("\n") == turn2
            await t.click(t.bob, message, f"referee:log:game:{game}:3")
            assert message.embeds[0]["title"] == "📜 The story of turn 3 (so far: it is the current turn) — Nations"
            assert message.embeds[0]["description"].split("\n") == turn3
            assert buttons(message) == [("◀ Previous turn", f"referee:log:game:{game}:2", False),
                                        ("Next turn ▶", f"referee:log:game:{game}:3", True)]

            now = await t.run(t.alice, "log game")  # the current turn, asked for: the same buttons
            assert buttons(now.message) == buttons(message)

            await end_game(t)  # over: its story still steps, the channel's last game
            over = await t.click(t.alice, message, f"referee:log:game:{game}:2")
            assert not over.ephemeral and message.embeds[0]["description"].split("\n") == turn2

            await t.run(t.gm, "game start", turn_hours=12)  # another game: the old story's buttons say so
            refused = await t.click(t.alice, message, f"referee:log:game:{game}:3")
            assert refused.ephemeral
            assert texts(refused) == "⛔ that story belongs to an earlier game in this channel: ask /log game again"
            assert message.embeds[0]["title"] == "📜 The story of turn 2 — Nations"  # unchanged

            alone = await t.run(t.alice, "log game")  # one turn so far: no buttons
            assert alone.custom_ids == []


async def test_a_story_longer_than_a_message_is_told_over_several(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        for _ in range(20):  # 20 free rolls of 100 dice: more than one message's 6000 characters
            await t.run(t.alice, "roll", dice="100d6")
        await t.run(t.gm, "gm turn end")
        asked = await t.run(t.bob, "log game", turn=1)
        long = [message.embeds for message in asked.messages]
        assert len(long) == 2 and long[0][0]["title"] == "📜 The story of turn 1 — Nations"
        assert asked.messages[1].custom_ids == []  # the buttons are on the first message
        game = asked.custom_ids[0].split(":")[3]

        short = await t.run(t.bob, "log game")
        assert short.embed["title"] == "📜 The story of turn 2 (so far: it is the current turn) — Nations"
        back = await t.click(t.alice, await short.wait_for_final_message(), f"referee:log:game:{game}:1")
        assert not back.ephemeral  # told anew, as /log game tells it: the same messages and buttons
        assert [message.embeds for message in back.messages] == long
        assert back.messages[0].custom_ids == asked.custom_ids and back.messages[1].custom_ids == []
        assert short.embed["title"] == "📜 The story of turn 2 (so far: it is the current turn) — Nations"
