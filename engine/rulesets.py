"""The registry of rule sets. Each rule-set package (`engine.nations`, `engine.goddice`) registers one
`RuleSet` when imported; the referee, the store, undo, export/import and the clock dispatch on a game's
`ruleset` through it. Nothing here knows any rule set by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.errors import BadInput

if TYPE_CHECKING:
    from engine.clock import Deadline
    from engine.core import Context, Outcome, Tx
    from engine.events import Event

    When = Callable[[Any], str]
    Who = Callable[[str], str]


@dataclass(frozen=True)
class RuleSet:
    """What the shared machinery needs of one rule set."""

    name: str  # as stored and typed: "nations", "goddice"
    title: str  # as shown: "Nations", "God Dice"
    start: Callable[[Context, dict[str, Any]], Outcome]  # a new game from /game start's options
    state_to_dict: Callable[[Any], dict[str, Any]]  # the export format without its rolls
    state_from_dict: Callable[[dict[str, Any]], Any]
    check_state: Callable[[Any, Any], list[str]]  # what in an imported state breaks the rules
    deadlines: Callable[[Any], list[Deadline]]  # what will fall due, earliest first
    apply_deadline: Callable[[Tx, Deadline], None]  # apply one deadline that fell due
    forced_dice: Callable[[list[Any], Tx], list[Any]]  # GM-entered dice checked and normalised
    event_line: Callable[[Event, When, Who], str | None]  # words for this rule set's events
    commands: tuple[Any, ...] = ()  # its own commands (`engine.vocabulary.Command`)
    fixed_house_keys: tuple[str, ...] = ()  # house settings /gm house may not change (another command does)
    roll_to_dict: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # a ledger row as the export writes it
    rank: int = 100  # where it is listed among the rule sets (the main game first), whatever the import order
    # the common catch-up applied to a snapshot document in place: (events, next due) or None (then Tick runs)
    quick_catch_up: Callable[[dict[str, Any], datetime], tuple[list[Event], datetime] | None] | None = None

    def validate_export(self, data: dict[str, Any], now: datetime) -> dict[str, Any]:
        """An import's export checked by this rule set's schema (`register_schema`) before any state is built:
        the export with its names cleaned and its `rolls` checked, or BadInput naming the field."""
        check = SCHEMAS.get(self.name)
        if check is None:
            raise BadInput(f"{self.title} games cannot be imported")
        return check(data, now)


RULESETS: dict[str, RuleSet] = {}
SCHEMAS: dict[str, Callable[[dict[str, Any], datetime], dict[str, Any]]] = {}


def register_schema(name: str, check: Callable[[dict[str, Any], datetime], dict[str, Any]]) -> None:
    """The import check of rule set `name` (each rule set's snapshot module registers its `schema`)."""
    SCHEMAS[name] = check


def register(ruleset: RuleSet) -> RuleSet:
    RULESETS[ruleset.name] = ruleset
    ordered = sorted(RULESETS.values(), key=lambda r: r.rank)
    RULESETS.clear()
    RULESETS.update((r.name, r) for r in ordered)
    return ruleset


def ruleset(name: str) -> RuleSet:
    """The rule set of that name; a clear refusal for an unknown one."""
    found = RULESETS.get(str(name).strip().lower())
    if found is None:
        raise BadInput(f"unknown rule set {name!r}; rule sets: {', '.join(RULESETS)}")
    return found


def ruleset_of(state: Any) -> RuleSet:
    return ruleset(state.ruleset)
