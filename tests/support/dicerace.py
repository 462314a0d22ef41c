"""A fourth rule set, defined here and nowhere else: Dice Race, for two or more players.

Each player in turn rolls a d6 and moves that many squares; the first to reach the goal (20 squares) wins.
A player who does not roll within the turn's hours (one by default, `turn_hours:` at the start) is passed
over by the clock. It exists to prove that a rule set plugs in through the registry alone: the console,
the referee, the store, the clock, export and import and Discord play it without a change outside tests/.

`register_dicerace()` adds it to the registry (and so to `/game start`'s choices and the command table);
`unregister_dicerace()` takes it out again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

from engine.clock import Deadline
from engine.core import Context, Outcome, Tx, handles
from engine.errors import BadInput, RuleViolation
from engine.events import Event, GameEnded
from engine.ledgercheck import LedgerTerms
from engine.rulesets import RuleSet, register, register_schema, unregister
from engine.schema import rolls_from
from engine.view import At, Person, Strong, View, item, line, view
from engine.vocabulary import Command, Param

NAME = "dicerace"


@dataclass(frozen=True)
class RaceRules:
    die_sides: int = 6
    goal: int = 20
    turn_hours: float = 1.0


def rules_from_dict(raw: dict[str, Any]) -> RaceRules:
    return RaceRules(**raw)


@dataclass
class RaceState:
    gm: str
    turn_hours: float
    goal: int
    ruleset: str = NAME
    turn: int = 1  # one a move made or passed
    racers: dict[str, int] = field(default_factory=dict)  # each player's square, in seating order
    mover: int = 0  # whose move: an index into `racers`
    due_at: datetime | None = None  # when the mover is passed over
    winner: str | None = None
    ended: bool = False
    forced_dice: list[Any] = field(default_factory=list)
    cogms: list[str] = field(default_factory=list)  # (every game's: /gm cogm add)
    house: None = None  # no house settings (/gm house refuses)

    def whose_move(self) -> str | None:
        names = list(self.racers)
        return names[self.mover] if len(names) >= 2 and not self.ended else None


# --- events ------------------------------------------------------------------------------------------


class RaceEvent(Event[RaceState], ruleset=NAME):
    """An event of a Dice Race game."""


@dataclass(frozen=True)
class RaceStarted(RaceEvent):
    gm: str
    turn_hours: float
    goal: int
    starts_game: ClassVar[bool] = True

    def apply(self, state: RaceState | None) -> RaceState:
        return RaceState(self.gm, self.turn_hours, self.goal)


@dataclass(frozen=True)
class RacerJoined(RaceEvent):
    player: str
    due_at: datetime | None  # the first move's deadline, once two have joined

    def apply(self, state: RaceState) -> RaceState:
        state.racers[self.player] = 0
        state.due_at = self.due_at
        return state


@dataclass(frozen=True)
class RacerMoved(RaceEvent):
    player: str
    squares: int
    due_at: datetime

    def apply(self, state: RaceState) -> RaceState:
        state.racers[self.player] += self.squares
        state.mover = (state.mover + 1) % len(state.racers)
        state.turn += 1
        state.due_at = self.due_at
        return state


@dataclass(frozen=True)
class RacerPassed(RaceEvent):
    player: str
    due_at: datetime

    def apply(self, state: RaceState) -> RaceState:
        state.mover = (state.mover + 1) % len(state.racers)
        state.turn += 1
        state.due_at = self.due_at
        return state


@dataclass(frozen=True)
class RaceWon(RaceEvent):
    player: str

    def apply(self, state: RaceState) -> RaceState:
        state.winner = self.player
        state.ended = True
        state.due_at = None
        return state


def event_line(event: Event[Any], when: Callable[[datetime], str], who: Callable[[str], str]) -> str | None:
    match event:
        case RaceStarted(gm=gm, goal=goal, turn_hours=hours):
            return f"🏁 Dice Race: first to square {goal} wins; a move waits {hours:g} h. GM: {who(gm)}."
        case RacerJoined(player=player, due_at=due):
            return f"{who(player)} joins the race." + (f" First move due {when(due)}." if due else "")
        case RacerMoved(player=player, squares=squares):
            return f"{who(player)} moves {squares} squares."
        case RacerPassed(player=player, due_at=due):
            return f"⏰ {who(player)} did not roll in time and is passed over; next move due {when(due)}."
        case RaceWon(player=player):
            return f"🏆 {who(player)} reaches the goal and wins the race."
    return None


# --- actions -----------------------------------------------------------------------------------------


@dataclass
class Join:
    pass


@dataclass
class RollMove:
    pass


def start(ctx: Context, options: dict[str, Any]) -> Outcome[RaceState]:
    hours = options.get("turn_hours") or ctx.rules.turn_hours
    if not 0.1 <= hours <= 48:
        raise BadInput(f"turn_hours is 0.1 to 48, not {hours:g}")
    if options.get("options"):
        raise BadInput("Dice Race has no optional rules")
    event = RaceStarted(ctx.actor, hours, options.get("goal") or ctx.rules.goal)
    return Outcome(event.apply(None), [event])


@handles(Join, NAME)
def join(tx: Tx[RaceState], action: Join) -> None:
    state = tx.state
    if tx.ctx.actor in state.racers:
        raise RuleViolation("you are in the race already")
    if state.turn > 1:
        raise RuleViolation("the race has started: no one joins now")
    due = tx.ctx.now + timedelta(hours=state.turn_hours) if len(state.racers) == 1 else state.due_at
    tx.emit(RacerJoined(tx.ctx.actor, due))


@handles(RollMove, NAME)
def roll_move(tx: Tx[RaceState], action: RollMove) -> None:
    state = tx.state
    mover = state.whose_move()
    if mover is None:
        raise RuleViolation("the race needs two players: /race join")
    if tx.ctx.actor != mover:
        raise RuleViolation(f"it is {mover}'s move, not yours")
    roll = tx.roll("move", mover)
    tx.emit(RacerMoved(mover, roll.die, tx.ctx.now + timedelta(hours=state.turn_hours)))
    if tx.state.racers[mover] >= state.goal:
        tx.emit(RaceWon(mover))
        tx.emit(GameEnded(standings={}))


def deadlines(state: RaceState) -> list[Deadline]:
    mover = state.whose_move()
    return [Deadline(state.due_at, "turn end", mover)] if mover and state.due_at else []


def apply_deadline(tx: Tx[RaceState], due: Deadline) -> None:
    tx.emit(RacerPassed(due.who or "", due.at + timedelta(hours=tx.state.turn_hours)))


def forced_dice(values: list[int | str], tx: Tx[RaceState]) -> list[int | str]:
    if not all(isinstance(v, int) and 1 <= v <= 6 for v in values):
        raise BadInput(f"Dice Race rolls a d6: entered dice are 1 to 6, not {' '.join(map(str, values))}")
    return list(values)


# --- views -------------------------------------------------------------------------------------------


def status(state: RaceState, rules: Any = None) -> View:
    mover = state.whose_move()
    title = line(f"Dice Race — move {state.turn}, goal square {state.goal}; GM: ", Person(state.gm),
                 *((" — ", Strong("GAME OVER")) if state.ended else ()))
    racers = [item(Person(name), f": square {square}", *((" ← to move until ", At(state.due_at))
                                                           if name == mover and state.due_at else ()))
              for name, square in state.racers.items()]
    winner = [line(Person(state.winner), " ", Strong("won"))] if state.winner else []
    return view(title, line(f"{len(state.racers)} racers"), *racers, *winner, loud=state.ended)


def show(state: RaceState, rules: Any, actor: str, options: dict[str, Any]) -> View:
    return status(state, rules)


# --- export and import -------------------------------------------------------------------------------


def state_to_dict(state: RaceState) -> dict[str, Any]:
    return {"game": {"ruleset": NAME, "gm": state.gm, "turn_hours": state.turn_hours, "goal": state.goal,
                     "turn": state.turn, "mover": state.mover, "ended": state.ended, "winner": state.winner,
                     "due_at": state.due_at.isoformat() if state.due_at else None,
                     "forced_dice": list(state.forced_dice)},
            "racers": [{"name": name, "square": square} for name, square in state.racers.items()]}


def state_from_dict(data: dict[str, Any]) -> RaceState:
    game = data["game"]
    state = RaceState(game["gm"], float(game["turn_hours"]), int(game["goal"]), turn=int(game["turn"]),
                      racers={r["name"]: int(r["square"]) for r in data["racers"]}, mover=int(game["mover"]),
                      due_at=datetime.fromisoformat(game["due_at"]) if game.get("due_at") else None,
                      winner=game.get("winner"), ended=bool(game.get("ended")),
                      forced_dice=list(game.get("forced_dice") or []))
    return state


def check_state(state: RaceState, rules: Any) -> list[str]:
    problems = []
    if state.racers and not 0 <= state.mover < len(state.racers):
        problems.append(f"mover {state.mover} is not a seat of the race")
    problems += [f"{name} is on square {square}" for name, square in state.racers.items() if square < 0]
    return problems


def validate_export(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    game, racers = data.get("game"), data.get("racers")
    if not isinstance(racers, list) or len(racers) > 8 or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("square"), int)
            for r in racers):
        raise BadInput("that export is not valid: racers must be a list of at most 8 {name, square}")
    if not isinstance(game, dict) or not isinstance(game.get("turn"), int) or not isinstance(game.get("mover"), int):
        raise BadInput("that export is not valid: game.turn and game.mover must be whole numbers")
    return {"game": dict(game), "racers": [dict(r) for r in racers], "rolls": rolls_from(data, now)}


def ledger_terms(state: RaceState, rules: RaceRules) -> LedgerTerms:
    """Its ledger: the rules' die, rolled by the racers, up to the current move."""
    return LedgerTerms(sides=frozenset({rules.die_sides}), rollers=frozenset(state.racers), turn=state.turn)


def find_racer(state: RaceState, name: str) -> str:
    found = [r for r in state.racers if r.lower().startswith(name.strip().lower())]
    if len(found) != 1:
        raise BadInput(f"no one racer called {name!r} (racers: {', '.join(state.racers) or 'none'})")
    return found[0]


COMMANDS = (
    Command("race join", "take a place in the race", action=lambda o: Join()),
    Command("race roll", "your move: roll a d6 and move that many squares", action=lambda o: RollMove()),
    Command("race show", "every racer's square and whose move it is", view=show, shows_ended=True),
)


def register_dicerace() -> RuleSet[RaceState]:
    """Add Dice Race to the registry: the command table, `/game start`'s choices and imports follow."""
    register_schema(NAME, validate_export)
    return register(RuleSet(
        name=NAME, title="Dice Race", start=start, state_to_dict=state_to_dict, state_from_dict=state_from_dict,
        check_state=check_state, deadlines=deadlines, apply_deadline=apply_deadline, forced_dice=forced_dice,
        event_line=event_line, commands=COMMANDS, rank=50, rules_from_dict=rules_from_dict,
        start_params=(Param("turn_hours", float, help="a move's time limit in hours", low=0.1, high=48.0),),
        summary=lambda state: f"move {state.turn}, {len(state.racers)} racers", status=status,
        find_side=find_racer, actor_note=None, ledger_terms=ledger_terms,
    ))


def unregister_dicerace() -> None:
    unregister(NAME)
