"""The llm-mode tests import their helpers (the stub, the harness runner) from this folder
and the rule checker and the non-streaming answers from tests/gptel_mode."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "gptel_mode"))
