"""/godsfire …: the Godsfire chart sheet and its social interphase on Discord.

Every command runs a vocabulary command (`engine.godsfire.commands`) through `run_command`, so the engine
decides every rule (GM-only commands included) and the console means the same thing. Chart results answer
as embeds with the column, the die and the result in words; `/godsfire system show` is a system sheet.

Discord allows at most 25 entries in a group, and a group cannot also be a command: the vocabulary's paths
are chosen to fit (`/godsfire phase show`, `/godsfire subversion subvert` …), so both front ends spell every
command the same (`DISCORD_PATHS`: the cog's name → the vocabulary path, checked by the tests).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs.godsfire.render import (
    godsfire_embeds,
    godsfire_interphase_embed,
    godsfire_phase_embed,
    status_embed,
    system_embed,
)
from cogs.host import RefereeHost
from cogs.util import about, actor, choice_list, described, has_gm_role, query_state, reply, run_command, state_or_none
from engine.godsfire.setup import FIELDS as SET_FIELDS
from engine.godsfire.setup import RULESET
from engine.godsfire.state import GodsfireState, System
from engine.names import name_key
from referee import Report

DISCORD_PATHS: dict[str, str] = {
    "player add": "godsfire player add",
    "system add": "godsfire system add",
    "system conquer": "godsfire system conquer",
    "system show": "godsfire system show",
    "set": "godsfire set",
    "combat": "godsfire combat",
    "transit": "godsfire transit",
    "money": "godsfire money",
    "move check": "godsfire move check",
    "stack check": "godsfire stack check",
    "phase show": "godsfire phase show",
    "phase next": "godsfire phase next",
    "status": "godsfire status",
    "tax": "godsfire tax",
    "repay": "godsfire repay",
    "borrow": "godsfire borrow",
    "transfer": "godsfire transfer",
    "buy": "godsfire buy",
    "loyalty": "godsfire loyalty",
    "develop": "godsfire develop",
    "place": "godsfire place",
    "ministers": "godsfire ministers",
    "party": "godsfire party",
    "revolt": "godsfire revolt",
    "subversion resolve": "godsfire subversion resolve",
    "subversion subvert": "godsfire subversion subvert",
    "subversion desubvert": "godsfire subversion desubvert",
    "subversion counter": "godsfire subversion counter",
    "allegiance check": "godsfire allegiance check",
    "economy check": "godsfire economy check",
    "interphase show": "godsfire interphase show",
    "interphase end": "godsfire interphase end",
    "interphase done": "godsfire interphase done",
}
"""Each /godsfire command on Discord (without the group's name) and the vocabulary command it runs."""


COLUMNS = choice_list("godsfire transit", "column")
DICE = choice_list("godsfire money", "die")
MOVERS = choice_list("godsfire move check", "unit")
BUY_TYPES = choice_list("godsfire buy", "type")
PLACE_TYPES = choice_list("godsfire place", "type")
PAY = choice_list("godsfire party", "pay")
WAYS = choice_list("godsfire revolt", "way")
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


# --- answers ---------------------------------------------------------------------------------------


async def answer(interaction: discord.Interaction, report: Report) -> None:
    """A Godsfire command's events: each chart read as its own embed (column, die, result in words)."""
    await reply(interaction, embeds=godsfire_embeds(report.caught_up + report.events, report.state))


def answer_with_sheet(system_name: str):
    """The events, then the system's sheet as it stands now (after setting a system up or conquering it)."""

    async def answering(interaction: discord.Interaction, report: Report) -> None:
        embeds = godsfire_embeds(report.caught_up + report.events, report.state)
        system = report.state.find_system(system_name)
        if system is not None:
            embeds.append(system_embed(system, report.state))
        await reply(interaction, embeds=embeds)

    return answering


def member_id(member: discord.Member | None) -> str | None:
    return str(member.id) if member is not None else None


def flag(value: bool | None) -> str | None:
    return None if value is None else ("true" if value else "false")


Region = app_commands.Range[int, 1, 99]
Count = app_commands.Range[int, 1, 999]


# --- the commands ----------------------------------------------------------------------------------


@app_commands.guild_only()
class Godsfire(commands.GroupCog, group_name="godsfire",
               group_description="Godsfire: systems, charts, phases and the social interphase"):
    player = app_commands.Group(name="player", description="Players and their National Governments")
    system = app_commands.Group(name="system", description="Star systems: set up, conquer, show")
    move = app_commands.Group(name="move", description="Movement allowances")
    stack = app_commands.Group(name="stack", description="Stacking limits")
    phase = app_commands.Group(name="phase", description="The turn's phases")
    subversion = app_commands.Group(name="subversion", description="Subversion, de-subversion, counter-subversion")
    allegiance = app_commands.Group(name="allegiance", description="Allegiance drops (D.9)")
    economy = app_commands.Group(name="economy", description="Economy drops (D.10)")
    interphase = app_commands.Group(name="interphase", description="The social interphase")

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

    @app_commands.command(name="set", description=about("godsfire set"))
    @described("godsfire set")
    @app_commands.autocomplete(field=field_autocomplete, system=system_autocomplete, region=region_autocomplete,
                               player=player_autocomplete)
    async def set_field(self, interaction: discord.Interaction, field: str, value: str, system: str | None = None,
                        region: Region | None = None, player: str | None = None) -> None:
        await run_command(interaction, "godsfire set", answer=answer, field=field, value=value, system=system,
                          region=region, player=player)

    # charts

    @app_commands.command(name="combat", description=about("godsfire combat"))
    @described("godsfire combat")
    async def combat(self, interaction: discord.Interaction, attack: app_commands.Range[int, 0, 9999],
                     defence: app_commands.Range[int, 0, 9999], nebula: bool | None = None) -> None:
        await run_command(interaction, "godsfire combat", answer=answer, attack=attack, defence=defence,
                          nebula=flag(nebula))

    @app_commands.command(name="transit", description=about("godsfire transit"))
    @described("godsfire transit")
    @app_commands.choices(column=COLUMNS)
    async def transit(self, interaction: discord.Interaction, column: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire transit", answer=answer, column=column.value)

    @app_commands.command(name="money", description=about("godsfire money"))
    @described("godsfire money")
    @app_commands.choices(die=DICE)
    async def money(self, interaction: discord.Interaction, die: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire money", answer=answer, die=die.value)

    @move.command(name="check", description=about("godsfire move check"))
    @described("godsfire move check")
    @app_commands.choices(unit=MOVERS)
    async def move_check(self, interaction: discord.Interaction, unit: app_commands.Choice[str],
                         cells: app_commands.Range[int, 0, 99], nebula: app_commands.Range[int, 0, 99] | None = None,
                         ground: app_commands.Range[int, 0, 99] | None = None) -> None:
        await run_command(interaction, "godsfire move check", answer=answer, unit=unit.value, cells=cells,
                          nebula=nebula, ground=ground)

    @stack.command(name="check", description=about("godsfire stack check"))
    @described("godsfire stack check")
    async def stack_check(self, interaction: discord.Interaction,
                          space: app_commands.Range[int, 0, 999] | None = None,
                          ground: app_commands.Range[int, 0, 999] | None = None,
                          combat: app_commands.Range[int, 0, 999] | None = None,
                          total: app_commands.Range[int, 0, 999] | None = None) -> None:
        await run_command(interaction, "godsfire stack check", answer=answer, space=space, ground=ground,
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

    # the social interphase: economy

    @app_commands.command(name="tax", description=about("godsfire tax"))
    @described("godsfire tax")
    @app_commands.autocomplete(system=system_autocomplete, extort=region_list_autocomplete)
    async def tax(self, interaction: discord.Interaction, system: str, extort: str | None = None) -> None:
        await run_command(interaction, "godsfire tax", answer=answer, system=system, extort=extort)

    @app_commands.command(name="repay", description=about("godsfire repay"))
    @described("godsfire repay")
    @app_commands.autocomplete(system=system_autocomplete, lower=lower_autocomplete)
    async def repay(self, interaction: discord.Interaction, system: str, lower: str | None = None) -> None:
        await run_command(interaction, "godsfire repay", answer=answer, system=system, lower=lower)

    @app_commands.command(name="borrow", description=about("godsfire borrow"))
    @described("godsfire borrow")
    @app_commands.autocomplete(system=system_autocomplete)
    async def borrow(self, interaction: discord.Interaction, system: str, amount: Count) -> None:
        await run_command(interaction, "godsfire borrow", answer=answer, system=system, amount=amount)

    @app_commands.command(name="transfer", description=about("godsfire transfer"))
    @described("godsfire transfer", {"from_": "from"})
    @app_commands.rename(from_="from")
    @app_commands.autocomplete(from_=purse_autocomplete, to=purse_autocomplete, player=player_autocomplete)
    async def transfer(self, interaction: discord.Interaction, from_: str, to: str, amount: Count,
                       player: str | None = None) -> None:
        await run_command(interaction, "godsfire transfer", answer=answer, to=to, amount=amount, player=player,
                          **{"from": from_})

    @app_commands.command(name="buy", description=about("godsfire buy"))
    @described("godsfire buy")
    @app_commands.choices(type=BUY_TYPES)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def buy(self, interaction: discord.Interaction, system: str, region: Region,
                  type: app_commands.Choice[str], count: Count) -> None:
        await run_command(interaction, "godsfire buy", answer=answer, system=system, region=region, type=type.value,
                          count=count)

    @app_commands.command(name="loyalty", description=about("godsfire loyalty"))
    @described("godsfire loyalty")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def loyalty(self, interaction: discord.Interaction, system: str, region: Region,
                      amount: Count | None = None) -> None:
        await run_command(interaction, "godsfire loyalty", answer=answer, system=system, region=region,
                          amount=amount)

    @app_commands.command(name="develop", description=about("godsfire develop"))
    @described("godsfire develop")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def develop(self, interaction: discord.Interaction, system: str, region: Region) -> None:
        await run_command(interaction, "godsfire develop", answer=answer, system=system, region=region)

    @app_commands.command(name="place", description=about("godsfire place"))
    @described("godsfire place")
    @app_commands.choices(type=PLACE_TYPES)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def place(self, interaction: discord.Interaction, system: str, region: Region,
                    type: app_commands.Choice[str], count: Count) -> None:
        await run_command(interaction, "godsfire place", answer=answer, system=system, region=region,
                          type=type.value, count=count)

    @app_commands.command(name="ministers", description=about("godsfire ministers"))
    @described("godsfire ministers")
    @app_commands.autocomplete(player=player_autocomplete)
    async def ministers(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire ministers", answer=answer, player=player)

    # the social interphase: politics

    @app_commands.command(name="party", description=about("godsfire party"))
    @described("godsfire party")
    @app_commands.choices(pay=PAY)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def party(self, interaction: discord.Interaction, system: str, region: Region,
                    pay: app_commands.Choice[str] | None = None) -> None:
        await run_command(interaction, "godsfire party", answer=answer, system=system, region=region,
                          pay=pay.value if pay else None)

    @app_commands.command(name="revolt", description=about("godsfire revolt"))
    @described("godsfire revolt")
    @app_commands.choices(way=WAYS)
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def revolt(self, interaction: discord.Interaction, system: str, region: Region,
                     way: app_commands.Choice[str]) -> None:
        await run_command(interaction, "godsfire revolt", answer=answer, system=system, region=region,
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
                      player: str | None = None) -> None:
        await run_command(interaction, "godsfire subversion subvert", answer=answer, system=system, region=region,
                          amount=amount, player=player)

    @subversion.command(name="desubvert", description=about("godsfire subversion desubvert"))
    @described("godsfire subversion desubvert")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def desubvert(self, interaction: discord.Interaction, system: str, region: Region, amount: Count) -> None:
        await run_command(interaction, "godsfire subversion desubvert", answer=answer, system=system, region=region,
                          amount=amount)

    @subversion.command(name="counter", description=about("godsfire subversion counter"))
    @described("godsfire subversion counter")
    @app_commands.autocomplete(system=system_autocomplete, region=region_autocomplete)
    async def counter(self, interaction: discord.Interaction, system: str, region: Region, amount: Count) -> None:
        await run_command(interaction, "godsfire subversion counter", answer=answer, system=system, region=region,
                          amount=amount)

    @allegiance.command(name="check", description=about("godsfire allegiance check"))
    @described("godsfire allegiance check")
    @app_commands.autocomplete(player=player_autocomplete)
    async def allegiance_check(self, interaction: discord.Interaction, player: str | None = None) -> None:
        await run_command(interaction, "godsfire allegiance check", answer=answer, player=player)

    @economy.command(name="check", description=about("godsfire economy check"))
    @described("godsfire economy check")
    @app_commands.autocomplete(lower=lower_autocomplete, player=player_autocomplete)
    async def economy_check(self, interaction: discord.Interaction, lower: str | None = None,
                            player: str | None = None) -> None:
        await run_command(interaction, "godsfire economy check", answer=answer, lower=lower, player=player)

    @interphase.command(name="show", description=about("godsfire interphase show"))
    async def interphase_show(self, interaction: discord.Interaction) -> None:
        state: GodsfireState = await query_state(interaction, "godsfire interphase show")
        await reply(interaction, embed=godsfire_interphase_embed(state))

    @interphase.command(name="done", description=about("godsfire interphase done"))
    @described("godsfire interphase done")
    @app_commands.choices(step=STEPS)
    @app_commands.autocomplete(player=player_autocomplete)
    async def done(self, interaction: discord.Interaction, step: app_commands.Choice[str],
                   player: str | None = None) -> None:
        await run_command(interaction, "godsfire interphase done", answer=answer, step=step.value, player=player)

    @interphase.command(name="end", description=about("godsfire interphase end"))
    async def interphase_end(self, interaction: discord.Interaction) -> None:
        await run_command(interaction, "godsfire interphase end", answer=answer)


async def setup(bot: RefereeHost) -> None:
    await bot.add_cog(Godsfire(bot))
