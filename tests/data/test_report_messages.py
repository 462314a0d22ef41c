"""Migration 013: the message that announced a logged action, and /log rolls' page that carries it."""

from __future__ import annotations

from storehelpers import RULES, scalar

from data.store import LedgerFilter, ReportMessage
from engine.dice import ForcedRoller
from engine.nations import peace as nat
from service.referee import Referee


async def test_a_report_carries_its_action_ids_and_the_ledger_its_recorded_message(store, clock):
    ref = Referee(store, RULES, ForcedRoller([7, 9]), clock)
    game_id = (await ref.start_game("chan", "gm")).game_id
    await ref.act("chan", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    first = await ref.act("chan", "alice", nat.Encourage("morale"), "/propaganda encourage")
    assert first.action_ids == [await scalar(store, "SELECT MAX(id) FROM actions")]
    clock.advance(hours=12)  # the turn ends first: the report carries the clock's action, then the command's
    second = await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage")
    assert len(second.caught_up) > 0 and len(second.action_ids) == 2
    assert second.action_ids == [r[0] for r in await store._fetchall(
        "SELECT id FROM actions ORDER BY id DESC LIMIT 2")][::-1]

    await store.note_report_message(first.action_ids, 55, 1001)
    await store.note_report_message(first.action_ids, 55, 2002)  # the first message stays
    await store.note_report_message([], 55, 3003)  # nothing to record
    found, total = await store.ledger_page(game_id, LedgerFilter(), 0, 10)
    assert total == 2
    assert [message for _, message in found] == [ReportMessage(55, 1001), None]
    assert [roll.purpose for roll, _ in found] == ["encourage morale", "encourage workers"]
