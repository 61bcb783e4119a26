"""The competition engine on SQLite and PostgreSQL: submitting, quotas,
refusals that change nothing, boards, the close and the audit."""

from __future__ import annotations

import gzip
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine_helpers import START, create, csv_for, labels, make_solution, noisy, snapshot
from ladderboard.engine.audit import rescore, verify
from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    DuplicateSubmission,
    NotFound,
    QuotaExceeded,
    VerificationError,
)
from ladderboard.engine.results import DuplicateFlag
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.mechanisms import ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import MechanismStateRow, RejectionRow, SubmissionRow


# ------------------------------------------------------------------- creating
def test_create_publishes_a_commitment_and_refuses_duplicates(store):
    solution, info = create(store)
    assert len(info.commitment) == 64 and info.n_public == solution.n_public
    assert store.competition("comp").commitment == info.commitment
    with pytest.raises(Conflict, match="already exists"):
        create(store)
    with pytest.raises(ValueError, match="slug"):
        create(store, slug="bad slug!")


def test_bad_mechanism_parameters_store_nothing(store):
    with pytest.raises(ValueError, match="eta"):
        create(store, mechanism="ladder", mechanism_params={"eta": -1})
    assert store.competitions() == []


@pytest.mark.parametrize(
    ("score", "targets", "message"),
    [
        ("log_loss", [0, 1, 2, 0], "only 0 and 1"),
        ("brier", [0, 1, 0.5, 1], "only 0 and 1"),
        ("auc", [0, 1, 3, 1], "only 0 and 1"),
    ],
)
def test_a_solution_its_score_cannot_use_stores_nothing(store, score, targets, message):
    """Labels a loss or metric cannot score are refused at creation: otherwise
    every submission would fail, and the engine scores parsed submissions
    without checking the solution again."""
    usage = ["Public", "Private", "Public", "Private"]
    rows = "".join(f"{i},{t},{u}\n" for i, (t, u) in enumerate(zip(targets, usage, strict=True)))
    solution = Solution.from_csv(("id,target,Usage\n" + rows).encode())
    mechanism = "bayes-boot-ladder" if score == "auc" else "parameter-free-ladder"
    with pytest.raises(ValueError, match=f"cannot be scored by '{score}'.*{message}"):
        store.create("c", solution, CompetitionConfig(score=score, mechanism=mechanism))
    assert store.competitions() == []


def test_teams(store):
    create(store)
    store.add_team("comp", "alpha")
    with pytest.raises(Conflict):
        store.add_team("comp", "alpha")
    with pytest.raises(NotFound):
        store.add_team("nope", "alpha")
    assert [t.name for t in store.teams("comp")] == ["alpha"]


# ----------------------------------------------------------------- submitting
def test_releases_match_the_mechanism_run_directly(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    reference = ParameterFreeLadder(n=solution.n_public)
    for seed, flip in enumerate((0.45, 0.40, 0.41, 0.30, 0.30)):
        predictions = noisy(solution, flip, seed)
        result = store.submit("comp", "alpha", csv_for(solution, predictions, shuffle_seed=seed))
        losses = (predictions != solution.targets)[solution.public_mask].astype(float)
        assert result.public_score == reference.submit(losses).score
        assert result.remaining_today == 4 - seed
    views = store.submissions("comp", "alpha")
    assert len(views) == 5 and all(v.private_score is None for v in views)


def test_a_stale_cached_target_is_read_again(store):
    """The competition and team a submission goes to are read once per
    process; if the slug has come to name another competition since (created
    again), the transaction finds out, writes nothing, and the submission is
    made again from a fresh read, bad file or good."""
    solution, _ = create(store, deadline=START + timedelta(days=1))
    store.add_team("comp", "alpha")
    other = Solution.from_labels(labels(300, 5), public_fraction=0.5, random_state=5)
    config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    store.create("other", other, config, random_state=1)
    store.add_team("other", "beta")
    store.submit("other", "beta", csv_for(other, noisy(other, 0.4, 0)))

    def stale():
        store.caches.targets["comp", "alpha"] = store.caches.targets["other", "beta"]

    stale()  # valid for "other", not for "comp" (ids 300-399 are missing)
    with pytest.raises(SubmissionError, match="missing"):
        store.submit("comp", "alpha", csv_for(other, noisy(other, 0.4, 1)))
    assert store.invalid_count("comp", "alpha") == 1
    assert store.invalid_count("other", "beta") == 0
    stale()  # bad for both
    with pytest.raises(SubmissionError):
        store.submit("comp", "alpha", b"id,target\n")
    assert store.invalid_count("comp", "alpha") == 2
    assert store.invalid_count("other", "beta") == 0
    stale()
    predictions = noisy(solution, 0.4, 2)
    result = store.submit("comp", "alpha", csv_for(solution, predictions))
    losses = (predictions != solution.targets)[solution.public_mask].astype(float)
    assert result.public_score == ParameterFreeLadder(n=solution.n_public).submit(losses).score
    assert len(store.submissions("comp", "alpha")) == 1
    assert len(store.submissions("other", "beta")) == 1

    # The organiser's close is read under the lock: a bad file says so and
    # is not counted, a good one is not scored.
    store.close("comp")
    with pytest.raises(CompetitionClosed):
        store.submit("comp", "alpha", b"id,target\n")
    with pytest.raises(CompetitionClosed):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 3)))
    assert store.invalid_count("comp", "alpha") == 2
    assert len(store.submissions("comp", "alpha")) == 1


def test_gzip_submission(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    data = gzip.compress(csv_for(solution, noisy(solution, 0.3, 0)))
    assert store.submit("comp", "alpha", data).public_score == pytest.approx(0.3, abs=0.06)


BAD_FILES = {
    "empty": lambda s, p: b"",
    "header_only": lambda s, p: b"id,target\n",
    "missing_ids": lambda s, p: b"\n".join(csv_for(s, p).splitlines()[:-3]) + b"\n",
    "duplicate_ids": lambda s, p: csv_for(s, p) + csv_for(s, p).splitlines()[1] + b"\n",
    "not_a_number": lambda s, p: csv_for(s, p).replace(b",1.0\n", b",yes\n", 1),
    "not_utf8": lambda s, p: csv_for(s, p).replace(b"id,", b"\xff\xfeid,", 1),
    "bad_gzip": lambda s, p: gzip.compress(csv_for(s, p))[:-20],
    "missing_column": lambda s, p: csv_for(s, p).replace(b"id,target", b"id,prediction", 1),
    # Under zero_one a prediction is compared with a label: 0.5 is no class of the solution.
    "not_a_class": lambda s, p: csv_for(s, p + 0.5),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_change_nothing_but_the_invalid_count(store, case):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    before = snapshot(store)
    with pytest.raises(SubmissionError) as error:
        store.submit("comp", "alpha", BAD_FILES[case](solution, noisy(solution, 0.3, 1)))
    assert str(error.value)
    assert snapshot(store) == before
    assert store.invalid_count("comp", "alpha") == 1
    # The daily quota is untouched: four more valid submissions fit today.
    for seed in range(2, 6):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, seed)))


@pytest.mark.parametrize("mechanism", ["metric-full-disclosure", "bayes-boot-ladder"])
def test_accuracy_refuses_predictions_that_are_no_class_alike_on_both_stores(store, mechanism):
    """Accuracy compares each prediction with its label: a prediction that is
    no class of the solution (labels + 0.5) can never be right, and scoring
    it would release a meaningless 0. The file is refused as malformed,
    naming the value and the classes, and costs no quota."""
    params = {"B": 50} if mechanism == "bayes-boot-ladder" else {}
    solution = Solution.from_labels(labels(60) + 1, public_fraction=0.5, random_state=0)
    config = CompetitionConfig(
        score="accuracy", mechanism=mechanism, mechanism_params=params, daily_quota=2
    )
    store.create("comp", solution, config)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, solution.targets))
    before = snapshot(store)
    shifted = solution.targets.copy()
    shifted[7] += 0.5
    with pytest.raises(SubmissionError) as error:
        store.submit("comp", "alpha", csv_for(solution, shifted))
    assert error.value.code == "not_a_class"
    assert "1.5 (id '7'" in str(error.value) and "1, 2" in str(error.value)
    assert snapshot(store) == before
    assert store.invalid_count("comp", "alpha") == 1
    # Whole numbers that are no label (0 and 3 here) are refused too.
    with pytest.raises(SubmissionError, match="no class"):
        store.submit("comp", "alpha", csv_for(solution, solution.targets * 0 + 3))
    assert store.invalid_count("comp", "alpha") == 2
    # The quota is untouched: the second of today's two is still there.
    store.submit("comp", "alpha", csv_for(solution, 3 - solution.targets))


def test_a_refused_file_keeps_the_name_it_was_sent_under(store):
    """The team's list of refused files says which file each refusal was
    about: the name it was sent under (its last path component, control
    characters escaped), or None when the request named none."""
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    names = ["C:\\runs\\first.csv", "runs/second\n.csv", None, "   "]
    for name in names:
        with pytest.raises(SubmissionError):
            store.submit("comp", "alpha", b"id,target\n", filename=name)
    refused = store.rejections("comp", "alpha")  # newest first
    assert [r.filename for r in reversed(refused)] == ["first.csv", "second\\n.csv", None, None]
    assert all(r.code == "header_only" and r.first_line == r.message for r in refused)
    # A valid file's name is not kept: only a refusal needs telling apart.
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)), filename="ok.csv")
    assert len(store.rejections("comp", "alpha")) == 4


def test_a_team_gets_back_its_own_files_byte_for_byte(store):
    """A team downloads the files it submitted exactly as they were received
    (gzip, a byte-order mark and CRLF line ends kept); its numbers are its
    own, so another team's files cannot be named, and a number it has not
    used is NotFound."""
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.add_team("comp", "beta")
    plain = csv_for(solution, noisy(solution, 0.4, 0))
    files = [
        b"\xef\xbb\xbf" + plain.replace(b"\n", b"\r\n"),
        gzip.compress(csv_for(solution, noisy(solution, 0.4, 1)), mtime=0),
    ]
    for data in files:
        store.submit("comp", "alpha", data)
    store.submit("comp", "beta", csv_for(solution, noisy(solution, 0.4, 2)))
    assert [store.submission_file("comp", "alpha", n) for n in (1, 2)] == files
    assert store.submission_file("comp", "beta", 1) == csv_for(solution, noisy(solution, 0.4, 2))
    for number in (2, 0, -1, 2**40):
        with pytest.raises(NotFound):
            store.submission_file("comp", "beta", number)
    with pytest.raises(NotFound):
        store.submission_file("comp", "gamma", 1)


def test_invalid_cap(store):
    solution, _ = create(store, invalid_quota=2)
    store.add_team("comp", "alpha")
    for _ in range(2):
        with pytest.raises(SubmissionError):
            store.submit("comp", "alpha", b"")
    with pytest.raises(QuotaExceeded, match="invalid"):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))


def test_quotas_daily_and_total(store, clock):
    solution, _ = create(store, daily_quota=2, total_quota=3)
    store.add_team("comp", "alpha")
    files = [csv_for(solution, noisy(solution, 0.4, seed)) for seed in range(5)]
    store.submit("comp", "alpha", files[0])
    assert store.submit("comp", "alpha", files[1]).remaining_today == 0
    before = snapshot(store)
    with pytest.raises(QuotaExceeded, match="today"):
        store.submit("comp", "alpha", files[2])
    assert snapshot(store) == before
    clock.advance(days=1)
    # One left of today's two, but none of the three in all: the team is told 0.
    assert store.submit("comp", "alpha", files[2]).remaining_today == 0
    with pytest.raises(QuotaExceeded, match="all 3"):
        store.submit("comp", "alpha", files[3])


def test_identical_resubmission_refused_without_quota(store):
    solution, _ = create(store, daily_quota=2)
    store.add_team("comp", "alpha")
    predictions = noisy(solution, 0.4, 0)
    store.submit("comp", "alpha", csv_for(solution, predictions))
    before = snapshot(store)
    with pytest.raises(DuplicateSubmission, match="identical"):
        # Same predictions, other row order and formatting: still the same.
        store.submit("comp", "alpha", csv_for(solution, predictions, shuffle_seed=3))
    assert snapshot(store) == before
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 1)))


def test_identical_predictions_across_teams_are_flagged(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.add_team("comp", "beta")
    data = csv_for(solution, noisy(solution, 0.4, 0))
    first = store.submit("comp", "alpha", data)
    second = store.submit("comp", "beta", data)
    assert store.flags("comp") == [DuplicateFlag("beta", second.number, "alpha", first.number)]


def test_idempotency_key(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    data = csv_for(solution, noisy(solution, 0.4, 0))
    first = store.submit("comp", "alpha", data, idempotency_key="k1")
    again = store.submit("comp", "alpha", data, idempotency_key="k1")
    assert again.number == first.number and len(store.submissions("comp", "alpha")) == 1
    with pytest.raises(Conflict, match="idempotency"):
        store.submit(
            "comp", "alpha", csv_for(solution, noisy(solution, 0.4, 1)), idempotency_key="k1"
        )


# -------------------------------------------------------------- the close
def test_deadline_close_selection_and_private_board(store, clock):
    solution, _ = create(store, deadline=START + timedelta(days=2))
    for team in ("alpha", "beta", "gamma"):
        store.add_team("comp", team)
    ids = {}
    for team, flips in (("alpha", (0.40, 0.20)), ("beta", (0.30,)), ("gamma", (0.45, 0.35))):
        for seed, flip in enumerate(flips):
            ids[team, seed] = store.submit(
                "comp", team, csv_for(solution, noisy(solution, flip, seed + 10 * len(team)))
            ).number
    store.select("comp", "gamma", [ids["gamma", 0]])  # gamma picks its worse one
    with pytest.raises(CompetitionClosed):
        store.leaderboard("comp", "private")
    organiser_view = store.leaderboard("comp", "private", organiser=True)
    clock.advance(days=3)
    with pytest.raises(CompetitionClosed):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.1, 99)))
    # Past the deadline the private board waits for the organiser: they see
    # it (as the close at the deadline will be), nobody else does yet.
    with pytest.raises(CompetitionClosed, match="publishes"):
        store.leaderboard("comp", "private")
    with pytest.raises(CompetitionClosed, match="publishes"):
        store.reveal_key("comp")
    assert all(v.private_score is None for v in store.submissions("comp", "alpha"))
    private = store.leaderboard("comp", "private", organiser=True)
    assert [r.team for r in private] == [r.team for r in organiser_view]
    assert [r.team for r in private] == ["alpha", "beta", "gamma"]
    gamma = next(r for r in private if r.team == "gamma")
    assert gamma.number == ids["gamma", 0]
    assert store.competition("comp").closed_at is None  # reading wrote nothing
    store.publish("comp")  # finalises the close, dated at the deadline
    assert store.competition("comp").closed_at == START + timedelta(days=2)
    assert store.competition("comp").published_at == START + timedelta(days=3)
    assert store.reveal_key("comp")
    assert store.leaderboard("comp", "private") == private
    assert all(v.private_score is not None for v in store.submissions("comp", "alpha"))
    public = store.leaderboard("comp", "public")
    assert public[0].team == "alpha"


# ------------------------------------------------------------------ audit
@pytest.mark.parametrize("mechanism", ["parameter-free-ladder", "shaky-ladder", "ladder-boot"])
@pytest.mark.parametrize("board", ["per-team", "per-rank"])
@pytest.mark.slow
def test_verify_replays_every_release(store, mechanism, board):
    solution, _ = create(store, mechanism=mechanism, board=board, daily_quota=None)
    for team in ("alpha", "beta"):
        store.add_team("comp", team)
    for seed, flip in enumerate((0.45, 0.4, 0.35, 0.38, 0.3, 0.25)):
        team = ("alpha", "beta")[seed % 2]
        store.submit("comp", team, csv_for(solution, noisy(solution, flip, seed)))
    store.close("comp")
    store.publish("comp")
    key = store.reveal_key("comp")
    report = verify(store, "comp", key_hex=key)
    assert report.submissions == 6
    wrong = "0" * 32
    with pytest.raises(VerificationError, match="commitment"):
        verify(store, "comp", key_hex=wrong)


def test_verify_detects_a_tampered_release(store):
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.4, 0)))
    with Session(store.engine) as session, session.begin():
        row = session.scalars(select(SubmissionRow)).one()
        row.public_score += 1e-12
    with pytest.raises(VerificationError, match="released score"):
        verify(store, "comp")


def test_rescore_leaves_the_live_board_alone(store):
    solution, _ = create(store, mechanism="full-disclosure", daily_quota=None)
    store.add_team("comp", "alpha")
    for seed, flip in enumerate((0.4, 0.41, 0.39)):
        store.submit("comp", "alpha", csv_for(solution, noisy(solution, flip, seed)))
    before = snapshot(store)
    board = rescore(store, "comp", mechanism="parameter-free-ladder")
    assert len(board) == 1 and board[0].team == "alpha"
    assert snapshot(store) == before


def test_rescore_per_rank_replays_the_live_per_rank_board(store, clock):
    """A deterministic mechanism replayed per rank gives the live board back;
    replayed per team, every team shows its own best instead."""
    solution, _ = create(store, board="per-rank", ranks=2, daily_quota=None)
    for team in ("alpha", "beta", "gamma"):
        store.add_team("comp", team)
    plan = [("alpha", 0.40), ("beta", 0.35), ("gamma", 0.45), ("alpha", 0.30), ("gamma", 0.2)]
    for seed, (team, flip) in enumerate(plan):
        clock.advance(minutes=1)
        store.submit("comp", team, csv_for(solution, noisy(solution, flip, seed)))
    live = store.leaderboard("comp")
    before = snapshot(store)
    again = rescore(store, "comp", mechanism="parameter-free-ladder", mode="per-rank")
    assert [(r.rank, r.team, r.score) for r in again] == [(r.rank, r.team, r.score) for r in live]
    assert len(again) == 2
    per_team = rescore(store, "comp", mechanism="parameter-free-ladder")
    assert sorted(r.team for r in per_team) == ["alpha", "beta", "gamma"]
    with pytest.raises(ValueError, match="mode"):
        rescore(store, "comp", mechanism="parameter-free-ladder", mode="per-person")
    assert snapshot(store) == before


def test_rejections_are_recorded_for_the_organiser(store):
    create(store)
    store.add_team("comp", "alpha")
    with pytest.raises(SubmissionError):
        store.submit("comp", "alpha", b"")
    with Session(store.engine) as session:
        assert session.scalars(select(RejectionRow.code)).all() == ["empty"]


@pytest.mark.parametrize("mechanism", ["bayes-boot-ladder", "bayes-boot-ladder-boot"])
def test_metric_mechanisms_end_to_end(store, mechanism):
    """Predictions go to the mechanism (which holds the public labels, never
    stored in its state row); the audit replays them."""
    rng = np.random.default_rng(4)
    y = rng.normal(size=300)
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=1)
    config = CompetitionConfig(
        score="ccc", mechanism=mechanism, mechanism_params={"B": 200}, daily_quota=None
    )
    store.create("reg", solution, config, random_state=5)
    store.add_team("reg", "alpha")
    scores = []
    for noise in (2.0, 1.0, 0.5):
        predictions = solution.targets + rng.normal(scale=noise, size=solution.n)
        scores.append(store.submit("reg", "alpha", csv_for(solution, predictions)).public_score)
    assert scores[-1] > scores[0]  # CCC: greater is better
    with Session(store.engine) as session:
        state = session.scalars(select(MechanismStateRow.state)).one()
    assert "y_true" not in state["params"] and state["key"] is None
    store.close("reg")
    store.publish("reg")
    verify(store, "reg", key_hex=store.reveal_key("reg"))
    board = store.leaderboard("reg", "private")
    assert board[0].team == "alpha" and board[0].score > 0.5


def test_a_kaggle_board_for_auc(store):
    """metric-full-disclosure releases every submission's AUC rounded to 1e-5;
    the public board shows each team's best release (greater is better), and
    the private board its selection's private AUC."""
    from sklearn.metrics import roc_auc_score

    solution = make_solution()
    config = CompetitionConfig(score="auc", mechanism="metric-full-disclosure", daily_quota=None)
    store.create("auc", solution, config, random_state=3)
    rng = np.random.default_rng(8)
    public = solution.public_mask
    best = {}
    for team, strength in (("alpha", 0.8), ("beta", 0.3)):
        store.add_team("auc", team)
        for _ in range(3):
            p = np.clip(strength * solution.targets + rng.random(solution.n), 0, 1.8) / 1.8
            release = store.submit("auc", team, csv_for(solution, p)).public_score
            exact = roc_auc_score(solution.targets[public], p[public])
            assert release == pytest.approx(round(exact, 5), abs=1e-12)
            best[team] = max(best.get(team, 0.0), release)
    board = store.leaderboard("auc", "public")
    assert [e.team for e in board] == ["alpha", "beta"]
    assert [e.score for e in board] == [best["alpha"], best["beta"]]
    store.close("auc")
    store.publish("auc")
    verify(store, "auc")
    top = store.leaderboard("auc", "private")[0]
    assert top.team == "alpha" and 0.5 < top.score <= 1.0


def test_log_loss_on_the_shaky_ladder_is_rescaled_and_checks_probabilities(store):
    solution = make_solution()
    config = CompetitionConfig(
        score="log_loss",
        score_params={"clip": (0.01, 0.99)},
        mechanism="shaky-ladder",
        daily_quota=None,
    )
    assert config.scoring().rescale  # log loss is not in [0, 1]: rescaled by its bounds
    store.create("prob", solution, config, random_state=2)
    store.add_team("prob", "alpha")
    p = np.clip(solution.targets * 0.8 + 0.1, 0, 1)
    score = store.submit("prob", "alpha", csv_for(solution, p)).public_score
    assert 0.0 <= score <= 1.0
    bad = p.copy()
    bad[0] = 1.5
    with pytest.raises(SubmissionError) as error:
        store.submit("prob", "alpha", csv_for(solution, bad))
    assert error.value.code == "probability_out_of_range"
    store.close("prob")
    store.publish("prob")
    verify(store, "prob")


def test_submissions_and_audits_keep_blas_on_one_thread(store, monkeypatch):
    """OpenBLAS spreads a long dot product over every core and leaves its
    threads spinning afterwards, taking a core from the next file's parsing; the
    engine's scoring, mechanism step and audit run with BLAS on one thread, and
    give the limit back afterwards."""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    seen = []
    real = ParameterFreeLadder._step

    def spy(self, x, total, index):
        seen.append(blas_threads())
        return real(self, x, total, index)

    monkeypatch.setattr(ParameterFreeLadder, "_step", spy)
    before = blas_threads()
    solution, _ = create(store)
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, noisy(solution, 0.3, 1)))
    verify(store, "comp")
    assert seen and all(threads == {1} for threads in seen)
    assert blas_threads() == before


@pytest.mark.parametrize("mechanism", ["metric-full-disclosure", "bayes-boot-ladder"])
def test_an_undefined_score_is_refused_alike_on_both_stores(store, mechanism):
    """Pearson's correlation of constant predictions is undefined: no board can
    rank it (and SQLite would store NULL in a NOT NULL column), so the file
    is refused like any bad file, without saying which rows made it so."""
    params = {"B": 50} if mechanism == "bayes-boot-ladder" else {}
    rng = np.random.default_rng(0)
    solution = Solution.from_labels(rng.random(60), public_fraction=0.5, random_state=0)
    store.create(
        "comp",
        solution,
        CompetitionConfig(score="pearson", mechanism=mechanism, mechanism_params=params),
    )
    store.add_team("comp", "alpha")
    store.submit("comp", "alpha", csv_for(solution, solution.targets + rng.random(60)))
    before = snapshot(store)
    with pytest.raises(SubmissionError) as error:
        store.submit("comp", "alpha", csv_for(solution, np.full(60, 0.5)))
    assert error.value.code == "undefined_score"
    assert "pearson" in str(error.value) and "private" not in str(error.value)
    assert snapshot(store) == before
    assert store.invalid_count("comp", "alpha") == 1
