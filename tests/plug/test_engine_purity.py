"""The engine is pure Python: no module under engine/ imports the Discord, database or scheduler libraries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {"discord", "aiosqlite", "apscheduler"}
"""Top-level packages the engine must never import (front-ends and the store may)."""


def imported_modules(source: str, filename: str = "<source>") -> set[str]:
    """Every absolute module name an `import` or `from ... import` statement in `source` names, at any depth
    (inside functions, `if TYPE_CHECKING:` blocks and try/except included)."""
    names = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def forbidden_imports(source: str, filename: str = "<source>") -> set[str]:
    return {name for name in imported_modules(source, filename) if name.split(".")[0] in FORBIDDEN}


def engine_files() -> list[Path]:
    return sorted(ENGINE_DIR.rglob("*.py"))


SHARED_CORE = {"__init__.py", "game.py", "core.py", "events.py", "dice.py", "clock.py", "errors.py", "rulesets.py",
               "gm.py", "house.py", "vocabulary.py", "commands.py", "describe.py", "names.py", "view.py",
               "schema.py", "toml_text.py", "fairness.py", "history.py", "chartspec.py", "mapspec.py",
               "ledgercheck.py"}
RULE_SETS = {"nations", "goddice", "godsfire"}


def test_the_engine_is_the_shared_core_and_one_package_per_rule_set():
    top = {p.name for p in ENGINE_DIR.iterdir() if p.suffix == ".py"}
    packages = {p.name for p in ENGINE_DIR.iterdir() if (p / "__init__.py").exists()}
    assert top == SHARED_CORE
    assert packages == RULE_SETS


@pytest.mark.parametrize("package", sorted(RULE_SETS))
def test_no_rule_set_imports_another(package):
    others = {f"engine.{name}" for name in RULE_SETS - {package}}
    for path in (ENGINE_DIR / package).rglob("*.py"):
        imported = imported_modules(path.read_text(encoding="utf-8"), str(path))
        assert not {m for m in imported if m.split(".")[:2] and ".".join(m.split(".")[:2]) in others}, path


def test_the_shared_core_imports_no_rule_set():
    """Only the package's own __init__ (registration) and the assembled vocabulary name the rule sets."""
    for name in SHARED_CORE - {"__init__.py", "commands.py"}:
        imported = imported_modules((ENGINE_DIR / name).read_text(encoding="utf-8"), name)
        assert not {m for m in imported if m.split(".")[0] == "engine" and m.split(".")[1:2] and
                    m.split(".")[1] in RULE_SETS}, name


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: p.relative_to(ENGINE_DIR).as_posix())
def test_engine_module_imports_no_io_library(path):
    assert forbidden_imports(path.read_text(encoding="utf-8"), str(path)) == set()


def test_the_check_sees_every_form_of_import():
    source = (
        "import os\n"
        "import discord.ext.commands\n"
        "from aiosqlite import connect\n"
        "def later():\n"
        "    from apscheduler.schedulers.asyncio import AsyncIOScheduler\n"
        "from . import sibling\n"
        "import discordant\n"
    )
    assert forbidden_imports(source) == {"discord.ext.commands", "aiosqlite", "apscheduler.schedulers.asyncio"}
