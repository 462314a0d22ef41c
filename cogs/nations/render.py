"""Nations on Discord: a nation, its army, the battles, the pinned status and the final results as embeds."""

from __future__ import annotations

from typing import Any

import discord

from cogs.render import COLOUR, OUTCOME_COLOURS, bold, safe, when, who
from engine.describe import plural
from engine.events import Event
from engine.nations.common import actions_left, army_mp
from engine.nations.describe import standing_line, unit_name, unit_ref, winner_line
from engine.nations.rules import Rules
from engine.nations.state import Battle, GameState, Nation
from engine.nations.war import chooser

# A heading per event kind: a report is headed by the first of these kinds it holds (most telling first; the
# shared kinds placed among Nations').
HEADINGS = {
    "game_ended": "Game over", "game_started": "New game", "game_imported": "Game imported",
    "battle_ended": "Battle over", "duel_started": "Duel", "units_committed": "Defence committed",
    "battle_declared": "Attack declared", "choice_defaulted": "Battle decision", "turn_ended": "Turn over",
    "action_undone": "Undo", "nation_eliminated": "Nation eliminated", "nation_restored": "Nation restored",
    "nation_added": "Nation joins", "nation_assigned": "Player changed", "dice_queued": "GM dice",
    "dice_cleared": "GM dice cleared", "house_changed": "House setting", "clock_paused": "Clock paused",
    "clock_resumed": "Clock running", "turn_length_changed": "Turn length", "action_granted": "Action granted",
    "action_revoked": "Action taken away", "retreat_ordered": "Retreat order", "battle_awaits": "Battle waits",
    "bonus_set": "Bonus", "bonus_expired": "Bonus over", "unit_added": "New unit", "unit_removed": "Unit gone",
    "unit_changed": "Unit changed", "stat_changed": "Stat changed", "notice": "Warning",
}
MINOR_KINDS = frozenset({"stat_changed", "bonus_set", "unit_added", "unit_changed"})
GM_KINDS = frozenset({"turn_length_changed", "clock_paused", "clock_resumed", "nation_restored", "action_granted",
                      "action_revoked"})
CLOCK_KINDS = frozenset({"turn_ended", "bonus_expired", "choice_defaulted"})


def side_of(state: GameState, actor: str) -> str | None:
    """The acting user's nation."""
    nation = state.nation_of(actor)
    return nation.name if nation is not None else None


def gm_act(event: Event) -> bool | None:
    """A turn ended by the GM is a GM's act; a defence committed is its player's (a GM's says so in its words)."""
    if event.kind == "turn_ended" and getattr(event, "reason", "") == "gm":
        return True
    if event.kind == "units_committed":
        return False
    return None


def outcome(events: list[Event], side: str | None) -> str | None:
    """A battle the report ended: won or lost, for the acting nation when it fought in it."""
    for event in events:
        if event.kind == "battle_ended" and getattr(event, "winner", None):
            if side is None or side in (event.winner, event.loser):  # type: ignore[attr-defined]
                return "success" if side is None or side == event.winner else "failure"  # type: ignore
    return None


def report_fields(state: GameState, events: list[Event], actor: str) -> list[tuple[str, str]]:
    """After an action: the acting nation's actions left and when the turn ends."""
    if not any(e.kind == "action_used" for e in events):
        return []
    nation = state.nation_of(actor)
    if nation is None or nation.eliminated:
        return []
    return [("Actions", actions_footer(state, nation))]


def actions_footer(state: GameState, nation: Nation) -> str:
    ends = "the clock is paused" if state.paused else f"turn ends {when(state.turn_ends_at)}"
    return f"{actions_left(state, nation)} of {state.house.actions_per_turn} actions left, {ends}"


def nation_embed(nation: Nation, state: GameState, rules: Rules) -> discord.Embed:
    mod = rules.modifier
    title = (safe(nation.name) + (" — eliminated" if nation.eliminated else ""))[:256]
    embed = discord.Embed(title=title, colour=COLOUR,
                          description=f"Played by {who(nation.player) if nation.player else 'nobody'}")
    stability = f"{nation.effective_stability} ({mod(nation.effective_stability):+d})"
    if nation.foreign_patches:
        stability += f"\nbase {nation.stability}, −{nation.foreign_patches} foreign"
    for name, value in (("Economy", f"{nation.economy} ({mod(nation.economy):+d})"), ("Stability", stability),
                        ("Military", f"{nation.military} ({mod(nation.military):+d})"),
                        ("Propaganda", f"{nation.propaganda} ({mod(nation.propaganda):+d})"),
                        ("Land", f"{nation.land} (E+M {nation.economy + nation.military})")):
        embed.add_field(name=name, value=value)
    embed.add_field(name="Strength / weakness", value=f"{nation.strength} / {nation.weakness}")
    bonuses = "\n".join(f"{b.kind.capitalize()} {b.value:+d}, ends {when(b.expires_at)}"
                        for b in nation.bonuses.values())
    embed.add_field(name="Bonuses", value=bonuses or "none", inline=False)
    embed.add_field(name="Actions", value="the game is over" if state.ended else actions_footer(state, nation),
                    inline=False)
    embed.add_field(name="Army", value=army_lines(nation, rules), inline=False)
    return embed


def army_lines(nation: Nation, rules: Rules) -> str:
    mp = army_mp(rules, nation)
    lines = [f"{mp} of {nation.military} MP" + (" — **over its MP cap**" if mp > nation.military else "")]
    for unit in sorted(nation.units.values(), key=lambda u: u.id):
        top = rules.max_hp(unit.type, unit.rank, nation.strength, nation.weakness)
        where = f", battle #{unit.battle}" if unit.battle is not None else ""
        lines.append(f"`#{unit.id}` {safe(unit_name(unit.type, unit.rank))} {unit.hp}/{top} HP{where}")
    return "\n".join(lines)[:1024]


def army_embed(nation: Nation, rules: Rules) -> discord.Embed:
    return discord.Embed(title=f"Army of {safe(nation.name)}"[:256], description=army_lines(nation, rules),
                         colour=COLOUR)


def results_embed(standings: dict[str, Any], title: str = "🏁 Game over — final results") -> discord.Embed:
    """A Nations game's final results (`GameEnded.standings`): the winner, then every nation, best first, with
    its LAND, stats and battles won."""
    shown_standings = {**standings, "winner": safe(standings["winner"]) if standings.get("winner") else None,
                       "tied": [safe(name) for name in standings.get("tied", [])]}
    turn = standings.get("turn")
    embed = discord.Embed(title=title[:256], colour=OUTCOME_COLOURS["results"],
                          description=winner_line(shown_standings, bold)
                          + (f"\nThe game ended in turn {turn}." if turn else ""))
    for place, entry in enumerate(standings["nations"][:25], start=1):
        player = f"\n{who(entry['player'])}" if entry.get("player") else ""
        embed.add_field(name=f"{place}. {safe(entry['name'])}"[:256],
                        value=(standing_line(entry, who, bold) + player)[:1024], inline=False)
    return embed


def status_embed(state: GameState, rules: Rules) -> discord.Embed:
    """The game at a glance: the turn and its clock, every nation's stats and actions left, the live battles."""
    if state.ended:  # the pinned status of an ended game: the final standings, no clock and no actions
        return results_embed(state.final_standings(), f"Nations — turn {state.turn} — game over")
    clock = "⏸ paused" if state.paused else f"ends {when(state.turn_ends_at)}"
    embed = discord.Embed(title=f"Nations — turn {state.turn}",
                          description=f"Turn of {state.turn_hours:g} h, {clock}. GM: {who(state.gm)}",
                          colour=COLOUR)
    for nation in list(state.nations.values())[:24]:
        if nation.eliminated:
            value = "eliminated"
        else:
            value = (f"E {nation.economy} S {nation.effective_stability} M {nation.military} P {nation.propaganda} "
                     f"L {nation.land}\n{who(nation.player) if nation.player else 'no player'} · "
                     f"{plural(actions_left(state, nation), 'action')} left")
        embed.add_field(name=safe(nation.name)[:256], value=value)
    live = [b for b in state.battles.values() if not b.over]
    if live:
        embed.add_field(name="Battles", value="\n".join(battle_line(b) for b in live)[:1024], inline=False)
    if not state.nations:
        embed.add_field(name="No nations yet", value="/nation claim or /nation create")
    return embed


def battle_line(battle: Battle) -> str:
    if battle.over:
        status = safe(battle.result or "over")
    elif battle.stage == "commit":
        status = f"waits for {safe(battle.defender)} to commit"
    elif battle.stage == "pairing":
        status = f"waits for {safe(chooser(battle))} to pair"
    else:
        status = "being fought"
    due = f", default {when(battle.deadline)}" if battle.deadline and not battle.over else ""
    return f"#{battle.id} {safe(battle.attacker)} → {safe(battle.defender)}: {status}{due}"


def battles_embed(state: GameState, battle_id: int | None = None) -> discord.Embed:
    battles = [b for b in state.battles.values() if battle_id in (None, b.id)]
    embed = discord.Embed(title="Battles", colour=COLOUR,
                          description="\n".join(battle_line(b) for b in battles) or "No battles.")
    for battle in battles[-5:]:
        duels = [
            f"{unit_ref(d['attacker_unit'], safe(d['attacker_type']))} vs "
            f"{unit_ref(d['defender_unit'], safe(d['defender_type']))}: "
            f"{sum(1 for r in d['rounds'] if r['kind'] == 'round')} rounds — {safe(d['outcome'] or 'under way')}"
            for d in battle.duels
        ]
        fighting = (f"attacking {_ids(battle.in_fight_attacking)}; defending {_ids(battle.in_fight_defending)}")
        embed.add_field(name=f"Battle #{battle.id}", value="\n".join([fighting, *duels])[:1024], inline=False)
    return embed


def _ids(ids: list[int]) -> str:
    return ", ".join(f"#{i}" for i in ids) or "none"
