"""An export file read for /game import: its bytes as a JSON object, bounded, or one line saying why not (what the
object holds is checked by `Referee.import_game`); its rolls checked against the game they come with; and what an
import brought in, in one line."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from engine.commands import MAX_EXPORT_BYTES
from engine.errors import BadInput, RuleViolation
from engine.ledgercheck import check_ledger
from engine.rulesets import GameState, Rules, ruleset, ruleset_of

__all__ = ["MAX_EXPORT_BYTES", "check_rolls", "imported_summary", "read_export", "reopen"]


def read_export(raw: bytes | str) -> dict[str, Any]:
    """An export file's bytes (or text) as its JSON object; BadInput, in one line, for anything else.

    Refuses more than MAX_EXPORT_BYTES, bytes that are not UTF-8, text that is not JSON (a nesting too deep
    for the parser included) and JSON whose top level is not an object. What the object holds is checked
    by `Referee.import_game`."""
    if isinstance(raw, str):
        if len(raw) > MAX_EXPORT_BYTES:
            raise BadInput(f"that export is too large: at most {MAX_EXPORT_BYTES:,} bytes")
        try:
            raw = raw.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput("that export is not valid UTF-8 text") from None
    elif not isinstance(raw, bytes | bytearray | memoryview):
        raise BadInput("that export is not a file's contents")
    if len(raw) > MAX_EXPORT_BYTES:
        raise BadInput(f"that export is too large: {len(raw):,} bytes, at most {MAX_EXPORT_BYTES:,}")
    try:
        text = bytes(raw).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise BadInput(f"that export is not valid UTF-8 text (byte {err.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadInput("that export is not valid JSON: it is nested too deeply") from None
    except ValueError as err:  # json.JSONDecodeError, and integers too long to read
        reason = err.msg if isinstance(err, json.JSONDecodeError) else str(err).split(";")[0]
        where = f" (line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
        raise BadInput(f"that export is not valid JSON: {reason}{where}") from None
    if not isinstance(data, dict):
        raise BadInput(f"that export is not a game export: its top level is a JSON {_json_kind(data)}, "
                       "not an object")
    return data


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), "null")


def imported_summary(state: GameState, source: str) -> str:
    """One line saying what an import brought in, e.g. "Nations game imported from x.json: turn 3, 4 nations"."""
    rules = ruleset(state.ruleset)
    return f"{rules.title} game imported from {source}: {rules.summary(state)}"


def check_rolls(state: GameState, rolls: Sequence[dict[str, Any]], rules: Rules, gm: Collection[str],
                now: datetime) -> None:
    """An import's rolls (as its schema left them) checked against the game built from it, as its rule set
    describes its ledger (`RuleSet.ledger_terms`): BadInput naming the first roll the game could not have made.
    `gm`: who may have rolled as the GM (the export's GM, the importer)."""
    found = ruleset_of(state)
    terms = None if found.ledger_terms is None else found.ledger_terms(state, rules)
    check_ledger(rolls, terms, gm, now, found.title, found.side_word)


def reopen(state: GameState) -> None:
    """An ended game's state made live again, for /game import: a game its GM ended (by mistake, or to go on
    later) is played on from where it stood. A game its rules ended — someone won it — has nothing left to play:
    RuleViolation saying so (nothing imported)."""
    winner = getattr(state, "winner", None)
    if winner is not None:
        raise RuleViolation(f"that export is of a game {winner} won: its rules ended it, so nothing is left to play "
                            "and it cannot be imported (a game its GM ended can: it starts again where it stood)")
    state.ended = False
