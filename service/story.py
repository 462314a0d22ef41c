"""/log game: the story of one turn — the game's log (actions with their events, free rolls) bounded by a turn
rather than a time, told with `referee.digest_lines`.

Which turn an action belongs to: the turn running when it began. Each rule set says, through its `turn_mark`,
which events open a turn (a Nations turn's end opens the next, a God Dice TurnStarted or a Godsfire phase change
opens its own turn); an action whose events open a turn is told in both turns: up to and with that event in the
turn it ended, from that event on (marked "continued") in the turn it opened, so a turn's story begins with how
it began. Turn 1 holds whatever came before the first mark (a God Dice game's roll-off and draft too). The
default turn is the current one (the story so far); a turn after it, or before 1, is refused in one line."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from data.store import LoggedAction, Store
from engine.describe import same, utc_text
from engine.dice import RollRecord
from engine.errors import BadInput
from engine.events import ActionUndone, Event
from engine.rulesets import GameState, ruleset
from service.digest import digest_lines
from service.referee import Referee
from service.reports import Digest

PAGE = 500  # actions read at once
KEPT_STARTS = 1000  # games a store's last scanned turn start is remembered of (`turn_starts`)

# store → game id → (action id, the turn running after it, the turn the next action opened): a place in the game's
# log just before a turn was seen to begin, so the next story of that turn or a later one reads on from there instead
# of from the first action (the game's page tells the current turn's story at each change). Per store: game ids are
# a database's own. It is only a hint: an undo of an action at or before it (seen in the actions read after it)
# sends the story back to the start of the log.
_STARTS: weakref.WeakKeyDictionary[Store, dict[int, tuple[int, int, int]]] = weakref.WeakKeyDictionary()


def turn_starts(store: Store) -> dict[int, tuple[int, int, int]]:
    """The turn starts remembered of `store`'s games (`_STARTS`)."""
    found = _STARTS.get(store)
    if found is None:
        found = _STARTS[store] = {}
    return found


@dataclass
class Story:
    """One turn's story: the game's state now, the turn told, the current turn, and the turn's entries in order."""

    state: GameState
    turn: int
    current: int
    items: list[LoggedAction | RollRecord]


def current_turn(state: GameState) -> int:
    return max(int(getattr(state, "turn", 1) or 1), 1)


def split_by_turn(logged: LoggedAction, turn: int, mark: Callable[[Event], int | None] | None,
                  wanted: int) -> tuple[LoggedAction | None, int]:
    """The part of one action told in turn `wanted` (None: none) and the turn running after it, `turn` being the
    turn running when it began."""
    kept: list[Event] = []
    began = turn
    for event in logged.events:
        opened = mark(event) if mark is not None else None
        if turn == wanted:
            kept.append(event)
        if opened is not None and opened != turn:
            turn = opened
            if turn == wanted:  # the event that opened the turn begins its story
                kept.append(event)
    shown = began == wanted
    if not kept and not shown:
        return None, turn
    action = logged.action
    if began != wanted:
        action = dataclasses.replace(action, command=f"{action.command} (continued)")
    return LoggedAction(action, kept), turn


async def turn_story(referee: Referee, channel: str, turn: int | None = None) -> Story:
    """/log game's story of `turn` (default: the current turn) of the channel's game (its last ended one when none
    runs)."""
    return await game_story(referee, await referee.shown_game_id(channel), turn)


async def game_story(referee: Referee, game_id: int, turn: int | None = None, state: GameState | None = None) -> Story:
    """The story of `turn` (default: the current turn) of game `game_id` (Discord's Previous / Next turn buttons
    name the game they belong to). `state`: the game's state, when the caller has just read it."""
    if state is None:
        state = await referee.store.load(game_id)
    current = current_turn(state)
    wanted = current if turn is None else int(turn)
    if not 1 <= wanted <= current:
        raise BadInput(f"turn {wanted} does not exist: this game's turns are 1 to {current}")
    mark = ruleset(state.ruleset).turn_mark
    hint = turn_starts(referee.store).get(game_id)
    told = await _told(referee, game_id, mark, wanted, hint[:2] if hint is not None and hint[2] <= wanted else (0, 1))
    if told is None:  # an action before the hint was undone: the whole log, from its start
        turn_starts(referee.store).pop(game_id, None)
        told = await _told(referee, game_id, mark, wanted, (0, 1))
    assert told is not None
    free = await referee.store.free_rolls_of_turn(game_id, wanted)
    items: list[LoggedAction | RollRecord] = sorted(
        [*told, *free], key=lambda item: item.action.at if isinstance(item, LoggedAction) else item.at)
    return Story(state, wanted, current, items)


async def _told(referee: Referee, game_id: int, mark: Callable[[Event], int | None] | None, wanted: int,
                start: tuple[int, int]) -> list[LoggedAction] | None:
    """Turn `wanted`'s part of each action read on from `start` (action id, the turn running after it); None when an
    action read undid one at or before `start` (it no longer says where the turn began)."""
    after, running = start
    told: list[LoggedAction] = []
    while True:
        page = await referee.store.logged_actions(game_id, after, PAGE)
        for logged in page:
            if start[0] and any(isinstance(e, ActionUndone) and e.action_id <= start[0] for e in logged.events):
                return None
            began = running
            part, running = split_by_turn(logged, running, mark, wanted)
            if running != began and running <= wanted:  # a turn begins in this action: read on from just before it
                _remember(turn_starts(referee.store), game_id, (after, began, running))
            if part is not None:
                told.append(part)
            after = logged.action.id
        if len(page) < PAGE or running > wanted:
            return told


def _remember(starts: dict[int, tuple[int, int, int]], game_id: int, start: tuple[int, int, int]) -> None:
    starts.pop(game_id, None)
    if len(starts) >= KEPT_STARTS:
        del starts[next(iter(starts))]  # the game remembered longest ago
    starts[game_id] = start


def story_head(story: Story) -> str:
    title = ruleset(story.state.ruleset).title
    so_far = " (so far: it is the current turn)" if story.turn == story.current and not story.state.ended else ""
    return f"The story of turn {story.turn}{so_far} — {title}"


def story_lines(story: Story, when: Callable[[datetime], str] = utc_text, who: Callable[[str], str] = same,
                events: Callable[[list[Event]], list[str]] | None = None,
                free: Callable[[RollRecord], str] | None = None, command: Callable[[str], str] = same) -> list[str]:
    """The story as lines: its head, then the digest's lines of its entries (each action, when and who, with
    its events indented under it); the console's words by default, Discord passes its own (see `digest_lines`)."""
    if not story.items:
        return [story_head(story), f"Nothing is logged in turn {story.turn}."]
    first = story.items[0]
    digest = Digest(story.state, first.action.at if isinstance(first, LoggedAction) else first.at, story.items)
    return [story_head(story), *digest_lines(digest, when, who, events, free, command)[1:]]
