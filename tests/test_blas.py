"""BLAS on one thread, whichever BLAS libraries are loaded and when."""

import json
import os
import subprocess
import sys
from pathlib import Path

import ladderboard
from system import require

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
        env={**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "2"},
    ).stdout
    seen = json.loads(out)
    loaded_later = set(seen["inside"]) - set(seen["before"])
    require(
        bool(loaded_later) and min(seen["after"].values()) > 1,
        "numpy and scipy share one BLAS here, or it runs one thread whatever is asked "
        "(one core): nothing to limit",
    )
    assert set(seen["inside"].values()) == {1}
    assert seen["after"] == {path: 2 for path in seen["inside"]}  # given back
