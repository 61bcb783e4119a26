"""Boards for the regression attacks' tests: a mechanism behind a
``HoldoutOracle`` with the squared loss, a recording of its releases
(organiser-side), and the paper's gap."""

from ladderboard.attacks import HoldoutOracle


class Recording:
    """Passes submissions to a mechanism and keeps its releases (organiser-side)."""

    def __init__(self, mechanism):
        self.mechanism, self.releases = mechanism, []

    def __getattr__(self, name):
        return getattr(self.mechanism, name)

    def submit(self, x):
        release = self.mechanism.submit(x)
        self.releases.append(release)
        return release


def visible_last_jumps(recording, sizes):
    """Per iteration, the last accepted submission whose release differed from
    the one before it: the last jump a participant can see."""
    scores = [r.score for r in recording.releases]
    out, start = [], 0
    for size in sizes:
        jumps = [
            i
            for i in range(start, start + size)
            if recording.releases[i].improved and (i == 0 or scores[i] != scores[i - 1])
        ]
        out.append(jumps[-1] if jumps else None)
        start += size
    return out


def last_accepted(recording, sizes):
    out, start = [], 0
    for size in sizes:
        accepted = [i for i in range(start, start + size) if recording.releases[i].improved]
        out.append(accepted[-1] if accepted else None)
        start += size
    return out


def board(data, mechanism):
    return HoldoutOracle(data.y_public, mechanism, loss="squared")


def gap(result):
    return result.public_score - result.true_score  # the paper's ΔMSE
