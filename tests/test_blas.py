"""BLAS on one thread, whichever BLAS libraries are loaded and when."""

import json
import subprocess
import sys
from pathlib import Path

import ladderboard

SRC = str(Path(ladderboard.__file__).parents[1])

# numpy is imported and the limit used once before scipy.linalg loads scipy's
# own OpenBLAS, as in a server whose first submission needs no scipy module
# and whose next one does (Spearman's ranks, the paired-test ladder).
PROGRAM = """
import json, sys
import numpy
from threadpoolctl import threadpool_info
from ladderboard._blas import single_blas_thread

def blas():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas"}

with single_blas_thread():
    pass
before = blas()
import scipy.linalg
with single_blas_thread():
    inside = blas()
print(json.dumps({"before": before, "inside": inside, "after": blas()}))
"""


def test_a_blas_library_loaded_after_the_first_use_is_limited_too():
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "2"},
    ).stdout
    seen = json.loads(out)
    loaded_later = set(seen["inside"]) - set(seen["before"])
    assert loaded_later, "scipy.linalg brought no BLAS library of its own: nothing to test"
    assert set(seen["inside"].values()) == {1}
    assert seen["after"] == {path: 2 for path in seen["inside"]}
