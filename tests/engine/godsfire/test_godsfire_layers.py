"""The Godsfire modules stand in layers along the sheet's steps: they import one another in one direction only
(no cycle, lazy imports inside functions counted: they would only hide one), and none borrows another's private
(underscore) name — a helper two modules share is public, in the module where it belongs."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "engine.godsfire"
ROOT = Path(__file__).resolve().parents[3] / "engine" / "godsfire"
MODULES = sorted(p.stem for p in ROOT.glob("*.py"))


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def imports_of(source: str, module: str, modules: list[str] = MODULES) -> tuple[set[str], set[str]]:
    """What one module of the package imports of the others, anywhere in it (inside functions too): the modules
    (`__init__` for a name of the package itself), and the private names it takes from them (`x._name` read
    of a module imported whole counts too)."""
    needs: set[str] = set()
    borrowed: set[str] = set()
    whole: dict[str, str] = {}  # a local name → the package's module it stands for
    tree = ast.parse(source, module)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if alias.name.startswith(PACKAGE + ".") and parts[2] in modules:
                    needs.add(parts[2])
                    if alias.asname:
                        whole[alias.asname] = parts[2]
                elif alias.name == PACKAGE:
                    needs.add("__init__")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1:  # `from . import x`, `from .x import y`
                base = f"{PACKAGE}.{base}" if base else PACKAGE
            elif node.level > 1:
                continue
            if base == PACKAGE:
                for alias in node.names:
                    if alias.name in modules:
                        needs.add(alias.name)
                        whole[alias.asname or alias.name] = alias.name
                    else:
                        needs.add("__init__")
                        if private(alias.name):
                            borrowed.add(f"__init__.{alias.name}")
            elif base.startswith(PACKAGE + ".") and base.split(".")[2] in modules:
                target = base.split(".")[2]
                needs.add(target)
                borrowed.update(f"{target}.{alias.name}" for alias in node.names if private(alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in whole \
                and private(node.attr):
            borrowed.add(f"{whole[node.value.id]}.{node.attr}")
    needs.discard(module)
    return needs, borrowed


def graph() -> dict[str, set[str]]:
    return {name: imports_of((ROOT / f"{name}.py").read_text(encoding="utf-8"), name)[0] for name in MODULES}


def layers(needs: dict[str, set[str]]) -> list[list[str]]:
    """The modules in layers, each importing only from the layers below; AssertionError naming a cycle."""
    left = {name: set(wanted) for name, wanted in needs.items()}
    found: list[list[str]] = []
    while left:  # take away the modules that import no module left; a cycle is what cannot be taken away
        leaves = sorted(name for name, wanted in left.items() if not wanted & set(left))
        assert leaves, f"import cycle among {sorted(left)}: {cycle(left)}"
        found.append(leaves)
        left = {name: wanted for name, wanted in left.items() if name not in leaves}
    return found


def cycle(needs: dict[str, set[str]]) -> str:
    """One cycle of the graph, `a → b → a`, walked from any module (every one left is on or above a cycle)."""
    path = [min(needs)]
    while path.count(path[-1]) < 2:
        path.append(min(n for n in needs[path[-1]] if n in needs))
    return " → ".join(path[path.index(path[-1]):])


def test_the_godsfire_modules_import_one_another_without_a_cycle():
    found = layers(graph())
    assert found[-1] == ["__init__"]  # the package registers the rule set on top of every module


def test_no_godsfire_module_imports_a_private_name_of_another():
    borrowed = {name: imports_of((ROOT / f"{name}.py").read_text(encoding="utf-8"), name)[1] for name in MODULES}
    assert {name: names for name, names in borrowed.items() if names} == {}


def test_the_check_sees_lazy_relative_and_private_imports():
    source = (
        "from engine.godsfire import economy, state as st\n"
        "from engine.godsfire.rules import ECONOMY, _hidden\n"
        "import engine.godsfire.setup\n"
        "def f():\n"
        "    from engine.godsfire.politics import open_step\n"
        "    from . import loans\n"
        "    from .war import _end\n"
        "    return economy._pay, st.GodsfireState, engine.godsfire.setup.RULESET\n"
    )
    modules = ["economy", "loans", "politics", "rules", "setup", "state", "war"]
    assert imports_of(source, "x", modules) == (
        {"economy", "loans", "politics", "rules", "setup", "state", "war"},
        {"rules._hidden", "war._end", "economy._pay"},
    )
    assert layers({"a": {"b"}, "b": set()}) == [["b"], ["a"]]
    try:
        layers({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    except AssertionError as refusal:
        assert "a → b → c → a" in str(refusal)
    else:
        raise AssertionError("a cycle was not seen")
