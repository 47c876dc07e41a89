"""More worked examples in the shape of ``py-conformance-visible.json``: one case per rule, row
and sentence of ``python-schema.md`` that the 22 visible cases leave open.

Each case is ``{id, source, expected_parameters, expected_description, notes}``; ``source``
defines ``target`` (or names another object with ``"target": "Class.method"``). Where the spec
can be read two ways, ``notes`` says which reading the case holds plistspec to, and why.
Comparison is as in ``test_conformance.py``: JSON values, plus the order of every
``properties`` and ``required``.
"""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap

import pytest

from plistspec.pyfunc import schema_for
from support import schema_orders

_n = itertools.count()

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741
N = {"type": "number"}
B = {"type": "boolean"}
NULL = {"type": "null"}


def root(props, required=(), additional=False, **extra):
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if additional is not None:
        out["additionalProperties"] = additional
    out.update(extra)
    return out


def obj(props, required=(), **extra):
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    out.update(extra)
    return out


CASES = [
    # --- §2 Literal -------------------------------------------------------------------
    dict(
        id="literal_mixed_types",
        source="""
            from typing import Literal
            def target(a: Literal[1, "one"], b: Literal["x", None], c: Literal[True, 0]):
                '''Mixed literals.'''
        """,
        expected_parameters=root(
            {"a": {"enum": [1, "one"]}, "b": {"enum": ["x", None]}, "c": {"enum": [True, 0]}},
            ["a", "b", "c"],
        ),
        expected_description="Mixed literals.",
        notes="values of mixed JSON types: bare enum, no type (bool is not integer in JSON)",
    ),
    dict(
        id="literal_int_and_float",
        source="""
            from typing import Literal
            def target(a: Literal[1, 2.5]):
                '''Int and float literal.'''
        """,
        expected_parameters=root({"a": {"enum": [1, 2.5]}}, ["a"]),
        expected_description="Int and float literal.",
        notes="the table's JSON types are integer/number/...: 1 and 2.5 are two of them, so bare "
        "enum (as pydantic does)",
    ),
    dict(
        id="literal_single_value",
        source="""
            from typing import Literal
            def target(kind: Literal["only"], n: Literal[3] = 3, flag: Literal[False] = False):
                '''One-value literals.'''
        """,
        expected_parameters=root(
            {
                "kind": {"type": "string", "enum": ["only"]},
                "n": {"type": "integer", "enum": [3], "default": 3},
                "flag": {"type": "boolean", "enum": [False], "default": False},
            },
            ["kind"],
        ),
        expected_description="One-value literals.",
        notes="one value -> enum of one, never const",
    ),
    dict(
        id="optional_literal",
        source="""
            from typing import Literal, Optional
            def target(mode: Optional[Literal["a", "b"]] = None, m2: Literal["x", "y"] | None = "x"):
                '''Optional literal keeps its enum.'''
        """,
        expected_parameters=root(
            {
                "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, NULL], "default": None},
                "m2": {"anyOf": [{"type": "string", "enum": ["x", "y"]}, NULL], "default": "x"},
            }
        ),
        expected_description="Optional literal keeps its enum.",
        notes="google-genai legacy loses the enum here (section 7)",
    ),
    dict(
        id="literal_nested_flattened",
        source="""
            from typing import Literal
            A = Literal["a", "b"]
            def target(x: Literal[A, "c"]):
                '''Nested Literal flattens.'''
        """,
        expected_parameters=root({"x": {"type": "string", "enum": ["a", "b", "c"]}}, ["x"]),
        expected_description="Nested Literal flattens.",
        notes="",
    ),
    # --- §2 Enum ----------------------------------------------------------------------
    dict(
        id="enum_inherited_docstring_dropped",
        source="""
            from enum import Enum
            class Base(Enum):
                '''Shared base docstring.'''
            class Shade(Base):
                LIGHT = "light"
                DARK = "dark"
            def target(shade: Shade):
                '''Inherited enum docstring is not used.'''
        """,
        expected_parameters=root(
            {"shade": {"type": "string", "enum": ["light", "dark"]}}, ["shade"]
        ),
        expected_description="Inherited enum docstring is not used.",
        notes="only the class's own docstring becomes description",
    ),
    dict(
        id="intenum_default_and_own_doc",
        source="""
            from enum import IntEnum
            class Level(IntEnum):
                '''How loud.'''
                LOW = 1
                HIGH = 3
            def target(level: Level = Level.HIGH):
                '''IntEnum with a member default.'''
        """,
        expected_parameters=root(
            {"level": {"type": "integer", "enum": [1, 3], "description": "How loud.", "default": 3}}
        ),
        expected_description="IntEnum with a member default.",
        notes="an Enum member default publishes its value",
    ),
    dict(
        id="enum_plain_int_values",
        source="""
            from enum import Enum
            class Size(Enum):
                S = 1
                M = 2
            def target(size: Size = Size.M):
                '''Plain Enum with int values.'''
        """,
        expected_parameters=root({"size": {"type": "integer", "enum": [1, 2], "default": 2}}),
        expected_description="Plain Enum with int values.",
        notes="",
    ),
    dict(
        id="enum_param_description_wins_over_class_doc",
        source="""
            from enum import Enum
            class Color(str, Enum):
                '''A colour.'''
                RED = "red"
            def target(color: Color):
                '''Paint.

                Args:
                    color: The paint colour.
                '''
        """,
        expected_parameters=root(
            {"color": {"type": "string", "enum": ["red"], "description": "The paint colour."}},
            ["color"],
        ),
        expected_description="Paint.",
        notes="inlining rule: keys next to the reference win over the definition's",
    ),
    dict(
        id="optional_enum",
        source="""
            from enum import Enum
            from typing import Optional
            class Color(Enum):
                '''A colour.'''
                RED = "red"
                BLUE = "blue"
            def target(color: Optional[Color] = None, other: Color | None = Color.BLUE):
                '''Optional enum.'''
        """,
        expected_parameters=root(
            {
                "color": {
                    "anyOf": [
                        {"type": "string", "enum": ["red", "blue"], "description": "A colour."},
                        NULL,
                    ],
                    "default": None,
                },
                "other": {
                    "anyOf": [
                        {"type": "string", "enum": ["red", "blue"], "description": "A colour."},
                        NULL,
                    ],
                    "default": "blue",
                },
            }
        ),
        expected_description="Optional enum.",
        notes="the inlined enum keeps its docstring inside its anyOf member",
    ),
    # --- §2 TypedDict -----------------------------------------------------------------
    dict(
        id="typeddict_total_false_required",
        source="""
            from typing import TypedDict, Required
            class Query(TypedDict, total=False):
                text: Required[str]
                limit: int
            def target(q: Query):
                '''typing.TypedDict, total=False with a Required key.'''
        """,
        expected_parameters=root(
            {"q": obj({"text": S, "limit": I}, ["text"])},
            ["q"],
        ),
        expected_description="typing.TypedDict, total=False with a Required key.",
        notes="typing.TypedDict on 3.11: pydantic-based generators raise here",
    ),
    dict(
        id="typeddict_typing_notrequired",
        source="""
            from typing import TypedDict, NotRequired
            class Opts(TypedDict):
                '''Search options.'''
                depth: int
                follow: NotRequired[bool]
            def target(opts: Opts):
                '''typing.NotRequired.'''
        """,
        expected_parameters=root(
            {"opts": obj({"depth": I, "follow": B}, ["depth"], description="Search options.")},
            ["opts"],
        ),
        expected_description="typing.NotRequired.",
        notes="a TypedDict's own docstring is its description; nested objects stay open",
    ),
    dict(
        id="typeddict_nested_and_inherited",
        source="""
            from typing_extensions import TypedDict, NotRequired
            class Point(TypedDict):
                x: float
                y: float
            class Base(TypedDict):
                name: str
            class Shape(Base, total=False):
                points: list[Point]
                closed: bool
            def target(shape: Shape):
                '''Nested and inherited TypedDicts.'''
        """,
        expected_parameters=root(
            {
                "shape": obj(
                    {
                        "name": S,
                        "points": {"type": "array", "items": obj({"x": N, "y": N}, ["x", "y"])},
                        "closed": B,
                    },
                    ["name"],
                )
            },
            ["shape"],
        ),
        expected_description="Nested and inherited TypedDicts.",
        notes="required keys come from __required_keys__ (base total=True, subclass total=False)",
    ),
    dict(
        id="typeddict_future_annotations",
        source="""
            from __future__ import annotations
            from typing_extensions import TypedDict, NotRequired
            class Opts(TypedDict):
                depth: int
                follow: NotRequired[bool]
            def target(opts: Opts):
                '''TypedDict under from __future__ import annotations.'''
        """,
        expected_parameters=root({"opts": obj({"depth": I, "follow": B}, ["depth"])}, ["opts"]),
        expected_description="TypedDict under from __future__ import annotations.",
        notes="",
    ),
    # --- §2 dataclasses ---------------------------------------------------------------
    dict(
        id="dataclass_defaults_factory_nested",
        source="""
            from dataclasses import dataclass, field
            from typing import Optional
            @dataclass
            class Inner:
                '''The inner part.'''
                x: int
                label: str = "in"
            @dataclass
            class Outer:
                inner: Inner
                tags: list[str] = field(default_factory=list)
                limit: int = 10
                extra: Optional[Inner] = None
            def target(outer: Outer):
                '''Nested dataclasses.'''
        """,
        expected_parameters=root(
            {
                "outer": obj(
                    {
                        "inner": obj(
                            {"x": I, "label": {"type": "string", "default": "in"}},
                            ["x"],
                            description="The inner part.",
                        ),
                        "tags": {"type": "array", "items": S},
                        "limit": {"type": "integer", "default": 10},
                        "extra": {
                            "anyOf": [
                                obj(
                                    {"x": I, "label": {"type": "string", "default": "in"}},
                                    ["x"],
                                    description="The inner part.",
                                ),
                                NULL,
                            ],
                            "default": None,
                        },
                    },
                    ["inner"],
                )
            },
            ["outer"],
        ),
        expected_description="Nested dataclasses.",
        notes="default_factory: neither required nor default; the invented dataclass __doc__ "
        "never becomes a description",
    ),
    dict(
        id="dataclass_future_annotations_no_invented_doc",
        source="""
            from __future__ import annotations
            from dataclasses import dataclass
            @dataclass
            class Cfg:
                name: str
                retries: int = 3
            def target(cfg: Cfg):
                '''String annotations inside a dataclass.'''
        """,
        expected_parameters=root(
            {"cfg": obj({"name": S, "retries": {"type": "integer", "default": 3}}, ["name"])},
            ["cfg"],
        ),
        expected_description="String annotations inside a dataclass.",
        notes="",
    ),
    dict(
        id="dataclass_field_comments",
        source="""
            from dataclasses import dataclass
            @dataclass
            class Item:
                name: str  # What the item is called
                qty: int = 1  # How many
            def target(item: Item):
                '''Docments comments on dataclass fields.'''
        """,
        expected_parameters=root(
            {
                "item": obj(
                    {
                        "name": {"type": "string", "description": "What the item is called"},
                        "qty": {"type": "integer", "default": 1, "description": "How many"},
                    },
                    ["name"],
                )
            },
            ["item"],
        ),
        expected_description="Docments comments on dataclass fields.",
        notes="docments applies to class bodies too (fastcore reads them the same way)",
    ),
    dict(
        id="dataclass_as_tool",
        source="""
            from dataclasses import dataclass, field
            @dataclass
            class target:
                '''Create a ticket.

                Args:
                    title: The ticket title.
                '''
                title: str
                labels: list[str] = field(default_factory=list)
                priority: int = 2
        """,
        expected_parameters=root(
            {
                "title": {"type": "string", "description": "The ticket title."},
                "labels": {"type": "array", "items": S},
                "priority": {"type": "integer", "default": 2},
            },
            ["title"],
        ),
        expected_description="Create a ticket.",
        notes="a dataclass class as the tool: its fields, root closed; the tool description is its "
        "docstring without the parameter section, which documents the fields",
    ),
    # --- §2 pydantic ------------------------------------------------------------------
    dict(
        id="pydantic_forbid_and_field_descriptions",
        source="""
            from typing import Optional
            from pydantic import BaseModel, ConfigDict, Field
            class Filter(BaseModel):
                '''A search filter.'''
                model_config = ConfigDict(extra="forbid")
                field: str = Field(description="Field name")
                value: Optional[str] = None
                limit: int = Field(10, ge=1, le=100)
            def target(f: Filter):
                '''pydantic model with extra=forbid.'''
        """,
        expected_parameters=root(
            {
                "f": obj(
                    {
                        "field": {"type": "string", "description": "Field name"},
                        "value": {"anyOf": [S, NULL], "default": None},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    },
                    ["field"],
                    description="A search filter.",
                    additionalProperties=False,
                )
            },
            ["f"],
        ),
        expected_description="pydantic model with extra=forbid.",
        notes="",
    ),
    dict(
        id="pydantic_model_as_tool",
        source="""
            from pydantic import BaseModel, Field
            class target(BaseModel):
                '''Create a user.

                Longer explanation.
                '''
                name: str = Field(description="User name")
                age: int = 0
                tags: list[str] = Field(default_factory=list)
        """,
        expected_parameters=root(
            {
                "name": {"type": "string", "description": "User name"},
                "age": {"type": "integer", "default": 0},
                "tags": {"type": "array", "items": S},
            },
            ["name"],
            additional=None,
        ),
        expected_description="Create a user.\n\nLonger explanation.",
        notes="a pydantic model as the tool leaves the root open (no additionalProperties key)",
    ),
    dict(
        id="pydantic_model_as_tool_forbid",
        source="""
            from pydantic import BaseModel, ConfigDict
            class target(BaseModel):
                '''Strict model tool.'''
                model_config = ConfigDict(extra="forbid")
                q: str
        """,
        expected_parameters=root({"q": S}, ["q"]),
        expected_description="Strict model tool.",
        notes="",
    ),
    dict(
        id="pydantic_inherited_basemodel_doc_dropped",
        source="""
            from pydantic import BaseModel
            class Base(BaseModel):
                '''Base doc, not for subclasses.'''
            class Point(Base):
                x: int
            def target(p: Point):
                '''Inherited model docstring is not used.'''
        """,
        expected_parameters=root({"p": obj({"x": I}, ["x"])}, ["p"]),
        expected_description="Inherited model docstring is not used.",
        notes="",
    ),
    dict(
        id="pydantic_title_kept_when_explicit",
        source="""
            from typing import Annotated
            from pydantic import Field
            def target(q: Annotated[str, Field(title="Query", description="Search text")]):
                '''Explicit Field(title=...) is kept.'''
        """,
        expected_parameters=root(
            {"q": {"type": "string", "title": "Query", "description": "Search text"}}, ["q"]
        ),
        expected_description="Explicit Field(title=...) is kept.",
        notes="no automatic title anywhere; an explicit one is the user's",
    ),
    # --- §2 NamedTuple ----------------------------------------------------------------
    dict(
        id="namedtuple_prefix_items",
        source="""
            from typing import NamedTuple
            class Point(NamedTuple):
                x: float
                y: float
            def target(p: Point, path: list[Point]):
                '''NamedTuple as a fixed tuple.'''
        """,
        expected_parameters=root(
            {
                "p": {"type": "array", "prefixItems": [N, N], "minItems": 2, "maxItems": 2},
                "path": {
                    "type": "array",
                    "items": {"type": "array", "prefixItems": [N, N], "minItems": 2, "maxItems": 2},
                },
            },
            ["p", "path"],
        ),
        expected_description="NamedTuple as a fixed tuple.",
        notes="the invented 'Point(x, y)' docstring is not a description",
    ),
    # --- §2 recursion -----------------------------------------------------------------
    dict(
        id="dataclass_self_recursive",
        source="""
            from __future__ import annotations
            from dataclasses import dataclass, field
            @dataclass
            class Tree:
                value: int
                children: list[Tree] = field(default_factory=list)
            @dataclass
            class Tag:
                name: str
            def target(tree: Tree, tag: Tag):
                '''Only cycle members go to $defs.'''
        """,
        expected_parameters=root(
            {"tree": {"$ref": "#/$defs/Tree"}, "tag": obj({"name": S}, ["name"])},
            ["tree", "tag"],
            **{
                "$defs": {
                    "Tree": obj(
                        {
                            "value": I,
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                        },
                        ["value"],
                    )
                }
            },
        ),
        expected_description="Only cycle members go to $defs.",
        notes="",
    ),
    dict(
        id="mutual_recursion_typeddict",
        source="""
            from __future__ import annotations
            from typing import TypedDict, Optional
            class Dept(TypedDict):
                name: str
                head: Optional[Person]
            class Person(TypedDict):
                name: str
                dept: Dept
            class Meta(TypedDict):
                note: str
            def target(p: Person, meta: Meta):
                '''Mutual recursion: both members defined, the rest inlined.'''
        """,
        expected_parameters=root(
            {"p": {"$ref": "#/$defs/Person"}, "meta": obj({"note": S}, ["note"])},
            ["p", "meta"],
            **{
                "$defs": {
                    "Person": obj({"name": S, "dept": {"$ref": "#/$defs/Dept"}}, ["name", "dept"]),
                    "Dept": obj(
                        {"name": S, "head": {"anyOf": [{"$ref": "#/$defs/Person"}, NULL]}},
                        ["name", "head"],
                    ),
                }
            },
        ),
        expected_description="Mutual recursion: both members defined, the rest inlined.",
        notes="",
    ),
    dict(
        id="recursion_inside_nonrecursive_wrapper",
        source="""
            from __future__ import annotations
            from pydantic import BaseModel
            class Node(BaseModel):
                name: str
                kids: list[Node] = []
            class Doc(BaseModel):
                title: str
                root: Node
            def target(doc: Doc):
                '''A non-recursive model holding a recursive one.'''
        """,
        expected_parameters=root(
            {"doc": obj({"title": S, "root": {"$ref": "#/$defs/Node"}}, ["title", "root"])},
            ["doc"],
            **{
                "$defs": {
                    "Node": obj(
                        {
                            "name": S,
                            "kids": {
                                "type": "array",
                                "items": {"$ref": "#/$defs/Node"},
                                "default": [],
                            },
                        },
                        ["name"],
                    )
                }
            },
        ),
        expected_description="A non-recursive model holding a recursive one.",
        notes="Doc is not on a cycle: inlined; only Node is in $defs",
    ),
    # --- §3 Annotated constraints -----------------------------------------------------
    dict(
        id="annotated_types_duck_typed",
        source="""
            from typing import Annotated
            import annotated_types as at
            def target(
                a: Annotated[int, at.Ge(1), at.Lt(10)],
                b: Annotated[str, at.MinLen(2), at.MaxLen(8)],
                c: Annotated[list[int], at.Len(1, 4)],
                d: Annotated[float, at.Interval(gt=0, le=1)],
                e: Annotated[int, at.MultipleOf(5)],
                f: Annotated[float, at.Gt(0.5)],
                g: Annotated[int, at.Le(7)],
            ):
                '''annotated_types constraints.'''
        """,
        expected_parameters=root(
            {
                "a": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
                "b": {"type": "string", "minLength": 2, "maxLength": 8},
                "c": {"type": "array", "items": I, "minItems": 1, "maxItems": 4},
                "d": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                "e": {"type": "integer", "multipleOf": 5},
                "f": {"type": "number", "exclusiveMinimum": 0.5},
                "g": {"type": "integer", "maximum": 7},
            },
            ["a", "b", "c", "d", "e", "f", "g"],
        ),
        expected_description="annotated_types constraints.",
        notes="",
    ),
    dict(
        id="field_constraints_numbers_lists",
        source="""
            from typing import Annotated, Optional
            from pydantic import Field
            def target(
                ratio: Annotated[float, Field(gt=0, lt=1, multiple_of=0.25)],
                ids: Annotated[list[int], Field(min_length=1, max_length=5)],
                code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")],
                limit: Annotated[Optional[int], Field(ge=0)] = None,
            ):
                '''Field constraints on numbers, lists and an Optional.'''
        """,
        expected_parameters=root(
            {
                "ratio": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "exclusiveMaximum": 1,
                    "multipleOf": 0.25,
                },
                "ids": {"type": "array", "items": I, "minItems": 1, "maxItems": 5},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "limit": {"anyOf": [{"type": "integer", "minimum": 0}, NULL], "default": None},
            },
            ["ratio", "ids", "code"],
        ),
        expected_description="Field constraints on numbers, lists and an Optional.",
        notes="min/max_length on a list are minItems/maxItems; on an Optional the constraint "
        "goes to the non-null member (as pydantic does)",
    ),
    dict(
        id="annotated_text_and_doc",
        source="""
            from typing import Annotated
            from typing_extensions import Doc
            def target(
                a: Annotated[str, "The a, from a string"],
                b: Annotated[int, Doc("The b, from Doc")] = 2,
            ):
                '''Annotated descriptions.'''
        """,
        expected_parameters=root(
            {
                "a": {"type": "string", "description": "The a, from a string"},
                "b": {"type": "integer", "description": "The b, from Doc", "default": 2},
            },
            ["a"],
        ),
        expected_description="Annotated descriptions.",
        notes="pydantic-based generators ignore Annotated[T, 'text']",
    ),
    dict(
        id="field_as_default",
        source="""
            from typing import Optional
            from pydantic import Field
            def target(
                n: int = Field(5, description="How many", ge=1),
                name: Optional[str] = Field(None, description="Who"),
                ids: list[int] = Field(default_factory=list, description="Which"),
                q: str = Field(..., description="Required text"),
            ):
                '''Field used as the default.'''
        """,
        expected_parameters=root(
            {
                "n": {"type": "integer", "description": "How many", "minimum": 1, "default": 5},
                "name": {"anyOf": [S, NULL], "description": "Who", "default": None},
                "ids": {"type": "array", "items": I, "description": "Which"},
                "q": {"type": "string", "description": "Required text"},
            },
            ["q"],
        ),
        expected_description="Field used as the default.",
        notes="Field(...) is required; default_factory is optional without a default key",
    ),
    dict(
        id="defaults_json_forms",
        source="""
            from typing import Optional
            def target(
                tags: list[str] = ["a", "b"],
                pair: tuple[int, int] = (1, 2),
                mapping: dict[str, int] = {"x": 1},
                nothing: Optional[int] = None,
                neg: float = -1.5,
            ):
                '''Defaults JSON can hold.'''
        """,
        expected_parameters=root(
            {
                "tags": {"type": "array", "items": S, "default": ["a", "b"]},
                "pair": {
                    "type": "array",
                    "prefixItems": [I, I],
                    "minItems": 2,
                    "maxItems": 2,
                    "default": [1, 2],
                },
                "mapping": {"type": "object", "additionalProperties": I, "default": {"x": 1}},
                "nothing": {"anyOf": [I, NULL], "default": None},
                "neg": {"type": "number", "default": -1.5},
            }
        ),
        expected_description="Defaults JSON can hold.",
        notes="lists/tuples -> arrays",
    ),
    # --- §4 parameters and callables --------------------------------------------------
    dict(
        id="untyped_args_kwargs",
        source="""
            def target(a: int, *args, **kwargs):
                '''Untyped variadics.'''
        """,
        expected_parameters=root(
            {"a": I, "args": {"type": "array", "items": {}}}, ["a"], additional=True
        ),
        expected_description="Untyped variadics.",
        notes="unannotated **kwargs: additionalProperties true, as for a bare dict",
    ),
    dict(
        id="positional_and_keyword_only",
        source="""
            def target(a: int, /, b: str, *, c: bool = False, d: float):
                '''Positional-only and keyword-only.'''
        """,
        expected_parameters=root(
            {"a": I, "b": S, "c": {"type": "boolean", "default": False}, "d": N},
            ["a", "b", "d"],
        ),
        expected_description="Positional-only and keyword-only.",
        notes="no v__positional_only leak",
    ),
    dict(
        id="cls_first_param_dropped",
        source="""
            def target(cls, n: int):
                '''A leading unannotated cls is dropped.'''
        """,
        expected_parameters=root({"n": I}, ["n"]),
        expected_description="A leading unannotated cls is dropped.",
        notes="",
    ),
    dict(
        id="annotated_self_kept",
        source="""
            def target(self: int, n: int):
                '''An annotated self is an ordinary parameter.'''
        """,
        expected_parameters=root({"self": I, "n": I}, ["self", "n"]),
        expected_description="An annotated self is an ordinary parameter.",
        notes="only a leading UNannotated self/cls is dropped",
    ),
    dict(
        id="class_method_target",
        target="Counter.add",
        source="""
            class Counter:
                '''A counter.'''
                @classmethod
                def add(cls, by: int = 1) -> int:
                    '''Add to the counter.'''
                    return by
        """,
        expected_parameters=root({"by": {"type": "integer", "default": 1}}),
        expected_description="Add to the counter.",
        notes="",
        name="add",
    ),
    dict(
        id="bound_method_target",
        target="store.get",
        source="""
            class Store:
                def get(self, key: str) -> str:
                    '''Read a key.'''
                    return key
            store = Store()
        """,
        expected_parameters=root({"key": S}, ["key"]),
        expected_description="Read a key.",
        notes="a bound method already lacks self",
        name="get",
    ),
    dict(
        id="static_method_target",
        target="Tools.double",
        source="""
            class Tools:
                @staticmethod
                def double(x: float) -> float:
                    '''Double it.'''
                    return 2 * x
        """,
        expected_parameters=root({"x": N}, ["x"]),
        expected_description="Double it.",
        notes="",
        name="double",
    ),
    dict(
        id="class_docstring_sections_and_init_args",
        source="""
            class target:
                '''Open a connection.

                Args:
                    host: Host name.
                '''
                def __init__(self, host: str, port: int = 80):
                    '''Init.

                    Args:
                        port: Port number.
                    '''
        """,
        expected_parameters=root(
            {
                "host": {"type": "string", "description": "Host name."},
                "port": {"type": "integer", "description": "Port number.", "default": 80},
            },
            ["host"],
        ),
        expected_description="Open a connection.",
        notes="the class docstring is the description; parameters may be documented in the "
        "class docstring or in __init__'s",
    ),
    dict(
        id="class_without_docstring_uses_init_doc",
        source="""
            class target:
                def __init__(self, n: int):
                    '''Make n widgets.

                    Args:
                        n: How many.
                    '''
        """,
        expected_parameters=root({"n": {"type": "integer", "description": "How many."}}, ["n"]),
        expected_description="Make n widgets.",
        notes="ambiguous in the spec ('for a class: its own docstring'); a class with no "
        "docstring of its own falls back to __init__'s, which is still written by the user for "
        "this very class, rather than an empty description",
    ),
    dict(
        id="async_def",
        source="""
            async def target(url: str, timeout: float = 5.0) -> str:
                '''Fetch a URL.

                Args:
                    url: Where.
                '''
                return url
        """,
        expected_parameters=root(
            {
                "url": {"type": "string", "description": "Where."},
                "timeout": {"type": "number", "default": 5.0},
            },
            ["url"],
        ),
        expected_description="Fetch a URL.",
        notes="async def gives the schema of the equivalent def",
    ),
    dict(
        id="string_annotations_and_forward_refs",
        source="""
            from typing import Optional
            def target(a: "int", b: "Optional[Later]" = None, c: "list[str]" = []):
                '''String annotations and a forward reference.'''
            from dataclasses import dataclass
            @dataclass
            class Later:
                v: int
        """,
        expected_parameters=root(
            {
                "a": I,
                "b": {"anyOf": [obj({"v": I}, ["v"]), NULL], "default": None},
                "c": {"type": "array", "items": S, "default": []},
            },
            ["a"],
        ),
        expected_description="String annotations and a forward reference.",
        notes="",
    ),
    dict(
        id="future_annotations_everything",
        source="""
            from __future__ import annotations
            import datetime
            def target(when: datetime.date, tags: set[str] | None = None) -> Unresolvable:
                '''Future annotations; the return annotation is never needed.'''
        """,
        expected_parameters=root(
            {
                "when": {"type": "string", "format": "date"},
                "tags": {
                    "anyOf": [{"type": "array", "items": S, "uniqueItems": True}, NULL],
                    "default": None,
                },
            },
            ["when"],
        ),
        expected_description="Future annotations; the return annotation is never needed.",
        notes="the return annotation never reaches parameters, so one that cannot be resolved "
        "(a TYPE_CHECKING-only import, say) is not an error",
    ),
    # --- §2 formats and containers ----------------------------------------------------
    dict(
        id="formats",
        source="""
            import datetime as dt
            from uuid import UUID
            from pathlib import Path
            from decimal import Decimal
            def target(a: dt.datetime, b: dt.date, c: dt.time, d: dt.timedelta, e: UUID, f: Path,
                       g: Decimal, h: bytes):
                '''String formats.'''
        """,
        expected_parameters=root(
            {
                "a": {"type": "string", "format": "date-time"},
                "b": {"type": "string", "format": "date"},
                "c": {"type": "string", "format": "time"},
                "d": {"type": "string", "format": "duration"},
                "e": {"type": "string", "format": "uuid"},
                "f": {"type": "string", "format": "path"},
                "g": {"anyOf": [N, S]},
                "h": {"type": "string", "format": "binary"},
            },
            list("abcdefgh"),
        ),
        expected_description="String formats.",
        notes="",
    ),
    dict(
        id="typing_aliases_and_bare_containers",
        source="""
            from typing import Dict, FrozenSet, List, Set, Tuple
            def target(a: List, b: List[int], c: Dict, d: Dict[str, float], e: Tuple,
                       f: Tuple[int, ...], g: Tuple[int, str, bool], h: Set[str], i: FrozenSet,
                       j: list, k: tuple, l: dict, m: set):
                '''typing aliases and bare containers.'''
        """,
        expected_parameters=root(
            {
                "a": {"type": "array", "items": {}},
                "b": {"type": "array", "items": I},
                "c": {"type": "object", "additionalProperties": True},
                "d": {"type": "object", "additionalProperties": N},
                "e": {"type": "array", "items": {}},
                "f": {"type": "array", "items": I},
                "g": {"type": "array", "prefixItems": [I, S, B], "minItems": 3, "maxItems": 3},
                "h": {"type": "array", "items": S, "uniqueItems": True},
                "i": {"type": "array", "items": {}, "uniqueItems": True},
                "j": {"type": "array", "items": {}},
                "k": {"type": "array", "items": {}},
                "l": {"type": "object", "additionalProperties": True},
                "m": {"type": "array", "items": {}, "uniqueItems": True},
            },
            list("abcdefghijklm"),
        ),
        expected_description="typing aliases and bare containers.",
        notes="a bare tuple is a tuple of any length: items {}",
    ),
    dict(
        id="dict_enum_and_literal_keys",
        source="""
            from enum import Enum
            from typing import Literal
            class Day(str, Enum):
                MON = "mon"
                TUE = "tue"
            def target(hours: dict[Day, float], mode: dict[Literal["r", "w"], bool]):
                '''Dicts with str Enum / Literal keys.'''
        """,
        expected_parameters=root(
            {
                "hours": {
                    "type": "object",
                    "additionalProperties": N,
                    "propertyNames": {"type": "string", "enum": ["mon", "tue"]},
                },
                "mode": {
                    "type": "object",
                    "additionalProperties": B,
                    "propertyNames": {"type": "string", "enum": ["r", "w"]},
                },
            },
            ["hours", "mode"],
        ),
        expected_description="Dicts with str Enum / Literal keys.",
        notes="the spec allows these keys; the key type's own schema becomes propertyNames "
        "(pydantic does the same), so the allowed keys are not lost",
    ),
    dict(
        id="nested_containers_and_unions",
        source="""
            from typing import Optional, Union
            def target(
                grid: list[list[int]],
                index: dict[str, list[Optional[str]]],
                v: Union[int, list[int], None] = None,
            ):
                '''Nested containers.'''
        """,
        expected_parameters=root(
            {
                "grid": {"type": "array", "items": {"type": "array", "items": I}},
                "index": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"anyOf": [S, NULL]}},
                },
                "v": {"anyOf": [I, {"type": "array", "items": I}, NULL], "default": None},
            },
            ["grid", "index"],
        ),
        expected_description="Nested containers.",
        notes="",
    ),
    dict(
        id="optional_without_default_is_required",
        source="""
            from typing import Optional
            def target(a: Optional[str], b: int | None):
                '''Optional[T] without a default stays required.'''
        """,
        expected_parameters=root(
            {"a": {"anyOf": [S, NULL]}, "b": {"anyOf": [I, NULL]}}, ["a", "b"]
        ),
        expected_description="Optional[T] without a default stays required.",
        notes="google-genai legacy drops these from required (section 7)",
    ),
    dict(
        id="tuple_with_ordinary_param",
        source="""
            def target(name: str, size: tuple[int, int]):
                '''A tuple next to an ordinary parameter is kept.'''
        """,
        expected_parameters=root(
            {
                "name": S,
                "size": {"type": "array", "prefixItems": [I, I], "minItems": 2, "maxItems": 2},
            },
            ["name", "size"],
        ),
        expected_description="A tuple next to an ordinary parameter is kept.",
        notes="google-genai legacy drops it (section 7)",
    ),
    dict(
        id="unannotated_and_any_defaults",
        source="""
            from typing import Any
            def target(x, y=3, z: Any = None):
                '''Unannotated: {} (with a warning), defaults still published.'''
        """,
        expected_parameters=root({"x": {}, "y": {"default": 3}, "z": {"default": None}}, ["x"]),
        expected_description="Unannotated: {} (with a warning), defaults still published.",
        notes="MCP types y=3 as string; here no type is guessed from the default",
    ),
    # --- §5 descriptions --------------------------------------------------------------
    dict(
        id="google_typed_args_and_sections",
        source="""
            def target(city: str, days: int = 3) -> str:
                '''Forecast the weather.

                Uses the national service.
                Results are cached.

                Args:
                    city (str): The city
                        name.
                    days (int, optional): How many days.

                Returns:
                    str: A report.

                Raises:
                    ValueError: If the city is unknown.
                '''
        """,
        expected_parameters=root(
            {
                "city": {"type": "string", "description": "The city name."},
                "days": {"type": "integer", "description": "How many days.", "default": 3},
            },
            ["city"],
        ),
        expected_description="Forecast the weather.\n\nUses the national service.\nResults are cached.",
        notes="continuation lines of a parameter text are joined with a space; the body keeps "
        "its own line breaks (cleandoc only)",
    ),
    dict(
        id="numpy_docstring",
        source="""
            def target(city: str, days: int = 3) -> str:
                '''Forecast the weather.

                Parameters
                ----------
                city : str
                    The city.
                days : int, optional
                    How many days.

                Returns
                -------
                str
                    A report.
                '''
        """,
        expected_parameters=root(
            {
                "city": {"type": "string", "description": "The city."},
                "days": {"type": "integer", "description": "How many days.", "default": 3},
            },
            ["city"],
        ),
        expected_description="Forecast the weather.",
        notes="",
    ),
    dict(
        id="sphinx_docstring",
        source="""
            def target(city: str, days: int = 3) -> str:
                '''Forecast the weather.

                Looks it up.

                :param city: The city.
                :type city: str
                :param int days: How many days.
                :returns: A report.
                :rtype: str
                :raises ValueError: If unknown.
                '''
        """,
        expected_parameters=root(
            {
                "city": {"type": "string", "description": "The city."},
                "days": {"type": "integer", "description": "How many days.", "default": 3},
            },
            ["city"],
        ),
        expected_description="Forecast the weather.\n\nLooks it up.",
        notes="",
    ),
    dict(
        id="bullet_parameters",
        source="""
            def target(city: str, days: int = 3) -> str:
                '''Forecast the weather.

                - city: The city.
                - days: How many days.
                '''
        """,
        expected_parameters=root(
            {
                "city": {"type": "string", "description": "The city."},
                "days": {"type": "integer", "description": "How many days.", "default": 3},
            },
            ["city"],
        ),
        expected_description="Forecast the weather.",
        notes="bullets naming parameters document them and leave the description",
    ),
    dict(
        id="bullets_not_naming_parameters_stay",
        source="""
            def target(city: str) -> str:
                '''Forecast the weather.

                Sources:
                - met: the met office
                - noaa: NOAA
                '''
        """,
        expected_parameters=root({"city": S}, ["city"]),
        expected_description="Forecast the weather.\n\nSources:\n- met: the met office\n- noaa: NOAA",
        notes="a bullet list whose names are not parameters is body text",
    ),
    dict(
        id="precedence_full_chain",
        source="""
            from typing import Annotated
            from pydantic import Field
            def target(
                a: Annotated[int, Field(description="a: Field"), "a: text"],  # a: comment
                b: Annotated[int, "b: text"],  # b: comment
                c: int,  # c: comment
                d: int,
                e: int = Field(0, description="e: Field default"),  # e: comment
            ):
                '''Precedence.

                Args:
                    a: a: docstring
                    b: b: docstring
                    c: c: docstring
                    d: d: docstring
                    e: e: docstring
                '''
        """,
        expected_parameters=root(
            {
                "a": {"type": "integer", "description": "a: Field"},
                "b": {"type": "integer", "description": "b: text"},
                "c": {"type": "integer", "description": "c: comment"},
                "d": {"type": "integer", "description": "d: docstring"},
                "e": {"type": "integer", "description": "e: Field default", "default": 0},
            },
            ["a", "b", "c", "d"],
        ),
        expected_description="Precedence.",
        notes="Field > Annotated text > docments comment > docstring",
    ),
    dict(
        id="docments_multiline_signature",
        source="""
            def target(
                query: str,  # What to look for
                limit: int = 10,  # At most this many
                *,
                exact: bool = False,  # Match whole words only
            ) -> list:  # The hits
                '''Search.'''
                return []
        """,
        expected_parameters=root(
            {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "description": "At most this many", "default": 10},
                "exact": {
                    "type": "boolean",
                    "description": "Match whole words only",
                    "default": False,
                },
            },
            ["query"],
        ),
        expected_description="Search.",
        notes="the comment after ') -> T:' describes the return value, not a parameter",
    ),
    dict(
        id="no_docstring",
        source="""
            def target(a: int):
                return a
        """,
        expected_parameters=root({"a": I}, ["a"]),
        expected_description="",
        notes="no docstring: empty description (never the function's repr)",
    ),
    dict(
        id="multi_paragraph_blank_lines_collapsed",
        source="""
            def target():
                '''Summary line.


                First paragraph
                spans two lines.



                Second paragraph.

                Returns:
                    Nothing.
                '''
        """,
        expected_parameters=root({}),
        expected_description="Summary line.\n\nFirst paragraph\nspans two lines.\n\nSecond paragraph.",
        notes="paragraphs separated by one blank line",
    ),
    dict(
        id="google_other_sections_removed",
        source="""
            def target(path: str) -> bytes:
                '''Read a file.

                Body text.

                Args:
                    path: Where the file is.

                Yields:
                    Chunks.

                Raises:
                    OSError: If unreadable.

                Examples:
                    >>> target("x")
                '''
        """,
        expected_parameters=root(
            {"path": {"type": "string", "description": "Where the file is."}}, ["path"]
        ),
        expected_description="Read a file.\n\nBody text.",
        notes="'(and similar) sections': every section docstring_parser recognises (Yields, "
        "Raises, Examples, Notes...) is removed, like Args and Returns",
    ),
    dict(
        id="namedtuple_as_tool",
        source="""
            from __future__ import annotations
            from typing import NamedTuple
            class target(NamedTuple):
                '''A point on the map.'''
                lat: float
                lon: float
                label: str = ""
        """,
        expected_parameters=root(
            {"lat": N, "lon": N, "label": {"type": "string", "default": ""}}, ["lat", "lon"]
        ),
        expected_description="A point on the map.",
        notes="a NamedTuple class as the tool is its constructor: named fields, root closed",
    ),
    dict(
        id="typeddict_as_tool",
        source="""
            from typing_extensions import NotRequired, TypedDict
            class target(TypedDict):
                '''Options for a search.'''
                query: str
                limit: NotRequired[int]
        """,
        expected_parameters=root({"query": S, "limit": I}, ["query"]),
        expected_description="Options for a search.",
        notes="a TypedDict class as the tool: its keys, root closed like any constructor",
    ),
    dict(
        id="iterable_and_abstract_collections",
        source="""
            from collections.abc import Iterable, Sequence, Mapping, Set
            def target(a: Iterable[str], b: Sequence[int], c: Mapping[str, float], d: Set[str]):
                '''Abstract collections.'''
        """,
        expected_parameters=root(
            {
                "a": {"type": "array", "items": S},
                "b": {"type": "array", "items": I},
                "c": {"type": "object", "additionalProperties": N},
                "d": {"type": "array", "items": S, "uniqueItems": True},
            },
            ["a", "b", "c", "d"],
        ),
        expected_description="Abstract collections.",
        notes="Iterable[T] is data (a list is one); Iterator/Generator are refused",
    ),
    dict(
        id="generic_dataclass_and_optional_self_reference",
        source="""
            from __future__ import annotations
            from dataclasses import dataclass
            from typing import Generic, Optional, TypeVar
            T = TypeVar("T")
            @dataclass
            class Box(Generic[T]):
                item: T
            @dataclass
            class Link:
                val: int
                next: Optional[Link] = None
            def target(box: Box[int], head: Link):
                '''A generic dataclass and a linked list.'''
        """,
        expected_parameters=root(
            {"box": obj({"item": I}, ["item"]), "head": {"$ref": "#/$defs/Link"}},
            ["box", "head"],
            **{
                "$defs": {
                    "Link": obj(
                        {
                            "val": I,
                            "next": {"anyOf": [{"$ref": "#/$defs/Link"}, NULL], "default": None},
                        },
                        ["val"],
                    )
                }
            },
        ),
        expected_description="A generic dataclass and a linked list.",
        notes="",
    ),
    dict(
        id="dict_any_values_and_kwargs_any",
        source="""
            from typing import Any
            def target(meta: dict[str, Any], items: list[Any], **extra: Any):
                '''Any inside containers.'''
        """,
        expected_parameters=root(
            {
                "meta": {"type": "object", "additionalProperties": {}},
                "items": {"type": "array", "items": {}},
            },
            ["meta", "items"],
            additional={},
        ),
        expected_description="Any inside containers.",
        notes="the table read literally: dict[str, V] -> additionalProperties V, and V = {} for "
        "Any (only a bare dict / unannotated **kwargs is spelled true)",
    ),
    dict(
        id="pydantic_alias_and_nested_list",
        source="""
            from typing import Optional
            from pydantic import BaseModel, Field
            class Item(BaseModel):
                item_id: int = Field(alias="id", description="Item id")
                qty: int = 1
            class Cart(BaseModel):
                items: list[Item]
                coupon: Optional[str] = None
            def target(cart: Cart):
                '''Aliases are the names a model must send.'''
        """,
        expected_parameters=root(
            {
                "cart": obj(
                    {
                        "items": {
                            "type": "array",
                            "items": obj(
                                {
                                    "id": {"type": "integer", "description": "Item id"},
                                    "qty": {"type": "integer", "default": 1},
                                },
                                ["id"],
                            ),
                        },
                        "coupon": {"anyOf": [S, NULL], "default": None},
                    },
                    ["items"],
                )
            },
            ["cart"],
        ),
        expected_description="Aliases are the names a model must send.",
        notes="pydantic validates by alias, so the alias is the property name",
    ),
    dict(
        id="tuple_empty_and_nested",
        source="""
            def target(none: tuple[()], nested: tuple[tuple[int, int], str]):
                '''Empty and nested tuples.'''
        """,
        expected_parameters=root(
            {
                "none": {"type": "array", "minItems": 0, "maxItems": 0},
                "nested": {
                    "type": "array",
                    "prefixItems": [
                        {"type": "array", "prefixItems": [I, I], "minItems": 2, "maxItems": 2},
                        S,
                    ],
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
            ["none", "nested"],
        ),
        expected_description="Empty and nested tuples.",
        notes="tuple[()] has no prefixItems (2020-12 requires a non-empty prefixItems array)",
    ),
    dict(
        id="google_keyword_args_section",
        source="""
            def target(city: str, days: int = 1):
                '''Get the weather
                for a city.

                Args:
                    city: The city.

                Keyword Args:
                    days: How many days.
                '''
        """,
        expected_parameters=root(
            {
                "city": {"type": "string", "description": "The city."},
                "days": {"type": "integer", "description": "How many days.", "default": 1},
            },
            ["city"],
        ),
        expected_description="Get the weather\nfor a city.",
        notes="'Keyword Args:' documents parameters like 'Args:' (a 'similar' section); a "
        "summary wrapped over two lines keeps its line break",
    ),
    dict(
        id="dataclass_initvar_and_classvar",
        source="""
            from dataclasses import InitVar, dataclass, field
            from typing import ClassVar
            @dataclass
            class Job:
                kind: ClassVar[str] = "job"
                name: str
                seed: InitVar[int] = 0
                cache: dict = field(default_factory=dict, init=False)
            def target(job: Job):
                '''InitVar is a constructor argument; ClassVar and init=False fields are not.'''
        """,
        expected_parameters=root(
            {"job": obj({"name": S, "seed": {"type": "integer", "default": 0}}, ["name"])},
            ["job"],
        ),
        expected_description="InitVar is a constructor argument; ClassVar and init=False fields are not.",
        notes="",
    ),
    dict(
        id="zero_params_class",
        source="""
            class target:
                '''Take a snapshot.'''
        """,
        expected_parameters=root({}),
        expected_description="Take a snapshot.",
        notes="a class without __init__: zero parameters, closed root",
    ),
]


def _load(case, tmp_path):
    name = f"confx_{next(_n)}_{case['id']}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(case["source"]), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    obj = mod
    for part in case.get("target", "target").split("."):
        obj = getattr(obj, part)
    return name, obj


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_extra_case(case, tmp_path):
    name, target = _load(case, tmp_path)
    try:
        tool_name, description, parameters = schema_for(target)
    finally:
        sys.modules.pop(name, None)
    assert tool_name == case.get("name", "target")
    assert parameters == case["expected_parameters"]
    assert schema_orders(parameters) == schema_orders(case["expected_parameters"])
    assert description == case["expected_description"]


def test_case_ids_unique():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
