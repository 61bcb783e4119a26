"""The replay's analyses checked against direct computations: paired t-tests and
Bonferroni against ``scipy.stats.ttest_rel``, half-splits against numpy over the
same splits, and the stochastic mechanisms' determinism for a seed.

The competition is random (400 rows, 120 public, log loss) with nine teams of
graded skill. Team ``twin`` submits, after team ``best``, the same predictions
with two private predictions of equally labelled rows swapped: the same public
score (so it ranks right behind ``best``) and private losses whose paired
differences sum to exactly zero, so its t statistic is 0, its p-value 1, and its
Bonferroni value is capped at 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from test_replay_support import at, write_competition

from ladderboard.files import Solution
from ladderboard.replay import analysis, replay_competition

N = 400
SEED = 3


def log_loss(y, p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    rng = np.random.default_rng(11)
    y = (rng.random(N) < 0.5).astype(float)
    solution = Solution.from_labels(y, public_fraction=0.3, random_state=5)
    files: dict[str, np.ndarray] = {}
    history = []
    for t, noise in enumerate(np.linspace(0.05, 0.45, 8)):
        team = "best" if t == 0 else f"team_{t}"
        for s in range(3):
            p = np.clip(np.where(y == 1, 0.8, 0.2) + rng.normal(0, noise, N), 0.01, 0.99)
            history.append((team, at(1 + s, 8 + t), p))
    public = solution.public_mask
    best = min(
        (p for team, _, p in history if team == "best"),
        key=lambda p: log_loss(y[public], p[public]).mean(),
    )
    private = np.flatnonzero(solution.private_mask)
    i, j = next((a, b) for a in private for b in private if a < b and y[a] == y[b])
    twin = best.copy()
    twin[[i, j]] = twin[[j, i]]
    assert twin[i] != best[i]
    history.append(("twin", at(5), twin))
    history.sort(key=lambda item: item[1])
    root = write_competition(tmp_path_factory.mktemp("random"), solution, history)
    for team, when, p in history:
        files[f"{team}__{when:%Y%m%dT%H%M%SZ}.csv"] = p
    result = replay_competition(
        root / "solution.csv",
        root / "submissions",
        mechanisms=["full-disclosure", "parameter-free-ladder", "ladder-boot"],
        seed=SEED,
    )
    return root, solution, files, result


def private_losses(solution, files, file):
    y = solution.targets[solution.private_mask]
    return log_loss(y, files[file][solution.private_mask])


def test_ttests_match_scipy_and_bonferroni_is_capped(competition):
    _, solution, files, result = competition
    entries = result.history.entries
    capped = 0
    for mechanism in ("full-disclosure", "parameter-free-ladder"):
        rows = [r for r in result.ttests if r["mechanism"] == mechanism]
        board = next(r for r in result.replays if r.name == mechanism).public_board
        assert [r["rank"] for r in rows] == list(range(2, 10))
        top = private_losses(solution, files, entries[board[0].submission].file)
        for row in rows:
            mine = private_losses(solution, files, entries[row["submission"]].file)
            expected = stats.ttest_rel(mine, top)
            assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
            assert row["t"] == pytest.approx(expected.statistic, rel=1e-9, abs=1e-9)
            assert row["mean_difference"] == pytest.approx(mine.mean() - top.mean())
            assert row["p_bonferroni"] == min(1.0, row["p_value"] * len(rows))
            capped += row["p_bonferroni"] == 1.0 and row["p_value"] * len(rows) > 1
    assert capped >= 2  # the twin, on both boards


def test_the_twin_ranks_behind_the_best_and_is_not_significant(competition):
    _, _, _, result = competition
    rows = [r for r in result.ttests if r["mechanism"] == "full-disclosure"]
    assert result.reference.public_board[0].team == "best"
    twin = next(r for r in rows if r["team"] == "twin")
    assert twin["rank"] == 2
    assert twin["p_value"] == pytest.approx(1.0) and twin["p_bonferroni"] == 1.0


def test_half_splits_match_a_direct_computation(competition):
    _, solution, files, result = competition
    halves = analysis.half_split_indices(solution.n_private, 20, SEED)
    assert halves.shape == (20, 2, solution.n_private // 2)
    for split in halves:
        assert len(set(split[0]) | set(split[1])) == 2 * halves.shape[2]
    rows = [r for r in result.half_splits if r["mechanism"] == "full-disclosure"]
    assert len(rows) == len(result.history.teams)
    for row in rows:
        losses = private_losses(solution, files, result.history.entries[row["submission"]].file)
        a = np.array([losses[h[0]].mean() for h in halves])
        b = np.array([losses[h[1]].mean() for h in halves])
        assert row["mean_a"] == pytest.approx(a.mean(), rel=1e-12)
        assert row["sd_a"] == pytest.approx(a.std(ddof=1), rel=1e-9)
        assert row["mean_b"] == pytest.approx(b.mean(), rel=1e-12)
        assert row["sd_b"] == pytest.approx(b.std(ddof=1), rel=1e-9)
        assert row["gap_sd"] == pytest.approx((a - b).std(ddof=1), rel=1e-9)
        assert row["private_loss"] == pytest.approx(losses.mean(), rel=1e-12)


def test_half_splits_depend_on_the_seed_only():
    same = analysis.half_split_indices(101, 5, 7), analysis.half_split_indices(101, 5, 7)
    assert np.array_equal(*same)
    assert not np.array_equal(same[0], analysis.half_split_indices(101, 5, 8))
    with pytest.raises(ValueError, match="n_private"):
        analysis.half_split_indices(1, 5, 0)


def test_the_reference_is_never_perturbed_against_itself(competition):
    _, _, _, result = competition
    own = [r for r in result.perturbations if r["mechanism"] == "full-disclosure"]
    assert own and not any(r["moved"] for r in own)


def releases(result, name):
    return next(r for r in result.replays if r.name == name).released


def test_a_seed_gives_the_same_replay_whatever_the_threads(competition):
    root, _, _, result = competition
    seen = []
    again = replay_competition(
        root / "solution.csv",
        root / "submissions",
        mechanisms=["ladder-boot"],
        seed=SEED,
        threads=2,
        progress=lambda *a: seen.append(a),
    )
    assert np.array_equal(releases(again, "ladder-boot"), releases(result, "ladder-boot"))
    files = len(again.history.entries) + len(again.history.skipped)
    assert seen[0] == (0, 2 * files) and seen[-1] == (2 * files, 2 * files)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    other = replay_competition(
        root / "solution.csv", root / "submissions", mechanisms=["ladder-boot"], seed=SEED + 1
    )
    assert not np.array_equal(releases(other, "ladder-boot"), releases(result, "ladder-boot"))


def test_the_shaky_ladder_releases_on_the_loss_scale(competition):
    """Log loss is rescaled into [0, 1] for the Shaky Ladder and its releases are
    mapped back: with negligible noise each team's first release is its public loss."""
    root, *_ = competition
    shaky = replay_competition(
        root / "solution.csv",
        root / "submissions",
        mechanisms=["shaky-ladder"],
        params=["noise_scale=1e-12", "step=1e-12"],
    )
    replay = shaky.replays[0]
    for rows in shaky.history.teams.values():
        first = rows[0]
        assert replay.released[first] == pytest.approx(replay.public_true[first], abs=1e-9)


def test_a_metric_based_mechanism_ranks_by_its_metric(competition):
    root, solution, files, _ = competition
    result = replay_competition(
        root / "solution.csv",
        root / "submissions",
        mechanisms=["bayes-boot-ladder"],
        params=["B=50"],
        metric="auc",
    )
    replay = result.replays[0]
    assert replay.greater_is_better
    scores = [e.score for e in replay.private_board]
    assert scores == sorted(scores, reverse=True)
    y = solution.targets[solution.private_mask]
    for entry in replay.private_board:
        p = files[result.history.entries[entry.submission].file][solution.private_mask]
        from sklearn.metrics import roc_auc_score

        assert entry.score == pytest.approx(roc_auc_score(y, p), rel=1e-9)


def test_bayes_boot_ladder_boot_takes_bayes_boot_ladders_decisions(competition):
    """BayesBootLadderBoot runs BayesBootLadder's test on BayesBootLadder's
    stream: replayed alone it accepts what BayesBootLadder accepts, and replayed
    after it (taking its decisions instead of drawing them) it releases what it
    releases alone, bit for bit, whatever the threads."""
    root, *_ = competition

    def run(mechanisms, params=("B=60", "b=7"), threads=1):
        result = replay_competition(
            root / "solution.csv",
            root / "submissions",
            mechanisms=mechanisms,
            params=list(params),
            metric="auc",
            seed=SEED,
            threads=threads,
        )
        return {r.name: r for r in result.replays}

    both = run(["bayes-boot-ladder", "bayes-boot-ladder-boot"], threads=2)
    alone = run(["bayes-boot-ladder-boot"])["bayes-boot-ladder-boot"]
    m7, m8 = both["bayes-boot-ladder"], both["bayes-boot-ladder-boot"]
    assert np.array_equal(alone.improved, m7.improved)
    assert np.array_equal(m8.improved, m7.improved)
    assert np.array_equal(m8.released, alone.released)
    assert not m7.improved.all() and m7.improved.any()
    assert not np.array_equal(m8.released, m7.released)  # bootstrap means, not rounded scores


def test_a_shared_test_is_not_drawn_twice(competition, monkeypatch):
    root, *_ = competition
    from ladderboard.mechanisms import boot

    calls = []
    real = boot.bayesian_bootstrap_test
    monkeypatch.setattr(
        boot, "bayesian_bootstrap_test", lambda *a, **k: calls.append(1) or real(*a, **k)
    )

    def run(mechanisms):
        calls.clear()
        replay_competition(
            root / "solution.csv",
            root / "submissions",
            mechanisms=mechanisms,
            params=["B=30"],
            metric="auc",
            seed=SEED,
        )
        return len(calls)

    m7 = run(["bayes-boot-ladder"])
    assert m7 > 0
    assert run(["bayes-boot-ladder-boot"]) == m7
    assert run(["bayes-boot-ladder", "bayes-boot-ladder-boot"]) == m7


def test_a_clip_bounds_the_log_loss(competition):
    """``clip`` scores the history with probabilities clipped to [clip, 1 - clip]:
    the loss's bounds become [0, -log clip] and every loss is the clipped one;
    a loss without a clip refuses it before anything is read."""
    root, solution, files, kaggle = competition
    clipped = replay_competition(
        root / "solution.csv",
        root / "submissions",
        mechanisms=["full-disclosure", "shaky-ladder"],
        clip=0.05,
        seed=SEED,
    )
    assert clipped.loss_bounds == pytest.approx((0.0, -np.log(0.05)))
    assert kaggle.loss_bounds == pytest.approx((0.0, -np.log(1e-15)), rel=1e-4)
    y = solution.targets[solution.public_mask]
    for i, entry in enumerate(clipped.history.entries):
        p = np.clip(files[entry.file][solution.public_mask], 0.05, 0.95)
        expected = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
        assert clipped.history.public_score[i] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="takes no clip"):
        replay_competition(root / "solution.csv", root / "submissions", loss="brier", clip=0.05)
    with pytest.raises(ValueError, match=r"clip must be in \(0, 0.5\)"):
        replay_competition(root / "solution.csv", root / "submissions", clip=0.5)


@pytest.mark.slow
def test_the_clip_is_in_the_report_and_its_command(competition, tmp_path):
    from test_replay_support import run_cli

    root, *_ = competition
    out = tmp_path / "clipped"
    args = [
        "--solution",
        str(root / "solution.csv"),
        "--submissions-dir",
        str(root / "submissions"),
    ]
    result = run_cli([*args, "--mechanism", "full-disclosure", "--clip", "0.05", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "--clip 0.05" in report
    assert "probabilities clipped at 0.05" in report


def test_labels_the_loss_cannot_score_are_refused_before_any_file(tmp_path):
    """The replay scores each file without checking the labels again, so it
    checks them once: a log loss on a label 2 is an error, not a number."""
    y = np.array([0.0, 1.0, 2.0, 1.0, 0.0, 1.0])
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=0)
    root = write_competition(tmp_path, solution, [("a", at(1), np.full(6, 0.5))])
    with pytest.raises(ValueError, match=r"log_loss.*cannot score it.*only 0 and 1"):
        replay_competition(root / "solution.csv", root / "submissions", mechanisms=["ladder"])
