"""Words for events and rolls, shared by the console's text and Discord's embeds.

Times are passed through `when`, so each front-end shows them its own way (the console as UTC text,
Discord as `<t:…:R>` timestamps). Each rule set words its own events; `event_line` asks them in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from engine import events as ev
from engine.dice import FacesRecord, RollRecord, free_roll_line
from engine.game import When, Who
from engine.rulesets import RULESETS


def utc_text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


IRREGULAR = {"die": "dice"}
"""Nouns whose plural is not the noun with an s."""


def time_left(span: timedelta) -> str:
    """A span of time held by a paused clock, as words: "5 h 12 min", "40 min", "2 d 3 h", "under a minute"."""
    minutes = max(0, int(span.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min" if minutes else "under a minute"


def plural(count: int, noun: str) -> str:
    """`1 action`, `2 actions`; `2 GM-entered dice` (the last word of `noun` is the one made plural)."""
    if count == 1:
        return f"{count} {noun}"
    head, _, last = noun.rpartition(" ")
    return f"{count} {head}{' ' if head else ''}{IRREGULAR.get(last, last + 's')}"


def setting_value(value: object) -> str:
    """A house setting's value in words: `yes`/`no`, `12` (not `12.0`), `green`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def setting_words(key: str) -> str:
    """`actions per turn (`actions_per_turn`)`: a house setting in words, then its name as `/gm house key:` takes
    it (in backticks: the one way a setting's name is shown)."""
    if "_" not in key:
        return key
    words = " ".join(word.upper() if word in SHORT_WORDS else word for word in key.split("_"))
    return f"{words} (`{key}`)"


SHORT_WORDS = frozenset({"hp", "mp", "ng", "ag", "sqd", "pdf", "gb"})
"""Abbreviations written in capitals when a name is put in words (`full HP after battle`, `AG strength`)."""


def signed(value: int) -> str:
    return f"{value:+d}"


def same(name: str) -> str:
    return name


def roll_line(roll: RollRecord, strong: Callable[[str], str] = same) -> str:
    """`🎲 Gracchan Republic, grow economy: d10 7 + mod(E) +1 = 8 vs > 12: failure`; a free /roll row
    (`roll.free`) as `🎲 alice, free roll, not a rule roll: 2d6 (3, 5) + 3 = 11`.

    `strong` marks the total and the verdict (Discord: bold), never any name in the line."""
    if roll.free is not None:
        return free_roll_line(roll.nation, roll.free)
    parts = [f"d{roll.sides} {roll.die}" + (" (GM die)" if roll.forced else "")]
    parts += [f"{name} {signed(value)}" for name, value in roll.modifiers.items()]
    text = " + ".join(parts)
    if roll.modifiers:
        text += f" = {strong(str(roll.total))}"
    if roll.target is not None:
        verdict = "success" if roll.success else "failure"
        text += f" vs {roll.comparison} {roll.target}: {strong(verdict)}"
    who = f"{roll.nation}, " if roll.nation else ""
    return f"🎲 {who}{roll.purpose}: {text}"


def faces_line(roll: FacesRecord, who: Who = same) -> str:
    """`🎲 alice, opening roll: B B B R O O 5 5 5` (GM-entered dice marked with *)."""
    faces = " ".join(face + ("*" if forced else "") for face, forced in zip(roll.faces, roll.forced, strict=True))
    entered = " (* entered by the GM)" if roll.any_forced else ""
    player = f"{who(roll.player)}, " if roll.player else ""
    return f"🎲 {player}{roll.purpose}: {faces}{entered}"


def event_line(event: ev.Event[Any], when: When = utc_text, who: Who = same) -> str | None:
    """One line for one event, or None for events that need no words of their own.

    `when` shows a time and `who` a player or GM (the console prints names, Discord mentions).
    """
    match event:
        case ev.DiceRolled(roll=roll):
            return faces_line(roll, who)
        case ev.DieRolled(roll=roll):
            return roll_line(roll)
        case ev.GameEnded(standings=s) if not s:
            return "The game is over."
        case ev.HouseChanged(key=key, value=value):
            return f"House setting {setting_words(key)} is now {setting_value(value)} for this game."
        case ev.DiceQueued(values=values, by=by):
            return f"GM {who(by)} entered the next {plural(len(values), 'die')}."
        case ev.DiceCleared(by=by):
            return f"GM {who(by)} cleared the entered dice."
        case ev.CoGMAdded(player=player, by=by):
            return f"{who(player)} is a co-GM of this game now: the GM's powers here (made so by {who(by)})."
        case ev.CoGMRemoved(player=player, by=by):
            if by.strip().lower() == player.strip().lower():
                return f"{who(player)} stepped down: no longer a co-GM of this game."
            return f"{who(player)} is no longer a co-GM of this game (removed by {who(by)})."
        case ev.GameHandedOver(to=to, old=old, by=by):
            return f"{who(to)} is the game's GM now (handed over by {who(by)}); {who(old)} stays a co-GM."
        case ev.ActionUndone(summary=summary, by=by, undone_actor=undone_actor):
            whose = f"{who(undone_actor)}'s " if undone_actor else ""
            return f"↩ GM {who(by)} undid {whose}“{summary}” and all its rolls."
        case ev.Notice(text=text):
            return f"⚠ {text}"
    for ruleset in RULESETS.values():
        line = ruleset.event_line(event, when, who)
        if line is not None:
            return line
    if isinstance(event, ev.GameEnded):  # standings no rule set words
        return "The game is over."
    return None
