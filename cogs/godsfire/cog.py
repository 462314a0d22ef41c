"""/godsfire …: the Godsfire chart sheet and its social interphase on Discord.

Every command runs a vocabulary command (`engine.godsfire.commands`) through `run_command`, so the engine
decides every rule (GM-only commands included) and the console means the same thing. Chart results answer
as embeds with the column, the die and the result in words; `/godsfire system show` is a system sheet.

Discord allows at most 25 entries in a group, so the vocabulary groups Godsfire's commands as Discord shows
them (the sheet's charts under `/godsfire chart …`, the loans under `/godsfire loan …`, a region's purchases and
politics under `/godsfire region …`): every command has the same name on Discord and in the console.

The answer to every Godsfire action carries the controls of what the game waits for (`cogs.godsfire.buttons`):
the awaited go's Move, Done and Pass; a transit's Attack, Block… and Allow; a loss choice's select; a retreat's
button.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.godsfire.buttons import answer, answer_with, counter_label, run_transit
from cogs.godsfire.render import (
    godsfire_embeds,
    godsfire_interphase_embed,
    godsfire_phase_embed,
    status_embed,
    system_embed,
)
from cogs.host import RefereeHost
from cogs.render import view_embeds
from cogs.util import (
    about,
    actor,
    bot_of,
    channel_key,
    choice_list,
    described,
    given_options,
    has_gm_role,
    query_state,
    reply,
    run_command,
    state_or_none,
)
from engine.commands import BY_PATH, coerce_options
from engine.godsfire.setup import FIELDS as SET_FIELDS
from engine.godsfire.setup import RULESET
from engine.godsfire.state import GodsfireState, System
from engine.names import name_key
from service.referee import GAME_OVER, Report

COLUMNS = choice_list("godsfire chart transit", "column")
DICE = choice_list("godsfire chart money", "die")
MOVERS = choice_list("godsfire chart move", "unit")
BUY_TYPES = choice_list("godsfire region buy", "type")
PLACE_TYPES = choice_list("godsfire region place", "type")
PAY = choice_list("godsfire region party", "pay")
WAYS = choice_list("godsfire region revolt", "way")
STEPS = choice_list("godsfire interphase done", "step")
YES_NO = [app_commands.Choice(name="true", value="true"), app_commands.Choice(name="false", value="false")]


# --- autocomplete ----------------------------------------------------------------------------------


async def _state(interaction: discord.Interaction) -> GodsfireState | None:
    return await state_or_none(interaction, RULESET)


def display(interaction: discord.Interaction, player: str | None) -> str:
    """A player's name for a choice list (mentions do not render there): the member's name if this process
    knows it, a name that is not a user id as it is."""
    if player is None:
        return "neutral"
    if not player.isdigit():
        return player
    if player == str(interaction.user.id):
        return f"{interaction.user.display_name} (you)"
    member = interaction.guild.get_member(int(player)) if interaction.guild is not None else None
    return member.display_name if member is not None else "a player"


def matching(choices: list[app_commands.Choice], current: str) -> list[app_commands.Choice]:
    key = current.strip().lower()
    return [c for c in choices if key in c.name.lower()][:25]


def system_choice(interaction: discord.Interaction, system: System) -> app_commands.Choice[str]:
    regions = f"{len(system.regions)} region{'' if len(system.regions) == 1 else 's'}"
    name = f"{system.name} ({display(interaction, system.owner)}, {regions}, bank {system.bank} GB)"
    return app_commands.Choice(name=name[:100], value=system.name[:100])


async def system_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The game's systems: the user's own first (a GM's: all in order), each with its owner and bank."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    systems = sorted(state.systems, key=lambda s: s.owner != me)  # stable: the user's own, then the others
    return matching([system_choice(interaction, s) for s in systems], current)


async def region_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The regions of the system chosen in the command's `system` option, with party, allegiance, economy."""
    state = await _state(interaction)
    chosen = str(getattr(interaction.namespace, "system", "") or "")
    system = state.find_system(chosen) if state is not None else None
    if system is None:
        return []
    choices = []
    for region in system.regions:
        revolt = ", IN REVOLT" if region.revolt else ""
        name = f"Region {region.number}: {region.party}, allegiance {region.allegiance}, {region.economy}{revolt}"
        choices.append(app_commands.Choice(name=name[:100], value=region.number))
    key = current.strip()
    return [c for c in choices if not key or key in str(c.value) or key.lower() in c.name.lower()][:25]


async def player_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The game's players, with their systems."""
    state = await _state(interaction)
    if state is None:
        return []
    choices = []
    for player in state.players:
        systems = ", ".join(s.name for s in state.systems_of(player.name))
        name = display(interaction, player.name) + (f" — {systems}" if systems else "")
        choices.append(app_commands.Choice(name=name[:100], value=player.name))
    return matching(choices, current)


async def purse_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Where money can go from or to: a system's bank, the National Government (ng), the Money in Transit box."""
    state = await _state(interaction)
    fixed = [app_commands.Choice(name="ng (your National Government)", value="ng"),
             app_commands.Choice(name="transit (the Money in Transit box)", value="transit")]
    systems = [system_choice(interaction, s) for s in state.systems] if state is not None else []
    return matching([*fixed, *systems], current)


async def region_list_autocomplete(interaction: discord.Interaction,
                                   current: str) -> list[app_commands.Choice[str]]:
    """Regions of the chosen system for a list option ("1 3"): the ones typed so far, then one more."""
    state = await _state(interaction)
    chosen = str(getattr(interaction.namespace, "system", "") or "")
    system = state.find_system(chosen) if state is not None else None
    if system is None:
        return []
    typed = current.replace(",", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    choices = [app_commands.Choice(name=f"{prefix} {r.number}".strip(), value=f"{prefix} {r.number}".strip())
               for r in system.regions if str(r.number) not in done]
    return choices[:25]


async def lower_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """`<system> <region>` pairs of the user's systems (a GM: every system) for a voluntary economy drop."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or name_key(state.gm) == name_key(me)
    choices = []
    for system in state.systems:
        if not gm and system.owner != me:
            continue
        for region in system.regions:
            value = f"{system.name} {region.number}"
            choices.append(app_commands.Choice(name=f"{value} ({region.economy})"[:100], value=value[:100]))
    return matching(choices, current)


async def field_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The fields `/godsfire set` can change: a region's when a region is given, else a system's when a
    system is, else a player's when a player is (all of them otherwise)."""
    namespace = interaction.namespace
    if getattr(namespace, "region", None) is not None:
        kinds = ["region"]
    elif getattr(namespace, "system", None):
        kinds = ["system"]
    elif getattr(namespace, "player", None):
        kinds = ["player"]
    else:
        kinds = ["region", "system", "player"]
    names = dict.fromkeys(name for kind in kinds for name in SET_FIELDS[kind])
    return matching([app_commands.Choice(name=n, value=n) for n in names], current)


async def counters_autocomplete(interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
    """Counters for a list option ("3 4"): the ones typed so far, then one more of the user's (a GM's: any),
    named with where it is."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or name_key(state.gm) == name_key(me)
    typed = current.replace(",", " ").replace("#", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    choices = []
    for c in state.counters:
        if str(c.number) in done or (not gm and (c.owner is None or name_key(c.owner) != name_key(me))):
            continue
        value = f"{prefix} {c.number}".strip()
        moved = ", moved" if c.moved == state.turn else ""
        name = f"{value} — {counter_label(state, c.number)} ({display(interaction, c.owner)}{moved})"
        choices.append(app_commands.Choice(name=name[:100], value=value[:100]))
    return choices[:25]


async def position_autocomplete(interaction: discord.Interaction,
                                current: str) -> list[app_commands.Choice[str]]:
    """Positions: each system's cell, its regions ("Sol 2", on the ground) and the cells counters are on; any
    other cell of the group's map may be typed as it is."""
    state = await _state(interaction)
    if state is None:
        return []
    names = [current.strip()] if current.strip() else []
    for system in state.systems:
        names.append(system.name)
        names += [f"{system.name} {r.number}" for r in system.regions]
    names += [c.at for c in state.counters]
    unique = list(dict.fromkeys(n for n in names if n))
    key = current.strip().lower()
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in unique if key in n.lower()][:25]


async def losses_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The units among which the user's pending losses are chosen (a GM: any pending)."""
    state = await _state(interaction)
    if state is None:
        return []
    me = actor(interaction)
    gm = has_gm_role(interaction) or name_key(state.gm) == name_key(me)
    among = [n for c in state.choices if c.kind == "losses" and (gm or name_key(c.chooser) == name_key(me))
             for n in c.counters]
    typed = current.replace(",", " ").replace("#", " ").split()
    done = [t for t in typed if t.isdigit()]
    prefix = " ".join(done)
    choices = [app_commands.Choice(name=f"{prefix} {n} — {counter_label(state, n)}".strip()[:100],
                                   value=f"{prefix} {n}".strip()[:100])
               for n in dict.fromkeys(among) if str(n) not in done]
    return choices[:25]


# --- answers ---------------------------------------------------------------------------------------


def answer_with_sheet(system_name: str):
    """The events, then the system's sheet as it stands now (after setting a system up or conquering it)."""

    async def answering(interaction: discord.Interaction, report: Report) -> None:
        embeds = godsfire_embeds(report.caught_up + report.events, report.state)
        system = report.state.find_system(system_name)
        if system is not None:
            embeds.append(system_embed(system, report.state))
        await answer_with(interaction, report, embeds)

    return answering


async def show_view(interaction: discord.Interaction, path: str, **options: Any) -> None:
    """A query of the vocabulary whose view the engine writes (`/godsfire counters`), laid out as embeds."""
    command = BY_PATH[path]
    shown, state = await bot_of(interaction).referee.show(channel_key(interaction), command, actor(interaction),
                                                         coerce_options(command, given_options(**options)))
    await reply(interaction, GAME_OVER if state.ended else None, embeds=view_embeds(shown))


def member_id(member: discord.Member | None) -> str | None:
    return str(member.id) if member is not None else None


def flag(value: bool | None) -> str | None:
    return None if value is None else ("true" if value else "false")


Region = app_commands.Range[int, 1, 99]
Count = app_commands.Range[int, 1, 999]
Cells = app_commands.Range[int, 1, 100]
Number = app_commands.Range[int, 1, 9999]
ANSWERS = choice_list("godsfire transit answer", "answer")
COUNTER_KINDS = choice_list("godsfire counter add", "kind")
VICTORIES = choice_list("godsfire victory set", "condition")


# --- the commands ----------------------------------------------------------------------------------


@app_commands.guild_only()
class Godsfire(commands.GroupCog, group_name="godsfire",
               group_description="Godsfire: systems, the table, the phases and the social interphase"):
    player = app_commands.Group(name="player", description="Players and their National Governments")
    system = app_commands.Group(name="system", description="Star systems: set up, conquer, show, neutral control")
    phase = app_commands.Group(name="phase", description="The turn's phases")
    chart = app_commands.Group(name="chart", description="The sheet's charts by hand: combat, transit, money, "
                               "movement, stacking")
    counter = app_commands.Group(name="counter", description="Counters on the table (GM)")
    initiative = app_commands.Group(name="initiative", description="The Movement Phase's initiative (A.1)")
    transit_group = app_commands.Group(name="transit", description="Transit attacks and blocks (A.2.3)")
    war = app_commands.Group(name="war", description="War between players (C)")
    victory = app_commands.Group(name="victory", description="The scenario's victory condition")
    money_group = app_commands.Group(name="money", description="Money in transit (D.3)")
    loan = app_commands.Group(name="loan", description="Loans: repay (D.1), borrow (D.2)")
    region = app_commands.Group(name="region", description="A region: buy, place, develop, loyalty, party, revolt")
    subversion = app_commands.Group(name="subversion", description="Subversion, de-subversion, counter-subversion")
    interphase = app_commands.Group(name="interphase", description="The social interphase: steps, checks, "
                                    "ministers")
    attack = app_commands.Group(name="attack", description="The Combat Phase's attacks (B)")
    losses = app_commands.Group(name="losses", description="Losses the enemy chooses (B)")

    def __init__(self, bot: RefereeHost) -> None:
        self.bot = bot

    # setup

    @player.command(name="add", description=about("godsfire player add"))
    @described("godsfire player add")
    @app_commands.autocomplete(government=system_autocomplete)
    async def player_add(self, interaction: discord.Interaction, name: discord.Member,
                         government: str | None = None) -> None:
        await run_command(interaction, "godsfire player add", answer=answer, name=member_id(name),
                          government=government)

    @system.command(name="add", description=about("godsfire system add"))
    @described("godsfire system add")
    async def system_add(self, interaction: discord.Interaction, name: str, owner: discord.Member | None = None,
                         planets: app_commands.Range[int, 1, 20] | None = None,
                         regions: app_commands.Range[int, 1, 40] | None = None,
                         neutral: bool | None = None) -> None:
        await run_command(interaction, "godsfire system add", answer=answer_with_sheet(name), name=name,
                          owner=member_id(owner), planets=planets, regions=regions, neutral=flag(neutral))

    @system.command(name="conquer", description=about("godsfire system conquer"))
    @described("godsfire system conquer")
    @app_commands.autocomplete(name=system_autocomplete, player=player_autocomplete)
    async def system_conquer(self, interaction: discord.Interaction, name: str, player: str) -> None:
        await run_command(interaction, "godsfire system conquer", answer=answer_with_sheet(name), name=name,
                          player=player)

    @system.command(name="show", description=about("godsfire system show"))
    @described("godsfire system show")
    @app_commands.autocomplete(name=system_autocomplete)
    async def system_show(self, interaction: discord.Interaction, name: str) -> None:
        state: GodsfireState = await query_state(interaction, "godsfire system show")
        await reply(interaction, embed=system_embed(state.system(name), state))

    @system.command(name="control", description=about("godsfire system control"))
    @described("godsfire system control")
    @app_commands.autocomplete(system=system_autocomplete, player=player_autocomplete)
    async def system_control(self, interaction: discord.Interaction, system: str, player: str) -> None:
        await run_command(interaction, "godsfire system control", answer=answer, system=system, player=player)

    @app_commands.command(name="set", description=about("godsfire set"))
    @described("godsfire set")
    @app_commands.autocomplete(field=field_autocomplete, system=system_autocomplete, region=region_autocomplete,
                               player=player_autocomplete)
    async def set_field(self, interaction: discord.Interaction, field: str, value: str, system: str | None = None,
                        region: Region | None = None, player: str | None = None) -> None:
        await run_command(interaction, "godsfire set", answer=answer, field=field, value=value, system=system,
                          region=region, player=player)

    # the sheet's charts, by hand

    @chart.command(name="combat", description=about("godsfire chart combat"))
    @described("godsfire chart combat")
    async def combat(self, interaction: discord.Interaction, attack: app_commands.Range[int, 0, 9999],
                     defence: app_commands.Range[int, 0, 9999], nebula: bool | None = None) -> None:
        await run_command(interaction, "godsfire chart combat", answer=answer, attack=attack, defence=defence,
                          nebula=flag(nebula))

    @chart.command(name="transit", description=about("godsfire chart transit"))
    @described("godsfire chart transit")
    @app_commands.choices(column=COLUMNS)
    async def transit(self, interaction: discord.Interaction, column: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire chart transit", answer=answer, column=column.value)

    @chart.command(name="money", description=about("godsfire chart money"))
    @described("godsfire chart money")
    @app_commands.choices(die=DICE)
    async def money(self, interaction: discord.Interaction, die: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire chart money", answer=answer, die=die.value)

    @chart.command(name="move", description=about("godsfire chart move"))
    @described("godsfire chart move")
    @app_commands.choices(unit=MOVERS)
    async def move_check(self, interaction: discord.Interaction, unit: app_commands.Choice[str],
                         cells: app_commands.Range[int, 0, 99], nebula: app_commands.Range[int, 0, 99] | None = None,
                         ground: app_commands.Range[int, 0, 99] | None = None) -> None:
        await run_command(interaction, "godsfire chart move", answer=answer, unit=unit.value, cells=cells,
                          nebula=nebula, ground=ground)

    @chart.command(name="stack", description=about("godsfire chart stack"))
    @described("godsfire chart stack")
    async def stack_check(self, interaction: discord.Interaction,
                          space: app_commands.Range[int, 0, 999] | None = None,
                          ground: app_commands.Range[int, 0, 999] | None = None,
                          combat: app_commands.Range[int, 0, 999] | None = None,
                          total: app_commands.Range[int, 0, 999] | None = None) -> None:
        await run_command(interaction, "godsfire chart stack", answer=answer, space=space, ground=ground,
                          combat=combat, total=total)

    # phases and the game at a glance

    @phase.command(name="show", description=about("godsfire phase show"))
    async def phase_show(self, interaction: discord.Interaction) -> None:
        state: GodsfireState = await query_state(interaction, "godsfire phase show")
        await reply(interaction, embed=godsfire_phase_embed(state))

    @phase.command(name="next", description=about("godsfire phase next"))
    async def phase_next(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "godsfire phase next", answer=answer)

    @app_commands.command(name="status", description=about("godsfire status"))
    async def status(self, interaction: discord.Interaction) -> None:
        state: GodsfireState = await query_state(interaction, "godsfire status")
        await reply(interaction, embed=status_embed(state))

    # the table

    @app_commands.command(name="counters", description=about("godsfire counters"))
    @described("godsfire counters")
    @app_commands.autocomplete(player=player_autocomplete, at=position_autocomplete)
    async def counters(self, interaction: discord.Interaction, player: str | None = None,
                       at: str | None = None) -> None:
        await show_view(interaction, "godsfire counters", player=player, at=at)

    @counter.command(name="add", description=about("godsfire counter add"))
    @described("godsfire counter add")
    @app_commands.choices(kind=COUNTER_KINDS)
    @app_commands.autocomplete(at=position_autocomplete, owner=player_autocomplete)
    async def counter_add(self, interaction: discord.Interaction, kind: app_commands.Choice[str], at: str,
                          owner: str | None = None, count: Count | None = None, amount: Count | None = None) -> None:
        await run_command(interaction, "godsfire counter add", answer=answer, kind=kind.value, at=at, owner=owner,
                          count=count, amount=amount)

    @counter.command(name="remove", description=about("godsfire counter remove"))
    @described("godsfire counter remove")
    @app_commands.autocomplete(counters=counters_autocomplete)
    async def counter_remove(self, interaction: discord.Interaction, counters: str,
                             reason: str | None = None) -> None:
        await run_command(interaction, "godsfire counter remove", answer=answer, counters=counters, reason=reason)

    # the Movement Phase

    @initiative.command(name="start", description=about("godsfire initiative start"))
    async def initiative_start(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "godsfire initiative start", answer=answer)

    @app_commands.command(name="move", description=about("godsfire move"))
    @described("godsfire move")
    @app_commands.autocomplete(counters=counters_autocomplete, to=position_autocomplete,
                               player=player_autocomplete)
    async def move(self, interaction: discord.Interaction, counters: str, to: str, through: str | None = None,
                   cells: Cells | None = None, nebula: app_commands.Range[int, 0, 100] | None = None,
                   player: str | None = None) -> None:
        await run_command(interaction, "godsfire move", answer=answer, counters=counters, to=to, through=through,
                          cells=cells, nebula=nebula, player=player)

    @app_commands.command(name="done", description=about("godsfire done"))
    @described("godsfire done")
    @app_commands.autocomplete(player=player_autocomplete)
    async def go_done(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire done", answer=answer, player=player)

    @app_commands.command(name="pass", description=about("godsfire pass"))
    @described("godsfire pass")
    @app_commands.autocomplete(player=player_autocomplete)
    async def go_pass(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire pass", answer=answer, player=player)

    @transit_group.command(name="answer", description=about("godsfire transit answer"))
    @described("godsfire transit answer", {"answer_": "answer"})
    @app_commands.rename(answer_="answer")
    @app_commands.choices(answer_=ANSWERS, column=COLUMNS)
    @app_commands.autocomplete(retreat=position_autocomplete, player=player_autocomplete)
    async def transit_answer(self, interaction: discord.Interaction, answer_: app_commands.Choice[str],
                             retreat: str | None = None, column: app_commands.Choice[str] | None = None,
                             player: str | None = None) -> None:
        await run_transit(interaction, answer_.value, retreat, player, column.value if column else None)

    # the Combat Phase

    @attack.command(name="announce", description=about("godsfire attack announce"))
    @described("godsfire attack announce", {"with_": "with"})
    @app_commands.rename(with_="with")
    @app_commands.autocomplete(units=counters_autocomplete, target=position_autocomplete,
                               player=player_autocomplete)
    async def attack_announce(self, interaction: discord.Interaction, units: str, target: str,
                              with_: str | None = None, nebula: bool | None = None,
                              player: str | None = None) -> None:
        await run_command(interaction, "godsfire attack announce", answer=answer, units=units, target=target,
                          nebula=flag(nebula), player=player, **{"with": with_})

    @attack.command(name="cancel", description=about("godsfire attack cancel"))
    @described("godsfire attack cancel")
    async def attack_cancel(self, interaction: discord.Interaction, number: Number) -> None:
        await run_command(interaction, "godsfire attack cancel", answer=answer, number=number)

    @attack.command(name="resolve", description=about("godsfire attack resolve"))
    async def attack_resolve(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "godsfire attack resolve", answer=answer)

    @losses.command(name="choose", description=about("godsfire losses choose"))
    @described("godsfire losses choose")
    @app_commands.autocomplete(units=losses_autocomplete)
    async def losses_choose(self, interaction: discord.Interaction, units: str,
                            number: Number | None = None) -> None:
        await run_command(interaction, "godsfire losses choose", answer=answer, units=units, number=number)

    @app_commands.command(name="retreat", description=about("godsfire retreat"))
    @described("godsfire retreat")
    @app_commands.autocomplete(to=position_autocomplete)
    async def retreat(self, interaction: discord.Interaction, to: str, number: Number | None = None) -> None:
        await run_command(interaction, "godsfire retreat", answer=answer, to=to, number=number)

    # war and the end

    @war.command(name="declare", description=about("godsfire war declare"))
    @described("godsfire war declare")
    @app_commands.autocomplete(target=player_autocomplete, player=player_autocomplete)
    async def war_declare(self, interaction: discord.Interaction, target: str, player: str | None = None) -> None:
        await run_command(interaction, "godsfire war declare", answer=answer, target=target, player=player)

    @victory.command(name="set", description=about("godsfire victory set"))
    @described("godsfire victory set")
    @app_commands.choices(condition=VICTORIES)
    async def victory_set(self, interaction: discord.Interaction, condition: app_commands.Choice[str],
                          turns: app_commands.Range[int, 1, 999] | None = None) -> None:
        await run_command(interaction, "godsfire victory set", answer=answer, condition=condition.value, turns=turns)

    @victory.command(name="declare", description=about("godsfire victory declare"))
    @described("godsfire victory declare")
    @app_commands.autocomplete(player=player_autocomplete)
    async def victory_declare(self, interaction: discord.Interaction, player: str) -> None:
        await run_command(interaction, "godsfire victory declare", answer=answer, player=player)

    # the social interphase: economy

    @app_commands.command(name="tax", description=about("godsfire tax"))
    @described("godsfire tax")
    @app_commands.autocomplete(system=system_autocomplete, extort=region_list_autocomplete)
    async def tax(self, interaction: discord.Interaction, system: str, extort: str | None = None) -> None:
        await run_command(interaction, "godsfire tax", answer=answer, system=system, extort=extort)

    @loan.command(name="repay", description=about("godsfire loan repay"))
    @described("godsfire loan repay")
    @app_commands.autocomplete(system=system_autocomplete, lower=lower_autocomplete)
    async def repay(self, interaction: discord.Interaction, system: str, lower: str | None = None) -> None:
        await run_command(interaction, "godsfire loan repay", answer=answer, system=system, lower=lower)

    @loan.command(name="borrow", description=about("godsfire loan borrow"))
    @described("godsfire loan borrow")
    @app_commands.autocomplete(system=system_autocomplete)
    async def borrow(self, interaction: discord.Interaction, system: str, amount: Count) -> None:
        await run_command(interaction, "godsfire loan borrow", answer=answer, system=system, amount=amount)

    @app_commands.command(name="transfer", description=about("godsfire transfer"))
    @described("godsfire transfer", {"from_": "from"})
    @app_commands.rename(from_="from")
    @app_commands.autocomplete(from_=purse_autocomplete, to=purse_autocomplete, player=player_autocomplete)
    async def transfer(self, interaction: discord.Interaction, from_: str, to: str, amount: Count,
                       player: str | None = None) -> None:
        await run_command(interaction, "godsfire transfer", answer=answer, to=to, amount=amount, player=player,
                          **{"from": from_})

    @money_group.command(name="send", description=about("godsfire money send"))
    @described("godsfire money send", {"from_": "from"})
    @app_commands.rename(from_="from")
    @app_commands.autocomplete(from_=purse_autocomplete, to=system_autocomplete, player=player_autocomplete)
    async def money_send(self, interaction: discord.Interaction, amount: Count, from_: str, to: str, cells: Cells,
                         ship: Number | None = None, turns: app_commands.Range[int, 1, 99] | None = None,
                         player: str | None = None) -> None:
        await run_command(interaction, "godsfire money send", answer=answer, amount=amount, to=to, cells=cells,
                          ship=ship, turns=turns, player=player, **{"from": from_})

    @money_group.command(name="carry", description=about("godsfire money carry"))
    @described("godsfire money carry", {"from_": "from"})
    @app_commands.rename(from_="from")
    @app_commands.autocomplete(from_=purse_autocomplete, player=player_autocomplete)
    async def money_carry(self, interaction: discord.Interaction, amount: Count, from_: str,
                          player: str | None = None) -> None:
        await run_command(interaction, "godsfire money carry", answer=answer, amount=amount, player=player,
                          **{"from": from_})

    @region.command(name="buy", description=about("godsfire region buy"))
    @described("godsfire region buy")
    @app_commands.choices(type=BUY_TYPES)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def buy(self, interaction: discord.Interaction, system: str, region: Region,
                  type: app_commands.Choice[str], count: Count) -> None:
        await run_command(interaction, "godsfire region buy", answer=answer, system=system, region=region,
                          type=type.value, count=count)

    @region.command(name="loyalty", description=about("godsfire region loyalty"))
    @described("godsfire region loyalty")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def loyalty(self, interaction: discord.Interaction, system: str, region: Region,
                      amount: Count | None = None) -> None:
        await run_command(interaction, "godsfire region loyalty", answer=answer, system=system, region=region,
                          amount=amount)

    @region.command(name="develop", description=about("godsfire region develop"))
    @described("godsfire region develop")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def develop(self, interaction: discord.Interaction, system: str, region: Region) -> None:
        await run_command(interaction, "godsfire region develop", answer=answer, system=system, region=region)

    @region.command(name="place", description=about("godsfire region place"))
    @described("godsfire region place")
    @app_commands.choices(type=PLACE_TYPES)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def place(self, interaction: discord.Interaction, system: str, region: Region,
                    type: app_commands.Choice[str], count: Count) -> None:
        await run_command(interaction, "godsfire region place", answer=answer, system=system, region=region,
                          type=type.value, count=count)

    # the social interphase: politics

    @region.command(name="party", description=about("godsfire region party"))
    @described("godsfire region party")
    @app_commands.choices(pay=PAY)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def party(self, interaction: discord.Interaction, system: str, region: Region,
                    pay: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "godsfire region party", answer=answer, system=system, region=region,
                          pay=pay.value if pay else None)

    @region.command(name="revolt", description=about("godsfire region revolt"))
    @described("godsfire region revolt")
    @app_commands.choices(way=WAYS)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def revolt(self, interaction: discord.Interaction, system: str, region: Region,
                     way: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire region revolt", answer=answer, system=system, region=region,
                          way=way.value)

    @subversion.command(name="resolve", description=about("godsfire subversion resolve"))
    @described("godsfire subversion resolve")
    @app_commands.autocomplete(player=player_autocomplete)
    async def subversion_resolve(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire subversion resolve", answer=answer, player=player)

    @subversion.command(name="subvert", description=about("godsfire subversion subvert"))
    @described("godsfire subversion subvert")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete, player=player_autocomplete)
    async def subvert(self, interaction: discord.Interaction, system: str, region: Region, amount: Count,
                      player: str | None = None, carried: Number | None = None) -> None:
        await run_command(interaction, "godsfire subversion subvert", answer=answer, system=system, region=region,
                          amount=amount, player=player, carried=carried)

    @subversion.command(name="desubvert", description=about("godsfire subversion desubvert"))
    @described("godsfire subversion desubvert")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def desubvert(self, interaction: discord.Interaction, system: str, region: Region, amount: Count) -> None:
        await run_command(interaction, "godsfire subversion desubvert", answer=answer, system=system, region=region,
                          amount=amount)

    @subversion.command(name="counter", description=about("godsfire subversion counter"))
    @described("godsfire subversion counter")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def counter_subversion(self, interaction: discord.Interaction, system: str, region: Region,
                                 amount: Count) -> None:
        await run_command(interaction, "godsfire subversion counter", answer=answer, system=system, region=region,
                          amount=amount)

    @interphase.command(name="ministers", description=about("godsfire interphase ministers"))
    @described("godsfire interphase ministers")
    @app_commands.autocomplete(player=player_autocomplete)
    async def ministers(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire interphase ministers", answer=answer, player=player)

    @interphase.command(name="allegiance", description=about("godsfire interphase allegiance"))
    @described("godsfire interphase allegiance")
    @app_commands.autocomplete(player=player_autocomplete)
    async def allegiance_check(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire interphase allegiance", answer=answer, player=player)

    @interphase.command(name="economy", description=about("godsfire interphase economy"))
    @described("godsfire interphase economy")
    @app_commands.autocomplete(lower=lower_autocomplete, player=player_autocomplete)
    async def economy_check(self, interaction: discord.Interaction, lower: str | None = None,
                            player: str | None = None) -> None:
        await run_command(interaction, "godsfire interphase economy", answer=answer, lower=lower, player=player)

    @interphase.command(name="show", description=about("godsfire interphase show"))
    async def interphase_show(self, interaction: discord.Interaction) -> None:
        state: GodsfireState = await query_state(interaction, "godsfire interphase show")
        await reply(interaction, embed=godsfire_interphase_embed(state))

    @interphase.command(name="done", description=about("godsfire interphase done"))
    @described("godsfire interphase done")
    @app_commands.choices(step=STEPS)
    @app_commands.autocomplete(player=player_autocomplete)
    async def interphase_done(self, interaction: discord.Interaction, step: app_commands.Choice[str],
                              player: str | None = None) -> None:
        await run_command(interaction, "godsfire interphase done", answer=answer, step=step.value, player=player)

    @interphase.command(name="end", description=about("godsfire interphase end"))
    async def interphase_end(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "godsfire interphase end", answer=answer)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Godsfire(bot))
