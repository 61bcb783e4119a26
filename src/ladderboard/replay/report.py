"""Writing a replay out: CSV tables, PNG and SVG figures, and a short Markdown report.

=========================  ====================================================
file                       holds
=========================  ====================================================
``releases.csv``           one row per submission and mechanism: the release,
                           whether it was accepted, its true public and private
                           scores
``boards.csv``             every team's public and private board entry
``rank_perturbation.csv``  each board's top 10 beside the reference's (Table 1)
``kendall.csv``            Kendall's tau, public vs private board
``half_splits.csv``        the top 50 over 20 half-splits, mean ± sd (Fig. 5)
``ttests.csv``             top public submission vs ranks 2-10 (Fig. 6)
``skipped.csv``            every file left out: file, team, reason code, message
``repaired.csv``           every repair made to read a file
``*.png``, ``*.svg``       rank_perturbation, public_private, half_splits, ttests
``report.md``              the measured values beside the paper's
=========================  ====================================================
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ladderboard.replay.figures import label, write_figures

if TYPE_CHECKING:
    from ladderboard.replay.run import ReplayResult
from ladderboard.tasks.reports import ReportTemplate, load_template, markdown_table, paragraphs

__all__ = ["settings_text", "table1_lines", "write_outputs"]


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _dicts(path: Path, rows: list[dict], header: Sequence[str]) -> Path:
    return _write_csv(path, header, ([row[h] for h in header] for row in rows))


def _time(value) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _tables(result: ReplayResult, out: Path) -> list[Path]:
    history = result.history
    entries = history.entries
    paths = []
    release_rows = (
        (
            entry.file,
            entry.team,
            _time(entry.submitted_at),
            i + 1,
            replay.name,
            repr(float(replay.released[i])),
            bool(replay.improved[i]),
            repr(float(replay.public_true[i])),
            repr(float(replay.private[i])),
        )
        for replay in result.replays
        for i, entry in enumerate(entries)
    )
    paths.append(
        _write_csv(
            out / "releases.csv",
            (
                "file",
                "team",
                "submitted_at",
                "position",
                "mechanism",
                "released",
                "improved",
                "public_true",
                "private",
            ),
            release_rows,
        )
    )
    board_rows = []
    for replay in result.replays:
        for kind in ("public", "private"):
            for e in getattr(replay, f"{kind}_board"):
                entry = entries[e.submission]
                board_rows.append(
                    (
                        replay.name,
                        kind,
                        e.rank,
                        e.team,
                        repr(e.score),
                        entry.file,
                        _time(entry.submitted_at),
                        e.entries,
                        repr(float(replay.public_true[e.submission])),
                        repr(float(replay.private[e.submission])),
                    )
                )
    paths.append(
        _write_csv(
            out / "boards.csv",
            (
                "mechanism",
                "board",
                "rank",
                "team",
                "score",
                "file",
                "submitted_at",
                "entries",
                "public_true",
                "private",
            ),
            board_rows,
        )
    )
    paths.append(
        _dicts(
            out / "rank_perturbation.csv",
            result.perturbations,
            ("board", "mechanism", "rank", "team", "reference", "reference_rank", "moved"),
        )
    )
    paths.append(
        _dicts(out / "kendall.csv", result.kendall, ("mechanism", "teams", "tau", "p_value"))
    )
    split_rows = [dict(row, file=entries[row["submission"]].file) for row in result.half_splits]
    paths.append(
        _dicts(
            out / "half_splits.csv",
            split_rows,
            (
                "mechanism",
                "private_rank",
                "team",
                "file",
                "public_loss",
                "private_loss",
                "mean_a",
                "sd_a",
                "mean_b",
                "sd_b",
                "gap",
                "gap_sd",
                "within_one_sd",
            ),
        )
    )
    test_rows = [dict(row, file=entries[row["submission"]].file) for row in result.ttests]
    paths.append(
        _dicts(
            out / "ttests.csv",
            test_rows,
            (
                "mechanism",
                "rank",
                "team",
                "file",
                "top_team",
                "mean_difference",
                "t",
                "p_value",
                "p_bonferroni",
            ),
        )
    )
    paths.append(
        _write_csv(
            out / "skipped.csv",
            ("file", "team", "code", "message"),
            ((s.file, s.team, s.code, s.message) for s in history.skipped),
        )
    )
    paths.append(
        _write_csv(
            out / "repaired.csv",
            ("file", "team", "repair"),
            (
                (entry.file, entry.team, repair)
                for entry, repairs in zip(entries, history.repairs, strict=True)
                for repair in repairs
            ),
        )
    )
    return paths


# -------------------------------------------------------------------- report
def table1_lines(result: ReplayResult) -> list[tuple[str, str, str]]:
    """``(board, mechanism, positions)``: where a top 10 differs from the reference's,
    the reference rank of each team found there, as the paper's Table 1 lists them."""
    lines = []
    for kind in ("private", "public"):
        for replay in result.replays:
            if replay is result.reference:
                continue
            rows = [
                r
                for r in result.perturbations
                if r["board"] == kind and r["mechanism"] == replay.name and r["moved"]
            ]
            ref = " ".join(str(r["rank"]) for r in rows) or "none"
            got = " ".join(
                "-" if r["reference_rank"] is None else str(r["reference_rank"]) for r in rows
            )
            lines.append(
                (
                    kind,
                    replay.name,
                    f"{label(result.reference.name)} {ref} / {label(replay.name)} {got or 'none'}",
                )
            )
    return lines


def _significant(result: ReplayResult, name: str, column: str) -> str:
    ranks = [str(r["rank"]) for r in result.ttests if r["mechanism"] == name and r[column] < 0.05]
    return ", ".join(ranks) or _text().part("none")


def _text() -> ReportTemplate:
    """The report's words: ``templates/replay.md`` of the package."""
    return load_template("ladderboard.replay", "replay")


def settings_text(params: Mapping[str, Any]) -> str:
    """A mechanism's parameters as the report lists them (floats to four
    significant digits).

    >>> settings_text({"eta": 0.223606797, "b": 100})
    'eta=0.2236, b=100'
    """
    return ", ".join(
        f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items()
    )


def _mechanisms(result: ReplayResult) -> str:
    text = _text()
    listed = "; ".join(
        text.part(
            "mechanism",
            name=r.name,
            settings=settings_text(r.params) or text.part("no_parameters"),
        )
        for r in result.replays
    )
    shaky = ""
    if any(r.name == "shaky-ladder" for r in result.replays):
        lo, hi = result.loss_bounds
        shaky = text.part("shaky", low=f"{lo:g}", high=f"{hi:.4g}", factor=f"{hi - lo:.4g}")
    return paragraphs(text.part("mechanisms", mechanisms=listed), shaky)


def _half_split_rows(result: ReplayResult) -> list[list[object]]:
    rows: list[list[object]] = []
    for replay in result.replays:
        split = [r for r in result.half_splits if r["mechanism"] == replay.name]
        if not split:
            continue
        gaps = [r["gap"] for r in split]
        rows.append(
            [
                replay.name,
                len(split),
                f"{sum(gaps) / len(gaps):+.4f}",
                f"{sum(g > 0 for g in gaps)}/{len(gaps)}",
                f"{sum(r['gap_sd'] for r in split) / len(split):.4f}",
                f"{sum(r['within_one_sd'] for r in split)}/{len(split)}",
            ]
        )
    return rows


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"`{c}` {k}" for c, k in sorted(counter.items())) or _text().part("none")


def _report(result: ReplayResult, command: str) -> str:
    text = _text()
    history = result.history
    solution = result.solution
    half_split_header = [
        "mechanism",
        "top",
        "mean public − private",
        "public higher",
        "mean sd of split gap",
        "gap within 1 sd",
    ]
    ttest_rows = [
        [
            r.name,
            _significant(result, r.name, "p_value"),
            _significant(result, r.name, "p_bonferroni"),
        ]
        for r in result.replays
    ]
    kendall_rows = [
        [r["mechanism"], r["teams"], f"{r['tau']:.3f}", f"{r['p_value']:.2g}"]
        for r in result.kendall
    ]
    return text.report(
        command=command,
        submissions=len(history.entries),
        teams=len(history.teams),
        skipped=len(history.skipped),
        rows=solution.n,
        public=solution.n_public,
        private=solution.n_private,
        loss=result.loss,
        clip="" if result.clip is None else text.part("clip", clip=f"{result.clip:g}"),
        loss_low=f"{result.loss_bounds[0]:g}",
        loss_high=f"{result.loss_bounds[1]:.4g}",
        metric=text.part("metric", metric=result.metric) if result.metric else "",
        seed=result.seed,
        skipped_by_reason=_counts(Counter(s.code for s in history.skipped)),
        repaired_by_defect=_counts(Counter(r for rs in history.repairs for r in rs)),
        mechanisms=_mechanisms(result),
        table1=markdown_table(["board", "mechanism", "perturbation"], table1_lines(result)),
        kendall_table=markdown_table(["mechanism", "teams", "tau", "p-value"], kendall_rows),
        half_split_table=markdown_table(half_split_header, _half_split_rows(result)),
        ttest_table=markdown_table(
            ["mechanism", "p < 0.05 before", "p < 0.05 after Bonferroni"], ttest_rows
        ),
        seconds=", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items()),
    )


def write_outputs(
    result: ReplayResult, out: Path, *, command: str, figures: bool = True
) -> list[Path]:
    """Write every table, the figures (unless ``figures=False``) and the report
    into ``out`` (created if missing)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = _tables(result, out)
    if figures:
        paths += write_figures(result, out)
    report = out / "report.md"
    report.write_text(_report(result, command), encoding="utf-8")
    paths.append(report)
    return paths
