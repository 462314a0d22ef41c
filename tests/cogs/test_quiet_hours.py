"""Quiet hours (/remind me quiet:), pure: how a span and a zone are read, and when a reminder by DM may go."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogs.quiet import parse_quiet, parse_zone, quiet_text, quiet_until, suggest_zones
from data.store import QuietHours
from engine.errors import BadInput


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def quiet(span: str, zone: str) -> QuietHours:
    parsed = parse_quiet(span)
    assert parsed is not None
    return QuietHours("1", parsed[0], parsed[1], parse_zone(zone))


@pytest.mark.parametrize(("given", "expected"), [
    ("23:00-07:30", (23 * 60, 7 * 60 + 30, None)),
    ("23-7", (23 * 60, 7 * 60, None)),
    ("22:15 – 06:00", (22 * 60 + 15, 6 * 60, None)),
    ("13:00 to 15:30", (13 * 60, 15 * 60 + 30, None)),
    ("22:00-24:00", (22 * 60, 0, None)),
    ("23:00-07:30 Europe/Paris", (23 * 60, 7 * 60 + 30, "Europe/Paris")),
    ("23:00-07:30 europe/paris", (23 * 60, 7 * 60 + 30, "Europe/Paris")),
    ("23:00-07:30 +5:30", (23 * 60, 7 * 60 + 30, "+05:30")),
    ("off", None), (" OFF ", None),
])
def test_a_quiet_span_is_read(given, expected):
    assert parse_quiet(given) == expected


@pytest.mark.parametrize(("given", "reason"), [
    ("07:30-07:30", "quiet hours from 07:30 to 07:30 are empty, or all day: give two different times"),
    ("00:00-24:00", "quiet hours from 00:00 to 00:00 are empty, or all day: give two different times"),
    ("25:00-07:00", "has a time that is not on a 24-hour clock"),
    ("23:60-07:00", "has a time that is not on a 24-hour clock"),
    ("24:00-07:00", "has a time that is not on a 24-hour clock"),
    ("tonight", "quiet is a span of your day like 23:00-07:30"),
    ("23:00", "quiet is a span of your day like 23:00-07:30"),
    ("23:00-07:30 Mars/Olympus", "timezone is a zone like Europe/Paris"),
    ("1" * 500, "quiet is a span of your day like 23:00-07:30"),
])
def test_a_bad_quiet_span_is_refused_with_its_reason(given, reason):
    with pytest.raises(BadInput) as refused:
        parse_quiet(given)
    assert reason in str(refused.value) and len(str(refused.value)) < 200


@pytest.mark.parametrize(("given", "stored"), [
    ("Europe/Paris", "Europe/Paris"), ("asia/TOKYO", "Asia/Tokyo"), ("UTC", "UTC"), ("gmt", "UTC"),
    ("+02:00", "+02:00"), ("-5", "-05:00"), ("UTC+5:30", "+05:30"), ("+0930", "+09:30"), ("+00:00", "UTC"),
    ("-0", "UTC"), ("+14:00", "+14:00"),
])
def test_a_zone_is_a_tz_name_or_an_offset(given, stored):
    assert parse_zone(given) == stored


@pytest.mark.parametrize("given", ["Paris", "+15:00", "+02:75", "../../etc/passwd", "", "x" * 41, "Europe/"])
def test_a_bad_zone_is_refused(given):
    with pytest.raises(BadInput, match="timezone is a zone like Europe/Paris"):
        parse_zone(given)


def test_quiet_hours_across_midnight_hold_until_the_morning_in_the_players_zone():
    paris = quiet("23:00-07:30", "Europe/Paris")  # March 2026: Paris is UTC+1 until the 29th
    assert quiet_until(paris, utc(2026, 3, 1, 21, 59)) is None  # 22:59 in Paris
    assert quiet_until(paris, utc(2026, 3, 1, 22, 0)) == utc(2026, 3, 2, 6, 30)  # 23:00: until 07:30 tomorrow
    assert quiet_until(paris, utc(2026, 3, 2, 2, 0)) == utc(2026, 3, 2, 6, 30)  # 03:00
    assert quiet_until(paris, utc(2026, 3, 2, 6, 29)) == utc(2026, 3, 2, 6, 30)
    assert quiet_until(paris, utc(2026, 3, 2, 6, 30)) is None  # 07:30: morning
    assert quiet_text(paris) == "23:00–07:30 (Europe/Paris)"


def test_quiet_hours_within_a_day():
    lunch = quiet("13:00-15:00", "UTC")
    assert quiet_until(lunch, utc(2026, 3, 1, 12, 59)) is None
    assert quiet_until(lunch, utc(2026, 3, 1, 13, 0)) == utc(2026, 3, 1, 15, 0)
    assert quiet_until(lunch, utc(2026, 3, 1, 15, 0)) is None
    assert quiet_until(lunch, utc(2026, 3, 1, 23, 0)) is None


def test_daylight_saving_moves_the_morning_in_utc_not_on_the_players_clock():
    paris = quiet("23:00-07:30", "Europe/Paris")
    # the night of 28–29 March 2026 the clocks go forward at 02:00: 07:30 is then UTC+2
    assert quiet_until(paris, utc(2026, 3, 27, 23, 0)) == utc(2026, 3, 28, 6, 30)
    assert quiet_until(paris, utc(2026, 3, 28, 23, 30)) == utc(2026, 3, 29, 5, 30)
    # and back on 25 October 2026: 07:30 is UTC+1 again
    assert quiet_until(paris, utc(2026, 10, 24, 23, 30)) == utc(2026, 10, 25, 6, 30)
    # a morning the clock skips (02:30 on 29 March) comes as late as the jump (03:30, summer time)
    early = quiet("01:00-02:30", "Europe/Paris")
    assert quiet_until(early, utc(2026, 3, 29, 0, 30)) == utc(2026, 3, 29, 1, 30)
    # a morning the clock shows twice (02:30 on 25 October): the first, or the second once the first has passed
    assert quiet_until(early, utc(2026, 10, 24, 23, 30)) == utc(2026, 10, 25, 0, 30)  # 01:30 summer time
    assert quiet_until(early, utc(2026, 10, 25, 1, 15)) == utc(2026, 10, 25, 1, 30)  # 02:15 winter time


def test_an_offset_zone_has_no_daylight_saving():
    india = quiet("22:00-06:00", "+05:30")
    assert quiet_until(india, utc(2026, 3, 1, 16, 29)) is None  # 21:59 there
    assert quiet_until(india, utc(2026, 3, 1, 20, 0)) == utc(2026, 3, 2, 0, 30)  # 01:30 there: until 06:00
    assert quiet_until(india, utc(2026, 7, 1, 20, 0)) == utc(2026, 7, 2, 0, 30)  # the same in July
    assert quiet_text(india) == "22:00–06:00 (UTC+05:30)"


def test_zone_suggestions_are_few_and_match_what_is_typed():
    assert len(suggest_zones("")) <= 25 and "Europe/Paris" in suggest_zones("")
    assert suggest_zones("paris") == ["Europe/Paris"]
    assert suggest_zones("+2") == ["+02:00"]
    assert suggest_zones("+99") == []
    assert len(suggest_zones("a")) == 25 and suggest_zones("america/")[0].startswith("America/")
    assert suggest_zones("x" * 1000) == []
