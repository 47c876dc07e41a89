"""Comments inside a tool form, anchored to what they describe, for ``plistspec fmt``.

Owns: :func:`plan_comments` (a tool form's source → a :class:`CommentPlan`) and
:func:`comments_in` (the comments of a span). The canonical layout is written from the
IR, so a comment cannot simply stay at its offset: it is attached to a *node* of the
form — a slot, an arg plist, a key of an arg plist, a key of a nested plist, an element
of a vector — and the writer (:mod:`plistspec.emit_elisp`) puts it back next to that
node wherever the layout moves it:

* a comment on its own line is a *leading* comment of the node that follows it (it is
  written on its own lines before that node), or, after the last node of a list, an
  *end* comment (written on its own lines before the closing paren);
* a comment after code on the same line is a *trailing* comment of the node before it
  (written at the end of the line where that node ends), or, right after an opening
  paren, an *open* comment of the list (``(gptel-make-tool ; note``).

Where the layout puts the first node of a list on the line of its opening paren (the
``:name`` of an arg plist, the first key of a nested plist, the first element of a
vector), its leading comments move before the list and an open comment becomes the
first node's trailing comment. Nodes are named by a path of IR keys (``("slot", ":args",
0)``, ``("arg", "city")``, ``("k", "type")``, ``("i", 2)``), interned to small integers
so lookups stay cheap at any depth.

A comment inside a value that is written from its evaluated value (``:description
(concat "a" ;; x\\n "b")``), or between a key and a scalar value, cannot be placed:
:attr:`CommentPlan.unplaced` lists its offset, and fmt leaves the form as it was.
Comments inside slots kept verbatim (``:function``...) are part of their text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

__all__ = ["CommentPlan", "plan_comments", "comments_in", "ROOT"]

ROOT = 0
_SCHEMA_SLOTS = (":name", ":description", ":args")


class CommentPlan:
    """Comments by node id (see the module doc); ``hot`` ids must not be written flat."""

    __slots__ = (
        "ids",
        "leading",
        "trailing",
        "end",
        "open",
        "hot",
        "parent",
        "unplaced",
        "count",
        "offsets",
    )

    def __init__(self) -> None:
        self.ids: dict[tuple[int, tuple], int] = {}
        self.parent: dict[int, int] = {}
        self.leading: dict[int, list[str]] = {}
        self.trailing: dict[int, str] = {}
        self.end: dict[int, list[str]] = {}
        self.open: dict[int, str] = {}
        self.hot: set[int] = set()
        self.unplaced: list[int] = []
        self.count = 0
        # where each comment of the form starts (:func:`comments_in`), for fmt's check
        self.offsets: list[int] = []

    def child(self, parent: int | None, key: tuple) -> int | None:
        """The id of ``parent``'s child ``key`` (None when nothing below it has comments)."""
        if parent is None:
            return None
        return self.ids.get((parent, key))

    def intern(self, parent: int, key: tuple) -> int:
        k = (parent, key)
        nid = self.ids.get(k)
        if nid is None:
            nid = len(self.ids) + 1
            self.ids[k] = nid
            self.parent[nid] = parent
        return nid

    def _heat(self, nid: int) -> None:
        while nid in self.parent:
            nid = self.parent[nid]
            if nid in self.hot:
                return
            self.hot.add(nid)

    def add(self, kind: str, nid: int, text: str) -> None:
        self.count += 1
        if kind == "leading":
            self.leading.setdefault(nid, []).append(text)
        elif kind == "end":
            self.end.setdefault(nid, []).append(text)
            self.hot.add(nid)
        elif kind == "open":
            self.open[nid] = self.open[nid] + " " + text if nid in self.open else text
        else:
            old = self.trailing.get(nid)
            self.trailing[nid] = text if old is None else old + " " + text
        self._heat(nid)

    def __bool__(self) -> bool:
        return self.count > 0


class _Node:
    __slots__ = (
        "nid",
        "start",
        "end",
        "kind",
        "children",
        "value_start",
        "first",
        "parent",
        "_starts",
    )

    def __init__(self, nid: int, start: int, end: int, kind: str, value_start: int) -> None:
        self.nid = nid
        self.start = start
        self.end = end
        self.kind = kind  # root args arg plist vector leaf verbatim
        self.children: list[_Node] = []
        self.value_start = value_start
        self.first: _Node | None = None  # the child the layout writes on the opening line
        self.parent: _Node | None = None
        self._starts: list[int] | None = None

    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [c.start for c in self.children]
        return self._starts

    def append(self, child: _Node) -> None:
        child.parent = self
        self.children.append(child)


def comments_in(text: str, datum: Any, lo: int | None = None, hi: int | None = None) -> list[int]:
    """Offsets of the ``;`` starting each comment in ``text[lo:hi]`` (default: ``datum``'s
    span), not counting ``;`` inside the atoms of ``datum`` (a datum or a list of them)."""
    from plistspec.elisp.datum import atom_spans

    if lo is None or hi is None:
        lo, hi = datum.start, datum.end
    if text.find(";", lo, hi) < 0:
        return []
    roots = datum if isinstance(datum, list) else [datum]
    if text.count(";", lo, hi) <= _FEW:
        return _comment_starts(text, lo, hi, lambda pos: _atom_end_at(roots, pos))
    atoms = atom_spans(roots)
    starts = [a[0] for a in atoms]

    def end_at(pos: int) -> int | None:
        i = bisect_right(starts, pos) - 1
        return atoms[i][1] if i >= 0 and atoms[i][0] <= pos < atoms[i][1] else None

    return _comment_starts(text, lo, hi, end_at)


def _comment_starts(text: str, lo: int, hi: int, end_at: Callable[[int], int | None]) -> list[int]:
    """The ``;`` of ``text[lo:hi]`` that start a comment: a ``;`` inside an atom (whose end
    ``end_at(pos)`` gives, None outside every atom) is skipped, and so is the rest of a
    comment's line."""
    out = []
    pos = text.find(";", lo, hi)
    while pos >= 0:
        end = end_at(pos)
        if end is not None:
            pos = text.find(";", end, hi)
            continue
        out.append(pos)
        nl = text.find("\n", pos, hi)
        if nl < 0:
            break
        pos = text.find(";", nl, hi)
    return out


# Up to this many ``;`` in a span, each is placed by walking down to it (a few small
# lists per ``;``) instead of listing every atom of the span: linear either way.
_FEW = 8


def _atom_end_at(roots: list[Any], pos: int) -> int | None:
    """The end of the atom of ``roots`` whose span holds ``pos``, None when none does
    (the atoms :func:`plistspec.elisp.datum.atom_spans` lists: lists and vectors are
    opened, placeless datums skipped). Only the containers whose span holds ``pos`` (or
    that have no span) are opened."""
    from plistspec.elisp.datum import List, Vector

    todo = list(roots)
    while todo:
        d = todo.pop()
        s = d.start
        if isinstance(d, (List, Vector)):
            if s >= 0 and not s <= pos < d.end:
                continue
            todo.extend(d.items)
            if isinstance(d, List) and d.tail is not None:
                todo.append(d.tail)
        elif s >= 0 and s <= pos < d.end:
            return d.end
    return None


def _keyword_plist(d: Any) -> bool:
    from plistspec.elisp.datum import List, Symbol

    if not isinstance(d, List) or d.tail is not None or len(d.items) % 2 or d.start < 0:
        return False
    return all(
        isinstance(k, Symbol) and k.name.startswith(":") and k.start >= 0 for k in d.items[::2]
    )


def _well_placed(children: list[_Node], lo: int, hi: int) -> bool:
    prev = lo
    for c in children:
        if c.start < prev or c.end > hi or c.start < 0:
            return False
        prev = c.end
    return True


def _value_node(plan: CommentPlan, nid: int, start: int, value: Any, todo: list, has: Any) -> _Node:
    """The node of a plist entry or vector element whose value datum is ``value`` (its own
    children are made only when a comment lies inside it: ``has(lo, hi)``)."""
    from plistspec.elisp.datum import Vector

    if _keyword_plist(value):
        node = _Node(nid, start, value.end, "plist", value.start)
        if has(start, value.end):
            todo.append((node, value))
    elif isinstance(value, Vector) and value.start >= 0:
        node = _Node(nid, start, value.end, "vector", value.start)
        if has(start, value.end):
            todo.append((node, value))
    else:
        node = _Node(nid, start, value.end, "leaf", value.start)
    return node


def _expand(plan: CommentPlan, node: _Node, value: Any, todo: list, has: Any) -> None:
    from plistspec.elisp.datum import Vector

    if isinstance(value, Vector):
        for i, e in enumerate(value.items):
            if e.start < 0:
                node.kind = "leaf"
                node.children = []
                return
            nid = plan.intern(node.nid, ("i", i))
            node.append(_value_node(plan, nid, e.start, e, todo, has))
    else:
        items = value.items
        seen: set[str] = set()
        for i in range(0, len(items), 2):
            k, v = items[i], items[i + 1]
            name = k.name[1:]
            if node.kind == "arg" and k.name in (":name", ":optional") and k.name not in seen:
                name = k.name
            seen.add(k.name)
            if v.start < 0:
                node.kind = "leaf"
                node.children = []
                return
            nid = plan.intern(node.nid, ("k", name))
            child = _value_node(plan, nid, k.start, v, todo, has)
            node.append(child)
            if name == ":name":
                node.first = child
    if node.kind != "arg":
        node.first = node.children[0] if node.children else None
    if not _well_placed(node.children, node.value_start, node.end):
        node.kind = "leaf"
        node.children = []


def _tree(form: Any, datum: Any, plan: CommentPlan, offsets: list[int]) -> _Node:
    """The nodes of the form down to every comment (``offsets``, sorted); a subtree
    without a comment inside is not expanded (the writer finds no id for it)."""
    from plistspec.elisp.datum import List, String

    def has(lo: int, hi: int) -> bool:
        i = bisect_left(offsets, lo)
        return i < len(offsets) and offsets[i] < hi

    root = _Node(
        ROOT, datum.start, datum.end, "root", datum.items[0].end if datum.items else datum.start
    )
    todo: list[tuple[_Node, Any]] = []
    counts: dict[str, int] = {}
    for s in form.slots:
        k = s.key.name
        n = counts.get(k, 0)
        counts[k] = n + 1
        nid = plan.intern(ROOT, ("slot", k, n))
        start, end = s.key.start, s.form.end
        if k not in _SCHEMA_SLOTS:
            root.append(_Node(nid, start, end, "verbatim", s.form.start))
            continue
        node = _Node(nid, start, end, "leaf", s.form.start)
        root.append(node)
        v = s.value
        if k != ":args" or not isinstance(v, List) or v.tail is not None or not has(start, end):
            continue
        node.kind = "args"
        for a in v.items:
            name = None
            if _keyword_plist(a):
                for i in range(0, len(a.items), 2):
                    if a.items[i].name == ":name":
                        if isinstance(a.items[i + 1], String):
                            name = a.items[i + 1].value
                        break
            if name is None:
                node.kind = "leaf"
                node.children = []
                break
            arg = _Node(plan.intern(nid, ("arg", name)), a.start, a.end, "arg", a.start)
            node.append(arg)
            if has(a.start, a.end):
                todo.append((arg, a))
        if node.kind == "args" and not _well_placed(node.children, s.form.start, end):
            node.kind = "leaf"
            node.children = []
    while todo:
        n, value = todo.pop()
        _expand(plan, n, value, todo, has)
    return root


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def plan_comments(form: Any, datum: Any, text: str) -> CommentPlan:
    """Where each comment inside the tool form ``datum`` (a ``List``) goes in its layout.

    ``form`` is the :class:`plistspec.extract.ToolForm` read from ``datum``.
    """
    plan = CommentPlan()
    # Comments inside the values kept verbatim (``:function``...) are part of their text:
    # nothing to place. With no ``;`` anywhere else in the form, that is all of them.
    kept = sorted((s.form.start, s.form.end) for s in form.slots if s.key.name not in _SCHEMA_SLOTS)
    pos = datum.start
    for a, b in kept:
        if a < pos or text.find(";", pos, a) >= 0:
            break
        pos = b
    else:
        if text.find(";", pos, datum.end) < 0:
            return plan
    offsets = comments_in(text, datum)
    if not offsets:
        return plan
    plan.offsets = offsets
    if all(any(a <= p < b for a, b in kept) for p in offsets):
        return plan
    root = _tree(form, datum, plan, offsets)
    for p in offsets:
        eol = text.find("\n", p)
        line = text[p : eol if eol >= 0 else len(text)].rstrip()
        node = root
        while True:
            i = bisect_right(node.starts(), p) - 1
            if i >= 0 and node.children[i].start <= p < node.children[i].end:
                node = node.children[i]
                continue
            break
        if node.kind == "verbatim":
            if p < node.value_start:
                plan.unplaced.append(p)
            continue
        if node.kind == "leaf" or p < node.value_start and node.kind == "root":
            plan.unplaced.append(p)
            continue
        kids = node.children
        i = bisect_right(node.starts(), p)
        prev = kids[i - 1] if i > 0 else None
        nxt = kids[i] if i < len(kids) else None
        own_line = not text[_line_start(text, p) : p].strip()
        if own_line:
            if nxt is None:
                _place(plan, "end", node, line)
            else:
                _place(plan, "leading", nxt, line)
        elif prev is not None and "\n" not in text[prev.end : p]:
            _place(plan, "trailing", prev, line)
        elif prev is None:
            _place(plan, "open", node, line)
        else:
            plan.unplaced.append(p)
    _unlink(root)
    return plan


def _unlink(root: _Node) -> None:
    """Drop the tree's parent links: they make cycles, which reference counting cannot
    free (fmt runs with the cyclic collector paused, :mod:`plistspec.core.gcpause`)."""
    todo = [root]
    while todo:
        n = todo.pop()
        n.parent = None
        todo.extend(n.children)


def _place(plan: CommentPlan, kind: str, node: _Node, line: str) -> None:
    if kind == "open" and node.kind not in ("root", "args"):
        if node.first is None:
            plan.add("end", node.nid, line)
        else:
            plan.add("trailing", node.first.nid, line)
        return
    if kind == "leading":
        # hoist out of lists whose first node is written on the opening line
        p = node.parent
        while p is not None and p.kind not in ("root", "args") and p.first is node:
            node, p = p, p.parent
    plan.add(kind, node.nid, line)
