"""Words for the Nations events (the console's text and Discord's embeds share them; `engine.describe`
holds the shared words and calls this for Nations events)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.describe import plural, signed
from engine.events import Event, GameEnded, GameImported
from engine.game import When, Who
from engine.nations import events as ev
from engine.nations.state import GameState

STAT_LABEL = {
    "economy": "ECONOMY", "stability": "STABILITY", "military": "MILITARY", "propaganda": "PROPAGANDA",
    "land": "LAND", "foreign_patches": "foreign patches",
}


def event_line(event: Event[Any], when: When, who: Who) -> str | None:
    """One line for one event, or None for events that need no words of their own.

    `when` shows a time and `who` a player or GM (the console prints names, Discord mentions).
    """
    match event:
        case ev.GameStarted(gm=gm, started_at=start, house=house):
            ends = start.timestamp() + float(house["turn_hours"]) * 3600
            return (f"A Nations game begins, refereed by the bot; GM: {who(gm)}. Turn 1 lasts "
                    f"{house['turn_hours']:g} hours and ends {when(datetime.fromtimestamp(ends, start.tzinfo))}.")
        case GameImported(snapshot=snap) if snap["game"].get("ruleset", "nations") == "nations":
            return f"Game imported at turn {snap['game']['turn']} with {plural(len(snap['nations']), 'nation')}."
        case ev.TurnEnded(ended=n, ends_at=ends, reason=reason, turns=turns) if turns > 1:
            first = n - turns + 1
            done = "; ".join(f"{nation}: {', '.join(a.upper() for a in used) or 'nothing'}"
                             for nation, used in event.actions.items())
            return (f"⏰ {turns:,} turns passed while the referee was away (turns {first:,} to {n:,}). "
                    f"Turn {n + 1:,} begins and ends {when(ends)}."
                    + (f" Turn {first:,} — {done}." if done else ""))
        case ev.TurnEnded(ended=n, ends_at=ends, reason=reason):
            why = {"clock": "time is up", "gm": "ended by the GM", "all done": "every nation has acted"}[reason]
            done = "; ".join(f"{nation}: {', '.join(a.upper() for a in used) or 'nothing'}"
                             for nation, used in event.actions.items())
            return (f"⏰ Turn {n} is over ({why}). Turn {n + 1} begins and ends {when(ends)}."
                    + (f" Last turn — {done}." if done else ""))
        case ev.ClockPaused():
            return "⏸ The clock is paused: every deadline waits until it resumes."
        case ev.ClockResumed(ends_at=ends):
            return f"▶ The clock runs again: this turn ends {when(ends)}; every deadline has its time left."
        case ev.TurnLengthChanged(hours=hours, ends_at=ends):
            return f"Turns now last {hours:g} hours; this turn ends {when(ends)}."
        case ev.NationAdded() as n:
            player = who(n.player) if n.player else "nobody"
            return (f"🏳 {n.name} joins the game, played by {player}: E {n.economy}, S {n.stability}, "
                    f"M {n.military}, P {n.propaganda}, L {n.land}; STRENGTH {n.strength}, WEAKNESS {n.weakness}.")
        case ev.NationAssigned(nation=nation, player=player):
            return f"{nation} is now played by {who(player)}." if player else f"{nation} has no player now."
        case ev.StatChanged(nation=nation, stat=stat, delta=delta, reason=reason, by=by):
            return f"{nation}: {STAT_LABEL.get(stat, stat)} {signed(delta)} ({_by(reason, by, who)})."
        case ev.NationEliminated(nation=nation, reason=reason, by=by):
            return f"💀 {nation} is eliminated: {_by(reason, by, who)}."
        case ev.NationRestored(nation=nation, by=by):
            return f"{nation} is restored to the game by GM {who(by)}."
        case ev.ActionGranted(nation=nation, action=kind, by=by):
            what = f"its {kind.upper()} action back" if kind else "one more action"
            return f"GM {who(by)} gives {nation} {what} this turn."
        case ev.ActionRevoked(nation=nation, action=kind, by=by):
            return f"GM {who(by)} takes {nation}'s {kind.upper()} action away this turn."
        case ev.BonusSet(nation=nation, bonus=kind, value=value, expires_at=ends):
            return f"✨ {nation}: {kind.capitalize()} {signed(value)} until {when(ends)}."
        case ev.BonusExpired(nation=nation, bonus=kind, value=value):
            return f"{nation}: the {kind.capitalize()} bonus ({signed(value)}) has run out."
        case ev.UnitAdded(nation=nation, unit=uid, type=kind, rank=rank, hp=hp, reason=reason, by=by):
            return f"{nation}: {unit_ref(uid, kind, rank)} ({hp} HP), {_by(reason, by, who)}."
        case ev.UnitRemoved(nation=nation, unit=uid, type=kind, reason=reason, by=by):
            return f"{nation}: {unit_ref(uid, kind)} {_by(reason, by, who)}."
        case ev.UnitChanged() as u:
            kind = u.type  # "" in logs written before events named the type
            before = unit_ref(u.unit, kind, u.old_rank) if kind else f"unit #{u.unit} {u.old_rank.upper()}"
            return f"{u.nation}: {before} {u.old_hp} HP → {u.rank.upper()} {u.hp} HP ({_by(u.reason, u.by, who)})."
        case ev.BattleDeclared(battle=b, attacker=attacker, defender=defender, units=units, retreat_at=at):
            order = f", retreating at {at} HP" if at else ""
            return f"⚔ {attacker} attacks {defender} with {_ids(units)}{order} (battle #{b})."
        case ev.BattleAwaits(battle=b, stage=stage, nation=nation, deadline=deadline):
            what = "commit 1-3 units (/attack commit)" if stage == "commit" else "pair two units (/attack pair)"
            return f"⏳ Battle #{b} waits for {nation} to {what}, until {when(deadline)}."
        case ev.ChoiceReminded(missed=True):
            return None  # too late to be of use: the default follows in the same report
        case ev.ChoiceReminded(battle=b, choice=choice, nation=nation, player=player, deadline=deadline):
            what = "commit 1-3 units (/attack commit)" if choice == "commit" else "pair two units (/attack pair)"
            chooser = f"{who(player)} ({nation})" if player else nation
            return (f"⏰ Reminder: battle #{b} still waits for {chooser} to {what}; "
                    f"the default applies {when(deadline)}.")
        case ev.UnitsCommitted(battle=b, units=units, by=by):
            verb = "defends" if len(units) == 1 else "defend"
            return f"🛡 {_ids(units)} {verb} in battle #{b} (committed by {who(by)})."
        case ev.InitiativeDecided(battle=b, winner=winner):
            return f"The {winner} wins the initiative in battle #{b} and picks the pairings."
        case ev.ChoiceDefaulted(battle=b, choice=choice, nation=nation, default=default, by=by) if by != "default":
            return f"⚖ GM {who(by)} decided {nation}'s {choice} in battle #{b}: {default}."
        case ev.ChoiceDefaulted(battle=b, choice=choice, nation=nation, default=default):
            return f"⌛ Time is up for {nation}'s {choice} in battle #{b}: {default}."
        case ev.RetreatOrdered(battle=b, unit=unit, at_hp=at):
            what = "no longer retreats" if at == 0 else "retreats now" if at is None else f"retreats at {at} HP"
            return f"Unit #{unit} {what} (battle #{b})."
        case ev.DuelStarted() as d:
            return (f"Duel in battle #{d.battle}: {unit_ref(d.attacker_unit, d.attacker_type)} against "
                    f"{unit_ref(d.defender_unit, d.defender_type)} ("
                    + ("the only pairing" if d.chosen_by == "only pairing" else f"paired by {who(d.chosen_by)}")
                    + ").")
        case ev.RoundFought(round=r) if r["kind"] == "round":
            return (f"Round: attacker {r['attacker_total']} against defender {r['defender_total']}; "
                    f"#{r['loser']} loses 1 HP.")
        case ev.UnitLeftFight(battle=b, nation=nation, unit=unit, reason=reason, type=kind) if reason == "retreated":
            return f"{nation}'s {unit_ref(unit, kind) if kind else f'unit #{unit}'} retreats from battle #{b}."
        case ev.DuelEnded(outcome=outcome):
            return f"The duel is over: {outcome}."
        case ev.BattleEnded(battle=b, result=result, winner=winner, reason=reason) if reason:
            return (f"🏁 Battle #{b} is over: {result}, {reason}. Its units go home and heal; no land or "
                    "PROPAGANDA changes hands.")
        case ev.BattleEnded(battle=b, result=result, winner=winner):
            return f"🏁 Battle #{b} is over: {result}" + (f"; {winner} wins." if winner else ".")
        case GameEnded(standings=standings) if "nations" in standings:
            return "\n".join(["🏁 The game is over. Final results:", *results_lines(standings, who)])
    return None


def winner_line(standings: dict[str, Any], bold: Callable[[str], str] = str) -> str:
    """Who won a Nations game (`GameState.final_standings`): the most LAND; a tie on LAND goes to more battles
    won; a tie on both is shared."""
    if standings.get("winner"):
        top = standings["nations"][0]
        return (f"👑 {bold(standings['winner'])} wins with {bold(str(top['land']) + ' LAND')}"
                + (f" and {plural(top['battles_won'], 'battle')} won." if top["battles_won"] else "."))
    if standings.get("tied"):
        top = standings["nations"][0]
        names = " and ".join(bold(name) for name in standings["tied"])
        return (f"🤝 A tie: {names} share the game, with {top['land']} LAND and "
                f"{plural(top['battles_won'], 'battle')} won each.")
    return "No winner: no nation is left in the game."


def standing_line(entry: dict[str, Any], who: Who, bold: Callable[[str], str] = str) -> str:
    """One nation's final standing: LAND, stats, battles won (its name and player not included)."""
    if entry["eliminated"]:
        return f"eliminated; {plural(entry['battles_won'], 'battle')} won"
    return (f"LAND {bold(str(entry['land']))} · E {entry['economy']} S {entry['stability']} M {entry['military']} "
            f"P {entry['propaganda']} · {bold(str(entry['battles_won']))} "
            f"{'battle' if entry['battles_won'] == 1 else 'battles'} won")


def results_lines(standings: dict[str, Any], who: Who, bold: Callable[[str], str] = str) -> list[str]:
    """The final results as text: the winner, then every nation, best first."""
    lines = [winner_line(standings, bold)]
    for place, entry in enumerate(standings["nations"], start=1):
        player = f" ({who(entry['player'])})" if entry.get("player") else ""
        lines.append(f"{place}. {entry['name']}{player}: {standing_line(entry, who, bold)}")
    return lines


def unit_name(kind: str, rank: str) -> str:
    """A unit's type and rank, the one way they are written: the type as the rules name it, the rank in capitals
    (`infantry GREEN`), as `/army show` lists them."""
    return f"{kind} {rank.upper()}"


def unit_ref(unit_id: int, kind: str, rank: str | None = None) -> str:
    """A unit meant as itself: its id in front of its `unit_name` (`#3 infantry GREEN`; `#3 infantry` where its
    rank is not known)."""
    return f"#{unit_id} {unit_name(kind, rank)}" if rank else f"#{unit_id} {kind}"


def change_line(state: GameState, event: Event[Any], when: When, who: Who) -> str | None:
    """/log gm: an event's change as "field before → after", read off `state` as it was just before the event
    (None: the event's own line says it)."""
    match event:
        case ev.StatChanged(nation=nation, stat=stat, delta=delta, reason=reason, by=by) if nation in state.nations:
            old = getattr(state.nations[nation], stat)
            return f"{nation}: {STAT_LABEL.get(stat, stat)} {old} → {old + delta} ({_by(reason, by, who)})."
        case ev.TurnLengthChanged(hours=hours, ends_at=ends):
            return f"Turn length: {state.turn_hours:g} → {hours:g} hours; this turn ends {when(ends)}."
    return None


def _by(reason: str, by: str | None, who: Who) -> str:
    """`set by GM` + the GM, shown the front-end's way."""
    return f"{reason} {who(by)}" if by else reason


def _ids(ids: list[int]) -> str:
    return ", ".join(f"#{i}" for i in ids)
