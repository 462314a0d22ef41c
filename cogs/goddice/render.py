"""God Dice on Discord: the dice as coloured faces, whose move it is, the table's status and the card file."""

from __future__ import annotations

from cogs.render import safe, who
from engine.goddice.cards import Cards
from engine.goddice.common import waiting_for
from engine.goddice.describe import MOVES
from engine.goddice.state import FAVOR, ROLLING, GoddiceState

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


