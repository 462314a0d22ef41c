"""The Discord front-end of each rule set, looked up by a game's rule set: what the shared cogs need of it.

A rule set names its Discord adapter's package in the registry (`RuleSet.discord`, e.g. "cogs.nations");
that package's `ADAPTER` says what it adds to the shared behaviour — its cogs, its persistent controls, its
embeds, what the clock does after a change. The shared modules find it here, by the game's rule set, and
never import a rule set's package: the name comes from the registry and is imported when first needed. A
rule set with no Discord package (`discord` None) gets the generic adapter: its commands are built from its
table (`cogs.slash`), its views laid out from the engine's `View`s.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine.events import Event
from engine.game import GameState
from engine.rulesets import RULESETS

if TYPE_CHECKING:
    from data.store import GameRow
    from service.reports import Report

    Answer = Callable[[discord.Interaction, Report], Awaitable[None]]

Autocomplete = Callable[[discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[Any]]]]
"""An option's suggestions: (the interaction, what is typed so far) → at most 25 choices."""


@dataclass(frozen=True)
class Nudge:
    """Something a player is awaited for, as their reminder by DM says it (/remind me): a rule set's adapter
    lists those standing now (`DiscordAdapter.nudges`); each is sent once while it stands (by its `key`)."""

    player: str  # whom it concerns (a Discord user id)
    key: str  # names this occurrence: the same key while it stands, a new one for the next
    text: str  # what the reminder says, e.g. "your turn ends <t:…>, 2 actions left (Charon, turn 1)."
    until: datetime | None = None  # when it runs out
    lead: bool = False  # sent the player's `before` ahead of `until` (else as soon as it stands)
    pinged: bool = True  # the channel's own message mentions the player for it (no fallback mention needed)


@dataclass(frozen=True)
class DiscordAdapter:
    """What one rule set adds on Discord to the shared cogs; every field may be left out (the generic
    behaviour: the engine's views laid out, nothing more after a change)."""

    extensions: tuple[str, ...] = ()  # its cogs' modules, loaded after the shared cogs
    dynamic_items: tuple[type, ...] = ()  # its persistent controls (their custom ids outlive a restart)
    # the acting user's side (a Nations nation's name) for a report's colour and footer; None: no side
    side_of: Callable[[Any, str], str | None] | None = None
    # a report's footer (state, actor) → text; None: "<side or title> · Turn N" (the title alone before turn 1)
    footer: Callable[[Any, str | None], str | None] | None = None
    # fields added to the last embed of a report (state, events, actor) → [(name, value)] (Nations: actions left)
    report_fields: Callable[[Any, list[Event], str], list[tuple[str, str]]] | None = None
    # event kind → a report's heading, most telling first (shared kinds may be placed among them)
    headings: dict[str, str] = field(default_factory=dict)
    minor_kinds: frozenset[str] = frozenset()  # kinds that head a report only when nothing else does
    gm_kinds: frozenset[str] = frozenset()  # a GM's acts (a report coloured as one)
    clock_kinds: frozenset[str] = frozenset()  # the clock's doings
    gm_act: Callable[[Event], bool | None] | None = None  # an event's own say on being a GM's act (None: no say)
    # a report's outcome decided by its own events (events, the actor's side) → "success"/"failure"/None
    outcome: Callable[[list[Event], str | None], str | None] | None = None
    answer: Answer | None = None  # a command's answer when not its events alone (God Dice: the next move's controls)
    # the clock's announcement of caught-up events (clock, channel, report); None: the events as report embeds
    announce: Callable[[Any, discord.PartialMessageable, Report], Awaitable[None]] | None = None
    # after any change, before the status is updated (clock, channel, report, state, row) → the row as it is now
    after_change: Callable[[Any, discord.PartialMessageable, Report, Any, GameRow],
                           Awaitable[GameRow]] | None = None
    remind_at: Callable[[GameRow, Any], datetime | None] | None = None  # the front-end's own next reminder
    # what each player is awaited for now (state, the report's events) → nudges (reminders by DM); None: none
    nudges: Callable[[Any, list[Event]], list[Nudge]] | None = None
    whose_autocomplete: Autocomplete | None = None  # /log's side option
    # the suggestions its commands' options name (`Param.complete`), by name
    completers: dict[str, Autocomplete] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)  # a command's own answer, by path (else `answer`)


GENERIC = DiscordAdapter()


@cache
def _load(package: str) -> DiscordAdapter:
    adapter = importlib.import_module(package).ADAPTER
    if not isinstance(adapter, DiscordAdapter):
        raise TypeError(f"{package}.ADAPTER is not a DiscordAdapter")
    return adapter


def adapter_for(name: str) -> DiscordAdapter:
    """The Discord adapter of the rule set `name` (the generic one for an unknown rule set or one without)."""
    found = RULESETS.get(name)
    if found is None or found.discord is None:
        return GENERIC
    return _load(found.discord)


def adapter_of(state: GameState | None) -> DiscordAdapter:
    """The adapter of a game's rule set (a state, or None for no game)."""
    return adapter_for(state.ruleset) if state is not None else GENERIC


def adapters() -> dict[str, DiscordAdapter]:
    """Every registered rule set's adapter, by rule set, in the registry's order."""
    return {name: adapter_for(name) for name in RULESETS}


def extensions() -> list[str]:
    """The cogs every registered rule set needs on top of the shared ones, each once, in order."""
    return list(dict.fromkeys(e for adapter in adapters().values() for e in adapter.extensions))


def dynamic_items() -> list[type]:
    """Every registered rule set's persistent controls."""
    return list(dict.fromkeys(item for adapter in adapters().values() for item in adapter.dynamic_items))
