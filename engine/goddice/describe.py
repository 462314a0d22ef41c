"""Words for the God Dice events (the console's text and Discord's embeds share them)."""

from __future__ import annotations

from engine.describe import When, Who
from engine.events import Event, GameImported
from engine.goddice import events as ev
from engine.goddice.state import CHOOSE, DECLARE, DEFEND, DRAFT, FAVOR, OPENING, RESURRECT, RETARGET, ROLLING

MOVES = {
    CHOOSE: "choose to attack first or select first (/goddice choose first:attack|select)",
    DRAFT: "pick a character (/goddice pick)",
    DECLARE: "declare an attacker (/goddice declare)",
    DEFEND: "declare a defender (/goddice defend)",
    RESURRECT: "resurrect a character or decline (/goddice resurrect)",
    RETARGET: "name another player to attack (/goddice declare target:…)",
    OPENING: "make the opening roll (/goddice roll)",
    FAVOR: "keep or re-roll the opening roll (/goddice favor choice:keep|reroll)",
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


def event_line(event: Event, when: When, who: Who) -> str | None:
    """One line for one God Dice event, or None (for other rule sets' events, or events without words)."""
    match event:
        case ev.GoddiceStarted(gm=gm, options=options):
            extra = f" Optional rules: {', '.join(o.replace('_', ' ') for o in options)}." if options else ""
            return (f"A God Dice game begins, refereed by the bot; GM: {who(gm)}. Take a seat with /goddice join "
                    f"(2 to 4 players); the GM starts with /goddice begin.{extra}")
        case GameImported(snapshot=snap) if snap["game"].get("ruleset") == "goddice":
            return f"God Dice game imported with {len(snap['players'])} players."
        case ev.CardsLoaded(by=by):
            return f"GM {who(by)} loaded another card file for this game."
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
        case ev.AttackDiceSet(dice=dice):
            return f"   dice: {' '.join(dice)}"
        case ev.AttackMade(player=player, name=name, attack=attack, damage=damage, target_names=targets):
            hits = ", ".join(dict.fromkeys(targets)) if targets else "no one"
            return f"💥 {who(player)}'s {name}: {attack} for {damage} damage to {hits}."
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
    return None
