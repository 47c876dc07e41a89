"""The ``$ref`` s of one schema as a graph: how big it grows when they are written inline,
and which of them are recursive.

Owns: :func:`expanded_size` (the number of JSON objects and arrays of a schema once every
local ``$ref`` is written out, computed once per definition, so a "billion laughs" schema
is measured in time linear in its text and refused before anything is expanded: the
bound of ``from-json``, :data:`plistspec.fromjson.refs.MAX_NODES`) and :class:`RefGraph`
(definitions and the references between them, with their strongly connected components:
whether a reference from inside one definition comes back to it, and a reference that
is part of a cycle). Everything is iterative and linear in the size of the schema.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import resolve_pointer

__all__ = ["expanded_size", "RefGraph"]

_DEFS = ("$defs", "definitions")


class _TooBig(Exception):
    pass


def expanded_size(root: Any, limit: int) -> tuple[int, str]:
    """``(size, ref)``: the objects and arrays of ``root`` with its local ``$ref`` s written
    out (a recursive one counts once) and its ``$defs``/``definitions`` left out (what a
    target that inlines every reference receives, and what ``from-json`` writes), and the
    definition that alone expands the most; the count stops as soon as it passes
    ``limit`` (the size is then ``limit + 1``)."""
    memo: dict[int, int] = {}
    onstack: set[int] = set()
    biggest = (0, "")
    total = 0
    # frames: [node, iterator over children, size so far, id of the target it computes]
    stack: list[list[Any]] = []

    def open_(node: Any, key: int | None) -> None:
        if type(node) is dict:
            items = [v for k, v in node.items() if k not in _DEFS]
            ref = node.get("$ref")
            if type(ref) is str and ref.startswith("#"):
                found, target = resolve_pointer(root, ref)
                if found and isinstance(target, (dict, list)):
                    items = [v for k, v in node.items() if k != "$ref" and k not in _DEFS]
                    items.append(_Ref(ref, target))
        else:
            items = node
        stack.append([node, iter(items), 1, key])

    try:
        open_(root, None)
        while stack:
            frame = stack[-1]
            child = next(frame[1], _END)
            if child is _END:
                stack.pop()
                size = frame[2]
                if frame[3] is not None:
                    memo[frame[3]] = size
                    onstack.discard(frame[3])
                    biggest = max(biggest, (size, frame[4]))
                if stack:
                    stack[-1][2] += size
                    if stack[-1][2] > limit:
                        raise _TooBig
                else:
                    total = size
                continue
            if type(child) is _Ref:
                k = id(child.target)
                if k in memo:
                    frame[2] += memo[k]
                elif k in onstack:
                    frame[2] += 1
                else:
                    onstack.add(k)
                    open_(child.target, k)
                    stack[-1].append(child.ref)
                continue
            if type(child) is dict or type(child) is list:
                open_(child, None)
        return total, biggest[1]
    except _TooBig:  # the largest definition measured so far names the culprit
        return limit + 1, biggest[1]


class _Ref:
    __slots__ = ("ref", "target")

    def __init__(self, ref: str, target: Any) -> None:
        self.ref = ref
        self.target = target


_END = object()


class RefGraph:
    """The definitions of ``root`` (every object a local ``$ref`` points at, and the root
    itself) and the references between them. A definition's references are the ``$ref`` s
    in its subtree, not counting nested ``$defs``/``definitions`` (definitions of their
    own)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[int, list[tuple[str, int]]] = {}  # home id -> (ref, target id)
        self.objects: dict[int, Any] = {id(root): root}
        todo = [root]
        while todo:
            home = todo.pop()
            out: list[tuple[str, int]] = []
            self.refs[id(home)] = out
            work = [home]
            while work:
                n = work.pop()
                if type(n) is dict:
                    ref = n.get("$ref")
                    if type(ref) is str and ref.startswith("#"):
                        found, target = resolve_pointer(root, ref)
                        if found and isinstance(target, (dict, list)):
                            out.append((ref, id(target)))
                            if id(target) not in self.objects:
                                self.objects[id(target)] = target
                                todo.append(target)
                    for k, v in n.items():
                        if k in _DEFS and type(v) is dict:
                            for d in v.values():  # definitions are homes of their own
                                if isinstance(d, (dict, list)) and id(d) not in self.objects:
                                    self.objects[id(d)] = d
                                    todo.append(d)
                        elif type(v) is dict or type(v) is list:
                            work.append(v)
                elif type(n) is list:
                    work.extend(v for v in n if type(v) is dict or type(v) is list)
        self.component = self._components()
        self._cycle: Any = _END

    def _components(self) -> dict[int, int]:
        """Tarjan's strongly connected components, iteratively: node id -> component id,
        with -1 for a node on no cycle."""
        index: dict[int, int] = {}
        low: dict[int, int] = {}
        on: set[int] = set()
        st: list[int] = []
        comp: dict[int, int] = {}
        counter = 0
        for start in self.refs:
            if start in index:
                continue
            frames = [(start, iter(self.refs.get(start, ())))]
            index[start] = low[start] = counter
            counter += 1
            st.append(start)
            on.add(start)
            while frames:
                v, it = frames[-1]
                nxt = next(it, None)
                if nxt is not None:
                    w = nxt[1]
                    if w not in index:
                        index[w] = low[w] = counter
                        counter += 1
                        st.append(w)
                        on.add(w)
                        frames.append((w, iter(self.refs.get(w, ()))))
                    elif w in on:
                        low[v] = min(low[v], index[w])
                    continue
                frames.pop()
                if frames:
                    u = frames[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    members = []
                    while True:
                        w = st.pop()
                        on.discard(w)
                        members.append(w)
                        if w == v:
                            break
                    looped = len(members) > 1 or any(t == v for _r, t in self.refs.get(v, ()))
                    for w in members:
                        comp[w] = index[v] if looped else -1
        return comp

    def recursive(self, home: Any, target: Any) -> bool:
        """A ``$ref`` from inside ``home`` to ``target`` comes back to ``home``."""
        c = self.component.get(id(home), -1)
        return c != -1 and self.component.get(id(target), -2) == c

    def first_cycle(self) -> str | None:
        """A ``$ref`` reachable from the root that is part of a cycle (None: none is)."""
        if self._cycle is _END:
            self._cycle = self._first_cycle()
        return self._cycle

    def _first_cycle(self) -> str | None:
        seen = {id(self.root)}
        work = [id(self.root)]
        while work:
            v = work.pop()
            for ref, w in self.refs.get(v, ()):
                c = self.component.get(w, -1)
                if c != -1 and self.component.get(v, -2) == c:
                    return ref
                if w not in seen:
                    seen.add(w)
                    work.append(w)
        return None
