"""Line-by-line transcriptions of the papers' pseudo-code, for testing only.

They favour obviousness over speed: plain loops, ``np.std(ddof=1)``, the
algorithms' own variable names. The library's implementations must agree.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import stats


def rounded(x: float, step: float) -> float:
    return x if math.isinf(x) else float(np.round(x / step) * step)


def full_disclosure(loss_vectors, precision):
    """Blum & Hardt 2015, App. A."""
    return [
        round(float(np.mean(l)), 5) if precision == 1e-5 else rounded(np.mean(l), precision)
        for l in loss_vectors
    ]


# The ladders' decisions are transcribed in exact rational arithmetic: the
# papers compare real numbers, and 0/1 losses put submissions exactly on the
# threshold often enough that floating-point error would decide ties.


def exact_mean(l) -> Fraction:
    return sum(map(Fraction, l), Fraction(0)) / len(l)


def exact_variance(d) -> Fraction:
    """Sample variance, ddof = 1, of the exact values of ``d``."""
    d = [Fraction(v) for v in d]
    m = sum(d, Fraction(0)) / len(d)
    return sum(((v - m) ** 2 for v in d), Fraction(0)) / (len(d) - 1)


def ladder(loss_vectors, eta):
    """Blum & Hardt 2015, Fig. 1."""
    eta_q = Fraction(str(eta))
    R, out = None, []  # None is R_0 = ∞
    for l in loss_vectors:
        risk = exact_mean(l)
        if R is None or risk < R - eta_q:
            R = round(risk / eta_q) * eta_q  # [risk]_eta, halves to even
        out.append(float(R))
    return out


def paired_test_ladder(loss_vectors, c=1.0):
    """Blum & Hardt 2015, Fig. 2 (c = 1) and Chaibub Neto et al. 2016, Alg. 3:
    accept iff R(l_t) < R_{t-1} - c·sd(l_t - l_{t-1})/√n."""
    R, l_prev, out = None, None, []
    c_q = Fraction(c)
    for l in loss_vectors:
        n = len(l)
        if l_prev is None:
            l_prev = [0.0] * n  # l_0 = 0; R_0 = ∞ accepts anyway
        risk = exact_mean(l)
        if R is None:
            accept = True
        else:
            gap = R - risk  # accept iff gap > c·s/√n, with c, s ≥ 0
            d = [Fraction(a) - Fraction(b) for a, b in zip(l, l_prev, strict=True)]
            s2 = exact_variance(d)
            accept = gap > 0 and gap * gap > c_q * c_q * s2 / n
        if accept:
            R = Fraction(round(risk * n), n)  # [risk]_{1/n}
            l_prev = l
        out.append(float(R))
    return out


def significance_critical_value(alpha, n):
    return float(abs(stats.t.ppf(alpha, n - 1)))  # Neto's c_α = F^{-1}_{n-1}(α), magnitude


def ladder_boot_decisions(loss_vectors, alpha):
    """Chaibub Neto et al. 2016, Alg. 4 lines 9-11 (first submission accepted)."""
    best, decisions = None, []
    for l in loss_vectors:
        l = np.asarray(l, dtype=float)
        n = len(l)
        c = significance_critical_value(alpha, n)
        if best is None:
            accept = True
        else:
            accept = l.mean() < best.mean() - c * np.std(l - best, ddof=1) / math.sqrt(n)
        if accept:
            best = l
        decisions.append(bool(accept))
    return decisions


def shaky_ladder(loss_vectors, noise):
    """Hardt 2017, Fig. 1 with the noise supplied: ``noise[0]`` is ξ, then three
    draws (ξ_t, ξ'_t, ξ''_t) per round; ``lam`` the step. Unsnapped."""
    xi0, rounds, lam = noise
    R, xi, out = 1.0, xi0, []
    for l, (xi_t, xi_p, xi_pp) in zip(loss_vectors, rounds, strict=True):
        risk = float(np.mean(l))
        if risk + xi_t < R - lam + xi:
            R = risk + xi_p
            xi = xi_pp
        out.append(R)
    return out


def mann_whitney_by_blocks(y, p, W):
    """The weighted Mann-Whitney statistic of each row of ``W`` in its block
    form: per block of 4 rows sorted by ``(p, y)``, the cumulative negative
    weight times the weights, less half the tie groups' products ``P_g N_g``,
    each summed over the group's own weights."""
    n = y.size
    order = np.lexsort((y, p))
    ps, positive = p[order], y[order]
    negative = 1.0 - positive
    new_group = np.r_[True, ps[1:] != ps[:-1]]
    starts = np.flatnonzero(new_group)
    size = np.diff(np.r_[starts, n])
    n_pos = np.add.reduceat(positive, starts).astype(np.intp)
    mixed = (n_pos > 0) & (n_pos < size)
    tied = np.flatnonzero(mixed[np.cumsum(new_group) - 1])
    offsets = np.cumsum(size[mixed]) - size[mixed]
    segments = np.column_stack([offsets, offsets + size[mixed] - n_pos[mixed]]).ravel()
    W = np.asarray(W, dtype=np.float64)
    out = np.empty(W.shape[0])
    for r in range(0, W.shape[0], 4):
        ws = np.take(W[r : r + 4], order, axis=1)
        below = np.cumsum(ws * negative, axis=1)
        num = (ws * below) @ positive
        if tied.size:
            t = np.add.reduceat(ws[:, tied], segments, axis=1)
            num -= 0.5 * np.einsum("ij,ij->i", t[:, 0::2], t[:, 1::2])
        den = (ws @ positive) * below[:, -1]
        with np.errstate(divide="ignore", invalid="ignore"):
            out[r : r + 4] = np.where(den > 0, num / den, np.nan)
    return out
