"""What the God Dice queries show, written once for every front-end: the table at a glance and the card
file (`engine.view`)."""

from __future__ import annotations

from typing import Any

from engine.goddice.cards import GoddiceRules
from engine.goddice.describe import cards_lines, status_lines
from engine.goddice.state import GoddiceState
from engine.view import Strong, View, line, marking_who, view, with_people


def status_view(state: GoddiceState, rules: GoddiceRules | None = None) -> View:
    """/game status and /goddice status: seats, whose move, every character's life, the turn's dice."""
    lines = [with_people(text) for text in status_lines(state, marking_who)]
    title = line(*lines[0].parts, " — ", Strong("GAME OVER")) if state.ended and not state.winner else lines[0]
    paused = [line("The clock is paused: no reminder until it resumes.")] if state.paused_at and not state.ended else []
    return view(title, *lines[1:], *paused, loud=state.ended)


def status_query(state: GoddiceState, rules: GoddiceRules, actor: str, options: dict[str, Any]) -> View:
    return status_view(state, rules)


def cards_view(state: GoddiceState, rules: GoddiceRules, actor: str, options: dict[str, Any]) -> View:
    """/goddice cards: every character of the game's card file with its attacks."""
    return view(None, *cards_lines(state.cards))
