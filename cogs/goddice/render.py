"""God Dice on Discord: the dice as coloured faces, whose move it is, the table's status and the card file."""

from __future__ import annotations

import discord

from cogs.render import COLOUR, safe, text_embeds, who
from engine.describe import plural
from engine.goddice.cards import FACE_NAMES, Cards
from engine.goddice.common import character_label, label, legal_attacks, rollable, waiting_for
from engine.goddice.describe import MOVES, attack_text, cards_lines, life_bar
from engine.goddice.state import DRAFT, FAVOR, ROLLING, SEATING, GoddiceState

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


def status_embed(state: GoddiceState, rules: object = None) -> discord.Embed:
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


SHOWS = {"goddice status": lambda state, rules, actor, options: [status_embed(state)],
         "goddice cards": lambda state, rules, actor, options: cards_embeds(state.cards)}
"""God Dice's queries laid out its own way, by path."""
