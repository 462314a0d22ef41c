"""Every command a front-end offers: the ones every game shares, then each rule set's own.

A rule set's commands are refused in a channel whose game is of another rule set (`check_ruleset`).
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

import engine  # noqa: F401  (registers every rule set)
from engine import chartspec, clock, gm
from engine.errors import BadInput, RuleViolation
from engine.game import GM_ONLY
from engine.history import MAX_TURN
from engine.rulesets import RULESETS, RuleSet, default_ruleset, on_register, ruleset
from engine.vocabulary import (
    CHART_FILE,
    CONSOLE,
    LIST,
    MAX_TOML_FILE,
    TEXT,
    Command,
    File,
    Group,
    Param,
    Player,
    Role,
    build_action,
    coerce_options,
    parse_dice,
)

__all__ = ["BY_PATH", "COMMANDS", "GUIDE", "MAX_TOML_FILE", "PREFIXES", "Command", "Param", "build_action",
           "check_ruleset", "check_start", "choices", "coerce_options", "find_command", "group_commands", "help_groups",
           "help_lines", "help_sections", "parse_dice", "unknown_command"]

P = Param

MAX_EXPORT_BYTES = 5_000_000
"""The largest export file /game import reads."""
MAX_UNDO_STEPS = 20
"""The most actions one /gm undo takes back."""
MAX_PURPOSE = 16
"""Characters of /log rolls' purpose filter (it rides in the page buttons' custom ids)."""
MAX_PAGE = 100_000
"""The furthest page of the ledger or the GM's log asked for."""
MAX_PAGE_SIZE = 25
"""The most rolls one page of the ledger shows."""
DEFAULT_PAGE_SIZE = 10
"""How many rolls a page of the ledger shows when not told."""
MAX_TURN_FILTER = 100_000
"""The highest turn of /log rolls' filters."""
OVERWRITE = P("overwrite", bool, help="console: true to replace an existing file", only=CONSOLE)


def _dice(o: dict[str, Any]) -> Any:
    """/gm dice as an action (the dispatcher decides the binding's default by front-end: `gm.binding`)."""
    text = str(o["values"]).strip()
    if text.lower() == "clear":
        return gm.ClearDice()
    return gm.QueueDice(parse_dice(text), gm.binding(o.get("player"), o.get("purpose"), GM_ONLY))


def _game_start() -> Command:
    """/game start, offering every registered rule set (the first is the default) and the start options of each
    (`RuleSet.start_params`, in registry order), each described by the rule sets that take it."""
    names = tuple(RULESETS)
    return Command("game start", "start a game here; you are its GM",
                   (P("ruleset", help=f"the rule set (default {names[0] if names else 'none'})", choices=names),
                    *start_params()))


def start_params() -> list[Param]:
    """The union of the registered rule sets' start options, in registry order: an option several take is offered
    once, its help prefixed by their titles and its range wide enough for each (each rule set checks its own)."""
    merged: dict[str, tuple[Param, list[str]]] = {}
    for found in RULESETS.values():
        for param in found.start_params:
            if param.name not in merged:
                merged[param.name] = (param, [found.title])
                continue
            first, takers = merged[param.name]
            if (param.kind, param.words, param.choices) != (first.kind, first.words, first.choices):
                raise RuntimeError(f"start option {param.name} differs between {takers[0]} and {found.title}")
            merged[param.name] = (replace(first, low=_least(first.low, param.low), high=_most(first.high, param.high)),
                                  [*takers, found.title])
    return [replace(param, help=f"{', '.join(takers)}: {param.help}") for param, takers in merged.values()]


def _least(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else min(a, b)


def _most(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else max(a, b)


def check_start(options: dict[str, Any]) -> RuleSet[Any]:
    """The rule set /game start's options name (the default one: the first), refusing in one line an option it
    does not take (`RuleSet.check_start`)."""
    found = ruleset(options.get("ruleset") or default_ruleset().name)
    found.check_start({name: value for name, value in options.items() if name != "ruleset"})
    return found


GAME_AFTER_START = (
    Command("game status", "where this channel's game stands"),
    Command("game list", "the games running in this server: channel, rule set, turn, who owes a move, deadline",
            private=True),
    Command("game digest", "everything since a time or the GM's last digest, for a turn post: actions, rolls, "
                           "turn ends, battles",
            (P("since", help='a UTC time (2026-03-01T12:00) or a span back (12h, 2d, 90m); default: the last digest or '
                             'the start', low=1, high=40),)),
    Command("game chart", "each side's strength over the game as a picture (Nations: LAND; God Dice: life; "
                          "Godsfire: systems)",
            CHART_FILE, chart=chartspec.game_chart, shows_ended=True),
    Command("game page", "the link to this game's page on the web: standings, charts, ledger and story, always "
                         "current", shows_ended=True, private=True),
    Command("game end", "end this game (GM)",
            (P("confirm", bool, help="console: true to end it after reading what would end (Discord asks with "
                                     "buttons)", only=CONSOLE),),
            action=lambda o: clock.EndGame(), gm_only=True),
    Command("game import", "load a game from a JSON export into a channel with no game; you become its GM",
            (P("file", File, required=True, help="a JSON export of a game (from /gm export)", words=TEXT,
               high=MAX_EXPORT_BYTES),), private=True, slow=True, file_what="an export"),
)
LOG = (Command("log rolls", "the roll ledger, newest first, a page at a time (filters: who, purpose, turns, "
                            "GM-entered, free)",
               (P("nation", help="Nations: one nation's; God Dice: one player's", words=TEXT, low=1, high=100,
                  complete="side"),
                P("purpose", help="rolls whose purpose contains this, e.g. recruit or attack", words=TEXT, low=1,
                  high=MAX_PURPOSE),
                P("turn_from", int, help="from this turn on", low=1, high=MAX_TURN_FILTER),
                P("turn_to", int, help="up to this turn", low=1, high=MAX_TURN_FILTER),
                P("gm_entered", bool, help="true: only dice the GM entered (/gm dice)"),
                P("free", help="free rolls (/roll): include (default), only or exclude",
                  choices=("include", "only", "exclude")),
                P("page", int, help="which page (1: the newest rolls)", low=1, high=MAX_PAGE),
                P("limit", int, help=f"how many rolls a page shows (default {DEFAULT_PAGE_SIZE})", low=1,
                  high=MAX_PAGE_SIZE))),
       Command("log export", "the whole roll ledger as a file: CSV (one row a die) or JSON",
               (P("format", required=True, help="CSV (for a spreadsheet: one row a die) or JSON",
                  choices=("csv", "json")),
                P("file", help="console: a file under the working folder or $REFEREE_EXPORT_DIR", words=TEXT,
                  only=CONSOLE),
                OVERWRITE), private=True, slow=True),
       Command("log gm", "the GM's log: every GM act with who, when and before → after, newest first",
               (P("page", int, help="which page (1: the newest acts)", low=1, high=MAX_PAGE),)),
       Command("log game", "the story of a turn in order: actions, rolls, battles, turn ends, expiries (default: "
                           "this turn)",
               (P("turn", int, help="which turn (default: the current one)", low=1, high=MAX_TURN),)),
       Command("log fairness", "are the dice fair? each die's faces against a fair die's, chi-square tested "
                               "(GM-entered dice apart)", slow=True),
       Command("log secret", "secret rolls (/roll secret:true): yours, or every one for the GM, with their dice",
               shows_ended=True, private=True),
       Command("log reveal", "show a secret roll to everyone, with the time it was made (its roller or the GM)",
               (P("roll", int, required=True, help="the secret roll's number (/log secret lists them)", low=1,
                  high=2**53),), shows_ended=True))
ROLL = (Command("roll", "roll any dice — a free roll, not a rule roll (shown in /log when a game runs here)",
                (P("dice", required=True,
                   help='dice as dice bots write them, e.g. 2d6+3, 4d6kh3, 2d20kh1, "1d20 adv", "1d20+2 dis"',
                   words=TEXT, low=1, high=100),
                 P("secret", bool, help="true: only you and the game's GM see it, until one of you reveals it "
                                        "(/log reveal)", named_only=True))),)
DM_REMINDERS_ON_DISCORD = ("reminders by direct message are a Discord feature; here, /game digest shows what happened "
                          "since you last looked (nothing changed)")


def _discord_only(o: dict[str, Any]) -> Any:
    """/remind me is answered by the Discord front-end itself; any other front-end refuses it, changing nothing."""
    raise BadInput(DM_REMINDERS_ON_DISCORD)


REMIND = (Command("remind me", "your reminders in this game by direct message: your turn's end, a choice or "
                               "move that waits for you",
                  (P("dm", choices=("on", "off"), help="on: reminders by DM in this game; off: the channel's "
                                                       "mentions only"),
                   P("before", help="how long before your turn ends the reminder comes: 10m to 24h (default 2h)",
                     low=1, high=40),
                   P("quiet", help="your quiet hours, all games: DMs wait till they end, e.g. 23:00-07:30; off: none",
                     words=TEXT, low=1, high=60),
                   P("timezone", help="the time zone of your quiet hours, e.g. Europe/Paris or +02:00",
                     low=1, high=40, complete="timezone")),
                  action=_discord_only, private=True),)
GM_DICE = (
    Command("gm dice", "enter the next dice by hand, secret until rolled (\"clear\" empties, \"waiting\" lists)",
            (P("values", required=True,
               help='the dice in the order they will be rolled, e.g. "7 3 10"; "clear" empties; "waiting" lists',
               words=LIST),
             P("player", Player, help="the player whose next roll takes them (default: your own commands' rolls)",
               named_only=True),
             P("purpose", help='a roll whose purpose holds this word takes them, e.g. initiative, combat, "battle #3"',
               words=TEXT, low=1, high=40, named_only=True)),
            action=_dice, gm_only=True, private=True),
)
GM_CLOCK = (
    Command("gm clock pause", "pause the game's clock: every deadline (turn end, choices, bonuses) waits",
            action=lambda o: clock.PauseClock(), gm_only=True),
    Command("gm clock resume", "run the clock again: each deadline gets back the time it had left",
            action=lambda o: clock.ResumeClock(), gm_only=True),
)
GM_LATE = (
    Command("gm undo", "undo the game's last action (or last N), rolls included, after a preview",
            (P("steps", int, help=f"how many of the last actions to take back at once: 1 to {MAX_UNDO_STEPS} "
                                  "(default 1)", low=1, high=MAX_UNDO_STEPS),
             P("confirm", bool, help="console: true to undo after reading the preview (Discord asks with buttons)",
               only=CONSOLE)),
            gm_only=True, private=True, slow=True),  # slow: its preview replays the game's log
    Command("gm house", "change a house setting for this game",
            (P("key", required=True, help="the house setting to change", complete="house_key"),
             P("value", required=True, help="its new value for this game", words=TEXT)),
            action=lambda o: gm.SetHouse(o["key"], str(o["value"])), gm_only=True),
    Command("gm export", "write this game as JSON",
            (P("file", help="console: a file under the working folder or $REFEREE_EXPORT_DIR", words=TEXT,
               only=CONSOLE), OVERWRITE),
            gm_only=True, private=True, slow=True),
    Command("gm page rotate", "a new link for the game's page: the old one stops working at once (a leaked link)",
            gm_only=True, shows_ended=True, private=True),
)


GM_PEOPLE = (
    Command("gm cogm add", "make a member a co-GM: the GM's powers in this game (GM only, not a co-GM)",
            (P("player", Player, required=True, help="the member who becomes a co-GM", low=1, high=100),),
            action=lambda o: gm.AddCoGM(o["player"]), gm_only=True),
    Command("gm cogm remove", "take a co-GM's powers back (GM only; a co-GM may step down)",
            (P("player", Player, required=True, help="the co-GM", low=1, high=100),),
            action=lambda o: gm.RemoveCoGM(o["player"]), gm_only=True),
    Command("gm handover", "hand this game to another member, its GM from now on; you stay a co-GM (GM only)",
            (P("player", Player, required=True, help="the new GM", low=1, high=100),),
            action=lambda o: gm.HandOver(o["player"]), gm_only=True),
)
SERVER_ON_DISCORD = ("a server's GM role is a Discord setting (/server gmrole, Manage Server); the console has no "
                     "servers (nothing changed)")


def _server_only(o: dict[str, Any]) -> Any:
    """/server gmrole is answered by the Discord front-end itself; any other front-end refuses it, changing nothing."""
    raise BadInput(SERVER_ON_DISCORD)


SERVER = (Command("server gmrole", "the role whose members are GMs of every game here: set, clear or see it "
                                   "(Manage Server)",
                  (P("role", Role, help="the server's GM role"),
                   P("clear", bool, help="true: no GM role set in the bot any more")),
                  action=_server_only, private=True),)


def _help(others: list[Command]) -> Command:
    """/help, offering the command groups of the other commands (and its own)."""
    groups = (*dict.fromkeys(c.path.split()[0] for c in others), "help")
    return Command("help", "the commands of one group with their options, or the groups",
                   (P("topic", help="a command group, e.g. nation, gm or godsfire (none: the list of groups)",
                      words=TEXT, choices=groups),), private=True)


GROUPS = (Group("game", "Start, follow and end this channel's game"),
          Group("log", "the roll ledger: its pages and files"),
          Group("gm", "Game master powers: the game's GM and co-GMs", gm_only=True),
          Group("gm clock", "The game's clock: pause and resume every deadline"),
          Group("gm page", "The game's page on the web"),
          Group("gm cogm", "Co-GMs: members with the GM's powers in this game"),
          Group("remind", "Your reminders by direct message"),
          Group("server", "This server's referee settings (Manage Server)", manage_server=True))
"""The groups of the commands every game shares, as a front-end shows them."""


def _assemble() -> list[Command]:
    own = [replace(c, ruleset=rs.name) for rs in RULESETS.values() for c in rs.commands]
    play = [c for c in own if not c.path.startswith("gm ")]
    gm_powers = [c for c in own if c.path.startswith("gm ")]
    listed = [_game_start(), *GAME_AFTER_START, *play, *LOG, *ROLL, *REMIND, *GM_DICE, *gm_powers, *GM_CLOCK,
              *GM_LATE, *GM_PEOPLE, *SERVER]
    return [*listed, _help(listed)]


COMMANDS: list[Command] = []
"""Every command, shared ones and each registered rule set's (rebuilt in place when a rule set registers)."""
BY_PATH: dict[str, Command] = {}
PREFIXES: set[str] = set()
"""Every start of a command path ("godsfire", "godsfire system", "godsfire system add")."""


def rebuild() -> None:
    """The command table anew from the registry, in place (modules that imported it see the new one)."""
    commands = _assemble()
    by_path = {c.path: c for c in commands}
    if len(by_path) != len(commands):
        raise RuntimeError("two commands share a path")
    COMMANDS[:] = commands
    BY_PATH.clear()
    BY_PATH.update(by_path)
    PREFIXES.clear()
    PREFIXES.update(" ".join(c.path.split()[:n]) for c in commands for n in range(1, len(c.path.split()) + 1))


rebuild()
on_register(rebuild)


def guide() -> str:
    """/help's last line: the guide of each rule set that has one, in docs/ (its `help_topic`)."""
    guides = [r.help_topic for r in RULESETS.values() if r.help_topic]
    listed = ", ".join(guides[:-1]) + f" and {guides[-1]}" if len(guides) > 1 else "".join(guides)
    return (f"How to play each game with the referee, every command and every ruling: {listed} in the referee's "
            "repository (its README says how to run it).")


GUIDE = guide()


def help_groups() -> dict[str, list[Command]]:
    """The commands by their first word (`/economy …`, `/gm …`, `/godsfire …`), in the vocabulary's order."""
    groups: dict[str, list[Command]] = {}
    for command in COMMANDS:
        groups.setdefault(command.path.split()[0], []).append(command)
    return groups


HELP_TITLE = "Referee commands (/help topic:<group> for one group's options)"
SHARED = "Every game"  # the heading of the commands every game shares


def help_sections(game: str | None = None) -> list[tuple[RuleSet[Any] | None, dict[str, list[Command]]]]:
    """/help's commands for a channel, in sections: a rule set with its own commands, or None with the ones
    every game shares. With a game (`game`: its rule set's name), its rule set's first, then the shared ones;
    without one, the shared ones, then each rule set's (how to start it: `/game start ruleset:<name>`). A
    section's groups go by their first word, in the vocabulary's order; a group may be in two sections, each
    with its own commands (/gm: the GM commands every game has, and each rule set's own)."""

    def section(name: str | None) -> dict[str, list[Command]]:
        groups: dict[str, list[Command]] = {}
        for command in COMMANDS:
            if command.ruleset == name:
                groups.setdefault(command.path.split()[0], []).append(command)
        return groups

    if game is not None and game in RULESETS:
        return [(RULESETS[game], section(game)), (None, section(None))]
    return [(None, section(None)), *((found, section(found.name)) for found in RULESETS.values())]


def group_commands(topic: str, game: str | None = None) -> tuple[str, list[Command]]:
    """`/help topic:`'s group (its first word: "gm") and its commands: in a game, the ones that game takes (the
    shared ones and its rule set's; the whole group when it has none of those), else all. Refuses an unknown
    topic with the groups there are."""
    groups = help_groups()
    words = str(topic).strip().lstrip("/").split()
    key = words[0].lower() if words else ""
    if key not in groups:
        raise BadInput(f"no command group {topic!r}; groups: {', '.join(groups)}")
    taken = [c for c in groups[key] if c.ruleset is None or c.ruleset == game]
    return key, taken if game is not None and game in RULESETS and taken else groups[key]


def help_lines(topic: str | None = None, game: str | None = None) -> tuple[str, list[str]]:
    """`/help`'s title and lines for a channel whose game is of rule set `game` (None: no game): its rule set's
    groups with their commands' names, then the shared ones (`help_sections`); without a game, the shared ones,
    then each rule set's under how to start it. With `topic`, one group's commands with their options."""
    if topic:
        key, commands = group_commands(topic, game)
        lines = []
        for command in commands:
            options = " ".join(f"{p.name}:" if p.required else f"[{p.name}:]" for p in command.params)
            lines.append(f"/{command.path}{' ' + options if options else ''} — {command.described}")
        return f"/{key} commands", lines
    lines = []
    for found, groups in help_sections(game):
        if found is None:
            lines.append(f"{SHARED}:")
        elif found.name == game:
            lines.append(f"{found.title} (this game):")
        else:
            lines.append(f"{found.title} (/game start ruleset:{found.name}):")
        for word, commands in groups.items():
            if [c.path for c in commands] == [word]:  # a command of its own, not a group: what it does
                lines.append(f"/{word} — {commands[0].help}")
                continue
            names = ", ".join(c.path.split(" ", 1)[1] if " " in c.path else c.path for c in commands)
            lines.append(f"/{word}: {names}")
    return HELP_TITLE, lines


def find_command(words: list[str]) -> tuple[Command, list[str]]:
    """The longest command path that starts `words`, and the words left over."""
    for length in (3, 2, 1):
        path = " ".join(w.lower() for w in words[:length])
        if len(words) >= length and path in BY_PATH:
            return BY_PATH[path], words[length:]
    raise unknown_command(words)


def unknown_command(words: list[str], typed: str | None = None) -> BadInput:
    """The refusal of a command line that names no command: a group alone lists its subcommands; a wrong word
    names the closest one and what the group has. `typed` is the word after `words` (not an option), if any."""
    words = [w.lower() for w in words]
    for tried in (words, [*words, (typed or "").lower()]):
        moved = next((r.renamed[" ".join(tried)] for r in RULESETS.values() if " ".join(tried) in r.renamed), None)
        if moved is not None:
            return BadInput(f"/{' '.join(tried)} is now /{moved}: /help topic:{moved.split()[0]} lists it")
    depth = next((n for n in range(len(words), 0, -1) if " ".join(words[:n]) in PREFIXES), 0)
    wrong = words[depth] if depth < len(words) else (typed.lower() if typed and ":" not in typed else None)
    group = " ".join(words[:depth])
    subs = sorted({p.split()[depth] for p in BY_PATH if p.split()[:depth] == words[:depth] and len(p.split()) > depth})
    listed = ", ".join(f"/{group} {s}" for s in subs) if len(subs) <= 3 else ", ".join(subs)
    if wrong is None:
        return BadInput(f"/{group} needs a subcommand: {listed}")
    close = difflib.get_close_matches(wrong, subs, n=1, cutoff=0.6)
    guess = f" — did you mean /{' '.join([*words[:depth], close[0]])}?" if close else ";"
    if not depth:
        return BadInput(f"unknown command /{wrong}{guess} try /help")
    return BadInput(f"unknown command /{group} {wrong}{guess} /{group} has: {listed}")


def choices(path: str, param: str) -> tuple[str, ...]:
    """The fixed values a command's option offers (for Discord's choice lists)."""
    return next(p.choices for p in BY_PATH[path].params if p.name == param)


def check_ruleset(command: Command, game_ruleset: str) -> None:
    """Refuse a rule set's command in a game of another rule set (`game_ruleset`), with the reason."""
    if command.ruleset is not None and command.ruleset != game_ruleset:
        raise RuleViolation(f"/{command.path} is a {ruleset(command.ruleset).title} command, and this channel's "
                            f"game is {ruleset(game_ruleset).title}")
