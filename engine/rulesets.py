"""The registry of rule sets. Each rule-set package registers one `RuleSet` when imported; the referee, the
store, undo, export/import, the clock, the console and the Discord cogs dispatch on a game's `ruleset`
through it, and nothing shared knows any rule set by name. The one place that lists the installed rule sets
is `engine/__init__.py` (a test may register one of its own with `register`).

`GameState` is what the shared machinery uses of any game's state; a `RuleSet[S]` and its functions are typed with
its own state's class `S`, and the registry holds rule sets of every state's class (`RuleSet[Any]`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic

from engine import core, events
from engine.dice import Die
from engine.errors import BadInput
from engine.game import Deadline, GameState, Rules, S, When, Who
from engine.view import Line, View, view
from engine.vocabulary import Command, Group, Param

if TYPE_CHECKING:
    from engine.core import Context, Outcome, Tx
    from engine.events import Event
    from engine.history import Point
    from engine.ledgercheck import LedgerTerms
    from engine.mapspec import MapPicture

__all__ = ["RULESETS", "Deadline", "GameState", "Glance", "RuleSet", "Rules", "S", "When", "Who", "default_ruleset",
           "on_register", "register", "register_schema", "ruleset", "ruleset_of", "unregister"]

@dataclass(frozen=True)
class Glance:
    """A game at a glance, as /game list shows it: where it stands (`stage`: the turn, and the phase where the
    rule set has phases), who still owes a move (`awaiting`, one line; None: no one in particular) and the
    next deadline for them (`due`; None: none)."""

    stage: str
    awaiting: Line | None = None
    due: datetime | None = None


def plain_glance(state: GameState) -> Glance:
    """The glance of a rule set that writes none: its turn, and its next deadline that is not a reminder."""
    due = [d.at for d in ruleset_of(state).deadlines(state) if d.what != "reminder"]
    return Glance(f"turn {state.turn}", None, min(due, default=None))


@dataclass(frozen=True)
class RuleSet(Generic[S]):
    """What the shared machinery needs of one rule set, whose games' state is an `S`."""

    name: str  # as stored and typed: "nations", "goddice"
    title: str  # as shown: "Nations", "God Dice"
    start: Callable[[Context, dict[str, Any]], Outcome[S]]  # a new game from /game start's options
    state_to_dict: Callable[[S], dict[str, Any]]  # the export format without its rolls
    state_from_dict: Callable[[dict[str, Any]], S]
    check_state: Callable[[S, Rules], list[str]]  # what in an imported state breaks the rules
    deadlines: Callable[[S], list[Deadline]]  # what will fall due, earliest first
    apply_deadline: Callable[[Tx[S], Deadline], None]  # apply one deadline that fell due
    forced_dice: Callable[[list[int | str], Tx[S]], Sequence[int | str]]  # GM-entered dice checked and normalised
    event_line: Callable[[Event[Any], When, Who], str | None]  # words for this rule set's events
    # the /game start options its `start` takes (their help without the rule set's title: /game start adds it)
    start_params: tuple[Param, ...] = ()
    commands: tuple[Command, ...] = ()  # its own commands
    groups: tuple[Group, ...] = ()  # how its commands are grouped, in the order shown
    renamed: dict[str, str] = field(default_factory=dict)  # an old command path → its new one (a refusal says so)
    fixed_house_keys: tuple[str, ...] = ()  # house settings /gm house may not change (another command does)
    roll_to_dict: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # a ledger row as the export writes it
    rank: int = 100  # where it is listed among the rule sets (the main game first), whatever the import order
    # the log-only rollover (both or neither): the few fields of a game its clock reads, kept beside the snapshot by
    # every write, and the common catch-up worked out from them alone — (events, next due, the fields after) or None
    # (then Tick runs on the state); its events are appended to the log, and the snapshot catches up on its next load
    clock_fields: Callable[[S], dict[str, Any]] | None = None
    quick_catch_up: Callable[[dict[str, Any], datetime],
                             tuple[list[Event[Any]], datetime, dict[str, Any]] | None] | None = None
    # the snapshot the store keeps between commands (`data.store.encoding.pack_state`): the state's own dataclass,
    # stored typed (a fraction of the export format's cost to write and read; None: the export format), and what of
    # the state is kept: the state itself, or a new value holding what the export format keeps of it (the state
    # given is not changed: a command's report still shows it whole)
    state_class: type[S] | None = None
    saved_state: Callable[[S], S] = lambda state: state
    # /gm clock pause and resume (`engine.clock`): the events that hold every deadline of the game and that give
    # each back the time it had left (None: its games have no clock to pause), and since when a game is paused
    pause: Callable[[Tx[S]], None] | None = None
    resume: Callable[[Tx[S]], None] | None = None
    paused_since: Callable[[S], datetime | None] = lambda state: None
    # --- what the front-ends need -------------------------------------------------------------------
    rules_file: str | None = None  # its data file in `data/` (None: `rules_from_dict({})` gives its rules)
    rules_from_dict: Callable[[dict[str, Any]], Rules] | None = None  # the data file's document → its rules
    summary: Callable[[S], str] = lambda state: f"turn {state.turn}"  # "turn 3, 4 nations"
    status: Callable[[S, Rules], View] = lambda state, rules: summary_view(state)  # (state, rules) → /game status
    find_side: Callable[[S, str], str] | None = None  # a nation or player named (a start will do) → its name
    side_word: str = "player"  # what one side is called ("nation"): /log's filter, the help
    actor_note: Callable[[S, list[Event[Any]], str, When], str | None] | None = None  # after an action: what is left
    final_standings: Callable[[S], dict[str, Any]] | None = None  # GameEnded's standings when the GM ends it
    results: Callable[[dict[str, Any]], View | None] | None = None  # those standings as a view
    discord: str | None = None  # its Discord adapter's package (None: the vocabulary's generic cog)
    help_topic: str | None = None  # the guide in docs/ that explains it
    glance: Callable[[S], Glance] = plain_glance  # /game list's line: stage, who owes a move, deadline
    # the die a ledger row of named faces rolled, from its purpose: (state, purpose) → Die (/log fairness)
    faces_die: Callable[[S, str], Die] | None = None
    change_line: Callable[[S, Event[Any], When, Who], str | None] | None = None  # /log gm: an event's before → after
    # (state, rules) → what its roll ledger may hold: its dice, who rolls, its turn (`engine.ledgercheck`); an
    # import's rolls are checked against it. None: it says nothing, and its games import without rolls
    ledger_terms: Callable[[S, Rules], LedgerTerms] | None = None
    # /log game: the turn an event opens (a turn's end, a turn's or phase's start), None for any other event;
    # None here: the game is one turn long in its story
    turn_mark: Callable[[Event[Any]], int | None] | None = None
    # --- stat history and charts (`engine.history`) ----------------------------------------------------
    history_point: Callable[[S], Point] | None = None  # what the history follows: {(side, stat): value}
    history_marks: Callable[[Event[Any]], list[tuple[str, str]]] | None = None  # an event's chart marks: (side, mark)
    history_stats: tuple[tuple[str, str], ...] = ()  # the numbers a chart may draw: (stat as stored, as shown)
    # (the turn an action was taken in, the state after it) → the turn its changes are charted at; None: the turn
    # it left the game in
    history_turn: Callable[[int, S], int] | None = None
    # state → {a side's name as the history stored it: its name now}, for sides renamed during the game (a chart
    # draws one line a side, by its name now); None: names never change
    history_names: Callable[[S], dict[str, str]] | None = None
    game_chart: tuple[str, ...] = ()  # /game chart: the stats it draws, one panel each (the sides' strength)
    # --- the game's page (issue 22) ------------------------------------------------------------------
    # (state, rules) → the views its web page shows as the standings (None: the status view alone)
    page: Callable[[S, Rules], list[View]] | None = None
    # state → the picture of its board the page shows above its charts (`engine.mapspec.MapPicture`; None from it:
    # this game has no map); None here: the rule set has no map
    board_picture: Callable[[S], MapPicture | None] | None = None

    def default_rules(self) -> Rules:
        """This rule set's rules when it has no data file."""
        if self.rules_from_dict is None:
            return None
        return self.rules_from_dict({})

    def page_views(self, state: S, rules: Rules) -> list[View]:
        """The standings of the game's web page: its `page` views, else its status view."""
        if self.page is None:
            return [self.status(state, rules)]
        return list(self.page(state, rules))

    def check_start(self, options: Mapping[str, object]) -> None:
        """Refuse, in one line, a /game start option (not None: given) that this rule set does not take."""
        taken = {p.name for p in self.start_params}
        for name, value in options.items():
            if value is not None and name not in taken:
                others = [r.title for r in RULESETS.values() if any(p.name == name for p in r.start_params)]
                raise BadInput(f"/game start's {name}: is not for {self.title}"
                               + (f" (it is for {' and '.join(others)})" if others else ""))

    def validate_export(self, data: dict[str, Any], now: datetime) -> dict[str, Any]:
        """An import's export checked by this rule set's schema (`register_schema`) before any state is built:
        the export with its names cleaned and its `rolls` checked, or BadInput naming the field."""
        check = SCHEMAS.get(self.name)
        if check is None:
            raise BadInput(f"{self.title} games cannot be imported")
        return check(data, now)


RULESETS: dict[str, RuleSet[Any]] = {}
"""Every registered rule set by name, each of its own state's type (so `Any` here)."""
SCHEMAS: dict[str, Callable[[dict[str, Any], datetime], dict[str, Any]]] = {}


def register_schema(name: str, check: Callable[[dict[str, Any], datetime], dict[str, Any]]) -> None:
    """The import check of rule set `name` (each rule set's snapshot module registers its `schema`)."""
    SCHEMAS[name] = check


def register(ruleset: RuleSet[S]) -> RuleSet[S]:
    """Add a rule set to the registry (and tell the core what it needs of it: its title for a refusal, its state
    from an export for an imported game's log)."""
    RULESETS[ruleset.name] = ruleset
    ordered = sorted(RULESETS.values(), key=lambda r: r.rank)
    RULESETS.clear()
    RULESETS.update((r.name, r) for r in ordered)
    _tell_the_core()
    for listener in LISTENERS:
        listener()
    return ruleset


def _tell_the_core() -> None:
    """The core below the registry knows the rule sets only as the registry tells it: their titles
    (`engine.core.TITLES`) and their states from an export (`engine.events.IMPORTERS`, the first the default)."""
    core.TITLES.clear()
    core.TITLES.update((r.name, r.title) for r in RULESETS.values())
    events.IMPORTERS.clear()
    events.IMPORTERS.update((r.name, r.state_from_dict) for r in RULESETS.values())


def ruleset(name: str) -> RuleSet[Any]:
    """The rule set of that name; a clear refusal for an unknown one."""
    found = RULESETS.get(str(name).strip().lower())
    if found is None:
        raise BadInput(f"unknown rule set {name!r}; rule sets: {', '.join(RULESETS)}")
    return found


def summary_view(state: GameState) -> View:
    """A game's status when its rule set writes none: its title, summary and GM."""
    found = ruleset_of(state)
    cogms = f"; co-GMs: {', '.join(state.cogms)}" if getattr(state, "cogms", None) else ""
    return view(f"{found.title} — {found.summary(state)}; GM: {state.gm}{cogms}")


def ruleset_of(state: GameState) -> RuleSet[Any]:
    """The rule set a game's state is of."""
    return ruleset(state.ruleset)


def default_ruleset() -> RuleSet[Any]:
    """The rule set a game is of when none is named (the main game: the lowest rank)."""
    return next(iter(RULESETS.values()))


LISTENERS: list[Callable[[], None]] = []


def on_register(listener: Callable[[], None]) -> None:
    """Call `listener` whenever a rule set registers (the command table rebuilds itself)."""
    LISTENERS.append(listener)


def unregister(name: str) -> None:
    """Take a rule set out of the registry (a test's own rule set, when the test is done)."""
    RULESETS.pop(name, None)
    SCHEMAS.pop(name, None)
    _tell_the_core()
    for listener in LISTENERS:
        listener()
