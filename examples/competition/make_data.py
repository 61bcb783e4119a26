"""Write this example's simulated data: ``solution.csv`` and ``data/train.csv``,
``data/test.csv``, the same bytes at every run (``python make_data.py``).

Each row has two features; its label is 1 with the logistic probability of
``2 x1 - x2``, so a model can learn it and a random guess scores about 0.5.
The test rows' labels are the solution's, half of them on the public board.
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_TRAIN, N_TEST = 300, 200


def rows(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=(n, 2)).round(3)
    chance = 1 / (1 + np.exp(-(2 * x[:, 0] - x[:, 1])))
    return x, (rng.random(n) < chance).astype(int)


def main() -> None:
    rng = np.random.default_rng(2015)
    x_train, y_train = rows(rng, N_TRAIN)
    x_test, y_test = rows(rng, N_TEST)
    public = rng.permutation(N_TEST) < N_TEST // 2
    test_ids = np.arange(N_TRAIN, N_TRAIN + N_TEST)
    train = "".join(
        f"{i},{a},{b},{y}\n" for i, (a, b), y in zip(range(N_TRAIN), x_train, y_train, strict=True)
    )
    test = "".join(f"{i},{a},{b}\n" for i, (a, b) in zip(test_ids, x_test, strict=True))
    usage = np.where(public, "Public", "Private")
    solution = "".join(f"{i},{y},{u}\n" for i, y, u in zip(test_ids, y_test, usage, strict=True))
    (HERE / "data").mkdir(exist_ok=True)
    (HERE / "data" / "train.csv").write_text(f"id,x1,x2,target\n{train}", newline="\n")
    (HERE / "data" / "test.csv").write_text(f"id,x1,x2\n{test}", newline="\n")
    (HERE / "solution.csv").write_text(f"id,target,Usage\n{solution}", newline="\n")


if __name__ == "__main__":
    main()
