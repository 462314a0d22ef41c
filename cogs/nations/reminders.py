"""What a Nations player is awaited for, as their reminders by DM say it (/remind me, `cogs.remind`): the
turn's end while they still have actions left (sent their `before:` ahead of it), and a battle choice that
waits for them (at once, and again on the engine's reminder of that choice, `ChoiceReminded`)."""

from __future__ import annotations

from cogs.frontends import Nudge
from cogs.render import safe, when
from engine.describe import plural
from engine.events import Event
from engine.nations.common import actions_left
from engine.nations.events import ChoiceReminded
from engine.nations.state import Battle, GameState
from engine.nations.war import chooser


def nudges(state: GameState, events: list[Event]) -> list[Nudge]:
    """The turn's end for each player with actions left (none while the clock is paused); each battle choice
    waiting for a player; the engine's reminder of a battle's choice (`ChoiceReminded`), unless it came too late."""
    found: list[Nudge] = []
    if not state.paused and not state.ended:
        end = state.turn_ends_at
        for nation in state.nations.values():
            left = actions_left(state, nation)
            if nation.player and not nation.eliminated and left > 0:
                found.append(Nudge(nation.player, f"turn {state.turn} {nation.name}",
                                   f"your turn ends {when(end)}, {plural(left, 'action')} left "
                                   f"({safe(nation.name)}, turn {state.turn}).", until=end, lead=True, pinged=False))
    for battle in state.battles.values():
        nudge = choice_nudge(state, battle)
        if nudge is not None:
            found.append(nudge)
    for event in events:
        if not isinstance(event, ChoiceReminded) or event.missed:  # a missed one: the default came with it
            continue
        reminded = state.battles.get(event.battle)
        nudge = choice_nudge(state, reminded, again=True) if reminded is not None else None
        if nudge is not None:
            found.append(nudge)
    return found


def choice_nudge(state: GameState, battle: Battle, again: bool = False) -> Nudge | None:
    """The choice a battle waits for, for its chooser's player (None when it waits for no player)."""
    nation = state.nations.get(chooser(battle) or "")
    if battle.over or battle.deadline is None or nation is None or not nation.player:
        return None
    what = "pick the next pairing (/attack pair)" if battle.stage == "pairing" else "commit your units (/attack commit)"
    key = f"battle {battle.id} {battle.stage} {battle.deadline.isoformat()}" + (" again" if again else "")
    return Nudge(nation.player, key, f"a battle choice {'still ' if again else ''}waits for you until "
                                     f"{when(battle.deadline)}: battle #{battle.id}, {what} ({safe(nation.name)}).",
                 until=battle.deadline, pinged=not again)  # the choice's offer mentions them; its reminder not
