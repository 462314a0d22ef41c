"""God Dice card files for /gm cards (issue 18, finding 3): bounded by the same limits as an import's
`game.cards`, their nesting counted before TOML parsing goes deep, so that whatever card file a game takes
its own export restores — and whatever goes beyond is refused in one line, the game unchanged."""

from __future__ import annotations

import tomllib

import pytest
from cardfiles import HOSTILE, MORE_THAN_ITEMS, SHIPPED, SHIPPED_RAW, at_the_limits, values
from storehelpers import console_on, said

from engine.goddice.cards import RulesError, bound_card_file, cards_from_file
from engine.schema import MAX_FREE_ITEMS, MAX_NAME, MAX_NUMBER, MAX_TEXT
from engine.toml_text import MAX_TOML_DEPTH, parse_toml, toml_depth

# --- the bounds, at the engine ---------------------------------------------------------------------


def test_a_card_file_at_every_limit_is_taken_and_one_beyond_is_refused_naming_where():
    raw = tomllib.loads(at_the_limits())
    assert values(raw) == MAX_FREE_ITEMS
    assert cards_from_file(raw).raw == raw
    with pytest.raises(RulesError) as caught:
        bound_card_file(tomllib.loads(at_the_limits(one_more_value=True)))
    assert str(caught.value) == MORE_THAN_ITEMS
    with pytest.raises(RulesError) as caught:
        bound_card_file(tomllib.loads(at_the_limits(one_more_level=True)))
    assert str(caught.value) == "extra.n1.n2.n3.n4.n5.n6.n7.v: is nested too deeply"


@pytest.mark.parametrize(("extra", "reason"), [
    (f'[extra]\ntext = "{"x" * (MAX_TEXT + 1)}"', f"extra.text: at most {MAX_TEXT} characters"),
    (f'[extra]\n{"k" * (MAX_NAME + 1)} = 1', f"extra: a key is longer than {MAX_NAME} characters"),
    (f"[extra]\nbig = {MAX_NUMBER + 1}", f"extra.big: must be a finite number of at most {MAX_NUMBER}"),
    ("[extra]\nwhen = 2030-01-01T00:00:00Z", "extra.when: datetime is not a JSON value"),
])
def test_a_card_file_with_what_an_export_could_not_hold_is_refused(extra, reason):
    with pytest.raises(RulesError) as caught:
        cards_from_file(tomllib.loads(SHIPPED + "\n" + extra + "\n"))
    assert str(caught.value) == reason


# --- the nesting, counted before tomllib reads -----------------------------------------------------


def test_nesting_is_counted_outside_strings_and_comments_without_recursion():
    assert toml_depth(SHIPPED) == 3  # attacks = [ { needs = { … } } ]
    assert toml_depth('a = "[[[[{{{{"\nb = \'[[[[\'\n# [[[[[[[[\nc = """\n[[[[[[[[[\n"""\nd = \'\'\'[[[[[\'\'\'') == 0
    assert toml_depth('a = """x\\"""[[[[[[[[[""""\nb = [1]') == 1  # an escaped quote, a string ending in a quote
    assert toml_depth("a = " + "[" * 100_000 + "]" * 100_000) == 100_000  # no RecursionError
    assert toml_depth("a = " + "{b = " * 9 + "1" + "}" * 9) == 9


@pytest.mark.parametrize("text", [
    "a = " + "[" * 20_000 + "]" * 20_000,
    "a = " + "{a = " * 300 + "1" + "}" * 300,
    "a = " + "[" * (MAX_TOML_DEPTH + 1) + "]" * (MAX_TOML_DEPTH + 1),
])
def test_toml_nested_too_deeply_is_refused_before_tomllib_reads_it(text, monkeypatch):
    def never(*_args):
        raise AssertionError("tomllib read it")

    monkeypatch.setattr(tomllib, "loads", never)
    with pytest.raises(ValueError, match=rf"^it is nested too deeply \(at most {MAX_TOML_DEPTH} levels"):
        parse_toml(text)


def test_toml_at_the_deepest_nesting_is_read():
    text = "a = " + "[" * MAX_TOML_DEPTH + "]" * MAX_TOML_DEPTH
    assert toml_depth(text) == MAX_TOML_DEPTH
    assert parse_toml(text) == tomllib.loads(text)


# --- through the console: refused in one line, or taken and exported and imported back ---------------


async def test_console_refuses_each_hostile_card_file_in_one_line_and_the_game_keeps_its_cards(tmp_path):
    console, store, out = await console_on(tmp_path / "cards.db")
    try:
        for line in ("gm /game start ruleset:goddice", "alice /goddice join"):
            await console.handle(line)
        said(out)
        for name, (text, refusal) in HOSTILE.items():
            file = tmp_path / name
            file.write_text(text)
            await console.handle(f"gm /gm cards file:{file}")
            assert said(out) == [f"error: {refusal.format(file=file)}"], name
        assert (await console.referee.state("console")).cards.raw == SHIPPED_RAW
    finally:
        await store.close()


async def test_console_a_card_file_at_the_limits_is_taken_and_the_games_export_imports_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "limits.toml").write_text(at_the_limits())
    console, store, out = await console_on(tmp_path / "a.db")
    other, other_store, other_out = await console_on(tmp_path / "b.db")
    try:
        for line in ("gm /game start ruleset:goddice", "alice /goddice join", "gm /gm cards file:limits.toml",
                     "gm /gm export file:e.json"):
            await console.handle(line)
        lines = said(out)
        assert lines[-3] == "limits.toml read." and lines[-1] == "Game exported to e.json."
        assert lines[-2].startswith("GM gm loaded another card file for this game: ")
        await other.handle("carol /game import file:e.json")
        [imported] = said(other_out)
        assert imported.startswith("God Dice game imported from e.json"), imported
        assert (await other.referee.state("console")).cards.raw == tomllib.loads(at_the_limits())
    finally:
        await store.close()
        await other_store.close()
