"""``python -m plistspec``: the command line."""

from plistspec.cli import main

main()
