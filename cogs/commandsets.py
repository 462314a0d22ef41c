"""Which slash commands each server sees: the ones every game needs everywhere (global commands), and a rule set's
own groups (the table's top-level commands all of whose rows are that rule set's: Nations' /nation, /army…) only on
the servers where a game of it is live (guild commands).

The bot's tree holds every command (an interaction for a server's command finds it through the tree's fallback to its
global commands); what is registered with Discord is sent here, not by `tree.sync`: one bulk overwrite (PUT) for a
set, sent only when the set changed — compared with the digest of the last set sent there, kept in the store
(`command_sets`, migration 022) so a restart that changes nothing sends nothing. A server's set is worked out again
from its live games when one starts, is imported or ends there (`changed`), and for every server at start: the
servers wait in one queue, each sent once however many changes it had meanwhile, one request after another,
`PACE` apart. A rule set's commands stay while a channel's game there is of it: its live game, else its last one
(an ended game's status and charts still answer); they go when every such channel has a game of another rule set.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Iterable
from typing import Any

import discord
import orjson
from discord import app_commands

from data.store import Store
from engine.commands import COMMANDS
from engine.rulesets import RULESETS
from service.referee import utc_now

log = logging.getLogger("referee.commands")
PACE = 1.0  # seconds between two bulk overwrites (Discord limits them; a day allows 200 command creates a server)
TASK = "referee-commands"  # the name of the task that sends the servers' sets
CHANGES = frozenset({"game start", "game import", "game end"})  # the commands after which a server's set may change


def owners() -> dict[str, str]:
    """Each top-level command that is a rule set's alone (every row under it is that rule set's) → its rule set."""
    found: dict[str, set[str | None]] = {}
    for command in COMMANDS:
        found.setdefault(command.path.split()[0], set()).add(command.ruleset)
    return {top: next(iter(rulesets)) for top, rulesets in found.items()  # type: ignore[misc]
            if len(rulesets) == 1 and None not in rulesets}


def digest(payload: list[dict[str, Any]]) -> str:
    """A set of commands' digest: what was sent, byte for byte in a canonical order."""
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class CommandSets:
    """The commands registered with Discord: the global set at start, each server's rule sets' in the background."""

    def __init__(self, client: discord.Client, tree: app_commands.CommandTree, store: Store,
                 pace: float = PACE) -> None:
        self.client, self.tree, self.store, self.pace = client, tree, store, pace
        self.owners = owners()
        self.global_ids: dict[str, int] = {}  # each global command's path → its top-level command's id
        self.guild_tops: dict[int, dict[str, int]] = {}  # a server's own commands: top-level name → id, when known
        self._queue: dict[int, None] = {}  # the servers to look at again, in order, each once
        self._fetch: dict[int, None] = {}  # servers whose commands' ids /help asked for
        self._unknown: set[int] = set()  # servers with commands registered before this process, ids not read yet
        self._task: asyncio.Task[None] | None = None
        self.sent = 0  # bulk overwrites sent by this process
        self.enabled = True  # (not with DISCORD_GUILD_ID: every command is on that server)

    # --- what is registered where -------------------------------------------------------------------

    def tops(self, rulesets: Iterable[str] | None) -> list[app_commands.Command[Any, ..., Any] | app_commands.Group]:
        """The tree's top-level slash commands: the global ones (`rulesets` None), or those rule sets' own (in the
        registry's order, each in the table's)."""
        wanted = set(rulesets) if rulesets is not None else None
        found = []
        order = {name: index for index, name in enumerate(RULESETS)}
        for top in self.tree.get_commands(type=discord.AppCommandType.chat_input):
            owner = self.owners.get(top.name)
            if (owner is None) if wanted is None else (owner in wanted):
                found.append((order.get(owner or "", -1), top))
        return [top for _, top in sorted(found, key=lambda pair: pair[0])]  # type: ignore[misc]

    def payload(self, rulesets: Iterable[str] | None) -> list[dict[str, Any]]:
        """The JSON of a set (`tops`) as Discord takes it; the global one with every context menu too."""
        sent = [top.to_dict(self.tree) for top in self.tops(rulesets)]
        if rulesets is None:
            sent += [menu.to_dict(self.tree) for menu in self.tree.get_commands()
                     if isinstance(menu, app_commands.ContextMenu)]
        return sent

    @property
    def app(self) -> int:
        """The application's id (known once the bot has logged in)."""
        if self.client.application_id is None:
            raise RuntimeError("the application's id is not known before the bot logs in")
        return self.client.application_id

    def scope(self, guild_id: int | None) -> str:
        return f"{self.client.application_id}:{'global' if guild_id is None else guild_id}"

    def ids(self, guild_id: int | None) -> dict[str, int]:
        """Each slash command's path → its top-level command's id in that server (for clickable mentions): the
        global ones', and its own rule sets' when known (else they are shown as text, and asked for)."""
        tops = self.guild_tops.get(guild_id) if guild_id is not None else None
        if guild_id is not None and guild_id in self._unknown:
            self._unknown.discard(guild_id)
            self._fetch[guild_id] = None
            self._wake()
        if not tops:
            return self.global_ids
        return {**self.global_ids, **{c.qualified_name: tops[c.qualified_name.split()[0]]
                                      for c in self.tree.walk_commands(type=discord.AppCommandType.chat_input)
                                      if isinstance(c, app_commands.Command) and c.qualified_name.split()[0] in tops}}

    # --- sending ----------------------------------------------------------------------------------

    async def start(self, sync: bool = True) -> None:
        """At start: the global set sent when it changed (else its ids read), and every server with a live game or
        a set registered before queued, to be looked at in the background. Not `sync`: the ids read, nothing
        sent."""
        payload = self.payload(None)
        sent = await self.store.command_sets(f"{self.client.application_id}:")
        scope = self.scope(None)
        before = {int(s.split(":", 1)[1]) for s in sent if s != scope and s.split(":", 1)[1].isdecimal()}
        self._unknown = set(before)
        if sync and sent.get(scope) != digest(payload):
            data = await self.client.http.bulk_upsert_global_commands(self.app, payload=payload)
            self.sent += 1
            await self.store.note_command_set(scope, digest(payload), utc_now())
        else:
            try:  # the commands registered before: their ids make /help's mentions
                data = await self.client.http.get_global_commands(self.app)
            except discord.HTTPException as err:
                log.warning("could not fetch the registered commands (/help shows them as text): %s", err)
                data = []
        self.global_ids = self._ids(data)
        if not sync:
            return
        for guild_id in sorted(before | set(await self.store.guild_rulesets())):
            self.changed(guild_id)

    def changed(self, guild_id: int | None) -> None:
        """Look at a server's set again (a game started, was imported or ended there), in the background."""
        if guild_id is None or not self.enabled:
            return
        self._queue[guild_id] = None
        self._wake()

    def _wake(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work(), name=TASK)

    async def settled(self) -> None:
        """Wait until every server queued has been looked at."""
        while self._task is not None and not self._task.done():
            await asyncio.wait([self._task])

    async def close(self) -> None:
        """Stop sending (a set not sent is sent at the next start: its digest was not recorded)."""
        self._queue.clear()
        self._fetch.clear()
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _work(self) -> None:
        while self._queue or self._fetch:
            if self._queue:
                guild_id = next(iter(self._queue))
                del self._queue[guild_id]
                asked = await self._sync(guild_id)
            else:
                guild_id = next(iter(self._fetch))
                del self._fetch[guild_id]
                asked = await self._read_ids(guild_id)
            if asked and (self._queue or self._fetch):
                await asyncio.sleep(self.pace)

    async def _sync(self, guild_id: int) -> bool:
        """Send a server's set if it changed; whether Discord was asked."""
        try:
            rulesets = (await self.store.guild_rulesets(guild_id)).get(guild_id, set())
            payload = self.payload(rulesets)
            scope = self.scope(guild_id)
            wanted = digest(payload) if payload else None
            if (await self.store.command_sets(scope)).get(scope) == wanted:
                return False
            data = await self.client.http.bulk_upsert_guild_commands(self.app, guild_id,
                                                                    payload=payload)
            self.sent += 1
            self._unknown.discard(guild_id)
            self.guild_tops[guild_id] = {str(d["name"]): int(d["id"]) for d in data}
            await self.store.note_command_set(scope, wanted, utc_now())
            log.info("registered %d command(s) of %s in server %s", len(payload),
                     ", ".join(sorted(rulesets)) or "no rule set", guild_id)
            return True
        except discord.HTTPException as err:  # (a server that removed the bot; Discord's daily limit) next time
            log.warning("could not register the commands of server %s: %s", guild_id, err)
            return True
        except Exception:
            log.exception("could not register the commands of server %s", guild_id)
            return False

    async def _read_ids(self, guild_id: int) -> bool:
        if guild_id in self.guild_tops:
            return False
        try:
            data = await self.client.http.get_guild_commands(self.app, guild_id)
        except discord.HTTPException as err:
            log.warning("could not read the commands of server %s: %s", guild_id, err)
            data = []
        self.guild_tops[guild_id] = {str(d["name"]): int(d["id"]) for d in data}
        return True

    def _ids(self, data: list[Any]) -> dict[str, int]:
        top = {str(d["name"]): int(d["id"]) for d in data if int(d.get("type", 1)) == 1}
        return {c.qualified_name: top[c.qualified_name.split()[0]]
                for c in self.tree.walk_commands(type=discord.AppCommandType.chat_input)
                if isinstance(c, app_commands.Command) and c.qualified_name.split()[0] in top}
