"""The God Dice commands: `/goddice …` and its GM powers → God Dice actions (see `engine.vocabulary`)."""

from __future__ import annotations

from engine.goddice import actions, views
from engine.goddice.cards import MAX_LIFE
from engine.vocabulary import LIST, TEXT, Command, Group, Param, Player

P = Param
ROLL_TYPES = ("blue", "red", "yellow", "o", "5")
CHARACTER_TYPES = ("hero", "cleric", "monk", "bowman", "sage", "assassin")  # the shipped cards (a test checks)

COMMANDS: tuple[Command, ...] = (
    Command("goddice join", "take the next seat at the table (2-4 players, clockwise in join order)",
            (P("player", help="GM: seat someone else", kind=Player),), action=lambda o: actions.Join(o.get("player"))),
    Command("goddice begin", "close seating and run the opening roll-off (GM)", action=lambda o: actions.Begin(),
            gm_only=True),
    Command("goddice choose", "roll-off winner: attack first, or select the first character",
            (P("first", required=True, choices=("attack", "select"), help="attack or select"),),
            action=lambda o: actions.ChooseFirst(o["first"])),
    Command("goddice pick", "take a character card from the pool",
            (P("character", required=True, choices=CHARACTER_TYPES, help="the character"),),
            action=lambda o: actions.Pick(o["character"])),
    Command("goddice declare", "declare your attacking character (Free for All: and the player attacked)",
            (P("attacker", help="your character, e.g. hero or \"hero 2\"", words=TEXT, complete="living"),
             P("target", help="Free for All: the player you attack", complete="player")),
            action=lambda o: actions.Declare(o.get("attacker"), o.get("target"))),
    Command("goddice defend", "declare your defending character; the God dice are rolled at once",
            (P("character", required=True, help="your living character", words=TEXT, complete="living"),),
            action=lambda o: actions.Defend(o["character"])),
    Command("goddice roll", "the opening roll (no type), then all dice of one type, each type once",
            (P("type", choices=ROLL_TYPES, help="blue, red, yellow, o or 5; none for the opening roll"),),
            action=lambda o: actions.Roll(o.get("type"))),
    Command("goddice favor", "in favor: keep the opening roll or re-roll it once",
            (P("choice", required=True, choices=("keep", "reroll"), help="keep or reroll"),),
            action=lambda o: actions.Favor(o["choice"])),
    Command("goddice attack", "stop rolling and make a legal attack",
            (P("name", required=True, help="basic, a named attack or a Wild choice, e.g. lacerate", words=TEXT,
               complete="attack"),
             P("targets", help="Attack Any: the defending player's characters hit, one per arrow", words=LIST,
               complete="target"),
             P("heal", help="Heal Any: your wounded character healed", words=TEXT, complete="wounded")),
            action=lambda o: actions.MakeAttack(o["name"], o.get("targets"), o.get("heal"))),
    Command("goddice resurrect", "after doubles (Resurrection): raise a dead character, or decline",
            (P("character", required=True, help="your dead character, or decline", words=TEXT, complete="dead"),),
            action=lambda o: actions.Resurrect(o["character"])),
    Command("goddice status", "whose move it is, the dice, the types left and every legal attack",
            view=views.status_query, shows_ended=True),
    Command("goddice cards", "the characters and their attacks in this game's card file", view=views.cards_view),
    Command("gm life", "set a God Dice character's life",
            (P("player", required=True, help="the player", complete="player"),
             P("character", required=True, help="one of that player's characters, living or dead", words=TEXT,
               complete="any_character"),
             P("life", int, True, help="the new life (0 to the character's full life, at most 1000)", low=0,
               high=MAX_LIFE)),
            action=lambda o: actions.SetLife(o["player"], o["character"], o["life"]), gm_only=True),
    Command("gm cards", "load another God Dice card file for this game (before the draft)",
            (P("file", required=True, help="a card file like the bot's data/goddice.toml", words=TEXT),),
            action=lambda o: actions.LoadCards(o["file"]), gm_only=True, toml_option="file", file_what="a card file",
            slow=True),
)

GROUPS: tuple[Group, ...] = (Group("goddice", "God Dice: seats, draft, turns"),)
