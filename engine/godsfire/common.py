"""What the Godsfire actions share beyond the state and the events: the rule set's name and how its handlers are
registered, who acts (a player; a system's owner, for the politics of D.6-D.13), a region's name, and the options
several commands take."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from engine import core
from engine.core import Handler, Tx
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire.state import MAX_REGIONS, GodsfireState, Player, Region, System
from engine.names import name_key
from engine.vocabulary import Param

SYSTEM_PARAM = Param("system", required=True, help="the system", complete="system")
OWN_SYSTEM_PARAM = Param("system", required=True, help="your system", complete="system")
REGION_PARAM = Param("region", int, True, help="the region's number in the system", low=1, high=MAX_REGIONS,
                     complete="region")
PLAYER_PARAM = Param("player", help="GM: the player it is for", complete="player")

RULESET = "godsfire"
A = TypeVar("A")  # an action (the second argument of its handler)


def handles(action_type: type[A]) -> Callable[[Handler[GodsfireState, A]], Handler[GodsfireState, A]]:
    """Register the function that applies one kind of Godsfire action."""
    return core.handles(action_type, RULESET)


def clock_now(tx: Tx[GodsfireState]) -> datetime:
    """The game clock's time: now, or while the clock is paused the moment it stopped (an answer asked for during
    a pause has its whole time when the clock resumes)."""
    return tx.state.paused_at or tx.ctx.now


def acting_player(tx: Tx[GodsfireState], named: str | None, what: str) -> Player:
    """The player an action is for: the one `named` (only the GM may name another), else the actor."""
    if named is not None:
        player = tx.state.player(named)
        if not tx.ctx.is_gm and name_key(player.name) != name_key(tx.ctx.actor):
            raise NotYourNation(f"only the GM may {what} for {player.name}")
        return player
    found = tx.state.find_player(tx.ctx.actor)
    if found is None:
        raise BadInput(f"you are not a player in this game: name the player (player:) for whom to {what}")
    return found


def owned_system(tx: Tx[GodsfireState], system_name: str, what: str) -> tuple[System, str]:
    """A system the actor may act for, and its owner: its owner's, or anyone's for the GM; neutral systems are
    refused."""
    system = tx.state.system(system_name)
    if system.owner is None:
        raise RuleViolation(f"{system.name} is neutral: no player's government can {what} there")
    if not tx.ctx.is_gm and name_key(system.owner) != name_key(tx.ctx.actor):
        raise NotYourNation(f"{system.name} is {system.owner}'s: only its owner or the GM may {what} there")
    if tx.state.player(system.owner).out:
        raise RuleViolation(f"{system.owner} has lost the National Government and is out of the game")
    return system, system.owner


def region_name(system: System, region: Region) -> str:
    """`Sol region 2`."""
    return f"{system.name} region {region.number}"
