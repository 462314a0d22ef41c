"""One plug per rule set: the modules every game shares know no rule set by name.

A shared module never imports a rule set's engine package (`engine.nations`, …) or its Discord adapter
(`cogs.nations`, …), and never names a rule set in a string (`state.ruleset == "nations"`, a default of
"goddice", a dict keyed by "godsfire"): it asks the registry (`engine.rulesets`). The one place that lists
the installed rule sets is the registry's loader, `engine/__init__.py`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_engine_purity import imported_modules

from engine.rulesets import RULESETS

ROOT = Path(__file__).resolve().parents[2]
RULE_SETS = ("nations", "goddice", "godsfire")
LOADER = ROOT / "engine" / "__init__.py"


def shared_modules() -> list[Path]:
    """Every module of the shared code: the entry point, console, referee, data layer, the engine's core, the
    cogs outside a rule set's own package and the game's page (web/)."""
    found = [ROOT / "bot.py", *sorted((ROOT / "console").rglob("*.py")), *sorted((ROOT / "service").rglob("*.py")),
             *sorted((ROOT / "data").glob("*.py")),
             *sorted((ROOT / "engine").glob("*.py")), *sorted((ROOT / "cogs").glob("*.py")),
             *sorted((ROOT / "cogs" / "render").glob("*.py")), *sorted((ROOT / "web").rglob("*.py"))]
    return [p for p in found if p != LOADER]


def rule_set_mentions(source: str, filename: str = "<source>", names: tuple[str, ...] = RULE_SETS) -> list[str]:
    """Where a module knows a rule set: an import of its engine or Discord package (`engine.nations…`,
    `cogs.goddice…`), or its name as a string (`state.ruleset == "nations"`, `state_or_none(i, "godsfire")`,
    `"nations" in standings`, a default, a dotted name for importlib)."""
    packages = {f"{top}.{name}" for top in ("engine", "cogs") for name in names}
    found = [f"imports {m}" for m in sorted(imported_modules(source, filename))
             if ".".join(m.split(".")[:2]) in packages]
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in ("engine", "cogs"):
            found += [f"imports {node.module}.{a.name}" for a in node.names if a.name in names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip().lower()
            if text in names or ".".join(text.split(".")[:2]) in packages:
                found.append(f"line {node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_shared_module_knows_a_rule_set(path):
    assert rule_set_mentions(path.read_text(encoding="utf-8"), str(path)) == []


def test_the_check_sees_every_way_of_knowing_a_rule_set():
    source = (
        '"""Nations and God Dice in a docstring are words."""\n'
        "import engine.nations.state\n"
        "from engine.goddice import play\n"
        "from engine import godsfire\n"
        "from cogs.nations.render import nation_embed\n"
        "import importlib\n"
        "def f(state, interaction):\n"
        "    if state.ruleset == 'nations': pass\n"
        "    state_or_none(interaction, 'godsfire')\n"
        "    if 'nations' in state.standings: pass\n"
        "    importlib.import_module('cogs.goddice')\n"
        "    return {'ruleset': 'Nations nation'}\n"
    )
    assert rule_set_mentions(source) == [
        "imports cogs.nations.render", "imports engine.goddice", "imports engine.nations.state",
        "imports engine.godsfire", "line 8: 'nations'", "line 9: 'godsfire'", "line 10: 'nations'",
        "line 11: 'cogs.goddice'"]


def test_each_rule_set_has_its_own_discord_package_named_in_the_registry():
    packages = {p.name for p in (ROOT / "cogs").iterdir() if (p / "__init__.py").exists()}
    assert packages == {"render", *RULE_SETS}
    assert {name: r.discord for name, r in RULESETS.items()} == {name: f"cogs.{name}" for name in RULE_SETS}


def test_the_loader_is_the_one_place_that_lists_the_rule_sets():
    tree = ast.parse(LOADER.read_text(encoding="utf-8"))
    listed = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "engine"
              for alias in node.names}
    assert listed & set(RULE_SETS) == set(RULE_SETS)
