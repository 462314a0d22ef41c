"""/gm undo: the GM takes back the game's last actions (their rolls included) by replaying the log without them,
after a preview of what goes; a confirmation applies once, and only while those actions are still the last ones."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from data.store import ActionRow, LoggedEvent, Store
from engine.commands import MAX_UNDO_STEPS
from engine.describe import plural
from engine.errors import BadInput, NotGM, RuleViolation
from engine.events import EVENT_TYPES, ActionUndone, Event, replay
from engine.rulesets import GameState
from service.reports import CLOCK_ACTOR, Report, UndoneAction, UndoPreview

FOUNDATIONAL = tuple(sorted({kind for (_, kind), found in EVENT_TYPES.items()
                            if found.starts_game or issubclass(found, ActionUndone)}))
"""The kinds of event whose action undo never takes back: a game's start (or import), an undo."""
MOVED_ON = ("the game moved on since this preview (those actions were already undone, or something happened since): "
            "/gm undo again to see what is last now")


class Undo:
    """The referee's undo: a part of `service.referee.Referee` (its methods are the referee's)."""

    if TYPE_CHECKING:  # what the undo uses of the rest of the referee (`Referee`'s own, at run time)
        store: Store
        clock: Callable[[], datetime]

        async def game_id(self, channel: str) -> int: ...
        @staticmethod
        def is_gm(state: GameState, actor: str, gm_role: bool = False) -> bool: ...
        def lock(self, game_id: int) -> asyncio.Lock: ...
        async def _catch_up(self, game_id: int) -> list[Event]: ...
        async def committed(self, report: Report, by_clock: bool = False) -> None: ...

    async def undo_target(self, channel: str) -> ActionRow | None:
        """The action `/gm undo` would take back now (the last one that is not the clock's or the game's
        start), or None."""
        targets = await self._undo_targets(await self.game_id(channel), 1)
        return targets[0] if targets else None

    async def _undo_targets(self, game_id: int, steps: int) -> list[ActionRow]:
        """The last `steps` actions undo may take back (fewer when there are fewer), newest first: not the
        clock's, not the game's start, not an undo."""
        foundational = await self.store.actions_with(game_id, FOUNDATIONAL)
        return [a for a in await self.store.actions(game_id, limit=1000, include_undone=False)
                if a.actor != CLOCK_ACTOR and a.id not in foundational][:steps]

    @staticmethod
    def _check_steps(steps: int) -> None:
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_UNDO_STEPS:
            raise BadInput(f"steps is how many of the last actions to undo: 1 to {MAX_UNDO_STEPS}, not {steps}")

    async def _planned_undo(self, game_id: int, steps: int) -> tuple[list[ActionRow], list[LoggedEvent], GameState]:
        """The actions `steps` undoes, the live log, and the state without them; refused in one line when there
        are fewer undoable actions than `steps`, or when the log without them no longer replays."""
        targets = await self._undo_targets(game_id, steps)
        if not targets:
            raise RuleViolation("there is nothing to undo")
        if len(targets) < steps:
            raise RuleViolation(f"only {plural(len(targets), 'action')} can be undone, not {steps}")
        logged = await self.store.events(game_id)
        ids = {a.id for a in targets}
        try:
            # replayed in a thread of its own: a long log takes seconds, which the event loop must not wait
            new_state = await asyncio.to_thread(replay, [e.event for e in logged if e.action_id not in ids])
        except (KeyError, ValueError, IndexError) as err:
            which = targets[0].command if len(targets) == 1 else f"the last {len(targets)} actions"
            raise RuleViolation(f"{which} cannot be undone any more ({err})") from None
        return targets, logged, new_state

    async def preview_undo(self, channel: str, actor: str, steps: int = 1,
                           gm_role: bool = False) -> UndoPreview:
        """What `/gm undo steps:N` would take back now — each action with its command, its rolls and every
        change it made — without changing anything (each front-end shows its `lines`, then asks to confirm).
        Refused, in one line, as the undo itself would be."""
        self._check_steps(steps)
        game_id = await self.game_id(channel)
        state = await self.store.load(game_id)
        if not self.is_gm(state, actor, gm_role):
            raise NotGM("only the GM may undo")
        targets, logged, _ = await self._planned_undo(game_id, steps)
        return UndoPreview(game_id, [UndoneAction(a, [e.event for e in logged if e.action_id == a.id])
                                     for a in targets])

    async def undo(self, channel: str, actor: str, gm_role: bool = False,
                   expected: int | Sequence[int] | None = None, steps: int = 1) -> Report:
        """GM: take back the game's last `steps` actions (1 to MAX_UNDO_STEPS), their rolls included, by
        replaying the log without them: one transaction, one logged undo.

        `expected`: the action ids the GM confirmed undoing (`UndoPreview.action_ids`; an int: the newest of
        them); when they are no longer the last ones (undone already, or something happened since) nothing is
        undone. A confirmation applies once."""
        self._check_steps(steps)
        game_id = await self.game_id(channel)
        async with self.lock(game_id):
            caught_up = await self._catch_up(game_id)
            state = await self.store.load(game_id)
            if not self.is_gm(state, actor, gm_role):
                raise NotGM("only the GM may undo")
            # The game's newest action before anything is checked: whatever another process logs after it makes
            # the store refuse the undo (GameMovedOn), so the actions checked here are the ones taken back.
            [newest] = await self.store.actions(game_id, limit=1)
            if expected is not None:
                now_ids = tuple(a.id for a in await self._undo_targets(game_id, steps))
                wanted = (expected,) if isinstance(expected, int) else tuple(expected)
                if len(now_ids) < steps or now_ids[:len(wanted)] != wanted:
                    raise RuleViolation(MOVED_ON)
            targets, _, new_state = await self._planned_undo(game_id, steps)
            undone = [ActionUndone(a.id, a.command, actor, a.actor) for a in targets]
            command = "/gm undo" + (f" steps:{steps}" if steps > 1 else "")
            await self.store.undo(game_id, [a.id for a in targets], new_state, undone, actor, command, self.clock(),
                                  last_action=newest.id)
        report = Report(game_id, new_state, list(undone), caught_up)
        await self.committed(report)
        return report
