"""Issue 33 on Discord: a command's idempotency key is its interaction's id, so a commit whose connection is cut
after the database committed is answered with what the command did (not "nothing changed"), and the same
interaction delivered again answers it again without applying twice."""

from __future__ import annotations

from commitcut import cut_commits
from discordkit import settle, start_war, table, texts

from cogs.util import command_key
from engine.commands import BY_PATH
from service.dispatch import Dispatcher, Front, Request


async def test_the_interaction_id_is_the_key_and_a_cut_commit_is_answered_as_saved(tmp_path, monkeypatch):
    async with table(tmp_path) as t, t.bot() as rb:
        await start_war(t)
        await t.run(t.gm, "gm set", nation="Gracchan Republic", stat="land", value="40")  # room to grow
        referee = rb.bot.referee
        game_id = await referee.game_id(t.key())
        t.dice.push(7)
        cut_commits(monkeypatch, landed=True)
        t.fake.fail_on_errors = False  # the store logs the lost connection once, as an error
        result = await t.fake.invoke(t.guild, t.channel, t.alice, "economy grow")
        await settle(t.fake, check_errors=False)
        monkeypatch.undo()
        assert [r.name for r in t.fake.take_errors()] == ["referee.store"]
        t.fake.fail_on_errors = True
        answered = texts(result)
        assert not result.ephemeral and "cannot save" not in answered and "ECONOMY" in answered.upper(), answered
        [last] = await referee.store.actions(game_id, limit=1)
        rows = await referee.store._fetchall("SELECT key, action_id FROM command_keys WHERE game_id = ?",
                                             (game_id,))
        assert (f"discord:{result.id}", last.id) in [tuple(row) for row in rows]
        # the same interaction delivered again: its first outcome, nothing applied twice (no die is left)
        again = Request(t.key(), str(t.alice.id), BY_PATH["economy grow"], text="/economy grow",
                        guild_id=t.guild.id, key=f"discord:{result.id}")
        report = (await Dispatcher(referee, Front("discord")).act(again)).report
        assert report.action_ids[-1] == last.id
        assert [a.id for a in await referee.store.actions(game_id, limit=1)] == [last.id]


def test_a_command_key_is_the_interaction_id():
    class Interaction:
        id = 1234567890123456789

    assert command_key(Interaction()) == "discord:1234567890123456789"  # type: ignore[arg-type]
