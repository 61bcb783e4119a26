"""``ladderboard judge``: one decision of a mechanism, with no server and no
store, for a platform that keeps its own submissions
(:mod:`ladderboard.engine.judge`).

The platform keeps, per team, the file of its lead (the last whose
``met_cutoff`` was true) and the ``state`` of its last decision (as secret as
the key: it is not the team's to read), and calls::

    LADDERBOARD_JUDGE_KEY=... ladderboard judge --solution gold.csv \\
        --score zero_one --team 3412345 --submission new.csv \\
        --lead lead.csv --state last.json > decision.json

The key comes from the environment or a file, never from the command line
(which shells and process lists keep). The answer is one JSON object on
standard output: ``release`` (what the team is shown), ``met_cutoff`` (the
organiser's record), ``index`` and ``state``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from ladderboard.terminal import parse_params, print_json

__all__ = ["KEY_VARIABLE", "judge", "register"]

KEY_VARIABLE = "LADDERBOARD_JUDGE_KEY"
"""The environment variable that holds the competition's key (32 hex digits)."""

REFUSED, WRONG_CALL = 1, 2

_EXIT = (
    "Exit status: 0 decided (the JSON holds the decision); 1 the file is refused, with the "
    "server's refusal as JSON ({refused: true, error, message}), and nothing is decided; 2 a "
    "wrong call: a missing key, a bad setting or state, a lead file that is not the state's."
)


def _key(key_file: Path | None) -> str:
    text = key_file.read_text().strip() if key_file is not None else os.environ.get(KEY_VARIABLE)
    if not text:
        raise typer.BadParameter(
            f"give the competition's key in {KEY_VARIABLE} or a file (--key-file); make one "
            "once with: python -c 'import secrets; print(secrets.token_hex(16))'",
            param_hint="--key-file",
        )
    if re.fullmatch(r"[0-9a-fA-F]{32}", text) is None:
        raise typer.BadParameter("the key is 32 hexadecimal digits", param_hint="--key-file")
    return text.lower()


def _state(path: Path | None) -> dict[str, Any] | None:
    """The state of a file holding it, or a whole earlier answer."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"cannot read the state: {exc}", param_hint="--state") from None
    if isinstance(data, dict) and isinstance(data.get("state"), dict):
        data = data["state"]
    if not isinstance(data, dict):
        raise typer.BadParameter("the state is a JSON object", param_hint="--state")
    return data


def judge(
    solution: Annotated[
        Path,
        typer.Option(
            exists=True, dir_okay=False, help="The gold standard: id, the targets, Usage."
        ),
    ],
    submission: Annotated[
        Path, typer.Option(exists=True, dir_okay=False, help="The file to decide.")
    ],
    score: Annotated[str, typer.Option(help="A loss or a metric (ladderboard scores).")],
    team: Annotated[
        str,
        typer.Option(help="The team's id on the platform: it keys the team's random stream."),
    ],
    lead: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="The team's lead file: its last whose met_cutoff was true (not for a first file).",
        ),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="The state of the team's last decision, or that whole answer (not for a first "
            "file).",
        ),
    ] = None,
    mechanism: Annotated[
        str | None,
        typer.Option(help="The mechanism (default: ladderboard's default, at the holdout's size)."),
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option(help="A mechanism parameter, NAME=VALUE (repeatable).")
    ] = None,
    key_file: Annotated[
        Path | None,
        typer.Option(
            exists=True, dir_okay=False, help=f"A file holding the key (else {KEY_VARIABLE})."
        ),
    ] = None,
) -> None:
    """Decide one file of one team: the release to show and the state to keep."""
    from ladderboard.engine.judge import LeadMismatch
    from ladderboard.engine.judge import judge as decide
    from ladderboard.files.solution import Solution, SolutionError
    from ladderboard.files.submission import SubmissionError
    from ladderboard.recommended import RECOMMENDED
    from ladderboard.rules.config import CompetitionConfig

    key_hex = _key(key_file)
    try:
        params = parse_params(param or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--param") from None
    if params and mechanism is None:
        raise typer.BadParameter("--param needs --mechanism", param_hint="--param")
    try:
        gold = Solution.from_csv(solution.read_bytes())
        config = CompetitionConfig(
            score=score, mechanism=mechanism or RECOMMENDED.mechanism, mechanism_params=params
        ).explicit(gold.n_public)
    except (SolutionError, ValueError, TypeError) as exc:
        raise typer.BadParameter(str(exc)) from None
    try:
        decided = decide(
            gold,
            config,
            key_hex,
            team,
            submission.read_bytes(),
            lead=None if lead is None else lead.read_bytes(),
            state=_state(state),
        )
    except SubmissionError as exc:
        print_json({"refused": True, "error": exc.code, "message": str(exc)})
        raise typer.Exit(REFUSED) from None
    except (LeadMismatch, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    print_json(decided.to_json())


def register(app: typer.Typer) -> None:
    app.command("judge", epilog=_EXIT)(judge)
