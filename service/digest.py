"""/game digest's words: when a digest starts (`since:`, a time or a span back, within the game's life) and the
digest as lines, the same on every front-end (each passes its own ways of writing a moment, a player, an event)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from data.store import LoggedAction
from engine.describe import event_line, plural, roll_line, same, utc_text
from engine.dice import RollRecord
from engine.errors import BadInput
from engine.events import Event
from service.reports import CLOCK_ACTOR, Digest

MAX_DIGEST = 200  # the most actions one /game digest lists
MAX_SINCE = timedelta(days=366)  # the furthest back a relative `since:` reaches
_RELATIVE = re.compile(r"(\d{1,5}(?:\.\d{1,3})?)\s*(m|min|mins|minutes?|h|hours?|d|days?|w|weeks?)", re.IGNORECASE)
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime, began: datetime | None = None) -> datetime:
    """A digest's `since:`: a relative span back from `now` ("12h", "2d", "90m", "1w"; at most a year) or an
    ISO time ("2026-03-01T12:00", UTC unless it names its offset) within the game's life: not before `began`
    (when given), not in the future. BadInput, in one line, otherwise — a time beyond the calendar's ends too
    (0001-01-01T00:00+14:00 is in year 0 in UTC)."""
    given = " ".join(str(text).split())
    if len(given) > 40:
        raise BadInput("since is a time like 2026-03-01T12:00 or a span like 12h or 2d: that is too long")
    relative = _RELATIVE.fullmatch(given)
    if relative:
        span = timedelta(**{_UNITS[relative.group(2)[0].lower()]: float(relative.group(1))})
        if span > MAX_SINCE:
            raise BadInput(f"since reaches back at most {MAX_SINCE.days} days, not {given}")
        return now - span
    try:
        moment = datetime.fromisoformat(given.replace(" ", "T", 1) if " " in given else given)
    except ValueError:
        raise BadInput(f"since is a time like 2026-03-01T12:00 (UTC) or a span like 12h, 2d or 90m, "
                       f"not {given!r}") from None
    offset = moment.utcoffset() or timedelta(0)
    try:
        moment = (moment.replace(tzinfo=None) - offset).replace(tzinfo=UTC)
        shown = f"{moment:%Y-%m-%d %H:%M} UTC"
    except OverflowError:  # beyond year 1 or 9999 in UTC: before any game, or in the future
        moment = datetime.min.replace(tzinfo=UTC) if offset > timedelta(0) else datetime.max.replace(tzinfo=UTC)
        shown = given
    if moment > now:
        raise BadInput(f"since is in the future ({shown}): a digest lists what has happened")
    if began is not None:  # to the minute, as it is shown: its own minute is in the game's life
        began = (began.replace(tzinfo=UTC) if began.tzinfo is None else began).replace(second=0, microsecond=0)
    if began is not None and moment < began:
        raise BadInput(f"since is before this game began ({began.astimezone(UTC):%Y-%m-%d %H:%M} UTC): a digest "
                       "lists the game's own log")
    return moment


def digest_lines(digest: Digest, when: Callable[[datetime], str] = utc_text,
                 who: Callable[[str], str] = same, events: Callable[[list[Event]], list[str]] | None = None,
                 free: Callable[[RollRecord], str] | None = None, command: Callable[[str], str] = same) -> list[str]:
    """/game digest as lines: a head, then each action (when, who, the command) with its events' lines indented
    under it, and how it ends. The console's words by default; Discord passes its own `when`, `who`, event
    lines, free-roll line and `command` (escaping)."""
    def plain_events(found: list[Event]) -> list[str]:
        return [line for e in found if (line := event_line(e, when, who))]

    words = events or plain_events
    count = len(digest.items)
    lines = [f"Digest since {when(digest.since)}: "
             + (f"{count} {'entry' if count == 1 else 'entries'}" if count else "nothing has happened since then")]
    for item in digest.items:
        if isinstance(item, LoggedAction):
            act = item.action
            lines.append(f"{when(act.at)} — the clock" if act.actor == CLOCK_ACTOR
                         else f"{when(act.at)} — {who(act.actor)}: {command(act.command)}")
            lines += [f"  {line}" for line in words(item.events)]
        else:
            lines.append(f"{when(item.at)} — {who(item.nation or '?')}: /roll")
            lines.append("  " + (free or roll_line)(item))
    if digest.left_out:
        lines.append(f"{plural(digest.left_out, 'later action')} left out (at most {len(digest.items)} at once): "
                     f"/game digest since:{digest.next_since:%Y-%m-%dT%H:%M:%S} goes on from there.")
    if digest.marked:
        lines.append("The next /game digest starts from here.")
    return lines
