"""B: the attacks resolved together, and their results applied on the counters: losses chosen by the enemy,
retreats made by the loser, and the default for a choice left unmade by its deadline. The rulings are in
`engine.godsfire.combat`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from engine.core import Tx, require_gm
from engine.errors import BadInput, NotYourNation, RuleViolation
from engine.godsfire import charts, table
from engine.godsfire.combat import (
    KEY,
    VOID,
    ChooseLosses,
    ResolveAttacks,
    Retreat,
    attack_words,
    broken_off,
    choice_attack,
    counter_numbers,
    decider,
    defender_words,
    defenders,
    drop_choice,
    foes_at,
    is_nebula,
    landing_allowed,
    place_at,
    reason_text,
    same_name,
    side_words,
    strengths,
    system_at,
)
from engine.godsfire.common import clock_now, handles
from engine.godsfire.events import change_game
from engine.godsfire.phases import require_phase
from engine.godsfire.setup import lose_government
from engine.godsfire.state import FIGHTING, Attack, Counter, GodsfireState, LossChoice, System
from engine.names import name_key

# --- resolving -----------------------------------------------------------------------------------


@dataclass
class _Plan:
    attack: Attack
    attackers: list[Counter]
    strength: int
    defenders: list[Counter]
    defence: int


def _pdf_rule(losers: list[Counter], enemy: list[Counter]) -> tuple[list[Counter], list[Counter]]:
    """B.2.4: (the losers' PDFs spared, the losers that can take losses)."""
    ground = table.units(c for c in enemy if c.ground)
    if enemy and 2 * ground >= table.units(enemy):
        return [], losers
    return [c for c in losers if c.kind == "PDF"], [c for c in losers if c.kind != "PDF"]


PDF_RULE = "PDFs take no losses unless at least half the enemy is also on the ground (B.2.4)"


def _apply(tx: Tx[GodsfireState], plan: _Plan, code: str, counters: list[Counter], choices: list[LossChoice]) -> str:
    """Apply a result to the working counters and choices; its words."""
    state: GodsfireState = tx.state
    attack = plan.attack
    if code == "ne":
        return "no effect"
    side, what = code[0], code[1:]
    on_table = {c.number for c in counters}
    losers = [c for c in (plan.attackers if side == "A" else plan.defenders) if c.number in on_table]
    enemy = plan.defenders if side == "A" else plan.attackers
    loser = " and ".join(attack.attackers) if side == "A" else defender_words(state, attack)
    if not losers:
        return f"{loser} has no units left in it"
    if what == "r":
        at_target = [c for c in losers if name_key(c.at) == name_key(attack.target)]
        movers = [c for c in losers if not c.ground or c in at_target] if side == "A" else at_target
        if not movers:
            return f"{loser} has no units left at {attack.target} to retreat"
        chooser = decider(state, attack, side)
        choices.append(LossChoice(chooser, "retreat", [c.number for c in movers], 0, reason_text(
            f"attack {attack.number}: {loser} must retreat {counter_numbers(movers)} one cell (r = retreat); "
            f"{chooser} names where"), clock_now(tx), attack.number))
        return f"{loser} retreats: {chooser} names where (/godsfire combat retreat to:<cell> number:{attack.number})"
    spared, takes = _pdf_rule(losers, enemy)
    spare = f"; {counter_numbers(spared)} stay: {PDF_RULE}" if spared else ""
    if what == "E" or (what.isdecimal() and 0 < table.units(takes) <= int(what)):
        gone = {c.number for c in takes}
        counters[:] = [c for c in counters if c.number not in gone]
        if what == "E":
            return f"{side_words(state, takes) if takes else 'nothing'} eliminated{spare}"
        return f"{side_words(state, takes)} lost (all that can be lost){spare}"
    if what.isdecimal():
        if not takes:
            return f"the loss is void: {loser} has only PDFs there, and {PDF_RULE}"
        chooser = decider(state, attack, "D" if side == "A" else "A")
        count = int(what)
        choices.append(LossChoice(chooser, "losses", [c.number for c in takes], count, reason_text(
            f"attack {attack.number}: {loser} loses {count}, {chooser} chooses ({KEY})"), clock_now(tx),
            attack.number))
        return (f"{chooser} chooses {count} of {side_words(state, takes)} to lose (/godsfire combat losses "
                f"units:<n> number:{attack.number}){spare}")
    return code


def _resolve_one(tx: Tx[GodsfireState], plan: _Plan, counters: list[Counter]) -> None:
    """One attack rolled and its result applied to `counters`, the working counters of all the attacks (the
    table takes them once all are rolled: `resolve`)."""
    state: GodsfireState = tx.state
    attack = plan.attack
    nebula = is_nebula(attack)
    target = attack.target
    head = (f"attack {attack.number}: {side_words(state, plan.attackers)} ({plan.strength}) against "
            f"{side_words(state, plan.defenders)} at {target} ({plan.defence})" + (" in a nebula" if nebula else ""))
    if plan.strength > 0 and plan.defence == 0 and _governments(state, attack):
        done = replace(attack, result="DE", column="", die=0, attack=plan.strength, defence=0)
        change_game(tx, f"{head}: the National Government there has no units to defend it",
                    attacks=[done if a.number == attack.number else a for a in state.attacks])
        return  # (its fall comes once every attack is rolled)
    if plan.strength == 0 or plan.defence == 0:
        missing = "the attackers" if plan.strength == 0 else "the defenders"
        done = replace(attack, result=VOID, column="", die=0, attack=plan.strength, defence=plan.defence)
        change_game(tx, f"{head}: void — {missing} have nothing left to fight with there",
                    attacks=[done if a.number == attack.number else a for a in state.attacks])
        return
    read = charts.read_combat(tx, plan.strength, plan.defence, nebula,
                              f"attack {attack.number}: {attack_words(state, attack)}", attack.attackers[0],
                              f"attack {attack.number} ({attack_words(state, attack)}): ")
    state = tx.state
    choices = list(state.choices)
    words = _apply(tx, plan, read.result, counters, choices)
    done = replace(attack, result=read.result, column=read.column, die=read.die, attack=plan.strength,
                   defence=plan.defence)
    change_game(tx, f"{head}: {read.column}, die {read.die}: {read.result} — {words}",
                attacks=[done if a.number == attack.number else a for a in state.attacks], choices=choices)


def _governments(state: GodsfireState, attack: Attack) -> list[Counter]:
    """The defender's National Government counters at the position attacked."""
    if attack.defender is None:
        return []
    return [c for c in state.counters_at(attack.target) if c.kind == "NG" and same_name(c.owner, attack.defender)]


def _governments_fall(tx: Tx[GodsfireState], attack: Attack) -> None:
    """The rulings ("The board"): a National Government left at the position attacked with none of its side's
    units to defend it (at the position, or for a system cell on the ground below, B.1.5) is destroyed in the
    combat: its player is out."""
    state: GodsfireState = tx.state
    ngs = _governments(state, attack)
    if not ngs or defenders(state, attack):
        return
    for ng in ngs:
        assert ng.owner is not None
        change_game(tx, f"attack {attack.number}: {ng.owner}'s National Government at {attack.target} is left "
                    "without a unit to defend it: it is destroyed")
        lose_government(tx, attack.target, ng.owner)


@handles(ResolveAttacks)
def resolve(tx: Tx[GodsfireState], action: ResolveAttacks) -> None:
    """Roll every announced attack in order (the GM): strengths counted first for all (simultaneous)."""
    require_gm(tx, "resolve the attacks")
    require_phase(tx, "combat", "resolving the attacks (B)")
    if not [a for a in tx.state.attacks if not a.result]:
        raise RuleViolation("B: no attack is announced and unresolved (/godsfire combat announce)")
    table.reconcile(tx)
    state: GodsfireState = tx.state
    plans = []
    by_place = state.counters_by_place()
    for attack in state.attacks:
        if not attack.result:
            attackers, strength, defending, defence = strengths(state, attack, by_place)
            plans.append(_Plan(attack, attackers, strength, defending, defence))
    counters = table.copy_counters(state)
    for plan in plans:
        _resolve_one(tx, plan, counters)
    if len(counters) != len(tx.state.counters):  # the losses leave the table together: it is written once
        left = {c.number for c in counters}
        lost = [c for c in tx.state.counters if c.number not in left]
        table.set_counters(tx, counters, f"the attacks' losses leave the table: {counter_numbers(lost)}")
    table.tidy_choices(tx)
    for plan in plans:
        _governments_fall(tx, plan.attack)


# --- losses and retreats ---------------------------------------------------------------------------


def _find_choice(tx: Tx[GodsfireState], kind: str, number: int | None) -> LossChoice:
    state: GodsfireState = tx.state
    mine = [c for c in state.choices if c.kind == kind]
    if number is not None:
        found = next((c for c in mine if choice_attack(c) == number), None)
        if found is None:
            raise BadInput(f"attack {number} has no {'losses to choose' if kind == 'losses' else 'retreat'} "
                           f"pending{_pending_words(mine)}")
    else:
        own = [c for c in mine if same_name(c.chooser, tx.ctx.actor)] or (mine if tx.ctx.is_gm else [])
        if len(own) != 1:
            what = "losses to choose" if kind == "losses" else "retreat to make"
            if not own:
                if mine:
                    raise NotYourNation(_wrong_chooser(mine[0]))
                raise BadInput(f"there is no {what} pending")
            raise BadInput(f"several {what}: name the attack (number:){_pending_words(own)}")
        found = own[0]
    if not tx.ctx.is_gm and not same_name(found.chooser, tx.ctx.actor):
        raise NotYourNation(_wrong_chooser(found))
    return found


def _still_pending(state: GodsfireState, choice: LossChoice) -> LossChoice | None:
    """`choice` as it stands in `state` (its counters tidied after some left the table), or None if it is no
    longer pending."""
    return next((c for c in state.choices if c.kind == choice.kind and c.attack == choice.attack
                 and c.chooser == choice.chooser and c.reason == choice.reason), None)


def _wrong_chooser(choice: LossChoice) -> str:
    label = choice.reason.split(":")[0]
    if choice.kind == "losses":
        return f"B: losses are chosen by the enemy ({KEY}); {label}'s are {choice.chooser}'s to choose (or the GM's)"
    return f"B: a retreat is made by the side that lost (r = retreat); {label}'s is {choice.chooser}'s (or the GM's)"


def _pending_words(choices: list[LossChoice]) -> str:
    numbers = [str(choice_attack(c)) for c in choices]
    return f" (pending: attack {', '.join(numbers)})" if numbers else ""


@handles(ChooseLosses)
def choose_losses(tx: Tx[GodsfireState], action: ChooseLosses) -> None:
    """The enemy picks exactly the units lost among those listed (the key: enemy's choice)."""
    choice = _find_choice(tx, "losses", action.number)
    numbers = table.parse_numbers(action.units, "units", repeats=True)
    table.reconcile(tx)
    current = _still_pending(tx.state, choice)
    if current is None:  # the boxes gave up every unit of it: nothing is left to choose (table.tidy_choices)
        return
    choice = current
    state: GodsfireState = tx.state
    on_table = {c.number for c in state.counters}
    among = [n for n in choice.counters if n in on_table]
    count = min(choice.count, table.units(state.counter(n) for n in among))
    wrong = [n for n in numbers if n not in among]
    listed = counter_numbers(state.counter(n) for n in among)
    if wrong:
        raise RuleViolation(f"B: #{wrong[0]} is not among the units that can be lost ({listed}; {PDF_RULE})")
    over = next((n for n in dict.fromkeys(numbers) if numbers.count(n) > state.counter(n).size), None)
    if over is not None:
        raise BadInput(f"{table.short(state.counter(over))} holds {state.counter(over).size} "
                       f"unit{'s' if state.counter(over).size > 1 else ''}: name it at most that many times")
    if len(numbers) != count:
        raise BadInput(f"choose exactly {count} of {listed}, not {len(numbers)} (a unit lost each time a counter "
                       "is named)")
    lost = [state.counter(n) for n in dict.fromkeys(numbers)]
    who = "the GM" if tx.ctx.is_gm and not same_name(tx.ctx.actor, choice.chooser) else choice.chooser
    counters = table.take_units(table.copy_counters(state), numbers)
    taken = {n: numbers.count(n) for n in numbers}
    change_game(tx, f"{choice.reason.split(':')[0]}: {who} chooses the losses ({KEY}): "
                f"{side_words(state, lost, taken)} eliminated", choices=drop_choice(state, choice), counters=counters)
    table.sync(tx)
    table.tidy_choices(tx)
    attack = next((a for a in tx.state.attacks if a.number == choice.attack), None)
    if attack is not None:
        _governments_fall(tx, attack)


def retreat_refusal(state: GodsfireState, units: list[Counter], dest: table.Place, target: str) -> str | None:
    """Why units may not retreat to `dest` from an attack on `target` (None: they may)."""
    if name_key(dest.at) == name_key(target):
        return f"r = retreat: the units leave {target}, the position attacked"
    owners = {c.owner for c in units}
    foes = [c for c in state.counters_at(dest.at) if c.kind in FIGHTING and c.owner not in owners]
    if foes:
        return f"r = retreat: not into enemy units; {table.label(foes[0])} is there"
    if all(name_key(c.at) == name_key(dest.at) for c in units):
        return f"r = retreat: the units are already at {dest.at}; a retreat moves them one cell away"
    if state.board is not None and not dest.ground:
        for c in units:
            if not c.ground and name_key(c.at) != name_key(dest.at) and not state.board.touching(c.at, dest.at):
                return f"r = retreat: one cell away; {dest.at} does not touch {c.at} ({table.short(c)}) on the map"
    for c in units:
        where = place_at(state, c.at)
        if dest.ground:
            assert dest.system is not None
            if c.kind == "SQD":
                return f"A.2.4: SQDs never go on the ground ({table.short(c)} retreats with them: name a cell)"
            if c.ground:
                if where.system is not dest.system:
                    return (f"a unit on the ground retreats to its system cell or another region of its system "
                            f"(ground movement); {table.short(c)} is on {c.at}")
            elif name_key(c.at) == name_key(dest.system.name):
                refusal = landing_allowed(state, c, dest)
                if refusal:
                    return refusal
            elif name_key(c.at) != name_key(dest.at):
                return f"B.2.1: units land from the system cell; {table.short(c)} is at {c.at}"
        elif c.ground and (where.system is None or name_key(dest.at) != name_key(where.system.name)):
            return (f"a unit on the ground retreats to its system cell ({where.system.name if where.system else '?'}) "
                    f"or another region of it; {table.short(c)} is on {c.at}")
    return None


def _move(counters: list[Counter], numbers: Iterable[int], at: str, ground: bool) -> None:
    wanted = set(numbers)
    for c in counters:
        if c.number in wanted:
            c.at, c.ground = at, ground


def _after_retreat(tx: Tx[GodsfireState], choice: LossChoice) -> None:
    """A retreat made: the attackers' (Ar) breaks the attack off (a neutral back to starting strength)."""
    number = choice_attack(choice)
    attack = next((a for a in tx.state.attacks if a.number == number), None)
    if attack is not None and attack.result == "Ar":
        broken_off(tx, attack, f"the attackers of attack {attack.number} retreated")
    table.tidy_choices(tx)


@handles(Retreat)
def retreat(tx: Tx[GodsfireState], action: Retreat) -> None:
    """The loser moves all its units of that attack to a position one step away (the bot cannot check the
    step: no map)."""
    choice = _find_choice(tx, "retreat", action.number)
    dest = table.place_of(tx.state, action.to)
    table.reconcile(tx)
    current = _still_pending(tx.state, choice)
    if current is None:  # the boxes gave up every unit to retreat: nothing is left to move (table.tidy_choices)
        return
    choice = current
    state: GodsfireState = tx.state
    number = choice_attack(choice)
    attack = next((a for a in state.attacks if a.number == number), None)
    units = [c for c in state.counters if c.number in choice.counters]
    refusal = retreat_refusal(state, units, dest, attack.target if attack else "")
    if refusal:
        raise RuleViolation(refusal)
    who = "the GM" if tx.ctx.is_gm and not same_name(tx.ctx.actor, choice.chooser) else choice.chooser
    counters = table.copy_counters(state)
    _move(counters, choice.counters, dest.at, dest.ground)
    change_game(tx, f"{choice.reason.split(':')[0]}: {who} retreats {side_words(state, units)} to {dest.at} "
                "(r = retreat)", choices=drop_choice(state, choice), counters=counters)
    table.sync(tx)
    _after_retreat(tx, choice)


# --- the deadline's default ------------------------------------------------------------------------


def choice_deadlines(state: GodsfireState) -> list[tuple[datetime, LossChoice]]:
    """When each pending choice's default applies (its start + the house's response hours), earliest first."""
    hours = float(state.house.response_hours)
    found = [(c.since + timedelta(hours=hours), c) for c in state.choices if c.since is not None]
    return sorted(found, key=lambda pair: pair[0])


def _free_region(state: GodsfireState, system: System, counter: Counter, landing: bool) -> str | None:
    for region in system.regions:
        at = f"{system.name} {region.number}"
        if name_key(at) == name_key(counter.at) or foes_at(state, at, counter.owner):
            continue
        if landing and landing_allowed(state, counter, table.Place(at, True, system, region.number)):
            continue
        return at
    return None


def default_retreat(state: GodsfireState, counter: Counter, target: str) -> tuple[str, bool] | None:
    """Where a unit goes when its retreat is not named in time (position, ground), or None: eliminated."""
    if name_key(counter.at) != name_key(target):
        return counter.at, counter.ground  # an attacker not in the cell attacked: already a cell away
    system = system_at(state, counter.at)
    if system is None:
        return None  # no map: no cell the bot can name
    if counter.ground:
        if not foes_at(state, system.name, counter.owner):
            return system.name, False
        region = _free_region(state, system, counter, landing=False)
        return (region, True) if region else None
    if counter.kind == "SQD":
        return None
    region = _free_region(state, system, counter, landing=True)
    return (region, True) if region else None


def _default(tx: Tx[GodsfireState], choice: LossChoice) -> None:
    state: GodsfireState = tx.state
    label = choice.reason.split(":")[0]
    late = f"{label}: {choice.chooser} did not choose within {state.house.response_hours:g} hours"
    on_table = [c for c in state.counters if c.number in choice.counters]
    rest = [c for c in state.choices if c is not choice]
    counters = table.copy_counters(state)
    if choice.kind == "losses":
        taken: list[int] = []
        for c in on_table:  # the first units listed
            taken += [c.number] * min(c.size, choice.count - len(taken))
        lost = [c for c in on_table if c.number in taken]
        counters = table.take_units(counters, taken)
        words = side_words(state, lost, {n: taken.count(n) for n in taken})
        change_game(tx, f"{late}: the first listed are lost ({KEY}): {words}", choices=rest, counters=counters)
        table.sync(tx)
        table.tidy_choices(tx)
        return
    number = choice_attack(choice)
    attack = next((a for a in state.attacks if a.number == number), None)
    target = attack.target if attack else ""
    moves: list[str] = []
    lost = []
    for c in on_table:
        goes = default_retreat(state, c, target)
        if goes is None:
            lost.append(c)
        elif goes != (c.at, c.ground):
            _move(counters, [c.number], *goes)
            moves.append(f"{table.short(c)} to {goes[0]}")
        else:
            moves.append(f"{table.short(c)} stays at {c.at}")
    counters = [c for c in counters if c.number not in {x.number for x in lost}]
    words = "; ".join(moves)
    if lost:
        words += ("; " if words else "") + (f"{counter_numbers(lost)} cannot retreat without a cell named (the bot has "
                                            "no map) and " + ("is" if len(lost) == 1 else "are") + " eliminated")
    change_game(tx, f"{late}: the default retreat (r = retreat): {words}", choices=rest, counters=counters)
    table.sync(tx)
    _after_retreat(tx, choice)


def choice_defaults(tx: Tx[GodsfireState], now: datetime) -> None:
    """Every choice whose time is up by `now` takes its default (see the module's rulings)."""
    table.reconcile(tx)
    for due, choice in choice_deadlines(tx.state):
        if due > now:
            break
        current = _still_pending(tx.state, choice)
        if current is not None:
            _default(tx, current)
