"""Quiet hours (/remind me quiet:): a span of a player's own day, in their own time zone, in which their reminders
by DM wait; pure (no Discord, no store).

A player gives the span as `23:00-07:30` (it may cross midnight; an empty span, or one of 24 hours, is refused)
and the zone as a tz database name (`Europe/Paris`), `UTC`, or an offset from UTC (`+02:00`, `-5`, `UTC+5:30`).
One setting per player for all their games: `QuietHours` as the store keeps it, times in minutes of their day.

`quiet_until` says whether a DM may go now: None (it may), or when the quiet span ends ("morning", UTC). Daylight
saving comes from the tz database (`zoneinfo`): the span is of the player's wall clock, whatever its offset that
night. A morning that the clock skips (it goes forward across it) comes as late as the jump; one the clock shows
twice (it goes back) is its first, unless that has passed.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, available_timezones

from data.store import QuietHours
from engine.errors import BadInput

LONGEST_QUIET = 60  # characters of a quiet: option (a span, and a zone)
LONGEST_ZONE = 40  # characters of a zone's name (the tz database's longest is 32)
SUGGESTED = 25  # Discord's limit on an autocomplete's suggestions
COMMON = ("UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Moscow", "America/New_York",
          "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata",
          "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland")  # suggested before anything is typed
WHAT_QUIET = "quiet is a span of your day like 23:00-07:30 (it may cross midnight), or off"
WHAT_ZONE = "timezone is a zone like Europe/Paris or America/New_York, UTC, or an offset like +02:00"
NO_ZONE = "which time zone are your quiet hours in? Add timezone: (e.g. Europe/Paris, or an offset like +02:00)"
_CLOCK = r"(\d{1,2})(?:[:h.](\d{2}))?"
_SPAN = re.compile(rf"{_CLOCK}\s*(?:-|–|—|to)\s*{_CLOCK}(?:\s+(\S+))?", re.IGNORECASE)
_OFFSET = re.compile(r"(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)


@functools.cache
def _zones() -> dict[str, str]:
    """The tz database's names, by their lower case."""
    return {name.lower(): name for name in available_timezones()}


def parse_zone(text: str) -> str:
    """A zone as given → its stored name: a tz database name in its own case, `UTC`, or an offset `+HH:MM`
    (within ±14:00); BadInput otherwise."""
    given = str(text).strip()
    if not given or len(given) > LONGEST_ZONE:
        raise BadInput(f"{WHAT_ZONE}; not {given[:LONGEST_ZONE]!r}")
    if given.upper() in ("UTC", "GMT", "Z", "UTC+0", "UTC-0", "+00:00", "-00:00"):
        return "UTC"
    found = _OFFSET.fullmatch(given)
    if found is not None:
        sign, hours, minutes = found.group(1), int(found.group(2)), int(found.group(3) or 0)
        if minutes > 59 or hours * 60 + minutes > 14 * 60:
            raise BadInput(f"{WHAT_ZONE}; {given} is not an offset of any time zone (-14:00 to +14:00)")
        return "UTC" if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"
    name = _zones().get(given.lower())
    if name is None:
        raise BadInput(f"{WHAT_ZONE}; not {given!r}")
    return name


def zone_of(name: str) -> tzinfo:
    """The tzinfo of a stored zone name (as `parse_zone` gives it)."""
    if name == "UTC":
        return UTC
    found = _OFFSET.fullmatch(name)
    if found is not None and name[0] in "+-":
        span = timedelta(hours=int(found.group(2)), minutes=int(found.group(3) or 0))
        return timezone(-span if found.group(1) == "-" else span)
    return ZoneInfo(name)


def _minute(hours: str, minutes: str | None, end: bool) -> int | None:
    """A clock time's minute of the day (24:00 allowed as an end: midnight); None when it is no time."""
    h, m = int(hours), int(minutes or 0)
    if m > 59 or h > 24 or (h == 24 and (m or not end)):
        return None
    return (h * 60 + m) % (24 * 60)


def parse_quiet(text: str) -> tuple[int, int, str | None] | None:
    """`quiet:` as given: None for `off`; else the span's first and end minutes of the day and the zone's name
    written after it (None: none). BadInput when it is no span, or is empty or all day."""
    given = str(text).strip()
    if given.lower() in ("off", "none", "no"):
        return None
    found = _SPAN.fullmatch(given) if len(given) <= LONGEST_QUIET else None
    if found is None:
        raise BadInput(f"{WHAT_QUIET}; not {given[:LONGEST_QUIET]!r}")
    starts = _minute(found.group(1), found.group(2), end=False)
    ends = _minute(found.group(3), found.group(4), end=True)
    if starts is None or ends is None:
        raise BadInput(f"{WHAT_QUIET}; {given} has a time that is not on a 24-hour clock (00:00 to 23:59)")
    if starts == ends:
        raise BadInput(f"quiet hours from {hhmm(starts)} to {hhmm(ends)} are empty, or all day: give two "
                       "different times")
    zone = found.group(5)
    return starts, ends, parse_zone(zone) if zone else None


def hhmm(minute: int) -> str:
    """A minute of the day as `HH:MM`."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


def quiet_text(quiet: QuietHours) -> str:
    """`23:00–07:30 (Europe/Paris)`."""
    zone = quiet.zone if quiet.zone == "UTC" or quiet.zone[0] not in "+-" else f"UTC{quiet.zone}"
    return f"{hhmm(quiet.starts)}–{hhmm(quiet.ends)} ({zone})"


def quiet_until(quiet: QuietHours, now: datetime) -> datetime | None:
    """When the quiet span that `now` (aware) falls in ends, in UTC; None when `now` is not in quiet hours."""
    zone = zone_of(quiet.zone)
    local = now.astimezone(zone)
    minute = local.hour * 60 + local.minute
    starts, ends = quiet.starts, quiet.ends
    inside = starts <= minute < ends if starts < ends else (minute >= starts or minute < ends)
    if not inside:
        return None
    day = local.date() + timedelta(days=1 if starts > ends and minute >= starts else 0)
    wall = datetime.combine(day, time(ends // 60, ends % 60))
    for fold in (0, 1):  # (fold 1: the second of a time the clock shows twice)
        morning = wall.replace(tzinfo=zone, fold=fold).astimezone(UTC)
        if morning > now:
            return morning
    return None


def suggest_zones(current: str) -> list[str]:
    """The zones offered as `current` is typed (at most `SUGGESTED`): an offset as it will be stored, else the tz
    database's names that contain it (those it begins first), or common ones before anything is typed."""
    key = str(current).strip()[:LONGEST_ZONE]
    if not key:
        return list(COMMON)[:SUGGESTED]
    if _OFFSET.fullmatch(key):
        try:
            return [parse_zone(key)]
        except BadInput:
            return []
    lower = key.lower().replace(" ", "_")
    names = sorted(name for low, name in _zones().items() if lower in low)
    names.sort(key=lambda name: not name.lower().startswith(lower) and f"/{lower}" not in name.lower())
    return names[:SUGGESTED]
