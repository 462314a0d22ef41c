"""Godsfire's controls on Discord: the awaited go's Move, Done and Pass (A.1, A.2), the answer to a move through
stationary enemy units (A.2.3: Attack, Block… or Allow), and the Combat Phase's loss choices (a select of the
units lost) and retreats (B). They keep working after a restart: each custom id carries the game, and the go,
the transit or the attack it belongs to.

Every Godsfire answer carries the controls of what the game waits for now (the prompt above them mentions
whose it is), and they come off the message that carried them before. A control runs the engine's command as
the clicker, so the engine decides every rule; a go's buttons are the awaited player's (a GM's click plays
the go for that player), and anyone else is refused, ephemerally, before a modal opens or anything changes. A
transit's buttons run `/godsfire movement transit` (a GM's click answers for the stationary player); whoever
else clicks gets the engine's own refusal, ephemerally (before Block's form opens, the engine is asked, on a
throw-away copy of the state, whether it would take that clicker's answer).
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import discord

from cogs.charts import post_picture
from cogs.controls import click_lock, guarded, swap_controls
from cogs.godsfire.render import godsfire_embeds
from cogs.host import RefereeHost
from cogs.render import NO_PINGS, finish, message_batches, pings, report_embeds, view_embeds
from cogs.util import (
    actor,
    bot_of,
    channel_key,
    command_text,
    given_options,
    has_gm_role,
    matched,
    reply,
    run_action,
    run_command,
)
from engine.commands import BY_PATH, build_action, coerce_options
from engine.core import execute
from engine.describe import plural
from engine.errors import RefereeError, RuleViolation
from engine.game import runs_game
from engine.godsfire.events import GameChanged, SystemAdded, SystemChanged
from engine.godsfire.maps import picture
from engine.godsfire.state import GodsfireState, LossChoice
from engine.godsfire.views import system_view
from engine.names import name_key
from service.reports import Report

log = logging.getLogger("referee.controls")

ATTACK_OF = r"attack (\d+):"  # a loss choice's reason starts with its attack (`combat.choice_attack`)
MAX_CHOICES = 4  # the rows left under the go's buttons (a message has 5)


# --- what the game waits for --------------------------------------------------------------------------


def go_of(state: GodsfireState) -> str | None:
    """The awaited go as a custom id's part (`turn-holder-round-awaiting`, players by their place in the turn's
    order), or None when no go is awaited (no initiative, or a transit waiting on its answer)."""
    ini = state.initiative
    if state.ended or ini is None or state.transit is not None or not ini.awaiting or state.phase != "movement":
        return None
    keys = [name_key(p) for p in state.order]

    def place(player: str) -> int:
        return keys.index(name_key(player)) if name_key(player) in keys else len(keys)

    return f"{state.turn}-{place(ini.holder)}-{ini.round}-{place(ini.awaiting)}"


def attack_of(choice: LossChoice) -> int:
    """The number of the attack a choice comes from (its `attack`, else as its reason says; 0: unknown)."""
    number = getattr(choice, "attack", None)
    if isinstance(number, int) and number > 0:
        return number
    found = re.match(ATTACK_OF, choice.reason)
    return int(found.group(1)) if found else 0


def offered_choices(state: GodsfireState) -> list[LossChoice]:
    """The loss choices and retreats offered as controls (those of an attack named in their reason)."""
    return [c for c in state.choices if c.kind in ("losses", "retreat") and attack_of(c)][:MAX_CHOICES]


def transit_of(state: GodsfireState) -> str | None:
    """The waiting transit (A.2.3) as a custom id's part: `turn-digest`, the digest (8 hex digits) of everything
    the transit records (who moves what, where through and to, whose units wait, since when), so a control of a
    transit settled since matches no other. None when no transit waits."""
    transit = state.transit
    if state.ended or transit is None:
        return None
    parts = (transit.mover, " ".join(str(n) for n in transit.counters), transit.cell, transit.to,
             str(transit.ground), transit.stationary, transit.came_from, ",".join(transit.rest),
             transit.since.isoformat() if transit.since else "")
    return f"{state.turn}-{hashlib.sha1(chr(31).join(parts).encode()).hexdigest()[:8]}"


def waiting_on(state: GodsfireState) -> list[str]:
    """The players the controls are for: the awaited go's, the transit's stationary player, then each
    chooser's."""
    players = [state.initiative.awaiting] if go_of(state) and state.initiative and state.initiative.awaiting else []
    if transit_of(state) and state.transit is not None:
        players.append(state.transit.stationary)
    players += [c.chooser for c in offered_choices(state)]
    return list(dict.fromkeys(players))


def counter_label(state: GodsfireState, number: int) -> str:
    """`AG #5 at Sol` (`on the ground of Sol 2` for a region; `AG #5 ×3 at Sol` built up, A.2.5)."""
    found = next((c for c in state.counters if c.number == number), None)
    if found is None:
        return f"#{number}"
    kind = f"{found.amount} GB" if found.kind == "GB" else found.kind
    times = f" ×{found.size}" if found.size > 1 else ""
    return f"{kind} #{found.number}{times} {'on the ground of' if found.ground else 'at'} {found.at}"


def counter_kind(state: GodsfireState, number: int) -> str:
    """`SQD #1` (`#1` once gone)."""
    found = next((c for c in state.counters if c.number == number), None)
    return f"{found.kind} #{number}" if found is not None else f"#{number}"


def loss_units(state: GodsfireState, choice: LossChoice) -> list[tuple[str, str]]:
    """The units a pending loss choice is among, one (value, label) each: a built-up counter once for each unit it
    holds (a loss takes one unit, A.2.5), its first unit's value its number ("5"), the next ones "5.2", "5.3"…
    (a select's values are distinct; `loss_numbers` reads them back)."""
    sizes = {c.number: c.size for c in state.counters}
    found = []
    for n in dict.fromkeys(choice.counters):
        size = sizes.get(n, 0)
        for k in range(1, size + 1):
            found.append((str(n) if k == 1 else f"{n}.{k}",
                          counter_label(state, n) + (f" — unit {k} of {size}" if size > 1 else "")))
    return found


def loss_numbers(values: list[str]) -> str:
    """The select's values as the counters named (`5 5` for two units of #5: "5", "5.2")."""
    return " ".join(v.split(".")[0] for v in values)


def prompt_lines(state: GodsfireState) -> list[str]:
    """What the controls are for, players mentioned (marked and escaped like any engine text)."""
    lines: list[str] = []
    ini = state.initiative
    if go_of(state) and ini is not None and ini.awaiting:
        if name_key(ini.awaiting) == name_key(ini.holder):
            then = "Done" if ini.moved else "Move (then Done)"
            lines.append(finish(f"⏳ {ini.awaiting} holds initiative (round {ini.round}): {then}, or Pass."))
        else:
            lines.append(finish(f"⏳ {ini.awaiting} may respond to {ini.holder}'s initiative (round {ini.round}): "
                                "Move (then Done), or Pass."))
    transit = state.transit
    if transit_of(state) and transit is not None:
        movers = ", ".join(counter_kind(state, n) for n in transit.counters)
        lines.append(finish(f"⏳ {transit.stationary} may make a transit attack on {transit.mover}'s {movers} "
                            f"passing through {transit.cell}, block them or let them pass (A.2.3): Attack, Block… "
                            "or Allow."))
    for choice in offered_choices(state):
        label = f"attack {attack_of(choice)}"
        if choice.kind == "losses":
            among = len(loss_units(state, choice))  # units, not counters (A.2.5)
            count = min(choice.count, among)
            units = "unit" if count == 1 else f"{count} units"
            lines.append(finish(f"⏳ {choice.chooser} chooses the {units} lost in {label} (of {among})."))
        else:
            lines.append(finish(f"⏳ {choice.chooser} retreats the units of {label}: Retreat… names where."))
    return lines


# --- checks ---------------------------------------------------------------------------------------------


async def live_state(interaction: discord.Interaction, game_id: int) -> GodsfireState:
    """The game's state, if it is still the channel's game; else a refusal."""
    referee = bot_of(interaction).referee
    if await referee.store.live_game(channel_key(interaction)) != game_id:
        raise RuleViolation("those controls belong to a game that is over")
    return await referee.store.load(game_id)


async def current_go(interaction: discord.Interaction, game_id: int, go: str) -> GodsfireState:
    """The state if the control's go is still the awaited one; else a refusal saying whose go it is now."""
    state = await live_state(interaction, game_id)
    if go_of(state) != go:
        now = state.initiative.awaiting if go_of(state) and state.initiative else None
        raise RuleViolation("that go is over" + (f": it is {now}'s go now" if now else ""))
    return state


def is_gm(interaction: discord.Interaction, state: GodsfireState) -> bool:
    return has_gm_role(interaction) or runs_game(state, actor(interaction))


def playing_for(interaction: discord.Interaction, state: GodsfireState) -> str | None:
    """Whom a go's button plays for: None for the awaited player themself, the awaited player for a GM; anyone
    else is refused (what the engine says of a move out of turn)."""
    ini = state.initiative
    assert ini is not None and ini.awaiting is not None
    me = actor(interaction)
    if name_key(me) == name_key(ini.awaiting):
        return None
    if is_gm(interaction, state):
        return ini.awaiting
    raise RuleViolation(f"A.1: it is {ini.awaiting}'s go ({ini.holder} holds initiative, round {ini.round}); "
                        f"{me} may not move or pass now")


def pending_choice(state: GodsfireState, kind: str, attack: int) -> LossChoice:
    found = next((c for c in state.choices if c.kind == kind and attack_of(c) == attack), None)
    if found is None:
        what = "losses to choose" if kind == "losses" else "retreat"
        raise RuleViolation(f"attack {attack} has no {what} pending any more")
    return found


# --- the go: Move, Done, Pass ----------------------------------------------------------------------------


GO_BUTTONS = {"move": ("Move", "🚀", discord.ButtonStyle.primary),
              "done": ("Done", "✅", discord.ButtonStyle.success),
              "pass": ("Pass", "⏭", discord.ButtonStyle.secondary)}


class GoButton(discord.ui.DynamicItem[discord.ui.Button],
               template=r"referee:godsfire:go:(?P<what>move|done|pass):(?P<game>\d+):(?P<go>\d+-\d+-\d+-\d+)"):
    """Move (a modal asks which counters, where to and through which cells), Done or Pass, for the awaited
    go (`/godsfire movement move`, `/godsfire movement done`, `/godsfire movement pass`)."""

    def __init__(self, what: str, game_id: int, go: str, button: discord.ui.Button | None = None,
                 disabled: bool = False) -> None:
        self.what, self.game_id, self.go = what, game_id, go
        label, emoji, style = GO_BUTTONS[what]
        super().__init__(button or discord.ui.Button(
            custom_id=f"referee:godsfire:go:{what}:{game_id}:{go}", label=label, emoji=emoji, style=style,
            disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> GoButton:
        return cls(match["what"], int(match["game"]), match["go"], matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await current_go(interaction, self.game_id, self.go)
                player = playing_for(interaction, state)
                if self.what == "move":
                    await interaction.response.send_modal(MoveModal(self.game_id, self.go, player, state))
                    return
                await run_command(interaction, f"godsfire movement {self.what}", answer=answer, player=player)

        await guarded(interaction, work)


def movable(state: GodsfireState, player: str) -> str:
    """The player's counters that may still move this turn, for the modal's hint: `1 2 3 (SQD, SQD, AG)`."""
    mine = [c for c in state.counters
            if c.owner is not None and name_key(c.owner) == name_key(player) and c.moved != state.turn]
    return " ".join(str(c.number) for c in mine) + (f" ({', '.join(c.kind for c in mine)})" if mine else "")


class MoveModal(discord.ui.Modal):
    """`/godsfire movement move` in a form: counters, where to, and the cells passed through."""

    def __init__(self, game_id: int, go: str, player: str | None, state: GodsfireState) -> None:
        super().__init__(title="Move counters", custom_id=f"referee:godsfire:move:{game_id}:{go}", timeout=None)
        self.game_id, self.go, self.player = game_id, go, player
        awaited = state.initiative.awaiting if state.initiative else None
        hint = movable(state, awaited) if awaited else ""
        self.counters: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(
            label="Counters", custom_id="counters", max_length=200,
            placeholder=(f"not moved yet: {hint}" if hint else 'e.g. "3 4"')[:100])
        self.to: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(
            label="To", custom_id="to", max_length=60, placeholder="a system (Sol), a region (Sol 2) or a cell (K12)")
        self.through: discord.ui.TextInput[MoveModal] = discord.ui.TextInput(
            label="Through (optional)", custom_id="through", required=False, max_length=600,
            placeholder="the cells passed through, in order: K11, K12")
        for item in (self.counters, self.to, self.through):
            self.add_item(item)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await current_go(interaction, self.game_id, self.go)
                player = playing_for(interaction, state)
                await run_command(interaction, "godsfire movement move", answer=answer, counters=self.counters.value,
                                  to=self.to.value, through=self.through.value or None, player=player)

        await guarded(interaction, work)


# --- a move through stationary enemy units: Attack, Block, Allow (A.2.3) ---------------------------------


TRANSIT = "godsfire movement transit"
TRANSIT_BUTTONS = {"attack": ("Attack", "⚔", discord.ButtonStyle.danger),
                   "block": ("Block…", "🛡", discord.ButtonStyle.primary),
                   "allow": ("Allow", "➡", discord.ButtonStyle.secondary)}


async def current_transit(interaction: discord.Interaction, game_id: int, transit: str) -> GodsfireState:
    """The state if the control's transit is still the one waiting; else a refusal saying what waits now."""
    state = await live_state(interaction, game_id)
    if transit_of(state) != transit:
        now = state.transit if transit_of(state) else None
        raise RuleViolation("that transit is settled" + (f": the move through {now.cell} waits on "
                                                          f"{now.stationary} now" if now else ""))
    return state


def answering_for(interaction: discord.Interaction, state: GodsfireState) -> str | None:
    """Whom a transit button answers for (the engine's `player:`): the clicker themself (None) when the clicker
    is a player, the transit's stationary player when a GM clicks (or someone who plays no side, so that the
    engine's refusal names whose answer it is). The engine decides whether that answer may be given."""
    transit = state.transit
    assert transit is not None
    me = actor(interaction)
    if name_key(me) == name_key(transit.stationary):
        return None
    if is_gm(interaction, state) or state.find_player(me) is None:
        return transit.stationary
    return None


async def run_transit(interaction: discord.Interaction, answer_: str, retreat: str | None = None,
                      player: str | None = None, column: str | None = None) -> None:
    """`/godsfire movement transit`, for the slash command and the buttons alike (its option `answer` is also
    `run_command`'s own parameter, so the action is built here)."""
    command = BY_PATH[TRANSIT]
    given = given_options(answer=answer_, retreat=retreat, column=column, player=player)
    await run_action(interaction, build_action(command, coerce_options(command, given)),
                     command_text(TRANSIT, given), answer, command)


def may_answer(interaction: discord.Interaction, state: GodsfireState, player: str | None) -> None:
    """Before Block's form opens: the engine's refusal if the clicker may not answer the transit. The engine is
    asked whether it would take this clicker's `allow` now, on a copy of the state thrown away after (no die is
    rolled, nothing is recorded)."""
    referee = bot_of(interaction).referee
    command = BY_PATH[TRANSIT]
    action = build_action(command, coerce_options(command, given_options(answer="allow", player=player)))
    execute(state, action, referee.context(state, actor(interaction), has_gm_role(interaction)))


class TransitButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:godsfire:transit:(?P<what>attack|block|allow):(?P<game>\d+):"
                             r"(?P<transit>\d+-[0-9a-f]{8})"):
    """The stationary player's answer to a move through its units (`/godsfire movement transit answer:…`):
    Attack (the house's Transit Attacks column), Block… (a form asks where the blocking units retreat) or
    Allow. A GM's click answers for the stationary player."""

    def __init__(self, what: str, game_id: int, transit: str, button: discord.ui.Button | None = None) -> None:
        self.what, self.game_id, self.transit = what, game_id, transit
        label, emoji, style = TRANSIT_BUTTONS[what]
        super().__init__(button or discord.ui.Button(
            custom_id=f"referee:godsfire:transit:{what}:{game_id}:{transit}", label=label, emoji=emoji, style=style))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> TransitButton:
        return cls(match["what"], int(match["game"]), match["transit"], matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await current_transit(interaction, self.game_id, self.transit)
                player = answering_for(interaction, state)
                if self.what == "block":
                    may_answer(interaction, state, player)
                    await interaction.response.send_modal(BlockModal(self.game_id, self.transit, player, state))
                    return
                await run_transit(interaction, self.what, player=player)

        await guarded(interaction, work)


class BlockModal(discord.ui.Modal):
    """`/godsfire movement transit answer:block` in a form: where the blocking units retreat."""

    def __init__(self, game_id: int, transit: str, player: str | None, state: GodsfireState) -> None:
        super().__init__(title="Block the move", custom_id=f"referee:godsfire:blocking:{game_id}:{transit}",
                         timeout=None)
        self.game_id, self.transit, self.player = game_id, transit, player
        cell = state.transit.cell if state.transit else ""
        self.retreat: discord.ui.TextInput[BlockModal] = discord.ui.TextInput(
            label="Retreat to", custom_id="retreat", max_length=60,
            placeholder=f"the cell your units at {cell} retreat to (e.g. K12)"[:100])
        self.add_item(self.retreat)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                await current_transit(interaction, self.game_id, self.transit)
                await run_transit(interaction, "block", retreat=self.retreat.value, player=self.player)

        await guarded(interaction, work)


# --- the Combat Phase: losses and retreats ----------------------------------------------------------------


class LossSelect(discord.ui.DynamicItem[discord.ui.Select],
                 template=r"referee:godsfire:losses:(?P<game>\d+):(?P<attack>\d+)"):
    """The chooser picks exactly the units lost (`/godsfire combat losses units:… number:<attack>`)."""

    def __init__(self, game_id: int, attack: int, select: discord.ui.Select | None = None) -> None:
        self.game_id, self.attack = game_id, attack
        super().__init__(select or discord.ui.Select(custom_id=f"referee:godsfire:losses:{game_id}:{attack}"))

    @classmethod
    def offer(cls, game_id: int, state: GodsfireState, choice: LossChoice) -> LossSelect:
        among = loss_units(state, choice)[:25] or [(str(n), f"#{n}") for n in choice.counters[:25]]
        count = max(1, min(choice.count, len(among)))
        attack = attack_of(choice)
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"referee:godsfire:losses:{game_id}:{attack}",
            placeholder=f"Attack {attack}: choose the {plural(count, 'unit')} lost"[:150],
            min_values=count, max_values=count,
            options=[discord.SelectOption(label=label[:100], value=value) for value, label in among])
        return cls(game_id, attack, select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> LossSelect:
        return cls(int(match["game"]), int(match["attack"]), matched(item, discord.ui.Select))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await live_state(interaction, self.game_id)
                pending_choice(state, "losses", self.attack)
                # The engine refuses anyone but the chooser (or the GM), with its words.
                await run_command(interaction, "godsfire combat losses", answer=answer,
                                  units=loss_numbers(self.item.values), number=self.attack)

        await guarded(interaction, work)


class RetreatButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"referee:godsfire:retreat:(?P<game>\d+):(?P<attack>\d+)"):
    """The side that lost retreats: a modal asks where to (`/godsfire combat retreat to:… number:<attack>`)."""

    def __init__(self, game_id: int, attack: int, button: discord.ui.Button | None = None) -> None:
        self.game_id, self.attack = game_id, attack
        super().__init__(button or discord.ui.Button(
            custom_id=f"referee:godsfire:retreat:{game_id}:{attack}", label=f"Retreat… (attack {attack})",
            emoji="↩", style=discord.ButtonStyle.danger))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: Any) -> RetreatButton:
        return cls(int(match["game"]), int(match["attack"]), matched(item, discord.ui.Button))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await live_state(interaction, self.game_id)
                choice = pending_choice(state, "retreat", self.attack)
                if name_key(choice.chooser) != name_key(actor(interaction)) and not is_gm(interaction, state):
                    raise RuleViolation(f"B: a retreat is made by the side that lost (r = retreat); attack "
                                        f"{self.attack}'s is {choice.chooser}'s (or the GM's)")
                units = ", ".join(counter_label(state, n) for n in choice.counters)
                await interaction.response.send_modal(RetreatModal(self.game_id, self.attack, units))

        await guarded(interaction, work)


class RetreatModal(discord.ui.Modal):
    """`/godsfire combat retreat` in a form: the position one cell away."""

    def __init__(self, game_id: int, attack: int, units: str) -> None:
        super().__init__(title=f"Retreat: attack {attack}"[:45], custom_id=f"referee:godsfire:retreating:{game_id}:"
                         f"{attack}", timeout=None)
        self.game_id, self.attack = game_id, attack
        self.to: discord.ui.TextInput[RetreatModal] = discord.ui.TextInput(
            label="Retreat to", custom_id="to", max_length=60,
            placeholder=(f"one cell away, for {units}" if units else "a cell (K12), a system (Sol) or a region")[:100])
        self.add_item(self.to)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            async with click_lock(interaction, self.game_id):
                state = await live_state(interaction, self.game_id)
                pending_choice(state, "retreat", self.attack)
                await run_command(interaction, "godsfire combat retreat", answer=answer, to=self.to.value,
                                  number=self.attack)

        await guarded(interaction, work)


# --- the controls on an answer --------------------------------------------------------------------------


def controls_view(game_id: int, state: GodsfireState) -> discord.ui.View | None:
    """The controls of what the game waits for: the awaited go's Move, Done and Pass; a waiting transit's
    Attack, Block… and Allow; each loss choice's select and each retreat's button. None when it waits for no
    one."""
    view = discord.ui.View(timeout=None)
    go = go_of(state)
    ini = state.initiative
    if go is not None and ini is not None:
        holder_first = name_key(ini.awaiting or "") == name_key(ini.holder) and not ini.moved
        view.add_item(GoButton("move", game_id, go))
        view.add_item(GoButton("done", game_id, go, disabled=holder_first))  # A.1.2: the holder moves first
        view.add_item(GoButton("pass", game_id, go))
    transit = transit_of(state)
    if transit is not None:
        for what in TRANSIT_BUTTONS:
            view.add_item(TransitButton(what, game_id, transit))
    for choice in offered_choices(state):
        item: discord.ui.Item[Any] = (LossSelect.offer(game_id, state, choice) if choice.kind == "losses"
                                      else RetreatButton(game_id, attack_of(choice)))
        try:
            view.add_item(item)
        except ValueError:  # no room left on the message
            break
    return view if view.children else None


def prompt(state: GodsfireState) -> str | None:
    return "\n".join(prompt_lines(state)) or None


async def answer(interaction: discord.Interaction, report: Report) -> None:
    """A Godsfire command's answer: its events (each chart read as its own embed), then whose go or choice it
    is now (mentioned, pinged unless it is the one who acted) with its controls; the controls come off the
    message that carried them before."""
    await answer_with(interaction, report, godsfire_embeds(report.caught_up + report.events, report.state))


async def answer_with(interaction: discord.Interaction, report: Report, embeds: list[discord.Embed]) -> None:
    state = report.state
    view = controls_view(report.game_id, state) if isinstance(state, GodsfireState) else None
    text = prompt(state) if view is not None else None
    me = name_key(actor(interaction))
    notify = [p for p in waiting_on(state) if name_key(p) != me] if view is not None else []
    message_id = await reply(interaction, text, embeds=embeds, view=view, allowed_mentions=pings(*notify))
    channel = bot_of(interaction).get_partial_messageable(interaction.channel_id or 0, guild_id=interaction.guild_id)
    await swap_controls(bot_of(interaction), channel, report.game_id, message_id if view is not None else None)
    await post_board(bot_of(interaction), channel, interaction.guild_id, report)


def new_go(report: Report) -> bool:
    """Whether a report hands the Movement Phase's initiative to a new go (a player, or a new round) on a map."""
    state = report.state
    if not isinstance(state, GodsfireState) or state.board is None or go_of(state) is None:
        return False
    ini = state.initiative
    assert ini is not None
    for event in report.caught_up + report.events:
        if isinstance(event, GameChanged) and "initiative" in event.changes:
            old = event.before.get("initiative") or {}
            if (old.get("awaiting"), old.get("round"), old.get("holder")) != (ini.awaiting, ini.round, ini.holder):
                return True
    return False


async def post_board(bot: RefereeHost, channel: discord.abc.Messageable, guild_id: int | None,
                     report: Report) -> None:
    """With each go's prompt of the Movement Phase on a map: the table as a picture, after the prompt (drawn in
    the chart worker; a picture that cannot be drawn is left out, the prompt stands)."""
    if not new_go(report):
        return
    try:
        await post_picture(bot, channel, guild_id, picture(report.state))
    except (RefereeError, discord.HTTPException) as err:
        log.warning("the map of game %s was not posted: %s", report.game_id, err)


async def answer_with_sheet(interaction: discord.Interaction, report: Report) -> None:
    """The events, then the sheet of the system they set up or conquered, as it stands now."""
    embeds = godsfire_embeds(report.caught_up + report.events, report.state)
    named = next((e.system.get("name") if isinstance(e, SystemAdded) else e.system
                  for e in report.events if isinstance(e, SystemAdded | SystemChanged)), None)
    system = report.state.find_system(named) if named else None
    if system is not None:
        embeds += view_embeds(system_view(system))
    await answer_with(interaction, report, embeds)




# --- the clock ------------------------------------------------------------------------------------------


async def announce(clock: Any, channel: discord.PartialMessageable, report: Report) -> None:
    """What the clock caught up on (a reminder, a go run out, a transit let through): its report, the last
    message carrying the controls of what the game waits for now, pinging whose they are."""
    state = report.state
    view = controls_view(report.game_id, state)
    batches = message_batches(report_embeds(report.events, state, by_clock=True))
    for batch in batches[:-1]:
        await channel.send(embeds=batch, allowed_mentions=NO_PINGS)
    text = prompt(state) if view is not None else None
    # (a None view: discord.py's send() takes it, its default, but its overloads leave it out)
    message = await channel.send(text, embeds=batches[-1], view=view,  # type: ignore[arg-type]
                                 allowed_mentions=pings(*waiting_on(state)) if view is not None else NO_PINGS)
    await swap_controls(clock.bot, channel, report.game_id, message.id if view is not None else None)
    guild = getattr(channel, "guild", None)
    await post_board(clock.bot, channel, guild.id if guild is not None else None, report)


async def after_change(clock: Any, channel: discord.PartialMessageable, report: Report, state: GodsfireState,
                       row: Any) -> Any:
    """A game that ended keeps no controls."""
    if state.ended:
        await swap_controls(clock.bot, channel, report.game_id, None)
    return row


DYNAMIC_ITEMS = (GoButton, TransitButton, LossSelect, RetreatButton)

