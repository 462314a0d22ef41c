"""Words for the God Dice events (the console's text and Discord's embeds share them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.describe import plural
from engine.events import DiceCleared, DiceQueued, Event, GameImported
from engine.game import When, Who
from engine.goddice import events as ev
from engine.goddice.cards import FACE_NAMES, Cards, cards_from_dict
from engine.goddice.common import (
    LegalAttack,
    campaign_game,
    card_of,
    character_label,
    label,
    legal_attacks,
    qualifying,
    rollable,
)
from engine.goddice.state import (
    CHOOSE,
    DECLARE,
    DEFEND,
    DRAFT,
    FAVOR,
    OPENING,
    RESURRECT,
    RETARGET,
    ROLLING,
    GoddiceState,
)

STAGES = {"seating": "seating", "choose": "the roll-off winner's choice", "draft": "the draft",
          "declare": "declare", "defend": "defend", "resurrect": "resurrection", "retarget": "retarget",
          "opening": "the opening roll", "favor": "favor", "rolling": "rolling", "over": "over"}
"""Each phase in words (/game list's glance)."""
MOVES = {
    CHOOSE: "choose to attack first or select first (/goddice choose first:attack|select)",
    DRAFT: "pick a character (/goddice pick)",
    DECLARE: "declare an attacker (/goddice declare)",
    DEFEND: "declare a defender (/goddice defend)",
    RESURRECT: "resurrect a character or decline (/goddice resurrect)",
    RETARGET: "name another player to attack (/goddice declare target:…)",
    OPENING: "make the opening roll (/goddice roll)",
    FAVOR: "keep or re-roll the opening roll (/goddice favor choice:keep or /goddice favor choice:reroll)",
    ROLLING: "roll a type or attack (/goddice roll type:…, /goddice attack)",
}
GOD = {
    "god kill": "⚡ God kill! The Gods favor the attacker: the defender is killed",
    "divine intervention": "🛡 Divine intervention: the Gods favor the defender and the attack misses",
    "reversal": "🔄 God reversal: the attack turns the other way",
    "no reversal": "Doubles for neither character: a reversal, which has no effect with two players",
    "resurrection offered": "✨ Doubles: the attacker may resurrect a dead character of that kind (or decline)",
    "same character": "Both characters are of one kind: neither can be in favor",
    "push": "A push: one die for each character, neither is in favor",
    "no effect": "The God dice have no effect",
}


def event_line(event: Event[Any], when: When, who: Who) -> str | None:
    """One line for one God Dice event, or None (for other rule sets' events, or events without words)."""
    match event:
        case ev.GoddiceStarted(gm=gm, options=options):
            extra = f" Optional rules: {', '.join(o.replace('_', ' ') for o in options)}." if options else ""
            return (f"A God Dice game begins, refereed by the bot; GM: {who(gm)}. Take a seat with /goddice join "
                    f"(2 to 4 players); the GM starts with /goddice begin.{extra}")
        case GameImported(snapshot=snap) if snap["game"].get("ruleset") == "goddice":
            return f"God Dice game imported with {len(snap['players'])} players."
        case ev.CardsLoaded(by=by, cards=raw):
            titles = [str(c.get("title", key)) for key, c in (raw.get("characters") or {}).items()
                      if isinstance(c, dict)]
            listed = f": {', '.join(titles)} (/goddice cards shows them)" if titles else ""
            return f"GM {who(by)} loaded another card file for this game{listed}."
        case ev.PlayerJoined(player=player, seat=seat):
            return f"🪑 {who(player)} takes seat {seat}."
        case ev.RolloffWon(player=player, yellows=yellows, rounds=rounds):
            again = f" after {rounds} rounds" if rounds > 1 else ""
            return f"🏆 {who(player)} wins the roll-off with {yellows} YELLOW{again}."
        case ev.FirstChosen(player=player, choice=choice, picks=picks):
            what = "attack first (and select last)" if choice == "attack" else "select first (and defend first)"
            return f"{who(player)} chooses to {what}. The draft begins with {who(picks[0])}."
        case ev.CharacterPicked(player=player, name=name, life=life):
            return f"🃏 {who(player)} picks the {name} ({life} life)."
        case ev.TurnStarted(player=player, turn=turn):
            return f"▶ Turn {turn}: {who(player)} attacks."
        case ev.AttackerDeclared(player=player, name=name, defender_player=defender):
            return f"⚔ {who(player)}'s {name} attacks {who(defender)}."
        case ev.DefenderDeclared(player=player, name=name):
            return f"🛡 {who(player)} defends with the {name}."
        case ev.GodDiceRead(outcome=outcome, favor=favor):
            if outcome == "in favor":
                return f"🙏 The {favor} is in favor with the Gods: the {favor} decides whether the opening roll stands."
            return GOD[outcome] + "."
        case ev.DirectionReversed(direction=direction):
            return f"Attacks now go {direction}."
        case ev.FavorDecided(player=player, choice=choice):
            return f"{who(player)} says: {'keep the opening roll' if choice == 'keep' else 're-roll it'}."
        case ev.AttackDiceSet(dice=dice, legal=legal):
            return f"   dice: {' '.join(dice)} — " + (f"legal: {', '.join(map(_legal_word, legal))}" if legal
                                                        else "no legal attack")
        case ev.AttackMade(player=player, name=name, attack=attack, damage=damage, target_names=targets):
            hits = ", ".join(dict.fromkeys(targets)) if targets else "no one"
            return f"💥 {who(player)}'s {name}: {attack} for {damage} damage to {hits}{_healing(event, who)}."
        case ev.AttackMissed(player=player, reason=reason):
            return f"✖ {who(player)} misses: {reason}."
        case ev.LifeChanged(player=player, name=name, life=life, change=change, max_life=top, reason=reason, by=by):
            how = f"set by GM {who(by)}" if by else reason
            return f"   {who(player)}'s {name}: {change:+d} → {life}/{top} life ({how})."
        case ev.CharacterDied(player=player, name=name):
            return f"💀 {who(player)}'s {name} dies."
        case ev.CharacterResurrected(player=player, name=name, life=life):
            return f"✨ {who(player)}'s {name} rises again with {life} life; the turn ends."
        case ev.ResurrectionDeclined(player=player):
            return f"{who(player)} declines to resurrect."
        case ev.PlayerEliminated(player=player):
            return f"☠ {who(player)} has no character left."
        case ev.GameWon(player=player, wins=wins, campaign_over=over):
            if over and wins > 1:
                return f"👑 {who(player)} wins the campaign ({wins} games)!"
            if over:
                return f"👑 {who(player)} wins: the last with a character still breathing!"
            return f"🏆 {who(player)} wins game {wins and wins} of the campaign ({wins} won); a new game begins."
        case ev.CampaignGameStarted(game=game):
            return f"Campaign game {game}: every character back at full life; turns go clockwise."
        case ev.MoveAwaited(player=player, phase=phase, quiet=quiet) if player and not quiet and phase in MOVES:
            return f"⏳ {who(player)}'s move: {MOVES[phase]}."
        case ev.PlayerReminded(player=player, phase=phase, waiting_hours=hours):
            return f"⏰ {who(player)}, the game has waited {hours:g} hours for you to {MOVES.get(phase, 'move')}."
        case ev.ClockPaused():
            return "⏸ The clock is paused: no reminder until it resumes."
        case ev.ClockResumed():
            return "▶ The clock runs again: the move awaited has the time it had left before its reminder."
    return None


def _legal_word(legal: str) -> str:
    """A legal attack as its AttackDiceSet holds it ("basic 15"), marked when it would do no damage: the dice meet
    its needs, so the rules make it legal, but with no 5 die and no bonus it deals 0."""
    return f"{legal} (no damage: no 5 dice)" if legal.endswith(" 0") else legal


def _healing(event: ev.AttackMade, who: Who) -> str:
    """What an attack's healing gave, for its line: "; the Monk heals itself 10", "; the Monk is at full life:
    its Heal Self 10 is wasted", "; heals alice's Hero 15" ("" for an attack that heals no one)."""
    words = ""
    if event.heal_any is not None:
        if event.heal_any and event.heal_name:
            words += f"; heals {who(event.player)}'s {event.heal_name} {event.heal_any}"
        else:
            words += f"; no character of {who(event.player)}'s is wounded: the healing is wasted"
    if event.heal_self is not None:
        words += (f"; the {event.name} heals itself {event.heal_self}" if event.heal_self
                  else f"; the {event.name} is at full life: its healing is wasted")
    return words


def life_bar(life: int, top: int, width: int = 10) -> str:
    """`███████░░░ 30/55` (a dead character: `☠ 0/55`)."""
    if life <= 0:
        return f"☠ 0/{top}"
    filled = max(1, round(width * life / top))
    return "█" * filled + "░" * (width - filled) + f" {life}/{top}"


def player_lines(state: GoddiceState, who: Who) -> list[str]:
    """Each player, by seat, with every character's life."""
    lines = []
    for player in state.players:
        chars = "; ".join(f"{label(player, c, state.cards)} {life_bar(c.life, c.max_life)}"
                          for c in player.characters) or "no characters yet"
        wins = f" ({plural(player.wins, 'game')} won)" if "campaign" in state.options else ""
        out = "" if player.in_game or not player.characters else " — out"
        lines.append(f"Seat {player.seat}: {who(player.name)}{wins}{out} — {chars}")
    return lines


def turn_lines(state: GoddiceState, who: Who) -> list[str]:
    """The current turn: who attacks whom, the God dice, the attack dice, the types left, the legal attacks."""
    turn = state.current
    if turn is None or turn.attacker is None:
        return []
    attacker = character_label(state, turn.attacker)
    lines = [f"{who(turn.player)}'s {attacker} attacks "
             + (f"{who(turn.defender_player)}'s {character_label(state, turn.defender)}"
                if turn.defender and turn.defender_player  # (a defender is declared by its player)
                else who(turn.defender_player) if turn.defender_player else "…")]
    if turn.god:
        lines.append(f"God dice: {' '.join(turn.god)}" + (f"; the {turn.favor} is in favor" if turn.favor else ""))
    if turn.dice:
        rolled = [FACE_NAMES.get(r, r) for r in turn.rolled]
        lines.append(f"Dice: {' '.join(turn.dice)} (rolled: {', '.join(rolled)})")
    left = rollable(state)
    if left:
        lines.append(f"Types left to roll: {', '.join(FACE_NAMES[f] for f in left)}")
    legal = legal_attacks(state)
    if legal:
        lines.append("Legal attacks: " + "; ".join(attack_text(option) for option in legal))
    elif state.phase == ROLLING:
        lines.append("No legal attack yet.")
    elif state.phase == FAVOR and turn.dice:  # keep or re-roll: what keeping the opening roll would allow
        kept = qualifying(state.cards, card_of(state, turn.attacker), turn.dice)
        lines.append("Legal attacks if kept: " + "; ".join(attack_text(option) for option in kept) if kept
                     else "No legal attack if kept.")
    return lines


def attack_text(option: LegalAttack) -> str:
    """`lacerate (Wild: +15): 25 damage`."""
    attack = option.attack
    kind = "Wild: " if attack.wild else ""
    arrows = f" per arrow ×{attack.arrows}" if attack.arrows > 1 else " to each" if attack.target == "all" else ""
    if not option.damage:
        return f"{attack.id} ({kind}{attack.ability()}): no damage (no 5 dice)"
    return f"{attack.id} ({kind}{attack.ability()}): {option.damage} damage{arrows}"


def status_lines(state: GoddiceState, who: Who) -> list[str]:
    """The whole game at a glance, for /game status and /goddice status."""
    options = f"; options: {', '.join(o.replace('_', ' ') for o in state.options)}" if state.options else ""
    cogms = f"; co-GMs: {', '.join(who(c) for c in state.cogms)}" if state.cogms else ""
    head = f"God Dice — GM {who(state.gm)}{cogms}{options}"
    if state.winner:
        head += f" — {who(state.winner)} won"
    elif state.turn:
        game = f"game {campaign_game(state)}, " if "campaign" in state.options else ""
        way = "any target" if "free_for_all" in state.options else f"attacks go {state.direction}"
        head += f" — {game}turn {state.turn}, {way}"
    lines = [head]
    if state.active and state.phase in MOVES:
        lines.append(f"⏳ {who(state.active)}'s move: {MOVES[state.phase]}")
    elif state.phase == "seating":
        lines.append(f"Seating: {len(state.players)} seated; /goddice join, then the GM's /goddice begin")
    if state.phase == "draft":
        lines.append("Pool: " + ", ".join(f"{state.cards.characters[t].title} ×{n}" for t, n in state.pool.items()
                                          if n))
    if state.forced_dice:
        lines.append(f"{plural(len(state.forced_dice), 'GM-entered die')} waiting.")  # which: the GM's alone
    return lines + player_lines(state, who) + turn_lines(state, who)


def cards_lines(cards: Cards) -> list[str]:
    """Every character of a card file with its attacks; house values marked with *."""
    lines = []
    for card in cards.characters.values():
        attacks = []
        for attack in card.attacks:
            if attack.wild:
                need = f"{cards.wild_os} O (Wild)"
            else:
                need = " ".join(f"{n}{face}" for face, n in attack.needs.items())
            mark = "*" if attack.house else ""
            attacks.append(f"{attack.title}{mark} [{need}] {attack.ability()}")
        lines.append(f"{card.title} ({card.life} life, God die {card.god}): " + "; ".join(attacks))
    lines.append("* has house values (what a printed card would add); the rest is the rulebook's.")
    return lines


def change_line(state: GoddiceState, event: Event[Any], when: When, who: Who) -> str | None:
    """/log gm: a God Dice event's change as "whose field: before → after.", read off `state` as it was just
    before the event (None: the event's own line says it)."""
    match event:
        case ev.LifeChanged(player=player, character=cid, life=life, change=change, reason=reason, by=by):
            how = f"set by GM {who(by)}" if by else reason  # the event's change: right for each event of an act
            return f"{who(player)}'s {_name(state, cid, event.name)} life: {life - change} → {life} ({how})."
        case ev.CharacterResurrected(player=player, character=cid, life=life):
            return f"{who(player)}'s {_name(state, cid, event.name)} life: 0 → {life} (resurrected)."
        case ev.PlayerJoined(player=player, seat=seat):
            return f"Seat {seat}: empty → {who(player)}."
        case ev.CardsLoaded(cards=raw):
            return _cards_change(state.cards, raw)
        case ev.DirectionReversed(direction=direction):
            return f"Attack direction: {state.direction} → {direction}."
        case ev.TurnStarted(player=player, turn=turn) if turn != state.turn:
            return f"Turn: {state.turn} → {turn} ({who(player)} attacks)."
        case ev.AttackDiceSet(rolled=rolled, dice=dice) if state.current is not None:
            what = FACE_NAMES.get(rolled, rolled)
            return (f"{who(state.current.player)}'s attack dice: {_faces(state.current.dice)} → {_faces(dice)} "
                    f"(rolled: {what}).")
        case DiceQueued(values=values, by=by):
            # how many, never which: the faces stay the GM's until a roll uses them (the ledger shows them then)
            return (f"GM-entered dice waiting: {len(state.forced_dice)} → {len(state.forced_dice) + len(values)} "
                    f"(entered by GM {who(by)}).")
        case DiceCleared(by=by):
            return f"GM-entered dice waiting: {len(state.forced_dice)} → none (cleared by GM {who(by)})."
    return None


def _name(state: GoddiceState, character_id: int, name: str) -> str:
    """A character's name as shown (the event's own where the game does not know it)."""
    try:
        return character_label(state, character_id)
    except KeyError:
        return name or f"character {character_id}"


def _faces(faces: Sequence[int | str]) -> str:
    return " ".join(map(str, faces)) or "none"


def _cards_change(old: Cards, raw: dict[str, Any]) -> str | None:
    """What another card file changed: each character's life, the players allowed (None: nothing of those)."""
    new = cards_from_dict(raw)
    changes = [f"{card.title} life {old.characters[kind].life} → {card.life}"
               for kind, card in new.characters.items()
               if kind in old.characters and old.characters[kind].life != card.life]
    changes += [f"{new.characters[k].title} added" for k in new.characters if k not in old.characters]
    changes += [f"{old.characters[k].title} removed" for k in old.characters if k not in new.characters]
    if (old.min_players, old.max_players) != (new.min_players, new.max_players):
        changes.append(f"players {old.min_players}-{old.max_players} → {new.min_players}-{new.max_players}")
    return f"Card file: {', '.join(changes)}." if changes else None
