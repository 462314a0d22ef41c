"""The one place that renders the referee's answers for Discord: embeds, mentions and timestamps.

Words come from `engine.describe` and `engine.goddice.describe` (shared with the console); this module only
lays them out (God Dice's dice as coloured faces).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import discord

from engine.describe import event_line, faces_line, plural, roll_line
from engine.dice import FacesRecord, FreeRoll, RollRecord, free_roll_line
from engine.events import DieRolled, Event, GameEnded
from engine.goddice.cards import FACE_NAMES, Cards
from engine.goddice.describe import MOVES, attack_text, cards_lines, life_bar
from engine.goddice.play import character_label, label, legal_attacks, rollable, waiting_for
from engine.goddice.state import DRAFT, FAVOR, ROLLING, SEATING, GoddiceState
from engine.godsfire.events import ChartRead
from engine.godsfire.phases import phase_line
from engine.godsfire.politics import STEP_NAMES, interphase_left
from engine.godsfire.rules import ECONOMY_NAMES, PARTY_NAMES
from engine.godsfire.state import PHASE_NAMES, PHASES, GodsfireState
from engine.godsfire.state import Player as GodsfirePlayer
from engine.godsfire.state import Region as GodsfireRegion
from engine.godsfire.state import System as GodsfireSystem
from engine.nations.common import actions_left, army_mp
from engine.nations.describe import standing_line, unit_name, unit_ref, winner_line
from engine.nations.rules import Rules
from engine.nations.state import Battle, GameState, Nation
from engine.nations.war import chooser
from referee import Digest, digest_lines

COLOUR = discord.Colour.dark_gold()  # neutral: views (status, army, battles, help) and what has no outcome
ERROR_COLOUR = discord.Colour.red()

# One colour per outcome, for every answer and announcement (`outcome_of` decides it from the events).
OUTCOME_COLOURS = {
    "success": discord.Colour.green(),  # a check passed, a battle won
    "failure": discord.Colour.orange(),  # a check failed, a battle lost
    "refusal": ERROR_COLOUR,  # the referee refused: nothing changed
    "gm": discord.Colour.purple(),  # a GM's act: dice entered, a stat set, an undo, a turn ended by hand
    "clock": discord.Colour.blue(),  # the clock: a turn over, a bonus run out, a choice timed out
    "neutral": COLOUR,
    "results": discord.Colour.gold(),  # a game's final results
}
GM_KINDS = frozenset({"dice_queued", "dice_cleared", "action_undone", "house_changed", "game_ended",
                      "turn_length_changed", "clock_paused", "clock_resumed", "nation_restored", "action_granted",
                      "action_revoked", "game_imported"})
CLOCK_KINDS = frozenset({"turn_ended", "bonus_expired", "choice_defaulted", "player_reminded"})

# A heading per event kind: a report is headed by the first of these kinds it holds (most telling first).
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
DESCRIPTION_LIMIT = 4000
EMBEDS_PER_MESSAGE = 10
MESSAGE_EMBED_CHARS = 6000  # Discord's limit on the characters of all the embeds of one message


def when(moment: datetime) -> str:
    """A moment as Discord timestamps, shown in each reader's time zone: the date and time (`:f`), so players
    in other time zones can plan, and the countdown (`:R`), e.g. "1 March 2026 00:00 (in 12 hours)"."""
    return f"{discord.utils.format_dt(moment, 'f')} ({discord.utils.format_dt(moment, 'R')})"


def who(player: str) -> str:
    """A player as a mention when it is a Discord user id (any other name shown as written, escaped)."""
    return f"<@{player}>" if player.isdigit() and player.isascii() else safe(player)


MENTION_START = re.compile(r"<(?=\S)")  # <@id>, <@&role>, <#channel>, <t:…>, <:emoji:id>, </command:id>
BARE_MENTION = re.compile(r"@(?=everyone|here|[!&]?\d)", re.IGNORECASE)


def safe(text: object) -> str:
    """Player-given text (a nation, a player, a unit type, a character, a file name, a command as typed)
    shown exactly as written: its Markdown escaped, and no mention, timestamp or emoji markup left live.

    Every name a cog shows goes through here (or through `who`); messages that ping name their players in
    `pings`, so even a name that slipped through would ping nobody."""
    text = discord.utils.escape_markdown(str(text), ignore_links=False)
    text = discord.utils.escape_mentions(text)
    text = MENTION_START.sub("<\u200b", text)
    return BARE_MENTION.sub("@\u200b", text)


def pings(*players: str | None) -> discord.AllowedMentions:
    """The mentions a message may notify: exactly these players (Discord user ids), no one else, no role,
    not @everyone."""
    users = [discord.Object(int(p)) for p in dict.fromkeys(players) if p and p.isdigit() and p.isascii()]
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)


NO_PINGS = discord.AllowedMentions.none()

# The event fields that carry player-given text (names, unit types, card titles, commands as typed, reasons
# that quote them). Players and GMs (`player`, `by`, `gm`…) go through `who` instead.
GIVEN_FIELDS = frozenset({
    "name", "nation", "attacker", "defender", "winner", "loser", "type", "attacker_type", "defender_type",
    "reason", "summary", "text", "attack", "legal", "target_names", "default", "actions", "outcome", "result",
    "purpose", "strength", "weakness", "rank", "old_rank",
    "system", "words", "detail", "government",  # Godsfire: system names, a chart's words
})


def _escaped(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("name"), str) and "regions" in value:
        return {**value, "name": safe(value["name"])}  # a Godsfire system as SystemAdded carries it
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {(safe(k) if isinstance(k, str) else k): v for k, v in value.items()}
    return value


def shown(record: Any) -> Any:
    """An event (or a roll record) with its player-given text escaped, for words that go to Discord."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return record
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        if not f.init:
            continue
        value = getattr(record, f.name)
        if f.name in GIVEN_FIELDS:
            escaped = _escaped(value)
            if escaped != value:
                changes[f.name] = escaped
        elif f.name == "roll" and dataclasses.is_dataclass(value):
            changes[f.name] = shown(value)
    return dataclasses.replace(record, **changes) if changes else record


ROLL_TOTAL = re.compile(r"(?<= = )(-?\d+)(?= vs |$)")  # as the console's markdown and BBCode show them
VERDICT = re.compile(r"(?<=: )(success|failure)\b")


def emphasised(line: str) -> str:
    """A roll line already written, its total and verdict in bold: `d10 7 + mod(E) +1 = **8** vs > 12:
    **failure**` (as `event_lines` shows a roll, which bolds them from the record itself, never a name)."""
    if not line.startswith("🎲"):
        return line
    return VERDICT.sub(r"**\1**", ROLL_TOTAL.sub(r"**\1**", line))


def event_lines(events: Iterable[Event]) -> list[str]:
    """Events as lines for Discord, player-given text escaped; a roll's total and verdict in bold."""
    return [line for e in events if (line := discord_event_line(shown(e)))]


def discord_event_line(event: Event) -> str | None:
    if isinstance(event, DieRolled):
        return roll_line(event.roll, strong=bold)
    return event_line(event, when=when, who=who)


def text_embeds(lines: list[str], title: str | None = None, colour: discord.Colour = COLOUR) -> list[discord.Embed]:
    """Lines laid out over as many embeds as their length needs."""
    embeds: list[discord.Embed] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > DESCRIPTION_LIMIT:
            embeds.append(discord.Embed(description="\n".join(chunk), colour=colour))
            chunk, size = [], 0
        chunk.append(line[:DESCRIPTION_LIMIT])
        size += len(line) + 1
    if chunk or not embeds:
        embeds.append(discord.Embed(description="\n".join(chunk) or "Nothing happened.", colour=colour))
    if title:
        embeds[0].title = title
    return embeds


def message_batches(embeds: list[discord.Embed]) -> list[list[discord.Embed]]:
    """Embeds grouped into messages within Discord's limits: 10 embeds and 6000 characters in all."""
    batches: list[list[discord.Embed]] = [[]]
    size = 0
    for embed in embeds:
        if batches[-1] and (len(batches[-1]) == EMBEDS_PER_MESSAGE or size + len(embed) > MESSAGE_EMBED_CHARS):
            batches.append([])
            size = 0
        batches[-1].append(embed)
        size += len(embed)
    return batches


def is_gm_act(event: Event) -> bool:
    if event.kind in GM_KINDS or (event.kind == "turn_ended" and getattr(event, "reason", "") == "gm"):
        return True
    by = getattr(event, "by", None)
    if event.kind == "units_committed":  # committed by the defender's player (or a GM: said in its words)
        return False
    return bool(by) and by != "default"  # "default": the clock decided a battle choice


def outcome_of(events: list[Event], state: Any = None, actor: str | None = None) -> str:
    """The outcome a report's colour shows: a GM's act; else the battle or check it settled (for the acting
    nation when there is one: its battle won or lost, its roll passed or failed); else the clock; else neutral."""
    if any(is_gm_act(e) for e in events):
        return "gm"
    nation = _actor_nation(state, actor)
    for event in events:
        if event.kind == "battle_ended" and getattr(event, "winner", None):
            if nation is None or nation.name in (event.winner, event.loser):  # type: ignore[attr-defined]
                return "success" if nation is None or nation.name == event.winner else "failure"  # type: ignore
    judged = [e.roll for e in events if isinstance(e, DieRolled) and e.roll.success is not None]
    mine = [r for r in judged if nation is not None and r.nation == nation.name] or judged
    if mine:
        return "success" if mine[0].success else "failure"
    if any(e.kind in CLOCK_KINDS for e in events):
        return "clock"
    return "neutral"


def heading_of(events: list[Event]) -> str | None:
    """The report's heading: the most telling event kind's, else a check's purpose, else the first event's kind."""
    kinds = {e.kind for e in events}
    for kind, heading in HEADINGS.items():
        if kind in kinds and kind not in ("stat_changed", "notice", "bonus_set", "unit_added", "unit_changed"):
            return heading
    rolls = [e.roll for e in events if isinstance(e, DieRolled)]
    if rolls:
        return rolls[0].purpose[:1].upper() + rolls[0].purpose[1:]
    for event in events:
        if event.kind in HEADINGS:
            return HEADINGS[event.kind]
    return events[0].kind.replace("_", " ").capitalize() if events else None


def footer_of(state: Any, actor: str | None = None) -> str | None:
    """`Gracchan Republic · Turn 3` (the acting nation, if any); God Dice and Godsfire their turn (and phase)."""
    if state is None:
        return None
    ruleset = getattr(state, "ruleset", "nations")
    if ruleset == "godsfire":
        return f"Godsfire · Turn {state.turn}, {PHASE_NAMES.get(state.phase, state.phase)}"
    if ruleset == "goddice":
        return f"God Dice · Turn {state.turn}" if getattr(state, "turn", 0) else "God Dice"
    nation = _actor_nation(state, actor)
    return f"{nation.name if nation else 'Nations'} · Turn {state.turn}"


def _actor_nation(state: Any, actor: str | None) -> Nation | None:
    if state is None or actor is None or getattr(state, "ruleset", None) != "nations":
        return None
    return state.nation_of(actor)


def dress(embeds: list[discord.Embed], events: list[Event], state: Any, actor: str | None = None,
          outcome: str | None = None) -> list[discord.Embed]:
    """Colour the embeds by outcome, title the first by its event kind, and sign each with nation and turn (a
    long report may be split over several messages: each part is signed)."""
    colour = OUTCOME_COLOURS[outcome or outcome_of(events, state, actor)]
    for embed in embeds:
        embed.colour = colour
    heading = heading_of(events)
    if embeds and heading and not embeds[0].title:
        embeds[0].title = heading[:256]
    footer = footer_of(state, actor)
    for embed in embeds if footer else []:
        embed.set_footer(text=footer[:2048])
    return embeds


def report_embeds(events: list[Event], state: Any, actor: str | None = None,
                  title: str | None = None) -> list[discord.Embed]:
    """A command's or the clock's events; the acting nation's actions left as the footer. A game's end is said
    in one line here: its final results are a message of their own (`results_embed`, posted by the clock)."""
    events = [GameEnded() if isinstance(e, GameEnded) else e for e in events]
    embeds = text_embeds(event_lines(events), title)
    if state is not None and actor is not None and any(e.kind == "action_used" for e in events):
        nation = state.nation_of(actor)
        if nation is not None and not nation.eliminated:
            embeds[-1].add_field(name="Actions", value=actions_footer(state, nation), inline=False)
    return dress(embeds, events, state, actor)


def actions_footer(state: GameState, nation: Nation) -> str:
    ends = "the clock is paused" if state.paused else f"turn ends {when(state.turn_ends_at)}"
    return f"{actions_left(state, nation)} of {state.house.actions_per_turn} actions left, {ends}"


USER_ID = re.compile(r"(?<![<@\d])\d{15,21}(?![>\d])")  # a bare Discord user id (players are their ids)


REFUSED = "Refused — nothing changed"


def error_embed(message: str) -> discord.Embed:
    """A refusal; a player named by a bare user id in the engine's reason shows as a mention.

    The reason may quote what was typed: Markdown that would render is escaped and no mention is live."""
    text = discord.utils.escape_markdown(message, as_needed=True)
    text = BARE_MENTION.sub("@\u200b", MENTION_START.sub("<\u200b", discord.utils.escape_mentions(text)))
    reason = f"⛔ {USER_ID.sub(lambda m: who(m.group()), text)}"[:DESCRIPTION_LIMIT]
    return discord.Embed(title=REFUSED, description=reason, colour=OUTCOME_COLOURS["refusal"])


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


def status_embed(state: Any, rules: Rules) -> discord.Embed:
    """The game at a glance, by its rule set; the pinned status message."""
    if state.ruleset == "goddice":
        return goddice_status_embed(state)
    if state.ruleset == "godsfire":
        return godsfire_status_embed(state)
    return nations_status_embed(state, rules)


def bold(text: str) -> str:
    return f"**{text}**"


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


def nations_status_embed(state: GameState, rules: Rules) -> discord.Embed:
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


def rolls_embed(rolls: list[RollRecord | FacesRecord], title: str, lead: str | None = None) -> discord.Embed:
    """The roll ledger (/log): numbered dice (Nations), dice with named faces (God Dice) and free rolls (/roll,
    marked as no rule roll); `lead` heads the list."""
    lines = [f"T{r.turn} {when(r.at) if r.at.year > 2000 else ''} {ledger_line(r)}" for r in rolls] or ["No rolls yet."]
    return text_embeds(([lead] if lead else []) + lines, title)[0]


def ledger_line(roll: RollRecord | FacesRecord) -> str:
    """One ledger row: a free /roll row (sides 0, its breakdown in `free`) as `free_roll_text`."""
    if isinstance(roll, FacesRecord):
        return faces_line(shown(roll), who)
    if roll.free is not None:
        return free_roll_text(roll.nation, roll.free)
    return roll_line(shown(roll))


def free_roll_text(player: str | None, breakdown: str) -> str:
    """A free roll: the player as a mention, the breakdown escaped, the total in bold."""
    head, sep, total = breakdown.rpartition(" = ")
    text = f"{safe(head)} = {bold(total)}" if sep else safe(breakdown)
    return free_roll_line(who(player) if player else None, text)


def free_roll_embed(player: str | None, roll: FreeRoll, logged: bool) -> discord.Embed:
    """/roll's answer; a roll logged in the channel's game says so in its footer."""
    [embed] = text_embeds([free_roll_text(player, roll.breakdown)], "🎲 Free roll")
    if logged:
        embed.set_footer(text="Logged in this game's /log; it counts for no rule.")
    return embed


def digest_embeds(digest: Digest) -> list[discord.Embed]:
    """/game digest: what the clock caught up on first (a report of its own), then the digest's lines. Each
    entry's time is absolute only (a countdown on every line is noise); Discord renders no timestamp in a
    title, so the head is the first line."""
    lines = digest_lines(digest, when=lambda moment: discord.utils.format_dt(moment, "f"), who=who,
                         events=event_lines, free=ledger_line, command=safe)
    caught = digest.caught_up
    embeds = report_embeds(caught.events, caught.state) if caught is not None and caught.events else []
    return [*embeds, *text_embeds(lines, "🗞 Digest")]


# --- God Dice --------------------------------------------------------------------------------------

FACES = {"B": "🟦", "R": "🟥", "Y": "🟨", "O": "⭕", "5": "5️⃣"}  # the attack dice's faces


def dice_faces(dice: list[str]) -> str:
    """`🟦 🟦 🟥 ⭕ 5️⃣`: attack dice as coloured faces."""
    return " ".join(FACES.get(face, face) for face in dice)


def god_faces(faces: list[str], cards: Cards) -> str:
    """`**S** Sage · **A** Assassin`: God dice as their letters and the characters they stand for."""
    titles = {card.god: safe(card.title) for card in cards.characters.values()}
    return " · ".join(f"**{face}** {titles.get(face, '')}".rstrip() for face in faces)


def move_prompt(state: GoddiceState) -> str | None:
    """Whose move it is (a mention) and what it is, with the dice on the table; None if the game waits on no one."""
    player = waiting_for(state)
    if state.ended or player is None or state.phase not in MOVES:
        return None
    lines = [f"⏳ {who(player)}, your move: {MOVES[state.phase]}."]
    turn = state.current
    if turn is not None and turn.dice and state.phase in (FAVOR, ROLLING):
        lines.append(f"Dice: {dice_faces(turn.dice)}")
    return "\n".join(lines)


def goddice_status_embed(state: GoddiceState) -> discord.Embed:
    """Whose move it is, every player's characters and life, and the turn: God dice, attack dice, types left
    to roll and the legal attacks with their damage."""
    title = "God Dice" + (f" — turn {state.turn}" if state.turn else "") + (" — game over" if state.ended else "")
    options = f" Optional rules: {', '.join(o.replace('_', ' ') for o in state.options)}." if state.options else ""
    lines = [f"GM: {who(state.gm)}.{options}"]
    if state.winner:
        lines.append(f"👑 {who(state.winner)} won.")
    elif not state.ended and state.active and state.phase in MOVES:
        lines.append(f"⏳ {who(state.active)}'s move: {MOVES[state.phase]}")
    elif state.phase == SEATING and not state.ended:
        lines.append(f"Seating: {plural(len(state.players), 'player')} seated; /goddice join, then the GM's "
                     "/goddice begin.")
    if state.phase == DRAFT:
        lines.append("Pool: " + ", ".join(f"{safe(state.cards.characters[t].title)} ×{n}"
                                          for t, n in state.pool.items()
                                          if n))
    if state.forced_dice:
        lines.append(f"{plural(len(state.forced_dice), 'GM-entered die')} waiting: {' '.join(state.forced_dice)}")
    embed = discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)
    for player in state.players[:20]:
        name = f"Seat {player.seat}" + (f" ({plural(player.wins, 'win')})" if "campaign" in state.options else "")
        if player.characters and not player.in_game:
            name += " — out"
        characters = [f"{safe(label(player, c, state.cards))} {life_bar(c.life, c.max_life)}"
                      for c in player.characters]
        embed.add_field(name=name, value="\n".join([who(player.name), *characters])[:1024])
    turn = state.current
    if turn is not None and turn.attacker is not None and not state.ended:
        embed.add_field(name=f"Turn {state.turn}", value="\n".join(turn_field(state))[:1024], inline=False)
    return embed


def turn_field(state: GoddiceState) -> list[str]:
    """The turn under way: who attacks whom, the God dice, the attack dice as faces, the types still to roll
    and every legal attack with its damage."""
    turn = state.current
    assert turn is not None
    lines = [attack_line(state)]
    if turn.god:
        lines.append(f"God dice: {god_faces(turn.god, state.cards)}"
                     + (f"; the {turn.favor} is in favor" if turn.favor else ""))
    if turn.dice:
        lines.append(f"Dice: {dice_faces(turn.dice)}")
        rolled = [FACE_NAMES.get(r, r) for r in turn.rolled]
        lines.append(f"Rolled: {', '.join(rolled)}")
    left = rollable(state)
    if left:
        lines.append("Still to roll: " + ", ".join(f"{FACES[f]} {FACE_NAMES[f]} ×{turn.dice.count(f)}" for f in left))
    legal = legal_attacks(state)
    if legal:
        lines += ["Legal attacks:", *(f"• {safe(attack_text(option))}" for option in legal)]
    elif state.phase == ROLLING:
        lines.append("No legal attack yet.")
    return lines


def attack_line(state: GoddiceState) -> str:
    """Who attacks whom in the turn under way, the characters as their (escaped) card titles."""
    turn = state.current
    assert turn is not None and turn.attacker is not None
    line = f"{who(turn.player)}'s {safe(character_label(state, turn.attacker))} attacks "
    if turn.defender:
        return line + f"{who(turn.defender_player or '')}'s {safe(character_label(state, turn.defender))}"
    return line + (who(turn.defender_player) if turn.defender_player else "…")


def cards_embeds(cards: Cards) -> list[discord.Embed]:
    """`/goddice cards`: every character with its life, God die and attacks."""
    lines = [safe(line) for line in cards_lines(cards)]  # card titles, and the house mark * as written
    return text_embeds([f"• {line}" for line in lines[:-1]] + lines[-1:], "God Dice cards")


# --- Godsfire --------------------------------------------------------------------------------------

CHART_TITLES = {"combat": "Combat Results Table", "transit": "Transit Attack", "money": "Money",
                "movement": "Movement check", "stacking": "Stacking check"}


def godsfire_embeds(events: list[Event], state: Any) -> list[discord.Embed]:
    """A Godsfire command's answer: its events as lines, each chart read as its own embed after them."""
    charts = [e for e in events if isinstance(e, ChartRead)]
    rest = [e for e in events if not isinstance(e, ChartRead)]
    embeds = text_embeds(event_lines(rest)) if rest or not charts else []
    return dress(embeds + [chart_embed(shown(e)) for e in charts], events, state)


def chart_embed(read: ChartRead) -> discord.Embed:
    """One chart read: the column, the die and the result in words (the detail, e.g. the odds, above)."""
    title = CHART_TITLES.get(read.chart, read.chart.replace("_", " ").capitalize())
    embed = discord.Embed(title=title, description=read.detail or None, colour=COLOUR)
    embed.add_field(name="Column", value=read.column or "—")
    if read.die:  # the movement and stacking checks roll nothing
        embed.add_field(name="Die", value=str(read.die))
    words = read.words.removeprefix(f"{read.result}: ")  # the words may start with the code itself
    embed.add_field(name="Result", value=f"**{read.result}** — {words}"[:1024], inline=False)
    return embed


def _units(units: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in units.items() if n) or "none"


def region_value(region: GodsfireRegion) -> str:
    """A region on a system sheet: party, allegiance, economy, revolt, units, enemies and money placed."""
    lines = [f"{PARTY_NAMES[region.party]} ({region.party}) · allegiance {region.allegiance}",
             f"{ECONOMY_NAMES[region.economy]} ({region.economy})"]
    if region.revolt:
        lines.append("**in revolt**")
    lines.append(f"ground: {_units(region.units)}")
    if region.enemy_units:
        lines.append(f"enemy units: {region.enemy_units}")
    money = [f"{who(p)} {n} GB (circle {region.subversion_step.get(p, 0) + 1})"
             for p, n in region.subversion.items() if n]
    if money:
        lines.append("subversion: " + ", ".join(money))
    if region.desubversion:
        lines.append(f"de-subversion: {region.desubversion} GB")
    if region.counter_subversion:
        lines.append(f"counter-subversion: {region.counter_subversion} GB")
    return "\n".join(lines)[:1024]


def system_embed(system: GodsfireSystem, state: GodsfireState) -> discord.Embed:
    """`/godsfire system show`: the system sheet — owner, planets, bank, loans, space units and each region."""
    owner = f"{who(system.owner)}'s system" if system.owner else "a neutral system"
    lines = [f"{owner}; {plural(system.planets, 'planet')}.", f"Bank: {system.bank} GB.",
             f"Space: {_units(system.units)}."]
    if system.enemy_units:
        lines.append(f"Under siege: {plural(system.enemy_units, 'enemy unit')} on the system cell.")
    loans = "; ".join(f"{loan.amount} GB (marker on box {loan.box + 1})" for loan in system.loans)
    lines.append(f"Loans: {loans or 'none'}.")
    embed = discord.Embed(title=safe(system.name)[:256], description="\n".join(lines), colour=COLOUR)
    for region in system.regions[:25]:
        embed.add_field(name=f"Region {region.number}", value=region_value(region))
    return embed


def godsfire_status_embed(state: GodsfireState) -> discord.Embed:
    """The game at a glance: turn and phase, each player (NG, money, allegiance) and each system."""
    title = f"Godsfire — turn {state.turn}, {PHASE_NAMES[state.phase]}" + (" — game over" if state.ended else "")
    lines = [f"GM: {who(state.gm)}."]
    if state.forced_dice:
        count = len(state.forced_dice)
        lines.append(f"{count} GM-entered {'die' if count == 1 else 'dice'} waiting: "
                     f"{' '.join(str(d) for d in state.forced_dice)}")
    if not state.players:
        lines.append("No players yet: the GM adds systems with /godsfire system add.")
    embed = discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)
    for player in state.players[:12]:
        embed.add_field(name=f"Player {len(embed.fields) + 1}", value=player_value(player, state)[:1024])
    systems = [system_line(s) for s in state.systems]
    if systems:
        embed.add_field(name="Systems", value="\n".join(systems)[:1024], inline=False)
    return embed


def player_value(player: GodsfirePlayer, state: GodsfireState) -> str:
    """A player on the status embed: National Government, its money and allegiances, systems."""
    lines = [who(player.name) + (" — **out of the game**" if player.out else "")]
    lines.append(f"NG on {safe(player.government)}" if player.government else "NG not placed")
    lines.append(f"NG {player.ng_money} GB, in transit {player.in_transit} GB")
    if player.national_allegiance:
        lines.append("national allegiance " + " ".join(f"{p} {n}" for p, n in player.national_allegiance.items()))
    marks = [m for m, on in (("Change Ministers! used", player.ministers_changed),
                             ("failed a repayment this turn", player.failed_repayment),
                             ("no new loans until every allegiance is 3+", player.loans_barred)) if on]
    lines += marks
    systems = ", ".join(safe(s.name) for s in state.systems_of(player.name))
    lines.append(f"systems: {systems or 'none'}")
    return "\n".join(lines)


def system_line(system: GodsfireSystem) -> str:
    owner = who(system.owner) if system.owner else "neutral"
    revolts = sum(1 for r in system.regions if r.revolt)
    extra = f", {revolts} in revolt" if revolts else ""
    return (f"**{safe(system.name)}** ({owner}): {plural(len(system.regions), 'region')}{extra}, "
            f"bank {system.bank} GB, space {_units(system.units)}")


def godsfire_phase_embed(state: GodsfireState) -> discord.Embed:
    """`/godsfire phase show`: the turn, the phase, the next one and the phases of a turn in order."""
    steps = [("▶ " if phase == state.phase else "• ") + PHASE_NAMES[phase] for phase in PHASES]
    return discord.Embed(title=f"Godsfire — {phase_line(state)}", description="\n".join(steps), colour=COLOUR)


def godsfire_interphase_embed(state: GodsfireState) -> discord.Embed:
    """`/godsfire interphase show`: for each player, the interphase steps not marked done yet."""
    if state.phase != "interphase":
        return discord.Embed(title="Social Interphase", colour=COLOUR,
                             description=f"Not now: turn {state.turn} is in the {PHASE_NAMES[state.phase]}.")
    embed = discord.Embed(title=f"Social Interphase — turn {state.turn}", colour=COLOUR,
                          description="Mark a step done with /godsfire interphase done step:<step>.")
    for player, left in list(interphase_left(state).items())[:25]:
        todo = "\n".join(f"• {STEP_NAMES[step]} (`{step}`)" for step in left) or "all done"
        embed.add_field(name=f"Player {len(embed.fields) + 1}", value=f"{who(player)}\n{todo}"[:1024])
    return embed
