"""The tree's layout, read from the sources (ast: nothing is imported): no import circle in
firmware/, host_tools/ or bench/, and no module of firmware/ (host_tools/: see ``FLAT``) outside
a sub-package but the entry points (issue 28).

Start reading at ``imports``: every import of a module, at its top or inside a function (the
firmware imports lazily to save heap, and a lazy import that closes a circle is a circle all
the same), resolved to the modules of the tree it names. ``cycles`` finds the circles in that
graph (Tarjan's strongly connected components), ``test_no_import_circle`` names each.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The trees whose imports are read, each a top-level package of the repository.
TREES = ("firmware", "host_tools", "bench")

# Where a module may sit at a tree's root beside its sub-packages: the package's own
# ``__init__`` (and ``__main__``), the firmware's CPython plumbing (``_mpshim``, installed by
# firmware/__init__.py before any sub-package is imported). boot.py and main.py, the board's
# entry points, sit at the repository's root, outside every tree.
ROOT_MODULES = {
    "firmware": {"__init__", "_mpshim"},
    "host_tools": {"__init__", "__main__", "cli"},  # cli: the ``tengen`` entry point
}

# Trees whose modules at the root are exempt from the rule (none: a tree split into packages
# later would sit here until it is).
FLAT: set = set()

# Circles known and left for later, each as the check names it (none). The test fails on any
# other circle, and on one of these once it is gone (so the list is emptied as they are broken).
KNOWN_CIRCLES: list = []


def modules(tree):
    """``{dotted name: path}`` of every module under the tree (packages as their ``__init__``)."""
    found = {}
    for path in sorted((ROOT / tree).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if "__pycache__" in parts or any(p.startswith(".") for p in parts):
            continue
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _package(name, path):
    """The package a module's relative imports start from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports(name, path, known):
    """The modules of ``known`` that module ``name`` (at ``path``) imports, anywhere in it."""
    tree = ast.parse(path.read_text(), str(path))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:  # import a.b.c: the deepest module
                    target = target.rpartition(".")[0]
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = _package(name, path)
                for _ in range(node.level - 1):
                    pkg = pkg.rpartition(".")[0]
                base = pkg + ("." + base if base else "") if pkg else base
            for alias in node.names:
                sub = base + "." + alias.name
                if sub in known:  # from a.b import c, c a module
                    out.add(sub)
                elif base in known:  # from a.b import name, a name in a.b
                    out.add(base)
    out.discard(name)
    return out


def graph():
    """``{module: set of the modules it imports}`` over every tree."""
    known = {}
    for tree in TREES:
        known.update(modules(tree))
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges):
    """The import circles: each a list of modules, one circle through all of them (the
    strongly connected components of more than one module, as a path that closes)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        # Tarjan's algorithm, iteratively (the graph's depth would do, but no recursion limit).
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [_circle(comp, edges) for comp in comps]


def _circle(comp, edges):
    """One path through a component's modules back to its first (breadth-first: the shortest
    circle through it), to name in the failure."""
    start, inside = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & inside):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def test_no_import_circle():
    found = cycles(graph())
    new = [c for c in found if c not in KNOWN_CIRCLES]
    assert not new, "import circles (lazy imports included):\n" + "\n".join(
        " -> ".join(c) for c in new
    )
    gone = [c for c in KNOWN_CIRCLES if c not in found]
    assert not gone, "no longer circles, take them off KNOWN_CIRCLES: %r" % gone


def test_modules_sit_in_packages():
    loose = []
    for tree, allowed in sorted(ROOT_MODULES.items()):
        if tree in FLAT:
            continue
        for path in sorted((ROOT / tree).glob("*.py")):
            if path.stem not in allowed:
                loose.append(path.relative_to(ROOT).as_posix())
    assert not loose, "modules outside a sub-package: " + ", ".join(loose)


def test_the_check_finds_circles(tmp_path):
    # The checker itself: a circle is found and named, a chain is not; a lazy import counts.
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    known = {"p": None, "p.x": None, "p.y": None, "p.q": None}
    src = tmp_path / "z.py"
    src.write_text("from p import x, name\n\ndef f():\n    import p.y\n    from . import q\n")
    assert imports("p.z", src, known) == {"p", "p.x", "p.y", "p.q"}


# ---- the README's map -----------------------------------------------------------------------


def layout_rows():
    """The README's ``## Layout`` table: ``{path: description}`` (the first column's paths)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        for path in re.findall(r"`([^`]+)`", cells[0]):
            rows[path] = cells[1]
    return rows


def test_the_readme_layout_is_the_tree():
    # Every package of firmware/ and host_tools/ has its row; every file a row names is there
    # (a name with a folder is from its tree's root); host_tools' rows name every module.
    rows = layout_rows()
    packages = sorted(
        p.parent.relative_to(ROOT).as_posix() + "/"
        for tree in ROOT_MODULES
        for p in (ROOT / tree).glob("*/__init__.py")
    )
    missing = [p for p in packages if p not in rows]
    assert not missing, "packages without a row in README's Layout: %s" % missing
    gone, unnamed = [], []
    for path, what in rows.items():
        folder = ROOT / path
        if not path.endswith("/") or not folder.is_dir():
            if not (ROOT / path).exists():
                gone.append(path)
            continue
        tree = ROOT / path.split("/")[0]
        for name in re.findall(r"`([\w/.-]+\.(?:py|js))`", what):
            if not ((folder / name).exists() or (tree / name).exists() or (ROOT / name).exists()):
                gone.append(path + name)
        if path.startswith("host_tools/") and path != "host_tools/":
            named = set(re.findall(r"`([\w.-]+\.py)`", what))
            unnamed += [
                path + p.name
                for p in sorted(folder.glob("*.py"))
                if p.name not in named and p.stem not in ("__init__", "cli")
            ]
    assert not gone, "README's Layout names what is not there: %s" % gone
    assert not unnamed, "modules README's Layout does not name: %s" % unnamed
