"""``python -m plistspec``: the command line."""

import os
import sys

# `python -m` puts the current directory first on sys.path, so a json.py or click.py there
# would be imported in place of the real one. Nothing of plistspec's may come from there;
# a user's module still does (plistspec.pyfunc.target adds its directory for that import).
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from plistspec.cli import run  # noqa: E402

run()
