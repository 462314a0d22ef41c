"""The one place that renders the referee's answers for Discord: embeds, mentions and timestamps.

Words come from `engine.describe` (shared with the console); this module only lays them out.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import discord

from engine.describe import event_line, plural, roll_line
from engine.dice import RollRecord
from engine.events import Event
from engine.nations.common import actions_left, army_mp
from engine.nations.rules import Rules
from engine.nations.state import Battle, GameState, Nation
from engine.nations.war import chooser

COLOUR = discord.Colour.dark_gold()
ERROR_COLOUR = discord.Colour.red()
DESCRIPTION_LIMIT = 4000
EMBEDS_PER_MESSAGE = 10
MESSAGE_EMBED_CHARS = 6000  # Discord's limit on the characters of all the embeds of one message


def when(moment: datetime) -> str:
    """A Discord timestamp: shown in each reader's time zone, counting down (`<t:…:R>`)."""
    return f"<t:{int(moment.timestamp())}:R>"


def who(player: str) -> str:
    """A player as a mention when it is a Discord user id."""
    return f"<@{player}>" if player.isdigit() else player


def event_lines(events: Iterable[Event]) -> list[str]:
    return [line for e in events if (line := event_line(e, when=when, who=who))]


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


def report_embeds(events: list[Event], state: GameState | None, actor: str | None = None,
                  title: str | None = None) -> list[discord.Embed]:
    """A command's or the clock's events; the acting nation's actions left as the footer."""
    embeds = text_embeds(event_lines(events), title)
    if state is not None and actor is not None and any(e.kind == "action_used" for e in events):
        nation = state.nation_of(actor)
        if nation is not None and not nation.eliminated:
            embeds[-1].add_field(name="Actions", value=actions_footer(state, nation), inline=False)
    return embeds


def actions_footer(state: GameState, nation: Nation) -> str:
    ends = "the clock is paused" if state.paused else f"turn ends {when(state.turn_ends_at)}"
    return f"{actions_left(state, nation)} of {state.house.actions_per_turn} actions left, {ends}"


def error_embed(message: str) -> discord.Embed:
    return discord.Embed(description=f"⛔ {message}", colour=ERROR_COLOUR)


def nation_embed(nation: Nation, state: GameState, rules: Rules) -> discord.Embed:
    mod = rules.modifier
    title = nation.name + (" — eliminated" if nation.eliminated else "")
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
    embed.add_field(name="Actions", value=actions_footer(state, nation), inline=False)
    embed.add_field(name="Army", value=army_lines(nation, rules), inline=False)
    return embed


def army_lines(nation: Nation, rules: Rules) -> str:
    mp = army_mp(rules, nation)
    lines = [f"{mp} of {nation.military} MP" + (" — **over its MP cap**" if mp > nation.military else "")]
    for unit in sorted(nation.units.values(), key=lambda u: u.id):
        top = rules.max_hp(unit.type, unit.rank, nation.strength, nation.weakness)
        where = f", battle #{unit.battle}" if unit.battle is not None else ""
        lines.append(f"`#{unit.id}` {unit.type} {unit.rank.upper()} {unit.hp}/{top} HP{where}")
    return "\n".join(lines)[:1024]


def army_embed(nation: Nation, rules: Rules) -> discord.Embed:
    return discord.Embed(title=f"Army of {nation.name}", description=army_lines(nation, rules), colour=COLOUR)


def status_embed(state: GameState, rules: Rules) -> discord.Embed:
    """The game at a glance; the pinned status message."""
    clock = "⏸ paused" if state.paused else f"ends {when(state.turn_ends_at)}"
    embed = discord.Embed(title=f"Nations — turn {state.turn}" + (" — game over" if state.ended else ""),
                          description=f"Turn of {state.turn_hours:g} h, {clock}. GM: {who(state.gm)}",
                          colour=COLOUR)
    for nation in list(state.nations.values())[:24]:
        if nation.eliminated:
            value = "eliminated"
        else:
            value = (f"E {nation.economy} S {nation.effective_stability} M {nation.military} P {nation.propaganda} "
                     f"L {nation.land}\n{who(nation.player) if nation.player else 'no player'} · "
                     f"{plural(actions_left(state, nation), 'action')} left")
        embed.add_field(name=nation.name, value=value)
    live = [b for b in state.battles.values() if not b.over]
    if live:
        embed.add_field(name="Battles", value="\n".join(battle_line(b) for b in live)[:1024], inline=False)
    if not state.nations:
        embed.add_field(name="No nations yet", value="/nation claim or /nation create")
    return embed


def battle_line(battle: Battle) -> str:
    if battle.over:
        status = battle.result or "over"
    elif battle.stage == "commit":
        status = f"waits for {battle.defender} to commit"
    elif battle.stage == "pairing":
        status = f"waits for {chooser(battle)} to pair"
    else:
        status = "being fought"
    due = f", default {when(battle.deadline)}" if battle.deadline and not battle.over else ""
    return f"#{battle.id} {battle.attacker} → {battle.defender}: {status}{due}"


def battles_embed(state: GameState, battle_id: int | None = None) -> discord.Embed:
    battles = [b for b in state.battles.values() if battle_id in (None, b.id)]
    embed = discord.Embed(title="Battles", colour=COLOUR,
                          description="\n".join(battle_line(b) for b in battles) or "No battles.")
    for battle in battles[-5:]:
        duels = [
            f"{d['attacker_type']} #{d['attacker_unit']} vs {d['defender_type']} #{d['defender_unit']}: "
            f"{sum(1 for r in d['rounds'] if r['kind'] == 'round')} rounds — {d['outcome'] or 'under way'}"
            for d in battle.duels
        ]
        fighting = (f"attacking {_ids(battle.in_fight_attacking)}; defending {_ids(battle.in_fight_defending)}")
        embed.add_field(name=f"Battle #{battle.id}", value="\n".join([fighting, *duels])[:1024], inline=False)
    return embed


def _ids(ids: list[int]) -> str:
    return ", ".join(f"#{i}" for i in ids) or "none"


def rolls_embed(rolls: list[RollRecord], title: str) -> discord.Embed:
    lines = [f"T{r.turn} {when(r.at) if r.at.year > 2000 else ''} {roll_line(r)}" for r in rolls] or ["No rolls yet."]
    return text_embeds(lines, title)[0]
