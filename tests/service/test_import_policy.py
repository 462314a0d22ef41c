"""Who may import a game into a channel, and how big (issue 33; docs/nations.md, "The log, … export and import").

The policy: an import is a game's start — whoever may start a game in a channel with no live game may import one
there and becomes its GM, a plain member included; a channel with a live game refuses everyone, the server's GMs
too, before the file is even read. What comes in is bounded by MAX_EXPORT_BYTES and by the rule set's bounds on
every count inside, checked before anything is written, outside the event loop and outside the store's
transaction: only the final write holds the database thread."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from storehelpers import RULES, FakeClock, log_counts

from data.store import Store
from engine.commands import BY_PATH
from engine.dice import ForcedRoller
from engine.errors import BadInput, RuleViolation
from engine.nations import peace as nat
from engine.nations import schema
from engine.rulesets import SCHEMAS
from service.dispatch import Dispatcher, Front, Request, Upload
from service.imports import MAX_EXPORT_BYTES
from service.referee import Referee


@pytest.fixture
def ref(store: Store, clock: FakeClock) -> Referee:
    return Referee(store, RULES, ForcedRoller(), clock)


async def exported(ref: Referee) -> dict[str, Any]:
    await ref.start_game("home", "gm")
    await ref.act("home", "gm", nat.ClaimPreset("Gracchan Republic", "alice"), "/nation claim")
    return await ref.export("home")


def upload(data: bytes, reads: list[str]) -> Upload:
    async def read() -> bytes:
        reads.append("read")
        return data

    return Upload("game.json", read)


def importing(channel: str, actor: str, file: Upload, gm_role: bool = False) -> Request:
    return Request(channel, actor, BY_PATH["game import"], {"file": file}, gm_role=gm_role)


async def test_a_plain_member_imports_into_a_channel_with_no_game_and_becomes_its_gm(ref):
    data = json.dumps(await exported(ref)).encode()
    done = await Dispatcher(ref, Front("console")).run(importing("annex", "mallory", upload(data, [])))
    assert done.report.state.gm == "mallory"
    assert (await ref.state("annex")).gm == "mallory"


@pytest.mark.parametrize("gm_role", [False, True], ids=["a member", "a GM of the server"])
async def test_no_one_imports_over_a_live_game_and_the_file_is_not_even_read(ref, store, gm_role):
    data = json.dumps(await exported(ref)).encode()
    before = await log_counts(store)
    reads: list[str] = []
    with pytest.raises(RuleViolation, match="this channel already has a game running: end it first with /game end"):
        await Dispatcher(ref, Front("console")).run(importing("home", "mallory", upload(data, reads), gm_role))
    assert reads == []
    assert await log_counts(store) == before
    assert (await ref.state("home")).gm == "gm"


async def test_a_file_over_the_bound_is_refused_before_it_is_parsed(ref, store):
    reads: list[str] = []
    with pytest.raises(BadInput, match=f"that export is too large: {MAX_EXPORT_BYTES + 1:,} bytes"):
        await Dispatcher(ref, Front("console")).run(importing("annex", "mallory",
                                                              upload(b" " * (MAX_EXPORT_BYTES + 1), reads)))
    assert reads == ["read"] and await store.live_game("annex") is None


async def test_an_oversized_count_is_refused_before_anything_is_written(ref, store, monkeypatch):
    data = await exported(ref)
    unit = data["nations"][0]["units"][0]
    data["nations"] = [dict(data["nations"][0], name=f"Nation {i}", player=f"p{i}",
                            units=[dict(unit, id=i * 1000 + j) for j in range(schema.MAX_UNITS)]) for i in range(21)]
    before, games = await log_counts(store), len(await store.games())

    async def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the store was called")

    monkeypatch.setattr(store, "import_game", never)
    with pytest.raises(BadInput, match=f"nations: at most {schema.MAX_GAME_UNITS:,} units in all, not 10,500"):
        await ref.import_game("annex", "mallory", data)
    assert await log_counts(store) == before and len(await store.games()) == games


async def test_the_export_is_checked_off_the_event_loop_before_the_store_is_called(ref, store, monkeypatch):
    data = await exported(ref)
    loop_thread = threading.get_ident()
    seen: list[str] = []
    checked = SCHEMAS["nations"]
    written = store.import_game

    def validate(raw: dict[str, Any], now: Any) -> dict[str, Any]:
        seen.append("checked off the loop" if threading.get_ident() != loop_thread else "checked on the loop")
        return checked(raw, now)

    async def write(*args: Any, **kwargs: Any) -> Any:
        seen.append("written")
        return await written(*args, **kwargs)

    monkeypatch.setitem(SCHEMAS, "nations", validate)
    monkeypatch.setattr(store, "import_game", write)
    await ref.import_game("annex", "mallory", data)
    assert seen == ["checked off the loop", "written"]
