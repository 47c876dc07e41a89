"""Every worked example of py-conformance-visible.json: parameters and description as JSON
values, with the order of ``properties`` and ``required`` checked too."""

from __future__ import annotations

import json
import sys
import types

import pytest

from plistspec.pyfunc import schema_for
from support import REFERENCE, schema_orders

CASES = json.loads((REFERENCE / "py-conformance-visible.json").read_text(encoding="utf-8"))


def load_source(source: str, name: str) -> types.ModuleType:
    """Execute ``source`` as a real module (registered, so dataclasses/pydantic resolve names)."""
    mod = types.ModuleType(name)
    mod.__file__ = f"<{name}>"
    sys.modules[name] = mod
    exec(compile(source, mod.__file__, "exec"), mod.__dict__)
    return mod


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_visible_case(case, tmp_path):
    src_file = tmp_path / f"conf_{case['id']}.py"
    src_file.write_text(case["source"], encoding="utf-8")
    name = f"conf_{case['id']}"
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        mod = importlib.import_module(name)
        tool_name, description, parameters = schema_for(mod.target)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
    assert tool_name == "target"
    assert parameters == case["expected_parameters"]
    assert schema_orders(parameters) == schema_orders(case["expected_parameters"])
    assert description == case["expected_description"]
