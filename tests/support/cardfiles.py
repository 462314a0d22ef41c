"""Card files for the /gm cards tests (issue 18, finding 3): the shipped one, one at every limit an import
holds `game.cards` to, and hostile ones with the console's refusal of each."""

from __future__ import annotations

import tomllib

from storehelpers import REPO

from engine.schema import MAX_FREE_ITEMS, MAX_NAME, MAX_NUMBER, MAX_TEXT, bounded

SHIPPED = (REPO / "data" / "goddice.toml").read_text()
SHIPPED_RAW = tomllib.loads(SHIPPED)


def values(raw) -> int:
    """How many values `bounded` counts in `raw` (tables and lists included)."""
    budget = [10**9]
    bounded(raw, "x", depth=100, budget=budget)
    return 10**9 - budget[0]


def at_the_limits(one_more_value: bool = False, one_more_level: bool = False) -> str:
    """The shipped card file plus an [extra] table that reaches every bound an import holds `game.cards` to: the
    deepest nesting, MAX_FREE_ITEMS values in all, a key of MAX_NAME characters, a text of MAX_TEXT (4-byte)
    characters, ±MAX_NUMBER, a float. With `one_more_…`: one value or one level beyond."""
    chain = ".".join(f"n{i}" for i in range(1, 8 if one_more_level else 7))  # extra.n1…n6.v: v is 8 levels deep
    head = [
        f"\n[extra.{chain}]", "v = 1",
        "\n[extra.keys]",
        f'{"k" * MAX_NAME} = "{"🎲" * MAX_TEXT}"',
        f"big = {MAX_NUMBER}", f"small = {-MAX_NUMBER}", "half = 0.5", "flag = true", "list = [1, [2, [3]]]",
    ]
    text = SHIPPED + "\n".join(head) + "\n"
    left = MAX_FREE_ITEMS - values(tomllib.loads(text)) + (1 if one_more_value else 0)
    return text + "".join(f"k{i} = {i}\n" for i in range(left))


MORE_THAN_ITEMS = f"it holds more than {MAX_FREE_ITEMS:,} values (counting its tables and lists)"
HOSTILE = {
    "deep-table.toml": (SHIPPED + "\n[x]\ny = " + "{a = " * 300 + "1" + "}" * 300 + "\n",
                        "cannot read {file} as a card file: it is nested too deeply (at most 8 levels of brackets)"),
    "deep-header.toml": (SHIPPED + "\n[" + ".".join(["a"] * 300) + "]\nv = 1\n",
                         "that card file is not valid: a.a.a.a.a.a.a.a.a: is nested too deeply"),
    "deep-array.toml": (SHIPPED + "\nx = " + "[" * 20_000 + "]" * 20_000 + "\n",
                        "cannot read {file} as a card file: it is nested too deeply (at most 8 levels of brackets)"),
    "keys.toml": (SHIPPED + "\n[extra]\n" + "".join(f"k{i} = {i}\n" for i in range(6_000)),
                  f"that card file is not valid: {MORE_THAN_ITEMS}"),
    "nested.toml": (SHIPPED + "\n[" + ".".join(f"n{i}" for i in range(10)) + "]\nv = 1\n",
                    "that card file is not valid: n0.n1.n2.n3.n4.n5.n6.n7.n8: is nested too deeply"),
}
