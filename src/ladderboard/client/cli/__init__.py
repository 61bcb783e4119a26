"""The ``ladderboard`` verbs that talk to a server over its REST API, one
module per help panel.

- :mod:`~ladderboard.client.cli.account`: ``login``, ``logout``, ``competitions``
  and the group ``account`` (``create``, ``tokens``);
- :mod:`~ladderboard.client.cli.participant`, a team's verbs: ``submit``,
  ``submissions``, ``select``, ``status``, ``leaderboard``, ``download``;
- :mod:`~ladderboard.client.cli.organiser`: ``close``, ``publish``, ``flags``
  and the groups ``competition``, ``team`` and ``file`` (a module each);
- :mod:`~ladderboard.client.cli.shared`: the options, exit statuses, the call
  to the server and the output every verb shares.

Each verb is a thin wrapper around :class:`~ladderboard.client.Client`.
The server and the token come from ``--server`` and ``--token``, else
``LADDERBOARD_SERVER`` and ``LADDERBOARD_TOKEN``, else what ``ladderboard
login`` stored for that server (:mod:`ladderboard.client.credentials`);
``--token ''`` asks as nobody.

Every verb that prints data takes ``--json`` (the server's JSON) and every
one that prints a table ``--csv``; a table goes whole, as tab-separated
values, to a pipe or a file (:func:`ladderboard.terminal.print_table`). A
busy server (429, 503) is asked again as the client allows, with a note on
stderr at each wait.

Every failure is one line on stderr, and the exit status says whose it is
(:data:`EXIT_STATUS`, in every verb's ``--help``). Only typer, the standard
library, :mod:`ladderboard.terminal` and :mod:`ladderboard.recommended` (the
default ``competition create --help`` names; the standard library alone) are
imported at module level; httpx2 and rich load when a verb runs, so that
``ladderboard --help`` stays fast.
"""

from __future__ import annotations

import typer

from ladderboard.client.cli import account, organiser, participant
from ladderboard.client.cli.shared import EXIT_STATUS

__all__ = ["EXIT_STATUS", "register"]


def register(app: typer.Typer) -> None:
    """Add the client verbs to ``app``, each panel's under its own heading;
    each verb's help ends with the exit statuses."""
    for panel in (account, participant, organiser):
        for verb in panel.VERBS:
            app.command(rich_help_panel=panel.PANEL, epilog=EXIT_STATUS)(verb)
    for panel_groups, panel_name in (
        (account.GROUPS, account.PANEL),
        (organiser.GROUPS, organiser.PANEL),
    ):
        for name, group in panel_groups:
            app.add_typer(group, name=name, rich_help_panel=panel_name)
