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
RULE_SET_NAMES = {"nations", "goddice", "godsfire"}
LOADER = ROOT / "engine" / "__init__.py"


def shared_modules() -> list[Path]:
    """Every module of the shared code: the entry point, console, referee, data layer, the engine's core and
    the cogs outside a rule set's own package."""
    found = [ROOT / "bot.py", ROOT / "console.py", ROOT / "referee.py", *sorted((ROOT / "data").glob("*.py")),
             *sorted((ROOT / "engine").glob("*.py")), *sorted((ROOT / "cogs").glob("*.py")),
             *sorted((ROOT / "cogs" / "render").glob("*.py"))]
    return [p for p in found if p != LOADER and p.exists()]


def rule_set_imports(path: Path) -> list[str]:
    names = imported_modules(path.read_text(encoding="utf-8"), str(path))
    return sorted(n for n in names for top in ("engine", "cogs") for rs in RULE_SET_NAMES
                  if n == f"{top}.{rs}" or n.startswith(f"{top}.{rs}."))


def rule_set_names(path: Path) -> list[str]:
    """Every string constant (outside docstrings) that is exactly a rule set's name, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [f"line {node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and node.value.strip().lower() in RULE_SET_NAMES]


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_shared_module_imports_no_rule_set_package(path):
    assert rule_set_imports(path) == []


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_shared_module_names_no_rule_set(path):
    assert rule_set_names(path) == []


def test_the_checks_catch_what_they_are_for(tmp_path):
    """The two checks above fail on the shapes they forbid (so a green run means something)."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""Nations and God Dice in a docstring are words."""\n'
                     "from engine.nations.common import find_nation\n"
                     "import cogs.goddice.render\n"
                     "def f(state):\n"
                     "    return state.ruleset == 'nations' or state_or_none(1, \"godsfire\")\n")
    assert rule_set_imports(probe) == ["cogs.goddice.render", "engine.nations.common"]
    assert rule_set_names(probe) == ["line 5: 'nations'", "line 5: 'godsfire'"]


def test_the_loader_is_the_one_place_that_lists_the_rule_sets():
    assert set(RULESETS) >= RULE_SET_NAMES
    tree = ast.parse(LOADER.read_text(encoding="utf-8"))
    listed = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "engine"
              for alias in node.names}
    assert listed & RULE_SET_NAMES == RULE_SET_NAMES
