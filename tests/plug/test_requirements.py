"""The requirements, honestly pinned: every third-party package the project's own code imports is pinned in
requirements.txt; what only the tests and the benchmarks import, in requirements-dev.txt (which includes
requirements.txt). Every import counts, lazy ones inside functions and TYPE_CHECKING ones included."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = {"bot", "cogs", "console", "data", "engine", "service", "web", "bench"}
RUNTIME = [ROOT / "bot.py", *(p for folder in ("cogs", "console", "service", "engine", "data", "web")
                              for p in sorted((ROOT / folder).rglob("*.py")))]
DEVELOPMENT = [p for folder in ("tests", "bench") for p in sorted((ROOT / folder).rglob("*.py"))]
# the tests' own helpers, imported by name from tests/support/ (and one test module from another)
TEST_MODULES = {p.stem for p in (ROOT / "tests").rglob("*.py")}


def imported(source: str, filename: str = "<source>") -> set[str]:
    """The top-level module names a module imports anywhere in it (relative imports and the standard library left
    out)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.partition(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names}


def top_level_imports(paths: Iterable[Path]) -> dict[str, set[str]]:
    """Each top-level module name imported by the files → the files importing it."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for name in imported(path.read_text(encoding="utf-8"), str(path)):
            found.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return found


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them: `Jinja2` is `jinja2`, `discord.py` is `discord-py`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(file: str) -> dict[str, str]:
    """The requirements a file names (those of the files it includes with `-r` too): normalized name → its line."""
    found: dict[str, str] = {}
    for raw in (ROOT / file).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            found.update(pinned(line[3:].strip()))
        elif line:
            name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
            assert name, f"{file}: cannot read {raw!r}"
            found[normalized(name.group())] = line
    return found


def distributions(module: str) -> set[str]:
    """The installed distributions that provide a top-level module, normalized (empty: none installed)."""
    return {normalized(d) for d in importlib.metadata.packages_distributions().get(module, [])}


def unpinned(imports: dict[str, set[str]], allowed: dict[str, str], local: set[str]) -> list[str]:
    problems = []
    for module, where in sorted(imports.items()):
        if module in local:
            continue
        provided = distributions(module)
        if not provided:
            problems.append(f"{module} (imported by {', '.join(sorted(where))}) is no installed package's")
        elif not provided & set(allowed):
            problems.append(f"{module} (imported by {', '.join(sorted(where))}): pin {' or '.join(sorted(provided))}")
    return problems


def test_what_the_code_imports_is_pinned_in_requirements_txt():
    imports = top_level_imports(RUNTIME)
    assert {"discord", "aiohttp", "dotenv", "jinja2"} <= set(imports)  # (the walk sees them)
    assert unpinned(imports, pinned("requirements.txt"), FIRST_PARTY) == []


def test_what_the_tests_and_benchmarks_import_is_pinned_in_one_of_the_two():
    imports = top_level_imports(DEVELOPMENT)
    assert {"pytest", "hypothesis", "discordkit"} <= set(imports)
    assert unpinned(imports, pinned("requirements-dev.txt"), FIRST_PARTY | TEST_MODULES) == []


def test_a_lazy_import_counts():
    source = ("from __future__ import annotations\nimport os.path\nfrom typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from web.server import GamePages\n"
              "def chart():\n    import matplotlib.pyplot as plt\n    from scipy import stats\n    from . import x\n")
    assert imported(source) == {"web", "matplotlib", "scipy"}


@pytest.mark.parametrize("file", ["requirements.txt", "requirements-dev.txt"])
def test_every_requirement_is_pinned_to_one_version_and_named_once(file):
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / file).read_text(encoding="utf-8").splitlines()]
    names = [normalized(re.split(r"[\[=<>!~ ]", line, maxsplit=1)[0]) for line in lines
             if line and not line.startswith("-r ")]
    assert len(names) == len(set(names))
    for line in lines:
        assert not line or line.startswith("-r ") or re.fullmatch(r"[A-Za-z0-9._-]+(\[[a-z,]+\])?==[0-9][0-9.]*",
                                                                   line), f"{file}: {line!r} is not pinned"
    if file == "requirements-dev.txt":  # what the runtime pins is not pinned again for the tests
        assert not set(names) & set(pinned("requirements.txt"))
