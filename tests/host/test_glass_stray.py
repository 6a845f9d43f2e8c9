"""No text reaches the faces from outside the table (firmware/ui/texts.py): a scan of every
firmware module for string literals where a face's text is made.

Where a text is made: the word and small arguments of ``show_text(line, small, ...)``,
``note(side, word, small, ...)`` and ``_set_note(side, word, small, ...)``; the word and
small of ``expect_text`` and of the self-test's ``_texts``; and the functions whose result
the faces show (``TEXT_FUNCTIONS``). A non-empty string literal there is a text outside the
table: it fails here, with its file and line. (tests/test_glass_texts.py checks that what
these draw is in the table and reads back as meant; result_word's literals parse a result,
they are not shown, so it is not listed.) The words for a display with room (``more``) are
free: only the glass is the constraint. The README's table of words must match the table.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULES = (
    "firmware/game/app.py",
    "firmware/boot/bootlog.py",
    "firmware/game/match.py",
    "firmware/ui/say.py",
    "firmware/ui/menus.py",
    "firmware/ui/arbiter.py",
    "firmware/ui/calibrate.py",
)
# call name: the positions of its word and small arguments
SINKS = {"show_text": (0, 1), "note": (1, 2), "_set_note": (1, 2)}
# module: (class or "", function), every string of which is a face's text
TEXT_FUNCTIONS = {
    "firmware/ui/menus.py": {("Menu", "text"), ("", "time_label"), ("", "komi_text")},
    "firmware/ui/arbiter.py": {("Arbiter", "text")},
    "firmware/ui/calibrate.py": {("Calibrating", "text")},
    "firmware/ui/say.py": {("", "word"), ("", "small_into"), ("", "margin_text")},
}
TEXT_FUNCTIONS["firmware/ui/say.py"].add(("", "result_small"))
TUPLES = {"expect_text", "_texts"}  # assigned (word, small, more) tuples


def _literals(node):
    # Non-empty string literals in an expression.
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.value:
            yield n
        elif isinstance(n, ast.JoinedStr):
            yield n


def _docstring(node):
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[0].value
    return None


def _word_small(tup):
    # The word and the small part of a (word, small, more) tuple, or of a tuple of them.
    if not isinstance(tup, ast.Tuple):
        return []
    if tup.elts and all(isinstance(e, ast.Tuple) for e in tup.elts):
        out = []
        for e in tup.elts:
            out += e.elts[:2]
        return out
    return tup.elts[:2]


def strays(source, filename="<text>", functions=None):
    """``[(line, literal)]``: the string literals in ``source`` that reach a face's text;
    ``functions``: its text functions, ``(class or "", name)`` (default: every module's)."""
    if functions is None:
        functions = set().union(*TEXT_FUNCTIONS.values())
    tree = ast.parse(source, filename)
    found = []

    def add(node):
        value = getattr(node, "value", None)
        found.append((node.lineno, value if isinstance(value, (str, bytes)) else "f-string"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            for i in SINKS.get(name, ()):
                if i < len(node.args):
                    for lit in _literals(node.args[i]):
                        add(lit)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                name = target.attr if isinstance(target, ast.Attribute) else ""
                name = name or getattr(target, "id", "")
                if name in TUPLES:
                    for part in _word_small(node.value):
                        for lit in _literals(part):
                            add(lit)
    for cls, fn in _functions(tree):
        if (cls, fn.name) in functions:
            # Keys (s["game"]) and what a value is compared with (== "designated") are not
            # texts; every other literal is.
            skip = {id(_docstring(fn))}
            for n in ast.walk(fn):
                parts = [n.slice] if isinstance(n, ast.Subscript) else []
                if isinstance(n, ast.Compare):
                    parts = [n.left] + n.comparators
                for part in parts:
                    skip.update(id(k) for k in ast.walk(part))
            for lit in _literals(fn):
                if id(lit) not in skip:
                    add(lit)
    return sorted(set(found))


def _functions(tree):
    # (class name or "", function node) for every function at module or class level.
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield "", node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield node.name, item


def test_no_module_draws_a_text_outside_the_table():
    # The drawing modules, and every other firmware module (a new one that draws is
    # scanned too; texts.py itself and the host-side virtual board's reader are the table's).
    names = set(MODULES)
    for path in sorted((ROOT / "firmware").rglob("*.py")):
        names.add(path.relative_to(ROOT).as_posix())
    names -= {"firmware/ui/texts.py", "firmware/hal/virtual.py"}
    out = []
    for rel in sorted(names):
        path = ROOT / rel
        functions = TEXT_FUNCTIONS.get(rel, set())
        for line, literal in strays(path.read_text(), str(path), functions):
            out.append("%s:%d: %r" % (rel, line, literal))
    assert not out, "texts outside firmware/ui/texts.py:\n" + "\n".join(out)


def test_the_scan_finds_a_stray_literal():
    snippet = '''
class App:
    def _face(self, f, n):
        f.show_text("FIX", T.OK, 0, "more words are free")
        f.show_text(T.DEAD, b"23")
        self.note(3, "LOCK %d" % n, "", "free", 0)
        self._set_note(1, T.OK, f"{n}", "", 0)
        self.expect_text = ("W", name, "White E5: put it there")


class Menu:
    def text(self):
        """The docstring is not a text."""
        if s["opening"] == "designated":
            return ("OPEN", T.OPENING_LABEL)
        return ("KOMI " + k, T.KOMI_LABEL)


def word(kind):
    return T.INCIDENT[kind] or "?"
'''
    found = strays(snippet)
    assert [lit for _, lit in found] == [
        "FIX",
        b"23",
        "LOCK %d",
        "f-string",
        "W",
        "OPEN",
        "KOMI ",
        "?",
    ]
    assert strays("f.show_text(T.CAP, small, flags, 'put ' + small + ' back')") == []


def test_the_readme_table_of_words_is_the_table():
    # README "Playing at the board": every word its table quotes is one the faces can show,
    # and every fixed word of texts.table() is in it.
    import re

    from tests import glass as G

    text = (ROOT / "README.md").read_text()
    start = text.index("| where | big cells | small cells | what it says |")
    rows = text[start : text.index("\n\n", start)]
    quoted = set()
    for row in rows.split("\n")[2:]:
        cells = row.split(" | ")
        for cell in cells[1:3]:
            quoted.update(re.findall(r"`([^`]+)`", cell))
    templates = [t for entry in G.table() for t in entry]
    for word in sorted(quoted):
        assert any(G._match(t, word) for t in templates), "README quotes %r" % word
    for t in templates:
        if t and not any(c in G.MARKS for c in t):
            assert t in quoted, "README's table of words lacks %r" % t
