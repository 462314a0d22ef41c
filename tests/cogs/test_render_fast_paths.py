"""Issue 35: a Nations report's embeds in ≤ 100 µs (bench/embed.py). The shortcuts taken for it show exactly what
the long way showed: `safe` leaves text with nothing to escape as it is, a report's heading is found by rank, the
side is looked up once a report, and `name_key` is kept in a bounded cache. No timing is asserted here."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bench.embed import grown_game, measure
from cogs.frontends import adapters
from cogs.nations.render import nations_report_embeds
from cogs.render import common
from engine.names import CACHED_KEY_LENGTH, _name_key, name_key


def escaped_the_long_way(text: str) -> str:
    """`safe` as it was before its shortcut: every escape run on every text."""
    text = discord.utils.escape_markdown(text, ignore_links=False)
    text = discord.utils.escape_mentions(text)
    text = common.MENTION_START.sub("<\u200b", text)
    return common.BARE_MENTION.sub("@\u200b", text)


SAMPLES = [
    "", "Charon", "Gracchan Republic", "vs > 12", "> quoted", "a\n> quoted", ">>> block", "a\n>>> b", "-- dash",
    " - item", "# title", "a\n## title", "[link](http://x)", "**bold**", "_x_", "`code`", "~~s~~", "||spoiler||",
    "back\\slash", "@everyone", "@here", "@123456789012345678", "<@123>", "<t:1:R>", "a < b", "e-mail", "x_y",
    "🎲 Gracchan Republic, grow economy: d10 9 + mod(E) +1 = 10 vs > 12: failure", "Ѕol", "name\u200b", "a\r\n>b",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_safe_shows_what_the_long_way_showed(text: str) -> None:
    assert common.safe(text) == escaped_the_long_way(text)


def test_safe_shows_what_the_long_way_showed_for_random_text() -> None:
    rng = random.Random(35)
    alphabet = "ab 9\n\t>_\\~|*`[]()#-@<!&:.ehvryonrc\u200b🎲"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        assert common.safe(text) == escaped_the_long_way(text), repr(text)


def heading_the_long_way(events: list[Any], adapter: Any) -> str | None:
    table = common.headings(adapter)
    minor = common.MINOR_KINDS | adapter.minor_kinds
    kinds = {e.kind for e in events}
    for kind, heading in table.items():
        if kind in kinds and kind not in minor:
            return heading
    return None


def test_a_reports_heading_is_its_most_telling_kinds_for_every_rule_set() -> None:
    rng = random.Random(35)
    for name, adapter in adapters().items():
        state: Any = SimpleNamespace(ruleset=name)
        kinds = [*common.headings(adapter), "some_other_kind"]
        for _ in range(500):
            events: list[Any] = [SimpleNamespace(kind=rng.choice(kinds)) for _ in range(rng.randrange(1, 5))]
            expected = heading_the_long_way(events, adapter)
            if expected is not None:
                assert common.heading_of(events, state) == expected, (name, [e.kind for e in events])


def test_name_key_cached_or_not_is_the_same() -> None:
    for text in ["Charon", " charon ", "CHARON", "Ѕol", "a\u200bb", "", "  ", "x" * (CACHED_KEY_LENGTH + 1), "ß"]:
        assert name_key(text) == _name_key(text) == name_key(text)
    assert name_key(None) == _name_key(None) == ""  # type: ignore[arg-type]


def test_a_grow_report_shows_its_roll_heading_colour_footer_and_actions_left() -> None:
    events, state, grower = grown_game()
    [embed] = nations_report_embeds(events, state, grower)
    shown = embed.to_dict()
    assert shown["title"] == "Grow economy"
    assert shown["description"] == "🎲 Gracchan Republic, grow economy: d10 9 + mod(E) +1 = **10** vs > 12: **failure**"
    assert shown["color"] == common.OUTCOME_COLOURS["failure"].value
    assert shown["footer"] == {"text": "Gracchan Republic · Turn 1"}
    ends = int(state.turn_ends_at.timestamp())
    assert shown["fields"] == [{"name": "Actions", "inline": False,
                                "value": f"1 of 2 actions left, turn ends <t:{ends}:f> (<t:{ends}:R>)"}]
    assert "timestamp" in shown


def test_the_embed_bench_measures_both_figures() -> None:
    report, reference = measure(calls=5, blocks=3)
    assert report > 0 and reference > 0
