"""``python -m ladderboard``: the ``ladderboard`` command."""

from ladderboard.cli import app

app(prog_name="ladderboard")
