"""Python annotations → JSON Schema 2020-12 (``python-schema.md`` §2-§3): the entry point.

Owns :class:`SchemaBuilder` (the state of one tool's schema: context for errors, options,
``$defs``, bound type variables) and :data:`HANDLERS`, the one dispatch table from an
annotation's kind (:func:`~plistspec.pyfunc.schema_kinds.kind_of`) to the function that maps
it — in the style of pydantic's ``GenerateJsonSchema``. The handlers live beside it, one module
per family:

* :mod:`.schema_kinds` — the dispatch key, class predicates;
* :mod:`.schema_scalars` — ``Any``/``None``, primitives, string formats, ``Decimal``;
* :mod:`.schema_choices` — unions, ``Literal``, ``Enum``;
* :mod:`.schema_containers` — lists, sets, tuples, dicts;
* :mod:`.schema_forms` — ``Annotated``, wrappers, ``NewType``, ``TypeVar``, generic classes;
* :mod:`.schema_classes` — TypedDict, dataclasses, NamedTuple, pydantic; fields;
* :mod:`.schema_defs` — ``$defs`` + ``$ref`` for classes on a cycle;
* :mod:`.schema_refusals` — the PS606 errors for annotations with no JSON form;
* :mod:`.schema_values` — defaults and constants as JSON;
* :mod:`.schema_hints` — resolving annotations, a class's own docstring.

Everything stays light at import: pydantic is never imported by this package's import (its
objects are recognised by duck typing, and used only when the user's code imported it).
"""

from __future__ import annotations

from typing import Any

from plistspec.pyfunc import (
    schema_choices,
    schema_classes,
    schema_containers,
    schema_forms,
    schema_refusals,
    schema_scalars,
)
from plistspec.pyfunc.constraints import is_doc  # noqa: F401 (importable from here as before)
from plistspec.pyfunc.errors import Context, type_name
from plistspec.pyfunc.schema_defs import Definitions
from plistspec.pyfunc.schema_hints import own_doc, resolve_hints
from plistspec.pyfunc.schema_kinds import (
    MISSING,
    init_fields,
    is_dataclass_type,
    is_namedtuple,
    is_pydantic_model,
    is_typeddict,
    kind_of,
)
from plistspec.pyfunc.schema_values import NotJson, to_json_value

__all__ = [
    "HANDLERS",
    "MISSING",
    "NotJson",
    "SchemaBuilder",
    "init_fields",
    "is_dataclass_type",
    "is_namedtuple",
    "is_pydantic_model",
    "is_typeddict",
    "kind_of",
    "own_doc",
    "resolve_hints",
    "to_json_value",
]

Schema = dict[str, Any]


class SchemaBuilder:
    """Turns annotations into schemas for one tool; ``defs`` collects recursive definitions."""

    def __init__(self, ctx: Context, *, strict_types: bool = False, lenient_defaults: bool = False):
        self.ctx = ctx
        self.strict_types = strict_types
        self.lenient_defaults = lenient_defaults
        self.refs = Definitions()
        self.defs: dict[str, Schema] = self.refs.defs
        self.typevars: list[dict[Any, Any]] = []  # innermost generic class's bindings last

    def schema(self, tp: Any) -> Schema:
        """The schema of annotation ``tp`` (PS6xx errors through ``ctx`` when it has none)."""
        try:
            return HANDLERS[kind_of(tp)](self, tp)
        except RecursionError:
            raise self.ctx.error(
                "PS606", f"annotation '{type_name(tp)}' is nested too deeply to map"
            ) from None

    def dispatch(self, kind: str, tp: Any) -> Schema:
        """The handler for ``kind`` applied to ``tp`` (when the kind is known already)."""
        return HANDLERS[kind](self, tp)

    def ordered_defs(self) -> dict[str, Schema]:
        """``defs`` in the order their names were first needed (the outermost first)."""
        return self.refs.ordered()

    # --- what pyfunc.build asks for directly
    def field_schema(self, ann: Any, default: Any, fallback_desc: str | None) -> Schema:
        """Schema of one parameter/field: annotation, ``Field`` default, description, default."""
        return schema_classes.field_schema(self, ann, default, fallback_desc)

    def dataclass_(self, tp: Any, closed: bool = False) -> Schema:
        return schema_classes.dataclass_schema(self, tp, closed)

    def typeddict_(self, tp: Any) -> Schema:
        return schema_classes.typeddict_schema(self, tp)

    def namedtuple_fields(self, tp: Any) -> Schema:
        """A NamedTuple class as a tool: its fields as an object (it is called with keywords)."""
        return schema_classes.namedtuple_fields(self, tp)

    def pydantic_(self, tp: Any) -> Schema:
        return schema_classes.pydantic_schema(self, tp)

    # --- values
    def try_json_value(self, v: Any) -> tuple[bool, Any]:
        try:
            return True, self.json_value(v)
        except NotJson:
            return False, None

    def json_value(self, v: Any) -> Any:
        return to_json_value(v)


HANDLERS: dict[str, Any] = {
    "any": schema_scalars.any_schema,
    "none": schema_scalars.none_schema,
    "bool": schema_scalars.bool_schema,
    "int": schema_scalars.int_schema,
    "float": schema_scalars.float_schema,
    "str": schema_scalars.str_schema,
    "bytes": schema_scalars.bytes_schema,
    "datetime": schema_scalars.datetime_schema,
    "date": schema_scalars.date_schema,
    "time": schema_scalars.time_schema,
    "timedelta": schema_scalars.timedelta_schema,
    "uuid": schema_scalars.uuid_schema,
    "path": schema_scalars.path_schema,
    "decimal": schema_scalars.decimal_schema,
    "union": schema_choices.union_schema,
    "literal": schema_choices.literal_schema,
    "enum": schema_choices.enum_schema,
    "annotated": schema_forms.annotated_schema,
    "wrapper": schema_forms.wrapper_schema,
    "newtype": schema_forms.newtype_schema,
    "forward": schema_forms.forward_schema,
    "typevar": schema_forms.typevar_schema,
    "generic_class": schema_forms.generic_class_schema,
    "list": schema_containers.list_schema,
    "set": schema_containers.set_schema,
    "tuple": schema_containers.tuple_schema,
    "dict": schema_containers.dict_schema,
    "typeddict": schema_classes.typeddict_schema,
    "dataclass": schema_classes.dataclass_schema,
    "namedtuple": schema_classes.namedtuple_schema,
    "pydantic": schema_classes.pydantic_schema,
    "pydantic_type": schema_classes.pydantic_type_schema,
    "refused": schema_refusals.refused_schema,
    "unknown": schema_refusals.unknown_schema,
}
"""Annotation kind (:func:`kind_of`) → ``handler(builder, annotation) → schema``."""
