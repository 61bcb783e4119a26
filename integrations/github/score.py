"""Score a GitHub repository's submissions with a ladderboard mechanism and
write its public board: the script of the composite action beside it.

Teams add prediction files by pull request, as ``submissions/TEAM/NAME.csv``;
a team's files are taken in the order of their names (name them so that
the order is the order they were made, ``001.csv``, ``002.csv``, ..., or
with a date). On each push to the default branch the workflow runs this
script, which judges every team's files in order from the first
(``ladderboard judge``'s decisions, :mod:`ladderboard.engine.judge`), and
writes:

- ``leaderboard.md``: each team's best release, its number of valid files,
  and the release of its last one;
- ``releases.csv``: each file's release, or why it was refused.

Nothing else is written: no per-sample loss, no mechanism state, no
decision of a noisy mechanism (a loss vector beside public predictions
would tell the labels). The board is judged again from the first file at
every run, so nothing needs keeping between runs, and a file's release
never changes once shown: the same files, key and gold standard give the
same decisions.

The gold standard and the key are the repository's secrets, handed over in
files and the environment by the workflow (never in a pull request from a
fork, whose workflows get no secrets)::

    python score.py --repo . --solution gold.csv --score zero_one [--mechanism NAME]

with ``LADDERBOARD_JUDGE_KEY`` set.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ladderboard.engine.judge import judge
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig


@dataclass
class Judged:
    team: str
    file: str
    release: float | None  # None: refused
    refusal: str = ""


def judge_repository(
    repo: Path, solution: Solution, config: CompetitionConfig, key_hex: str
) -> list[Judged]:
    """Every team's files under ``repo/submissions`` judged in order."""
    judged: list[Judged] = []
    root = repo / "submissions"
    for team_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        state = lead = None
        for path in sorted(team_dir.glob("*.csv")):
            data = path.read_bytes()
            name = path.relative_to(repo).as_posix()
            try:
                decided = judge(
                    solution, config, key_hex, team_dir.name, data, lead=lead, state=state
                )
            except SubmissionError as exc:
                judged.append(Judged(team_dir.name, name, None, f"{exc.code}: {exc}"))
                continue
            judged.append(Judged(team_dir.name, name, decided.release))
            state = decided.state
            if decided.met_cutoff:
                lead = data
    return judged


def board_markdown(judged: list[Judged], lower_is_better: bool, decimals: int) -> str:
    """The public board: the teams by their best release."""
    teams: dict[str, list[float]] = {}
    for entry in judged:
        if entry.release is not None:
            teams.setdefault(entry.team, []).append(entry.release)
    pick = min if lower_is_better else max
    rows = sorted(
        teams.items(), key=lambda item: (pick(item[1]) * (1 if lower_is_better else -1), item[0])
    )
    lines = [
        "| rank | team | best | files | last |",
        "|---:|---|---:|---:|---:|",
    ]
    for rank, (team, releases) in enumerate(rows, 1):
        lines.append(
            f"| {rank} | {team} | {pick(releases):.{decimals}f} | {len(releases)} | "
            f"{releases[-1]:.{decimals}f} |"
        )
    return "\n".join(lines) + "\n"


def releases_csv(judged: list[Judged]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["team", "file", "release", "refused"])
    for entry in judged:
        release = "" if entry.release is None else repr(entry.release)
        writer.writerow([entry.team, entry.file, release, entry.refusal])
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--solution", type=Path, required=True)
    parser.add_argument("--score", required=True)
    parser.add_argument("--mechanism", default=RECOMMENDED.mechanism)
    parser.add_argument("--decimals", type=int, default=4)
    args = parser.parse_args(argv)
    key_hex = os.environ.get("LADDERBOARD_JUDGE_KEY", "").strip()
    if len(key_hex) != 32:
        print("set LADDERBOARD_JUDGE_KEY to the competition's key (32 hex digits)", file=sys.stderr)
        return 2
    solution = Solution.from_csv(args.solution.read_bytes())
    config = CompetitionConfig(score=args.score, mechanism=args.mechanism).explicit(
        solution.n_public
    )
    judged = judge_repository(args.repo, solution, config, key_hex)
    lower = not config.scoring().direction.greater_is_better
    (args.repo / "leaderboard.md").write_text(board_markdown(judged, lower, args.decimals))
    (args.repo / "releases.csv").write_text(releases_csv(judged))
    refused = sum(entry.release is None for entry in judged)
    print(f"judged {len(judged)} files of {len({e.team for e in judged})} teams; {refused} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
