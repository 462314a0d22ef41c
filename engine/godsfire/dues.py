"""What the Social Interphase has due this turn, that its steps wait for: the loan repayments not yet made
(D.1.4) and the money in transit that lands (D.3.1), with its landing. The step order (`engine.godsfire.steps`)
asks them; the loans' and the transfers' actions are in `engine.godsfire.loans` and `engine.godsfire.economy`."""

from __future__ import annotations

from engine.core import Tx
from engine.godsfire.events import change_game, change_player, change_system
from engine.godsfire.state import GodsfireState, Shipment, System, cached_key
from engine.names import name_key

# --- D.1.4 loan repayments due -------------------------------------------------------------------


def repayments_due(state: GodsfireState, player: str) -> list[System]:
    """The player's systems whose loan repayment of this turn (D.1.4) is not made yet (a loan borrowed this
    turn is first due next turn)."""
    return [s for s in state.systems_of(player) if s.loans and s.repaid_turn != state.turn]


# --- D.3.1 money in transit ----------------------------------------------------------------------


def shipments_due(state: GodsfireState, player: str | None = None) -> list[Shipment]:
    """The money in transit that lands this turn (the player's, or everyone's)."""
    key = None if player is None else cached_key(player)
    return [s for s in state.shipments if s.arrives <= state.turn and (key is None or cached_key(s.owner) == key)]


def on_the_way(state: GodsfireState, player: str) -> int:
    """GB of the player's Money in Transit box still travelling (not to be taken out before they land)."""
    key = cached_key(player)
    return sum(s.amount for s in state.shipments if s.arrives > state.turn and cached_key(s.owner) == key)


def land_shipments(tx: Tx[GodsfireState], player: str | None = None) -> None:
    """The player's transfer step (D.3.1; at the interphase's end for a player who never took it): the money due
    this turn leaves the Money in Transit box and lands in its system's bank. Money bound for a system its
    player no longer holds goes to the National Government; money whose carrier was destroyed is lost with it."""
    state: GodsfireState = tx.state
    due = shipments_due(state, player)
    if not due:
        return
    landing = {id(s) for s in due}
    change_game(tx, "the Money in Transit box: what lands now is taken out",
                shipments=[s for s in state.shipments if id(s) not in landing])
    on_table = {c.number for c in tx.state.counters}
    for shipment in due:
        owner = tx.state.find_player(shipment.owner)
        if owner is None:
            continue
        lost = shipment.carrier is not None and shipment.carrier not in on_table
        change_player(tx, owner.name, f"{shipment.amount} GB out of the Money in Transit box"
                      + (f": lost with their carrier #{shipment.carrier}" if lost else ""),
                      in_transit=max(0, owner.in_transit - shipment.amount))
        if lost:
            continue
        system = tx.state.find_system(shipment.to)
        if system is not None and system.owner is not None and name_key(system.owner) == name_key(owner.name):
            change_system(tx, system.name, f"{shipment.amount} GB from {shipment.source} land (D.3)",
                          bank=system.bank + shipment.amount)
        elif not owner.out:
            change_player(tx, owner.name, f"{shipment.to} is no longer {owner.name}'s: the {shipment.amount} GB "
                          "go to the National Government", ng_money=owner.ng_money + shipment.amount)
