"""Undo and end you can trust (issue 19): `/gm undo [steps:N]` first shows what it takes back — each command,
its rolls and every change it made — with Confirm and Cancel; `/game end` shows the standings it will post,
with Cancel. Through discord.py against the fake Discord."""

from __future__ import annotations

from discordkit import Table, at, mention, start_war, table, texts
from storehelpers import assert_snapshot_is_replay, log_counts

from engine.nations.snapshot import state_to_dict
from service.undo import MOVED_ON


def named(result: object, *members: object) -> str:
    text = texts(result)
    for member in members:
        text = text.replace(mention(member), f"@{member.user.name}")  # type: ignore[attr-defined]
    return text


async def played(t: Table) -> None:
    """Two actions after the war starts: alice grows military (die 9), bob attacks her propaganda (die 10)."""
    t.dice.push(9, 10)
    await t.run(t.alice, "economy military")
    await t.run(t.bob, "propaganda attack", target="Gracchan Republic")


async def test_the_undo_preview_lists_the_command_its_rolls_and_its_changes_and_cancel_changes_nothing(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await played(t)
        store, game_id = rb.bot.referee.store, await rb.bot.referee.game_id(t.key())
        before, counts = state_to_dict(await t.state(rb)), await log_counts(store, game_id)

        asked = await t.run(t.gm, "gm undo")
        assert asked.ephemeral
        assert named(asked, t.bob).splitlines() == [
            "Undo the last action? It takes back, with its rolls and every change it made:",
            f"1. @bob: “/propaganda attack target:Gracchan Republic” ({at(0)})",
            "    🎲 Charon, propaganda attack on Gracchan Republic: d10 10 vs > 10: **failure**",
            "    Charon: PROPAGANDA -1 (failed propaganda attack).",
        ]
        assert asked.message.button_labels() == ["Confirm", "Cancel"]
        target = await rb.bot.referee.undo_target(t.key())
        assert asked.custom_ids == [f"referee:confirm:undo:{game_id}:{t.gm.id}:{target.id}",
                                    f"referee:cancel:undo:{game_id}:{t.gm.id}"]
        # the preview changed nothing
        assert state_to_dict(await t.state(rb)) == before and await log_counts(store, game_id) == counts

        # alice may not cancel the GM's prompt; the GM's Cancel takes the buttons off and changes nothing
        stranger = await t.click(t.alice, asked.message, asked.custom_ids[1])
        assert stranger.ephemeral and texts(stranger) == "⛔ this button is not for you"
        cancelled = await t.click(t.gm, asked.message, asked.custom_ids[1])
        assert cancelled.message is asked.message and asked.custom_ids == []
        assert asked.content == "Cancelled: nothing was undone." and asked.embeds == []
        assert state_to_dict(await t.state(rb)) == before and await log_counts(store, game_id) == counts
        assert t.dice.all_used()


async def test_confirm_undoes_what_the_preview_showed(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        t.dice.push(9)
        await t.run(t.alice, "economy military")
        store, game_id = rb.bot.referee.store, await rb.bot.referee.game_id(t.key())
        before = state_to_dict(await t.state(rb))
        t.dice.push(10)
        await t.run(t.bob, "propaganda attack", target="Gracchan Republic")

        asked = await t.run(t.gm, "gm undo")
        confirmed = await t.click(t.gm, asked.message, asked.custom_ids[0])
        assert asked.custom_ids == []
        [undone] = confirmed.followups
        assert not undone.ephemeral
        assert named(undone, t.gm, t.bob) == ("↩ GM @gm undid @bob's “/propaganda attack target:Gracchan Republic” "
                                              "and all its rolls.")
        assert state_to_dict(await t.state(rb)) == before
        await assert_snapshot_is_replay(store, game_id)


async def test_undo_steps_takes_back_the_last_n_actions_after_the_same_preview(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        store, game_id = rb.bot.referee.store, await rb.bot.referee.game_id(t.key())
        before = state_to_dict(await t.state(rb))
        rolls_before = len(await store.rolls(game_id))
        await t.run(t.gm, "gm dice", values="8", purpose="any")
        await played(t)  # the 8 entered by the GM is used by alice's roll, then 9 for bob's

        asked = await t.run(t.gm, "gm undo", steps=3)
        lines = named(asked, t.gm, t.alice, t.bob).splitlines()
        assert lines == [
            "Undo the last 3 actions? It takes back, newest first, with their rolls and every change they made:",
            f"1. @bob: “/propaganda attack target:Gracchan Republic” ({at(0)})",
            "    🎲 Charon, propaganda attack on Gracchan Republic: d10 9 vs > 10: **failure**",
            "    Charon: PROPAGANDA -1 (failed propaganda attack).",
            f"2. @alice: “/economy military” ({at(0)})",
            "    🎲 Gracchan Republic, grow military: d10 8 (GM die) + mod(E) +1 = **9** vs > 8: **success**",
            "    Gracchan Republic: MILITARY +1 (grow military).",
            "    Gracchan Republic: ECONOMY -1 (cost of growing military).",
            f"3. @gm: “/gm dice values:(1 die entered)” ({at(0)})",
            "    GM @gm entered the next 1 die.",
        ]
        assert asked.custom_ids[0].endswith(":3")
        await t.click(t.gm, asked.message, asked.custom_ids[0])
        assert state_to_dict(await t.state(rb)) == before  # the state before those 3 actions
        assert len(await store.rolls(game_id)) == rolls_before
        await assert_snapshot_is_replay(store, game_id)
        # the die the GM entered is gone with its entry, and the fair die put back goes unused
        assert (await t.state(rb)).forced_dice == []


async def test_undo_refusals_in_one_line(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await played(t)
        store, game_id = rb.bot.referee.store, await rb.bot.referee.game_id(t.key())
        counts = await log_counts(store, game_id)
        too_many = await t.run(t.gm, "gm undo", steps=20)
        assert too_many.ephemeral and texts(too_many) == "⛔ only 4 actions can be undone, not 20"
        assert await log_counts(store, game_id) == counts

        # a preview the game moved on from: Confirm is refused, nothing changes
        asked = await t.run(t.gm, "gm undo")
        t.dice.push(5)
        await t.run(t.gm, "gm dice", values="3", purpose="any")
        moved = await t.click(t.gm, asked.message, asked.custom_ids[0])
        [refused] = moved.followups
        assert refused.ephemeral and texts(refused) == f"⛔ {MOVED_ON}"
        assert (await t.state(rb)).forced_dice == [3]


async def test_after_a_restart_confirm_still_checks_the_preview(tmp_path):
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            await start_war(t)
            before = state_to_dict(await t.state(rb))
            await played(t)
            asked = await t.run(t.gm, "gm undo", steps=2)
        async with t.bot() as rb:  # the buttons are routed after a restart; the actions are still the last
            game_id = await rb.bot.referee.game_id(t.key())
            confirmed = await t.click(t.gm, asked.message, asked.custom_ids[0])
            assert texts(*confirmed.followups).count("undid") == 2
            assert state_to_dict(await t.state(rb)) == before
            await assert_snapshot_is_replay(rb.bot.referee.store, game_id)


async def test_game_end_shows_the_standings_it_will_post_and_cancel_keeps_the_game(tmp_path):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        asked = await t.run(t.gm, "game end")
        assert asked.ephemeral and asked.message.button_labels() == ["End the game", "Cancel"]
        assert asked.content == ("End this game for good? Its log and export stay in the database. "
                                 "These are the final standings it will post:")
        preview = asked.embeds[0]
        cancelled = await t.click(t.gm, asked.message, asked.custom_ids[1])
        assert cancelled.message is asked.message and asked.custom_ids == []
        assert asked.content == "Cancelled: the game goes on."
        assert (await t.state(rb)).ended is False

        asked = await t.run(t.gm, "game end")
        confirmed = await t.click(t.gm, asked.message, asked.custom_ids[0])
        posted = [e for m in [*confirmed.followups, *t.messages()] for e in (m.embeds or [])
                  if e.get("title") == preview.get("title")]
        assert posted and posted[-1].get("fields") == preview.get("fields")
        assert posted[-1].get("description") == preview.get("description")
        assert await rb.bot.referee.store.live_game(t.key()) is None  # ended
