"""One direction between the entry point and the cogs: bot.py imports the cogs, no cog imports bot.py.

What the cogs need of the bot is `cogs.host.RefereeHost`, a protocol that lists exactly what they use:
these tests keep it that way (a type checker would also check the signatures; these check the names).

And the shared Discord modules (bot.py, the cogs at the top of cogs/, the shared render modules) know no rule
set (issue 23): they import no rule set's engine package nor its Discord package, and name no rule set; each
rule set's Discord code lives in its own package (`cogs/nations/`…), found through the registry.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from test_engine_purity import imported_modules

from bot import RefereeBot, Settings
from cogs.host import HostSettings, RefereeHost

ROOT = Path(__file__).resolve().parents[2]
COGS = sorted((ROOT / "cogs").rglob("*.py"))
NOT_FRONT_ENDS = [ROOT / "bot.py", *sorted((ROOT / "console").rglob("*.py")), *sorted((ROOT / "service").rglob("*.py")),
                  *sorted((ROOT / "data").rglob("*.py")), *sorted((ROOT / "engine").rglob("*.py")),
                  *sorted((ROOT / "web").rglob("*.py"))]


def imports(path: Path, package: str) -> bool:
    """Whether the file imports `package` or a module in it, anywhere (TYPE_CHECKING blocks included)."""
    found = imported_modules(path.read_text(encoding="utf-8"), str(path))
    return any(name == package or name.startswith(package + ".") for name in found)


@pytest.mark.parametrize("path", COGS, ids=lambda p: p.name)
def test_no_cog_imports_bot(path):
    assert not imports(path, "bot")


def test_bot_py_is_the_only_module_importing_the_cogs():
    importers = [p.relative_to(ROOT).as_posix() for p in NOT_FRONT_ENDS if imports(p, "cogs")]
    assert importers == ["bot.py"]


def module_name(path: Path) -> str:
    """`cogs/nations/clock.py` → `cogs.nations.clock`; a package's `__init__.py` → the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def cog_imports(path: Path) -> set[str]:
    """The cog modules a module imports, anywhere in it: `from cogs.nations import clock` is `cogs.nations.clock`
    (a submodule), `from cogs.render import safe` is `cogs.render`."""
    modules = {module_name(p) for p in COGS}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                         for a in node.names)
    return {m for m in found if m in modules}


def test_the_cogs_import_one_another_without_a_cycle():
    """Lazy imports inside functions count too: they only hide a cycle."""
    graph = {module_name(p): cog_imports(p) for p in COGS}
    while graph:  # take away the modules that import no module left; a cycle is what cannot be taken away
        leaves = {name for name, needs in graph.items() if not needs & set(graph)}
        assert leaves, f"import cycle among {sorted(graph)}"
        graph = {name: needs for name, needs in graph.items() if name not in leaves}


def test_the_cogs_load_without_the_entry_point():
    """At run time too: importing every cog does not import bot.py."""
    names = [module_name(p) for p in COGS]
    probe = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print('bot' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


# --- the protocol is what the cogs use, and the bot provides it ------------------------------------------------


def members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | set(protocol.__annotations__)


def _is_bot(node: ast.expr) -> bool:
    """`self.bot`, `bot_of(...)` or a name `bot` (setup's argument, or a local holding `bot_of(...)`)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "bot" and isinstance(node.value, ast.Name) and node.value.id == "self"
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "bot_of"
    return isinstance(node, ast.Name) and node.id == "bot"


def uses(source: str, filename: str = "<source>") -> tuple[set[str], set[str]]:
    """What a module reads of the bot, and of the bot's settings."""
    of_bot: set[str] = set()
    of_settings: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Attribute):
            continue
        if _is_bot(node.value):
            of_bot.add(node.attr)
        elif isinstance(node.value, ast.Attribute) and node.value.attr == "settings" and _is_bot(node.value.value):
            of_settings.add(node.attr)
    return of_bot, of_settings


def test_the_host_lists_exactly_what_the_cogs_use():
    of_bot: set[str] = set()
    of_settings: set[str] = set()
    for path in COGS:
        bot_names, settings_names = uses(path.read_text(encoding="utf-8"), str(path))
        of_bot |= bot_names
        of_settings |= settings_names
    assert of_bot == members(RefereeHost)
    assert of_settings == members(HostSettings)


def test_the_bot_provides_the_host():
    bot_names = set(dir(RefereeBot)) | set(RefereeBot.__annotations__)
    assert members(RefereeHost) - bot_names == set()
    assert members(HostSettings) - set(Settings.model_fields) == set()


def test_the_check_sees_every_use_of_the_bot():
    source = (
        "class C:\n"
        "    def m(self, interaction):\n"
        "        self.bot.referee.state(1)\n"
        "        bot_of(interaction).settings.gm_role\n"
        "        self.bot.settings.clock()\n"
        "async def setup(bot):\n"
        "    await bot.add_cog(C(bot))\n"
        "    other.settings.ignored\n"
    )
    assert uses(source) == ({"referee", "settings", "add_cog"}, {"gm_role", "clock"})
