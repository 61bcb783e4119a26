"""What ``ladderboard demo`` prints: both competitions' boards, one row per
team, and what each attacker won on each board in a participant's words."""

from __future__ import annotations

from rich import box
from rich.table import Table

from ladderboard.demo.attackers import ATTACKER, CLIMBER
from ladderboard.demo.boards import BOARDS, DEFAULT, KAGGLE, board_title
from ladderboard.demo.result import DemoResult

__all__ = ["demo_summary", "demo_table"]


def _board_name(result: DemoResult, slug: str) -> str:
    """``FullDisclosure`` or the default's class with its parameters."""
    name, params = result.mechanisms[slug]
    shown = ", ".join(f"{p} = {v}" for p, v in params.items() if v is not None)
    return f"{board_title(name)} ({shown})" if shown else board_title(name)


def demo_table(result: DemoResult) -> Table:
    """Both competitions' public and private boards, one row per team."""
    table = Table(
        title=(
            f"Breast cancer: {result.n_train} training rows, holdout {result.n_public} public "
            f"+ {result.n_private} private; 0/1 error; the attackers' budget "
            f"k = {result.k}; seed {result.seed}"
        ),
        caption=(
            f"Kaggle: {_board_name(result, KAGGLE)}; Default: {_board_name(result, DEFAULT)}, "
            "ladderboard's default. subs: submissions (on each board when they differ); "
            "public: the score the board shows for the team; private: the error of its "
            "final submissions on the private rows, published after the close (each "
            "attacker selects the file it believes best; the honest teams choose none, "
            "so the board's automatic choice counts); #rank."
        ),
        box=box.SIMPLE_HEAVY,
    )
    table.add_column("team", no_wrap=True)
    table.add_column("subs", justify="right")
    for slug in BOARDS:
        table.add_column(f"{slug.title()} public", justify="right", no_wrap=True)
        table.add_column("private", justify="right", no_wrap=True)
    for team in result.teams:
        entries = {str(result.standings[slug][team].entries) for slug in BOARDS}
        cells = [team, "/".join(sorted(entries))]
        for slug in BOARDS:
            s = result.standings[slug][team]
            cells += [f"{s.public:.4f} #{s.public_rank}", f"{s.private:.4f} #{s.private_rank}"]
        attacking = team in (ATTACKER, CLIMBER)
        table.add_row(*cells, style="bold red" if attacking else None)
    return table


def demo_summary(result: DemoResult) -> str:
    """For each board and each attacker, in a participant's words: what the
    board shows for its first file and for the file it chose, against each
    file's error on the private rows, and how much more the board flatters
    the chosen file than the first (:meth:`DemoResult.attack_gain`)."""
    n = len(result.teams)
    first = {ATTACKER: "its model", CLIMBER: "the majority class"}
    lines = []
    for slug in BOARDS:
        title = "Kaggle's board" if slug == KAGGLE else "The default board"
        lines.append(f"{title}, {_board_name(result, slug)}:")
        for team in (ATTACKER, CLIMBER):
            s = result.standings[slug][team]
            start_public, start_private = (
                result.start_public[slug][team],
                result.start_private[team],
            )
            won = result.attack_gain(slug, team)
            if s.public == start_public and s.private == start_private:
                lines.append(
                    f"  {team}: the board shows {first[team]}'s {s.public:.3f}, rank "
                    f"{s.public_rank} of {n}; on the private rows it errs {s.private:.3f}, "
                    f"rank {s.private_rank} of {n}: the attack won nothing ({won:+.3f})."
                )
                continue
            verdict = (
                f"the board flatters it by {won:.3f} more than {first[team]}"
                if won > 0
                else f"the board flatters it no more than {first[team]} ({won:+.3f})"
            )
            lines.append(
                f"  {team}: {first[team]} showed {start_public:.3f} and errs "
                f"{start_private:.3f} on the private rows; the file it chose shows "
                f"{s.public:.3f}, rank {s.public_rank} of {n}, and errs {s.private:.3f}, rank "
                f"{s.private_rank} of {n}: {verdict}."
            )
        mechanism, params = result.mechanisms[slug]
        if mechanism == "ladder":
            lines.append(_step_words(float(params["eta"]), result.n_public))
    return "\n".join(lines)


def _step_words(eta: float, n_public: int) -> str:
    """What the fixed-step Ladder's step costs honest teams at the demo's size."""
    return (
        f"  Its step is {eta:g}, about one over the square root of the {n_public} public "
        "rows: a file that beats its team's shown score by less than a step is not shown "
        "and not taken as the team's best, so at a holdout this small honest teams' real "
        "improvements hide too, and several teams can show the same score. A larger "
        "holdout has a finer step."
    )
