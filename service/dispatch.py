"""One front-end interface: a command of the table, with its options typed, in → a reply out.

Every front-end (the console, Discord, a future forum bot or web form) parses what its user did into a `Request`
— the channel, who, which command with which options, whether a step that asks first was confirmed — and hands it
to `Dispatcher.run`, which checks it, runs it through the referee and returns a reply (`service.replies`): an action's
events, a view, a file, a chart, a page of the ledger, a question. The front-end renders the reply. Nothing here
knows a rule set or a front-end by name: what a front-end offers (its page links, its own words) it says in `Front`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from engine import clock, gm
from engine.commands import Command, build_action, check_ruleset, check_start, group_commands, help_lines
from engine.describe import plural
from engine.dice import REVEALED_MARK
from engine.errors import BadInput, NotGM, RuleViolation
from engine.fairness import game_fairness
from engine.game import ANYONE
from engine.rulesets import default_ruleset, ruleset_of
from engine.toml_text import parse_toml
from engine.view import At, Person, item, line, view
from engine.vocabulary import CONSOLE
from service import gmlog, ledger
from service.imports import imported_summary, read_export
from service.referee import BUSY, Referee
from service.replies import (
    Asked,
    Attached,
    Changed,
    Digested,
    Drawn,
    GmLogPage,
    Helped,
    Judged,
    Linked,
    Listed,
    Reply,
    Rolled,
    RollsPage,
    Shown,
    Told,
)
from service.story import game_story

NO_PAGES = ("this bot serves no game pages: its host turns them on with WEB_PORT (and PUBLIC_URL, the address players "
            "see); nothing changed")


class PageLinks(Protocol):
    """The game pages' web server, as the dispatcher sees it: a game's page link from its token."""

    def url(self, token: str) -> str: ...


@dataclass(frozen=True)
class Upload:
    """A file a user gave (an attachment, a file named in the console): its name, and its bytes when read (`read`:
    at most the option's `high` bytes, else BadInput)."""

    name: str
    read: Callable[[], Awaitable[bytes]]


@dataclass(frozen=True)
class Front:
    """What a front-end is and offers: its name (`Param.only`), the game pages' links when it serves them, and its
    own words where a refusal should say what to do there (`busy`: a channel with a game running)."""

    name: str
    pages: PageLinks | None = None
    no_pages: str = NO_PAGES
    busy: str = BUSY


@dataclass(frozen=True)
class Request:
    """One command as a user gave it: where (`channel`: the store's key, `guild_id`: its server), who (`actor`: as
    stored; `gm_role`: the front-end's own GM permission), what (`command` and its typed `options`; `text`: the
    command as the game's log records it), and whether a step that asks first (an undo, a game's end) is
    `confirmed`. `key`: the front-end's id of what its user did (Discord's interaction id, the console's line id):
    the command's idempotency key — a retry with it answers the first outcome and applies nothing twice, and a
    commit whose connection was lost is looked up rather than guessed (no key: no such guard)."""

    channel: str
    actor: str
    command: Command
    options: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    gm_role: bool = False
    guild_id: int | None = None
    confirmed: bool = False
    key: str | None = None

    @property
    def logged(self) -> str:
        """The command as the log records it: as typed, else its path."""
        return self.text or f"/{self.command.path}"


Handler = Callable[["Dispatcher", Request], Awaitable[Reply]]
SHARED: dict[str, Handler] = {}
"""The commands every game shares that are not one engine action, by path."""


def handles(path: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        SHARED[path] = handler
        return handler

    return register


class Dispatcher:
    """Runs one request of one front-end against the referee."""

    def __init__(self, referee: Referee, front: Front) -> None:
        self.referee = referee
        self.front = front

    async def run(self, request: Request) -> Reply:
        """The reply to one request; a refusal raises (a `RefereeError`, in one line) and changes nothing."""
        command = request.command
        handler = SHARED.get(command.path)
        if handler is not None:
            return await handler(self, request)
        referee, channel = self.referee, request.channel
        if command.chart is not None:  # a picture of the stat history
            return Drawn(chart=await referee.chart(channel, command, request.options))
        if command.view is not None:  # a query: its rule set's view
            shown, state = await referee.show(channel, command, request.actor, request.options)
            return Shown(view=shown, over=state.ended, private=command.private, subject=state)
        return await self.act(request)

    async def act(self, request: Request) -> Changed:
        """A command that is one engine action (its TOML file read first, when it takes one)."""
        command, options = request.command, dict(request.options)
        lead = None
        if command.toml_option is not None and isinstance(options.get(command.toml_option), Upload):
            upload: Upload = options[command.toml_option]
            state = await self.referee.state(request.channel)
            check_ruleset(command, state.ruleset)
            if command.gm_only and not self.referee.is_gm(state, request.actor, request.gm_role):
                raise NotGM(f"only the GM may use /{command.path}")  # before any file is read
            try:
                options[command.toml_option] = parse_toml((await upload.read()).decode("utf-8"))
            except ValueError as err:  # UnicodeDecodeError, TOMLDecodeError, nested too deeply
                raise BadInput(f"cannot read {upload.name} as {command.file_what}: {err}") from None
            lead = f"{upload.name} read."
        action = build_action(command, options)
        report = await self.referee.act(request.channel, request.actor, action, request.logged,
                                        gm_role=request.gm_role, vocabulary=command, key=request.key)
        return Changed(report=report, lead=lead)

    def page_links(self) -> PageLinks:
        if self.front.pages is None:
            raise BadInput(self.front.no_pages)
        return self.front.pages


# --- /help and /game ---------------------------------------------------------------------------------


@handles("help")
async def _help(dispatcher: Dispatcher, request: Request) -> Reply:
    topic = request.options.get("topic")
    help_lines(topic)  # an unknown topic is refused, with the groups there are
    game = await dispatcher.referee.store.live_ruleset(request.channel)
    if topic:
        group_commands(topic, game)
    return Helped(topic=topic, game=game, private=True)


@handles("game start")
async def _start(dispatcher: Dispatcher, request: Request) -> Reply:
    referee, options = dispatcher.referee, request.options
    if request.key is not None and (first := await referee.repeated(request.key)) is not None:
        return Changed(report=first)  # a retry of a start that committed: its first answer
    if await referee.store.live_game(request.channel) is not None:
        raise RuleViolation(dispatcher.front.busy)
    found = check_start(options)  # an option its rule set does not take, refused before anything is created
    report = await referee.start_game(request.channel, request.actor, guild_id=request.guild_id,
                                      command=request.logged, ruleset_name=found.name, busy=dispatcher.front.busy,
                                      params={k: v for k, v in options.items() if k != "ruleset"}, key=request.key)
    return Changed(report=report)


@handles("game status")
async def _status(dispatcher: Dispatcher, request: Request) -> Reply:
    state = await dispatcher.referee.shown_state(request.channel)  # no live game: the last one, over
    shown = ruleset_of(state).status(state, dispatcher.referee.rules_for(state.ruleset))
    return Shown(view=shown, over=state.ended, subject=state)


@handles("game list")
async def _list(dispatcher: Dispatcher, request: Request) -> Reply:
    # For the asker alone: its order is theirs (their games as GM first), and a list of every game posted in a
    # game's channel would interrupt the play there and go stale at once.
    return Listed(games=await dispatcher.referee.game_list(request.actor, request.guild_id), private=True)


@handles("game digest")
async def _digest(dispatcher: Dispatcher, request: Request) -> Reply:
    digest = await dispatcher.referee.digest(request.channel, request.actor, request.options.get("since"),
                                             gm_role=request.gm_role)
    return Digested(digest=digest)


@handles("game page")
async def _page(dispatcher: Dispatcher, request: Request) -> Reply:
    # For the asker alone: the link is a secret (whoever has it reads the page); they share it as they see fit.
    links = dispatcher.page_links()
    referee = dispatcher.referee
    game_id = await referee.shown_game_id(request.channel)
    url = links.url(await referee.page_token(request.channel))
    return Linked(url=url, game_id=game_id, ended=await referee.store.live_game(request.channel) is None,
                  private=True)


@handles("game end")
async def _end(dispatcher: Dispatcher, request: Request) -> Reply:
    referee = dispatcher.referee
    if request.confirmed or request.options.get("confirm"):
        report = await referee.act(request.channel, request.actor, clock.EndGame(), request.logged,
                                   gm_role=request.gm_role, vocabulary=request.command, key=request.key)
        return Changed(report=report)
    game_id = await referee.game_id(request.channel)
    state = await referee.state(request.channel)
    if not referee.is_gm(state, request.actor, request.gm_role):
        raise NotGM("only the GM may end the game")
    # The standings it will post: its rule set's final results, as the game stands now.
    final = ruleset_of(state).final_standings
    standings = final(state) if final is not None else None
    return Asked(what="end", game_id=game_id, standings=standings, subject=state, private=True)


@handles("gm dice")
async def _gm_dice(dispatcher: Dispatcher, request: Request) -> Reply:
    """/gm dice: the GM's entered dice, answered to the GM alone and logged without their values ("4 dice
    entered"): nobody else sees them before a roll uses them (the ledger shows them then, marked GM-entered).
    Without player: or purpose: they go to the GM's own commands' rolls on Discord, and to the next roll on the
    console (whose one screen is the GM's: the GM types every line there). "waiting" lists them, to the GM alone."""
    referee, options = dispatcher.referee, request.options
    if str(options.get("values") or "").strip().lower() == "waiting":
        state = await referee.state(request.channel)
        if not referee.is_gm(state, request.actor, request.gm_role):
            raise NotGM("only the GM may see the entered dice waiting")
        return Shown(view=gm.waiting_view(state), over=state.ended, private=True, subject=state)
    action = build_action(request.command, options)
    logged = "/gm dice values:clear"
    if isinstance(action, gm.QueueDice):
        if dispatcher.front.name == CONSOLE and not options.get("player") and not options.get("purpose"):
            action = gm.QueueDice(action.values, ANYONE)
        kind, _, what = action.bound.partition(":")
        logged = (f"/gm dice values:({plural(len(action.values), 'die')} entered)"
                  + (f" {kind}:{what}" if kind in ("player", "purpose") else ""))
    report = await referee.act(request.channel, request.actor, action, logged, gm_role=request.gm_role,
                               vocabulary=request.command, key=request.key)
    return Changed(report=report, private=True)


@handles("game import")
async def _import(dispatcher: Dispatcher, request: Request) -> Reply:
    referee = dispatcher.referee
    if await referee.store.live_game(request.channel) is not None:  # before any file is read
        raise RuleViolation("this channel already has a game running: end it first with /game end")
    upload: Upload = request.options["file"]
    raw = await upload.read()  # (a file that cannot be read is refused by its reader, naming it)
    try:
        data = await asyncio.to_thread(read_export, raw)  # size, UTF-8, JSON, nesting (off the event loop)
    except BadInput as err:
        raise BadInput(f"cannot import {upload.name}: {err}") from None
    report = await referee.import_game(request.channel, request.actor, data, guild_id=request.guild_id,
                                       command=f"/game import file:{upload.name}")
    # For the importer alone: the channel sees the game in its status.
    return Changed(report=report, lead=f"{imported_summary(report.state, upload.name)}; GM: {request.actor}.",
                   events=False, private=True)


# --- /log and /roll ----------------------------------------------------------------------------------


@handles("log rolls")
async def _rolls(dispatcher: Dispatcher, request: Request) -> Reply:
    options = request.options
    game_id, where = await ledger.filter_for(
        dispatcher.referee, request.channel, who=options.get("nation"), purpose=options.get("purpose"),
        turn_from=options.get("turn_from"), turn_to=options.get("turn_to"),
        gm_entered=bool(options.get("gm_entered", False)), free=options.get("free"))
    size = options.get("limit", ledger.DEFAULT_PAGE_SIZE)
    shown = await ledger.ledger_page(dispatcher.referee.store, game_id, where, options.get("page", 1), size)
    return RollsPage(game_id=game_id, where=where, size=size, page=shown)


@handles("log export")
async def _log_export(dispatcher: Dispatcher, request: Request) -> Reply:
    fmt = request.options["format"]
    store = dispatcher.referee.store
    game_id = await dispatcher.referee.shown_game_id(request.channel)

    async def write(handle: IO[bytes]) -> int:
        return await ledger.write_ledger(store, game_id, fmt, handle)

    return Attached(name=f"roll-ledger.{fmt}", caption="The roll ledger", write=write, what="roll", private=True,
                    written="Wrote the roll ledger ({count}) to {path}")


@handles("log fairness")
async def _fairness(dispatcher: Dispatcher, request: Request) -> Reply:
    store = dispatcher.referee.store
    game_id = await dispatcher.referee.shown_game_id(request.channel)
    state = await store.load(game_id)
    rolls = await store.rolls(game_id, include_free=False)
    # counted off the event loop: the first test loads scipy, and a long ledger takes a moment to count
    return Judged(judged=await asyncio.to_thread(game_fairness, state, rolls))


@handles("log game")
async def _story(dispatcher: Dispatcher, request: Request) -> Reply:
    game_id = await dispatcher.referee.shown_game_id(request.channel)
    return Told(game_id=game_id, story=await game_story(dispatcher.referee, game_id, request.options.get("turn")))


@handles("log gm")
async def _gm_log(dispatcher: Dispatcher, request: Request) -> Reply:
    game_id = await dispatcher.referee.shown_game_id(request.channel)
    shown, lines = await gmlog.gm_page(dispatcher.referee.store, game_id, request.options.get("page", 1))
    return GmLogPage(game_id=game_id, page=shown, lines=lines)


@handles("roll")
async def _roll(dispatcher: Dispatcher, request: Request) -> Reply:
    if request.options.get("secret"):
        secret, number = await dispatcher.referee.secret_roll(request.channel, request.actor,
                                                              request.options["dice"], key=request.key)
        return Rolled(roll=secret, logged=True, secret=True, number=number, private=True)
    roll, logged = await dispatcher.referee.free_roll(request.channel, request.actor, request.options["dice"],
                                                      key=request.key)
    return Rolled(roll=roll, logged=logged)


@handles("log secret")
async def _secrets(dispatcher: Dispatcher, request: Request) -> Reply:
    found, gm = await dispatcher.referee.secret_rolls(request.channel, request.actor, request.gm_role)
    title = "Secret rolls (you are the GM: every player's)" if gm else "Your secret rolls"
    if not found:
        return Shown(view=view(title, "None yet: /roll dice:… secret:true rolls one."), private=True)
    lines = [item(f"#{number} — ", At(roll.at), " — ", Person(roll.nation or ""), f": {roll.free}",
                  " (revealed)" if revealed else " (hidden from the others: /log reveal roll:" + f"{number})")
             for number, roll, revealed in found]
    return Shown(view=view(title, *lines), private=True)


@handles("log reveal")
async def _reveal(dispatcher: Dispatcher, request: Request) -> Reply:
    number = int(request.options["roll"])
    roll, was_secret = await dispatcher.referee.reveal(request.channel, request.actor, number, request.gm_role)
    shown = line(Person(roll.nation or ""), f"'s secret roll #{number}, made ", At(roll.at),
                 f": {str(roll.free).removeprefix(REVEALED_MARK)}")
    said = line("Revealed by ", Person(request.actor), "." if was_secret else " (it was revealed before).")
    return Shown(view=view(f"🔓 Secret roll #{number} revealed", shown, said))


# --- /gm ---------------------------------------------------------------------------------------------


@handles("gm undo")
async def _undo(dispatcher: Dispatcher, request: Request) -> Reply:
    referee, steps = dispatcher.referee, request.options.get("steps", 1)
    if request.confirmed or request.options.get("confirm"):
        return Changed(report=await referee.undo(request.channel, request.actor, gm_role=request.gm_role,
                                                 steps=steps))
    # The preview first: what it would take back; a confirmation names those actions, so that it undoes them
    # once, and only while they are still the last ones.
    preview = await referee.preview_undo(request.channel, request.actor, steps, gm_role=request.gm_role)
    return Asked(what="undo", game_id=preview.game_id, preview=preview, private=True)


@handles("gm export")
async def _export(dispatcher: Dispatcher, request: Request) -> Reply:
    referee = dispatcher.referee
    state = await referee.shown_state(request.channel)  # the live game, else the channel's last ended one
    if not referee.is_gm(state, request.actor, request.gm_role):
        raise NotGM("only the GM may export the game")
    data = await referee.export(request.channel)
    name = f"{data['game'].get('ruleset') or default_ruleset().name}-game.json"
    said = "The channel's last game, ended: its export." if data["game"].get("ended") else "The game's export:"
    return Attached(name=name, caption=said, data=json.dumps(data, indent=2).encode("utf-8"), private=True,
                    written="Game exported to {file}.")


@handles("gm page rotate")
async def _rotate(dispatcher: Dispatcher, request: Request) -> Reply:
    links = dispatcher.page_links()
    referee = dispatcher.referee
    token = await referee.rotate_page_token(request.channel, request.actor, gm_role=request.gm_role)
    return Linked(url=links.url(token), game_id=await referee.shown_game_id(request.channel), rotated=True,
                  private=True)

