"""A God Dice game's state as the export format's plain dict (what `/gm export` writes), and back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.game import entered_export
from engine.goddice import invariants, schema
from engine.goddice.cards import GoddiceHouse, GoddiceRules, cards_from_dict
from engine.goddice.state import Character, GoddiceState, Player, Turn
from engine.rulesets import register_schema

register_schema("goddice", schema.validate_export)  # imports are checked by it before `state_from_dict`


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def state_to_dict(state: GoddiceState) -> dict[str, Any]:
    """`{"game": {...}, "players": [...]}` — the export format without its rolls."""
    turn = state.current
    return {
        "game": {
            "ruleset": state.ruleset,
            "gm": state.gm,
            "cogms": list(state.cogms),
            "options": list(state.options),
            "phase": state.phase,
            "active": state.active,
            "direction": state.direction,
            "winner": state.winner,
            "ended": state.ended,
            "turn": state.turn,
            "started_at": _iso(state.started_at),
            "move_since": _iso(state.move_since),
            "reminders": state.reminders,
            "paused_at": _iso(state.paused_at),
            "chooser": state.chooser,
            "picks": list(state.picks),
            "pool": dict(state.pool),
            "next_character_id": state.next_character_id,
            "forced_dice": list(state.forced_dice), **entered_export(state),
            "house": state.house.as_dict(),
            "cards": state.cards.raw,
            "current": None if turn is None else {
                "player": turn.player, "attacker": turn.attacker, "defender_player": turn.defender_player,
                "defender": turn.defender, "god": list(turn.god), "favor": turn.favor, "dice": list(turn.dice),
                "rolled": list(turn.rolled),
            },
        },
        "players": [
            {
                "name": p.name, "seat": p.seat, "wins": p.wins,
                "characters": [{"id": c.id, "type": c.type, "life": c.life, "max_life": c.max_life,
                                "alive": c.alive} for c in p.characters],
            }
            for p in state.players
        ],
    }


def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def state_from_dict(data: dict[str, Any]) -> GoddiceState:
    """The inverse of `state_to_dict` (malformed data raises KeyError, TypeError or ValueError)."""
    game = data["game"]
    if game.get("ruleset") != "goddice":
        raise ValueError(f"not a God Dice game: ruleset {game.get('ruleset')!r}")
    current = game.get("current")
    started = _time(game["started_at"])
    if started is None:
        raise ValueError("game.started_at is missing")
    state = GoddiceState(
        gm=str(game.get("gm", "gm")), cogms=[str(c) for c in game.get("cogms", [])],
        house=GoddiceHouse(**game.get("house", {})),
        cards=cards_from_dict(game["cards"]), started_at=started,
        options=[str(o) for o in game.get("options", [])], phase=str(game["phase"]),
        active=game.get("active"), move_since=_time(game.get("move_since")),
        reminders=int(game.get("reminders", 0)), paused_at=_time(game.get("paused_at")),
        direction=str(game.get("direction", "clockwise")),
        pool={str(k): int(v) for k, v in game.get("pool", {}).items()},
        picks=[str(p) for p in game.get("picks", [])], chooser=game.get("chooser"),
        turn=int(game.get("turn", 0)), winner=game.get("winner"), ended=bool(game.get("ended", False)),
        forced_dice=[str(f) for f in game.get("forced_dice", [])],
        forced_for=[str(b) for b in game.get("forced_for") or []],
        next_character_id=int(game.get("next_character_id", 1)),
        current=None if current is None else Turn(
            player=str(current["player"]), attacker=current.get("attacker"),
            defender_player=current.get("defender_player"), defender=current.get("defender"),
            god=[str(f) for f in current.get("god", [])], favor=current.get("favor"),
            dice=[str(f) for f in current.get("dice", [])], rolled=[str(r) for r in current.get("rolled", [])],
        ),
    )
    for raw in data["players"]:
        player = Player(str(raw["name"]), int(raw["seat"]), wins=int(raw.get("wins", 0)))
        for c in raw.get("characters", []):
            player.characters.append(Character(int(c["id"]), str(c["type"]), int(c["life"]), int(c["max_life"])))
        state.players.append(player)
    return state


def check_state(state: GoddiceState, rules: GoddiceRules) -> list[str]:
    """What in an imported state breaks the rules, the first broken field first; empty when all is well. The
    same invariants the property test asserts after every command (`engine.goddice.invariants`)."""
    return invariants.broken(state)
