"""God Dice, the character dice-battle game: seating and roll-off, the draft, and turns of declare, God dice
and attack, with the optional rules Campaign, Resurrection and Free for All.

Modules: `cards` (the card file and house settings), `state`, `events`, `play` (every action and the
clock's reminder), `snapshot` (the export format), `describe` (words), `commands` (the vocabulary).
"""

from __future__ import annotations

from engine.goddice import commands, describe, play, snapshot
from engine.rulesets import RuleSet, register

RULES = register(RuleSet(
    name=play.RULESET,
    title="God Dice",
    start=play.start_game,
    state_to_dict=snapshot.state_to_dict,
    state_from_dict=snapshot.state_from_dict,
    check_state=snapshot.check_state,
    deadlines=play.deadlines,
    apply_deadline=play.apply_deadline,
    forced_dice=play.forced_dice,
    event_line=describe.event_line,
    commands=commands.COMMANDS,
    rank=1,
))
