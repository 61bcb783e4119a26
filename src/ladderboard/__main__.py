"""``python -m ladderboard``: the ``ladderboard`` command."""

from ladderboard.cli import run

run()
