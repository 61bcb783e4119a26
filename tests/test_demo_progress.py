"""``run_demo(progress=...)``: one step per submission played, from 0 to the end."""

import pytest

from ladderboard.demo import BOARDS, run_demo


@pytest.mark.slow
def test_the_demo_reports_its_progress_submission_by_submission():
    seen = []
    result = run_demo(k=20, n_teams=1, seed=0, progress=lambda *a: seen.append(a))
    total = seen[0][1]
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert total >= len(BOARDS) * result.k
    assert all(t == total for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
