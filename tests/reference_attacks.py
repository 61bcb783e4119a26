"""The attacks' reference code as the papers print it, for testing only.

``majority_attack`` is Hardt 2017 (*Climbing a shaky ladder*), App. B, lines
1-16, transcribed line for line; the only change is that the module
``np.random`` it draws from can be replaced by a local ``RandomState``
(``random=``), which consumes the Mersenne Twister exactly as the global one
does. ``whackyboost`` is the Julia code of Hardt's 2015 blog post ("A neat
generalization") in Python, with its random matrix ``A`` passed in.
"""

import numpy as np


# Hardt 2017, App. B ------------------------------------------------------------
# 1 import numpy as np
# 2
def majority_attack(n, k, sigma=None, random=np.random):  # 3 (+ random=)
    """Run majority attack and report resulting bias."""  # 4
    hidden_vector = 2.0 * random.randint(0, 2, n) - 1.0  # 5
    queries = 2.0 * random.randint(0, 2, (k, n)) - 1.0  # 6
    answers = queries.dot(hidden_vector) / n  # 7
    if sigma:  # 8
        answers += random.normal(0, sigma, k)  # 9
    positives = queries[answers > 0.0, :]  # 10
    negatives = queries[answers <= 0.0, :]  # 11
    weighted = np.vstack([positives, -1.0 * negatives])  # 12
    weights = weighted.T.dot(np.ones(k))  # 13
    final = np.ones(n)  # 14
    final[weights < 0.0] = -1.0  # 15
    return np.mean(final != hidden_vector)  # 16


# Hardt 2015, blog post ---------------------------------------------------------
def combine(v, v1, v2):
    # select coordinate from v1 where v is 1 and from v2 where v is 0
    return v1 * v + v2 * (1 - v)


def whackyboost(v1, v2, k, score, A):
    """``A`` is the blog's ``rand(0:1, (length(v1), k))``, one column per try."""
    m = np.mean([score(v1), score(v2)])
    # select columns of A that give better than mean score
    a = [i for i in range(k) if score(combine(A[:, i], v1, v2)) < m]
    # take majority vote over all selected columns
    v = (A[:, a] @ np.ones(len(a)) > len(a) / 2).astype(float)
    return combine(v, v1, v2)
