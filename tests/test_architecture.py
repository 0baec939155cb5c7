"""The package's layout by role, read from its imports with `ast` (CONTRIBUTING.md, "Where does a new thing go").

The formulas at the top of `attn_lib/` import only numpy and each other (and the input checks); the
course's machinery lives in folders named for its role, and the arrows between them point one way:

    widgets -> pictures -> models -> formulas        exercises -> models -> formulas
    everything -> i18n (the strings), examples (the article's data) and the formulas
    entry points (commands a learner runs, such as python -m attn_lib.check) -> anything; nothing -> them

No module imports a notebook-facing re-export hub (`attn_lib`, `attn_lib.exercises`, `attn_lib.pictures`,
`attn_lib.widgets`) for a name it re-exports; no import cycle exists, counting the imports inside functions;
no module but the strings is over 450 lines.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attn_lib"

#: The formulas the article teaches, numpy only (the top of the package).
FORMULAS = {
    "_checks", "_memory", "_threads", "_tiles", "core", "multihead", "grouped", "position", "block", "sliding_window",
    "efficient", "sampling", "dropout",
}  # fmt: skip
#: Third-party libraries the formulas may use besides the standard library.
FORMULA_LIBRARIES = {"numpy", "threadpoolctl"}
#: Commands a learner runs (python -m attn_lib.<name>): a module at the top that may import every role, and that no
#: module of the package imports (so a command never drags widgets into a formula).
ENTRY_POINTS = {"check"}
#: The folders, each a role, and the roles each may import (besides itself).
MAY_IMPORT = {
    "formulas": set(),
    "examples": {"formulas"},
    "i18n": set(),
    "models": {"formulas", "examples", "i18n"},
    "pictures": {"formulas", "examples", "i18n", "models"},
    "widgets": {"formulas", "examples", "i18n", "models", "pictures"},
    "exercises": {"formulas", "examples", "i18n", "models"},
    "root": {"formulas"},
    "entry points": {"formulas", "examples", "i18n", "models", "pictures", "widgets", "exercises", "root"},
}
#: The notebook-facing hubs: they re-export their children's names; no module of the package imports them.
HUBS = {"attn_lib", "attn_lib.exercises", "attn_lib.pictures", "attn_lib.widgets"}
MAX_LINES = 450


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def role(name):
    """The role of a module of the package: formulas, examples, entry points, root, or its folder's name."""
    parts = name.split(".")
    if len(parts) == 1:
        return "root"
    if len(parts) == 2 and parts[1] in FORMULAS:
        return "formulas"
    if len(parts) == 2 and parts[1] == "examples":
        return "examples"
    if len(parts) == 2 and parts[1] in ENTRY_POINTS:
        return "entry points"
    return parts[1]


def imports(name):
    """(line, imported module, names or None) for every import in the module, inside functions too."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from .x import y
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base, [alias.name for alias in node.names]))
    return found


def edges(name):
    """The modules of the package that `name` imports: a submodule where one is named, else the module itself."""
    result = set()
    for _, module, names in imports(name):
        if not module.startswith("attn_lib"):
            continue
        subs = [f"{module}.{n}" for n in names or () if f"{module}.{n}" in MODULES]
        result.update(subs)
        if names is None or len(subs) < len(names):  # a name that is not a submodule: the module itself
            result.add(module)
    result.discard(name)
    return result


GRAPH = {name: edges(name) for name in MODULES}


def test_the_layout_is_found():
    """The test reads what it should: every role has modules, and nothing in the package sits outside a role."""
    roles = {role(name) for name in MODULES}
    assert roles == set(MAY_IMPORT), f"unexpected folders or roles: {sorted(roles - set(MAY_IMPORT))}"
    assert {"attn_lib.core", "attn_lib.exercises.diagnose", "attn_lib.i18n"} <= set(MODULES)


def test_no_module_imports_an_entry_point():
    """An entry point (python -m attn_lib.check) may import every role; no module of the package imports it."""
    assert role("attn_lib.check") == "entry points" and "attn_lib.check" in MODULES
    assert all("entry points" not in allowed for allowed in MAY_IMPORT.values())
    importers = sorted(name for name, targets in GRAPH.items() if any(role(t) == "entry points" for t in targets))
    assert not importers, f"{importers} import an entry point: move what they need into a module of its role"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if role(n) == "formulas"))
def test_formulas_import_only_numpy_and_each_other(name):
    for line, module, _ in imports(name):
        top = module.split(".")[0]
        if top == "attn_lib":
            target = module.split(".")
            assert len(target) == 2 and target[1] in FORMULAS, f"{name}:{line} imports {module}: not a formula"
        else:
            assert top in sys.stdlib_module_names or top in FORMULA_LIBRARIES, (
                f"{name}:{line} imports {module}: the formulas use numpy and the standard library only"
            )


@pytest.mark.parametrize("name", sorted(MODULES))
def test_arrows_point_one_way(name):
    """models never import pictures or widgets; pictures never import widgets or exercises; and so on."""
    mine = role(name)
    for target in GRAPH[name]:
        theirs = role(target)
        allowed = sorted(MAY_IMPORT[mine]) or "itself"
        assert theirs == mine or theirs in MAY_IMPORT[mine], (
            f"{name} ({mine}) imports {target} ({theirs}): {mine} may import only {allowed}"
        )


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_a_hub(name):
    """A hub re-exports its children for notebooks; inside the package, import the child that defines a name."""
    for line, module, names in imports(name):
        if module not in HUBS or module == name:
            continue
        hub_names = [n for n in names or [module] if f"{module}.{n}" not in MODULES]
        assert not hub_names, f"{name}:{line} imports {hub_names} from the hub {module}: import its module instead"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_package_imports_no_notebook_test_or_script(name):
    for line, module, _ in imports(name):
        assert module.split(".")[0] not in {"tests", "notebooks", "benchmarks", "tools", "conftest"}, (
            f"{name}:{line} imports {module}"
        )


def find_cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_finds_one():
    """The cycle finder itself: the circle of the old layout (exercises -> capstone -> exercises) is found."""
    old = {"exercises": {"capstone", "core"}, "capstone": {"exercises"}, "core": set()}
    cycle = find_cycle(old)
    assert cycle[0] == cycle[-1] and set(cycle) == {"exercises", "capstone"}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("name", sorted(n for n in MODULES if role(n) != "i18n"))
def test_modules_are_small(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES}): split it by topic"


@pytest.mark.parametrize(
    "hub, prefixes",
    [
        ("attn_lib.exercises", ("check_", "run_")),
        ("attn_lib.widgets", ("_widget",)),
        ("attn_lib.pictures", ("draw_", "plot_")),
    ],
)
def test_hubs_re_export_every_public_function_of_their_children(hub, prefixes):
    """A checker, widget or picture added to a module of the folder is reachable from the hub notebooks import."""
    import importlib

    exported = set(importlib.import_module(hub).__all__)
    missing = []
    for name in MODULES:
        if not name.startswith(hub + ".") or name.rsplit(".", 1)[1] in {
            "kit",
            "fast_figures",
            "shell",
            "diagnose",
            "mistakes",
            "forbid",
        }:
            continue
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                if node.name.startswith(prefixes) or node.name.endswith(prefixes):
                    if node.name not in exported:
                        missing.append(f"{name}.{node.name}")
    assert not missing, f"{hub} does not re-export {missing}"


def script_paths():
    """(script, path) for every path into the package that a benchmark or tool spells as "attn_lib" / "x" / ..."""
    import re

    found = []
    for script in sorted([*ROOT.glob("benchmarks/*.py"), *ROOT.glob("tools/*.py")]):
        for match in re.finditer(r'"attn_lib"((?:\s*/\s*"[^"]+")+)', script.read_text(encoding="utf-8")):
            parts = re.findall(r'"([^"]+)"', match.group(1))
            found.append((script.name, Path("attn_lib", *parts)))
    return found


@pytest.mark.parametrize("script, path", script_paths(), ids=[f"{s}:{p}" for s, p in script_paths()])
def test_scripts_write_into_folders_of_the_layout(script, path):
    """A benchmark or tool that stores package data writes into a folder that exists (the layout moved data/)."""
    assert (ROOT / path).parent.is_dir(), f"{script} writes {path}, but {path.parent} is not a folder of the package"
