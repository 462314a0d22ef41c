"""The GM's log for every front-end and rule set: `/log gm` lists every GM act — a GM-only command (set, adjust,
house changes, unit edits, undo, entered dice, decided choices, clock changes), anything the game's GM did for a
side, and imports — with who, when, the command as typed and each change as "before → after".

The before values come from replaying the game's live events in order: each event's change is worded against
the state just before it (the rule set's `change_line`, or the shared house-setting line), else the event's own
line (`engine.describe.event_line`). An undone act is listed too, marked undone (its undo is listed after it).
A page counts from the newest acts (page 1: the latest), each page shown oldest first, as /log rolls does.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data.store import LoggedAction, Store
from engine import events as ev
from engine.commands import BY_PATH, MAX_PAGE, find_command
from engine.describe import event_line, same, setting_value, setting_words, utc_text
from engine.errors import BadInput, RefereeError
from engine.game import When, Who, cogms_of
from engine.rulesets import GameState, ruleset_of
from service.reports import CLOCK_ACTOR

__all__ = ["GM_PAGE_SIZE", "GmAct", "GmPage", "act_lines", "gm_acts", "gm_page", "gm_page_lines", "is_gm_act"]

GM_PAGE_SIZE = 10


@dataclass(frozen=True)
class GmAct:
    """One GM act: when, who, the command as typed, and whether it was undone since."""

    at: datetime
    actor: str
    command: str
    undone: bool


@dataclass(frozen=True)
class GmPage:
    acts: list[GmAct]
    page: int
    pages: int
    total: int


def _gm_only(command: str) -> bool:
    words = command.lstrip("/").split()
    try:
        found, _ = find_command(words)
    except (RefereeError, KeyError):
        return False
    return bool(found.gm_only) and found.path in BY_PATH


def is_gm_act(logged: LoggedAction, gm: str | Collection[str]) -> bool:
    """A GM-only command, an act of the game's GM or a co-GM (`gm`: one name or theirs; not the game's start), an
    import or an undo."""
    act = logged.action
    if act.actor == CLOCK_ACTOR:
        return False
    if any(isinstance(e, ev.GameImported | ev.ActionUndone) for e in logged.events):
        return True
    if any(e.starts_game for e in logged.events):
        return False
    gms = [gm] if isinstance(gm, str) else list(gm)
    return _gm_only(act.command) or any(g and act.actor.lower() == g.lower() for g in gms)


def _change(state: GameState | None, event: ev.Event[Any], when: When, who: Who) -> str | None:
    """The event's change in words against `state` as it was just before it, or None."""
    if state is None:
        return None
    if isinstance(event, ev.HouseChanged):
        house = getattr(state, "house", None)
        old = getattr(house, event.key, None) if house is not None else None
        if old is None:
            return None
        return (f"House setting {setting_words(event.key)}: {setting_value(old)} → {setting_value(event.value)}"
                " for this game.")
    hook = ruleset_of(state).change_line
    return hook(state, event, when, who) if hook is not None else None


def _entry_lines(state: GameState | None, logged: LoggedAction, when: When,
                 who: Who) -> tuple[list[str], GameState | None]:
    """An act's lines, each event worded against the state just before it (an act may change one value twice),
    and the state after the act (`state` itself, changed in place)."""
    lines = []
    for event in logged.events:
        line = _change(state, event, when, who) or event_line(event, when, who)
        if line:
            lines.append(line)
        state = event.apply(state)
    return lines, state


async def gm_acts(store: Store, game_id: int, when: When = utc_text, who: Who = same) -> list[tuple[GmAct, list[str]]]:
    """Every GM act of the game, oldest first, each with its lines (changes as before → after, in `when`'s and
    `who`'s words). The whole log is replayed once, live events only, so each before is the state it met."""
    history = await store.action_history(game_id)
    current = await store.load(game_id)
    gm = [str(getattr(current, "gm", "") or ""), *cogms_of(current)]
    state: GameState | None = None
    found: list[tuple[GmAct, list[str]]] = []
    for logged in history:
        live = not logged.action.undone
        if is_gm_act(logged, gm):
            act = GmAct(logged.action.at, logged.action.actor, logged.action.command, logged.action.undone)
            # an undone act is worded against the state it met, on a copy: the game went on without it
            lines, after = _entry_lines(state if live else copy.deepcopy(state), logged, when, who)
            found.append((act, lines))
            if live:
                state = after
        elif live:
            state = ev.replay(logged.events, state)
    return found


async def gm_page(store: Store, game_id: int, page: int = 1, size: int = GM_PAGE_SIZE, when: When = utc_text,
                  who: Who = same) -> tuple[GmPage, list[list[str]]]:
    """One page of the GM's log (page 1: the newest `size` acts, oldest first) and each act's lines. A page past
    the end is refused in one line."""
    if not 1 <= page <= MAX_PAGE:
        raise BadInput(f"page is 1 or more (at most {MAX_PAGE}), not {page}")
    acts = await gm_acts(store, game_id, when, who)
    total = len(acts)
    pages = max(1, math.ceil(total / size))
    if page > pages:
        raise BadInput(f"page {page} is past the end: {'there is 1 page' if pages == 1 else f'there are {pages} pages'}"
                       f" of {total} GM act{'' if total == 1 else 's'}")
    end = total - (page - 1) * size
    shown = acts[max(0, end - size):end]
    return GmPage([a for a, _ in shown], page, pages, total), [lines for _, lines in shown]


def act_lines(act: GmAct, lines: list[str], when: When = utc_text, who: Who = same,
              command: Who = same) -> list[str]:
    """One act as an entry: `when — who: command` (marked when undone since), its changes indented under it."""
    head = f"{when(act.at)} — {who(act.actor)}: {command(act.command)}" + (" (undone since)" if act.undone else "")
    return [head] + [f"  {line}" for line in lines]


def gm_page_lines(shown: GmPage, lines: list[list[str]], when: When = utc_text, who: Who = same,
                  command: Who = same) -> list[str]:
    """The page as text: each act's entry, then where it stands ("Page 1 of 3 · 24 GM acts · newest first")."""
    if not shown.total:
        return ["No GM acts yet."]
    out = [line for act, own in zip(shown.acts, lines, strict=True) for line in act_lines(act, own, when, who, command)]
    return out + [page_footer(shown)]


def page_footer(shown: GmPage) -> str:
    return f"Page {shown.page} of {shown.pages} · {shown.total} GM act{'' if shown.total == 1 else 's'} · newest first"
