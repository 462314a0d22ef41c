"""What the God Dice queries show, written once for every front-end: the table at a glance and the card
file (`engine.view`)."""

from __future__ import annotations

from typing import Any

from engine.goddice.cards import GoddiceRules
from engine.goddice.common import label
from engine.goddice.describe import cards_lines, player_lines, status_lines, turn_lines
from engine.goddice.state import GoddiceState
from engine.view import Grid, Line, Person, Section, Strong, View, line, marking_who, view, with_people

SEAT_HEADERS = ("seat", "player", "character", "life")


def seats_section(state: GoddiceState, seat_lines: list[Line]) -> Section:
    """Each player's line with every character's life, and the same as a table of characters for a front-end that
    draws one (the page): a row a character, by seat."""
    rows = tuple((str(player.seat), Person(player.name), label(player, character, state.cards),
                  f"{max(character.life, 0)}/{character.max_life}" + (" ☠" if character.life <= 0 else ""))
                 for player in state.players for character in player.characters)
    return Section(None, tuple(seat_lines), Grid(SEAT_HEADERS, rows, frozenset({3})) if rows else None)


def status_view(state: GoddiceState, rules: GoddiceRules | None = None) -> View:
    """/game status and /goddice status: seats, whose move, every character's life, the turn's dice."""
    lines = [with_people(text) for text in status_lines(state, marking_who)]
    title = line(*lines[0].parts, " — ", Strong("GAME OVER")) if state.ended and not state.winner else lines[0]
    paused = [line("The clock is paused: no reminder until it resumes.")] if state.paused_at and not state.ended else []
    seats = len(player_lines(state, marking_who))
    first = len(lines) - seats - len(turn_lines(state, marking_who))  # (status_lines: head, seats, the turn)
    return view(title, *lines[1:first], seats_section(state, lines[first:first + seats]), *lines[first + seats:],
                *paused, loud=state.ended)


def status_query(state: GoddiceState, rules: GoddiceRules, actor: str, options: dict[str, Any]) -> View:
    return status_view(state, rules)


def cards_view(state: GoddiceState, rules: GoddiceRules, actor: str, options: dict[str, Any]) -> View:
    """/goddice cards: every character of the game's card file with its attacks."""
    return view(None, *cards_lines(state.cards))
