"""Solution: reading solution.csv (Kaggle Usage, Hugging Face split), drawing a split
from labels, the canonical file and its hash, and every refusal with its message."""

from __future__ import annotations

import gzip
import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladderboard.files import Solution, SolutionError, parse_submission

KAGGLE = b"id,target,Usage\n10,1,Public\n11,0,Private\n12,1,Private\n13,0,Ignored\n"


def from_csv_error(data: bytes, **options) -> str:
    with pytest.raises(SolutionError) as info:
        Solution.from_csv(data, **options)
    return str(info.value)


# ------------------------------------------------------------------ reading
def test_kaggle_solution():
    sol = Solution.from_csv(KAGGLE)
    assert sol.ids.tolist() == ["10", "11", "12", "13"]
    np.testing.assert_array_equal(sol.targets, [1.0, 0.0, 1.0, 0.0])
    assert sol.targets.dtype == np.float64
    assert sol.usage.tolist() == ["Public", "Private", "Private", "Ignored"]
    assert (sol.n, sol.n_public, sol.n_private) == (4, 1, 2)
    np.testing.assert_array_equal(sol.public_mask, [True, False, False, False])
    np.testing.assert_array_equal(sol.private_mask, [False, True, True, False])
    assert sol.id_column == "id" and sol.target_columns == ("target",)


def test_usage_matched_without_regard_to_case_and_whitespace():
    sol = Solution.from_csv(b"Id, y ,USAGE\na,1, public\nb,2,PRIVATE\nc,3,ignored \n")
    assert sol.usage.tolist() == ["Public", "Private", "Ignored"]
    assert sol.id_column == "Id" and sol.target_columns == ("y",)


def test_hugging_face_split_alias():
    sol = Solution.from_csv(b"id,label,split\na,0,public\nb,1,private\nc,1,private\n")
    assert sol.usage.tolist() == ["Public", "Private", "Private"]
    assert sol.target_columns == ("label",)


def test_usage_column_anywhere_and_several_targets():
    sol = Solution.from_csv(b"Usage,key,a,b\nPublic,x,1,2\nPrivate,y,3,4\n", id_column="key")
    assert sol.target_columns == ("a", "b")
    np.testing.assert_array_equal(sol.targets, [[1, 2], [3, 4]])
    assert sol.targets.shape == (2, 2)


def test_id_column_option_picks_a_column_other_than_the_first():
    sol = Solution.from_csv(b"y,row,Usage\n1.5,a,Public\n2.5,b,Private\n", id_column="row")
    assert sol.ids.tolist() == ["a", "b"] and sol.target_columns == ("y",)


def test_ids_are_text_exactly_as_written():
    sol = Solution.from_csv(b"id,y,Usage\n007,1,Public\n 7,2,Private\n7,3,Private\n")
    assert sol.ids.tolist() == ["007", " 7", "7"]


def test_gzip_bom_and_crlf():
    text = KAGGLE.replace(b"\n", b"\r\n")
    assert Solution.from_csv(gzip.compress(b"\xef\xbb\xbf" + text)) == Solution.from_csv(KAGGLE)


def test_path_str_and_pathlike(tmp_path):
    path = tmp_path / "solution.csv"
    path.write_bytes(KAGGLE)
    assert Solution.from_csv(path) == Solution.from_csv(str(path)) == Solution.from_csv(KAGGLE)


def test_missing_path_and_text_given_as_str(tmp_path):
    assert "no solution file" in from_csv_error(str(tmp_path / "nope.csv"))
    assert "text.encode()" in from_csv_error(KAGGLE.decode())


# ------------------------------------------------------------------ refusals
def test_empty_file():
    assert "empty" in from_csv_error(b"")
    assert "empty" in from_csv_error(b"\n \n")


def test_header_only():
    assert "no rows" in from_csv_error(b"id,target,Usage\n")


def test_no_usage_column():
    message = from_csv_error(b"id,target\n1,0\n")
    assert "no Usage column" in message and "'id', 'target'" in message


def test_both_usage_and_split():
    assert "keep one" in from_csv_error(b"id,y,Usage,split\na,1,Public,public\n")


def test_no_target_column():
    assert "no target column" in from_csv_error(b"id,Usage\na,Public\nb,Private\n")


def test_unknown_usage_values_listed_with_lines():
    data = b"id,y,Usage\na,1,Public\nb,2,Privat\nc,3,Private\nd,4,test\ne,5,\n"
    message = from_csv_error(data)
    assert "3 row(s) do not" in message
    assert "'Privat' (id 'b', line 3)" in message
    assert "'test' (id 'd', line 5)" in message and "'' (id 'e', line 6)" in message


def test_duplicate_ids_named_with_lines():
    message = from_csv_error(b"id,y,Usage\na,1,Public\nb,2,Private\na,3,Private\n")
    assert "unique" in message and "'a' on lines 2, 4" in message


def test_empty_id_named_with_line():
    message = from_csv_error(b"id,y,Usage\na,1,Public\n,2,Private\n")
    assert "empty id" in message and "line(s) 3" in message


def test_non_numeric_target():
    message = from_csv_error(b"id,y,Usage\na,1,Public\nb,cat,Private\n")
    assert "column 'y'" in message and "'cat' (id 'b', line 3)" in message


def test_empty_target_is_not_a_number():
    message = from_csv_error(b"id,y,Usage\na,,Public\nb,1,Private\n")
    assert "not a number" in message and "line 2" in message


def test_non_finite_target():
    message = from_csv_error(b"id,y,Usage\na,1,Public\nb,inf,Private\n")
    assert "NaN or infinite" in message and "id 'b', line 3" in message


def test_ragged_row():
    message = from_csv_error(b"id,y,Usage\na,1,Public\nb,2,Private,extra\n")
    assert "line 3 has 4 fields" in message


def test_no_public_row():
    assert "no Public row" in from_csv_error(b"id,y,Usage\na,1,Private\nb,2,Ignored\n")


def test_no_private_row():
    assert "no Private row" in from_csv_error(b"id,y,Usage\na,1,Public\nb,2,Public\n")


def test_duplicate_column_names():
    assert "repeats column(s) 'y'" in from_csv_error(b"id,y,y,Usage\na,1,2,Public\n")


def test_unknown_id_column():
    assert "no id column 'key'" in from_csv_error(KAGGLE, id_column="key")


def test_not_utf8_and_bad_gzip():
    assert "not UTF-8" in from_csv_error(KAGGLE.replace(b"11", b"1\xff"))
    assert "gzip" in from_csv_error(b"\x1f\x8bnot gzip at all")


# ------------------------------------------------------------------ from_labels
@pytest.mark.parametrize(
    ("n", "fraction", "public"), [(10, 0.3, 3), (7, 0.5, 4), (1000, 0.25, 250), (3, 0.5, 2)]
)
def test_from_labels_split_sizes(n, fraction, public):
    sol = Solution.from_labels(np.zeros(n), public_fraction=fraction, random_state=0)
    assert sol.n_public == public == round(fraction * n)
    assert sol.n_private == n - public
    assert set(sol.usage.tolist()) == {"Public", "Private"}


def test_from_labels_is_deterministic_and_seed_dependent():
    labels = np.arange(100) % 2
    a = Solution.from_labels(labels, public_fraction=0.5, random_state=3)
    b = Solution.from_labels(labels, public_fraction=0.5, random_state=3)
    c = Solution.from_labels(labels, public_fraction=0.5, random_state=4)
    assert a == b and a.sha256 == b.sha256
    assert not np.array_equal(a.public_mask, c.public_mask)


def test_from_labels_uses_numpy_default_rng():
    sol = Solution.from_labels(np.zeros(20), public_fraction=0.25, random_state=11)
    chosen = np.random.default_rng(11).permutation(20)[:5]
    assert sorted(np.flatnonzero(sol.public_mask).tolist()) == sorted(chosen.tolist())


def test_from_labels_default_and_given_ids():
    sol = Solution.from_labels([1, 2, 3], public_fraction=0.5, random_state=0)
    assert sol.ids.tolist() == ["0", "1", "2"]
    sol = Solution.from_labels([1, 2, 3], public_fraction=0.5, random_state=0, ids=[7, 8, 9])
    assert sol.ids.tolist() == ["7", "8", "9"]


def test_from_labels_2d_names_its_columns():
    sol = Solution.from_labels(np.eye(3), public_fraction=0.5, random_state=0)
    assert sol.target_columns == ("target_0", "target_1", "target_2")


@pytest.mark.parametrize("fraction", [0.0, 1.0, 0.01, 0.99])
def test_from_labels_needs_both_boards(fraction):
    with pytest.raises(ValueError, match="public_fraction"):
        Solution.from_labels(np.zeros(10), public_fraction=fraction, random_state=0)


def test_from_labels_argument_types():
    with pytest.raises(TypeError, match="random_state"):
        Solution.from_labels(np.zeros(4), public_fraction=0.5, random_state=1.5)
    with pytest.raises(TypeError, match="integers"):
        Solution.from_labels(["cat", "dog"], public_fraction=0.5, random_state=0)
    with pytest.raises(SolutionError, match="one id per label"):
        Solution.from_labels(np.zeros(4), public_fraction=0.5, random_state=0, ids=["a"])


# ------------------------------------------------------------------ constructor
def test_constructor_copies_and_freezes_arrays():
    ids = np.array(["a", "b"], dtype=object)
    targets = np.array([1.0, 2.0])
    sol = Solution(ids=ids, targets=targets, usage=["Public", "Private"])
    targets[0] = 99.0
    assert sol.targets[0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        sol.targets[0] = 5.0
    with pytest.raises(AttributeError):
        sol.id_column = "other"


def test_constructor_refusals():
    usage = ["Public", "Private"]
    with pytest.raises(TypeError, match="ids must be str"):
        Solution(ids=[1, 2], targets=[0, 1], usage=usage)
    with pytest.raises(SolutionError, match="unique"):
        Solution(ids=["a", "a"], targets=[0, 1], usage=usage)
    with pytest.raises(SolutionError, match="line breaks"):
        Solution(ids=["a", "b\nc"], targets=[0, 1], usage=usage)
    with pytest.raises(SolutionError, match="shape"):
        Solution(ids=["a", "b"], targets=[0, 1, 2], usage=usage)
    with pytest.raises(SolutionError, match="finite"):
        Solution(ids=["a", "b"], targets=[0, np.nan], usage=usage)
    with pytest.raises(SolutionError, match="usage must hold"):
        Solution(ids=["a", "b"], targets=[0, 1], usage=["Public", "private"])
    with pytest.raises(SolutionError, match="got 'Privately'"):
        Solution(ids=["a", "b"], targets=[0, 1], usage=np.array(["Public", "Privately"]))
    with pytest.raises(SolutionError, match="usage column"):
        Solution(ids=["a", "b"], targets=[0, 1], usage=usage, target_columns=("Usage",))


# ------------------------------------------------------------------ writing
def test_to_csv_is_canonical():
    sol = Solution.from_csv(b' id , y ,usage\r\na,1,public\r\n"b,c",0.1,PRIVATE\r\n')
    assert sol.to_csv() == b'id,y,Usage\na,1.0,Public\n"b,c",0.1,Private\n'
    assert sol.sha256 == hashlib.sha256(sol.to_csv()).hexdigest()


def test_sha256_commits_to_the_split():
    a = Solution.from_csv(b"id,y,Usage\na,1,Public\nb,2,Private\nc,3,Private\n")
    b = Solution.from_csv(b"id,y,Usage\na,1,Private\nb,2,Public\nc,3,Private\n")
    assert a.sha256 != b.sha256 and a != b


def test_sample_submission():
    sol = Solution.from_csv(KAGGLE)
    assert sol.sample_submission_csv() == b"id,target\n10,0\n11,0\n12,0\n13,0\n"
    assert sol.sample_submission_csv(2.0) == b"id,target\n10,2\n11,2\n12,2\n13,2\n"
    assert sol.sample_submission_csv(-0.0) == sol.sample_submission_csv(0)
    assert b"\n10,0.5\n" in sol.sample_submission_csv(0.5)
    np.testing.assert_array_equal(parse_submission(sol.sample_submission_csv(0.5), sol), 0.5)
    with pytest.raises(ValueError, match="fill"):
        sol.sample_submission_csv(float("nan"))


ids_strategy = st.lists(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
        min_size=1,
        max_size=8,
    ),
    min_size=2,
    max_size=12,
    unique=True,
)


@settings(max_examples=80, deadline=None)
@given(ids=ids_strategy, data=st.data())
def test_to_csv_from_csv_round_trip(ids, data):
    n = len(ids)
    k = data.draw(st.integers(1, 3))
    floats = st.floats(allow_nan=False, allow_infinity=False)
    targets = np.array(data.draw(st.lists(floats, min_size=n * k, max_size=n * k)))
    kinds = st.sampled_from(["Public", "Private", "Ignored"])
    usage = ["Public", "Private", *data.draw(st.lists(kinds, min_size=n - 2, max_size=n - 2))]
    columns = ("target",) if k == 1 else tuple(f"t,{j}" for j in range(k))  # quoted names
    sol = Solution(
        ids=np.array(ids, dtype=object),
        targets=targets if k == 1 else targets.reshape(n, k),
        usage=usage,
        id_column="the id",
        target_columns=columns,
    )
    again = Solution.from_csv(sol.to_csv(), id_column="the id")
    assert again == sol
    assert again.sha256 == sol.sha256
    np.testing.assert_array_equal(np.signbit(again.targets), np.signbit(sol.targets))
    # The sample submission of any solution is a valid submission for it.
    out = parse_submission(sol.sample_submission_csv(0.5), sol)
    assert out.shape == sol.targets.shape and (out == 0.5).all()


def test_large_solution_parses_fast():
    import time

    n = 200_000
    sol = Solution.from_labels(np.arange(n) % 3, public_fraction=0.3, random_state=0)
    data = sol.to_csv()
    start = time.perf_counter()
    again = Solution.from_csv(data)
    elapsed = time.perf_counter() - start
    assert again == sol
    assert elapsed < 2.0, f"{elapsed:.2f} s to read a solution of {n} rows"


@pytest.mark.parametrize("rows_at_once", [1, 3, 1 << 20])
def test_split_sha256_is_the_rows_lines_hashed_one_after_another(monkeypatch, rows_at_once):
    """The commitment's split hash, written by Arrow in blocks of rows, is the
    hash of ``id<TAB>usage<LF>`` row by row (ids with commas, quotes and
    non-ASCII text included)."""

    from ladderboard.files import solution as module

    monkeypatch.setattr(module, "_ROWS_AT_ONCE", rows_at_once)
    ids = ["a,b", 'q"uote', "é", "日本", "x" * 40, "7", "8"]
    usage = ["Public", "Private", "Ignored", "Private", "Public", "Ignored", "Private"]
    sol = Solution(ids=ids, targets=np.arange(7.0), usage=usage)
    lines = "".join(f"{i}\t{u}\n" for i, u in zip(ids, usage, strict=True))
    assert sol.split_sha256 == hashlib.sha256(lines.encode()).hexdigest()


@pytest.mark.parametrize(
    "targets",
    [
        np.array([0.0, 1.0, -3.0, 1e15, -1e15, 9999999999999998.0, 2.0, 5.0]),
        np.array([0.0, -0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),  # repr(-0.0) is "-0.0"
        np.array([1e16, 0.1, 1 / 3, -2.5e-300, 7.0, 8.0, 9.0, 10.0]),
        np.arange(24.0).reshape(8, 3) / np.array([1.0, 3.0, 1.0]),
    ],
)
def test_the_canonical_file_is_written_row_by_row_with_repr(targets):
    """The canonical file (what the commitment hashes) is, byte for byte,
    ``id,repr(target)...,Usage`` row by row, ids quoted where they hold a
    comma or a quote, whichever way its values are written."""
    ids = ["a", "b,c", 'd"e', "f", "g", "h", "i", "j"]
    usage = ["Public", "Private", "Ignored", "Public", "Private", "Private", "Public", "Ignored"]
    columns = ("target",) if targets.ndim == 1 else ("x", "y", "z")
    sol = Solution(ids=ids, targets=targets, usage=usage, target_columns=columns)
    written = [i if i.isalpha() else '"' + i.replace('"', '""') + '"' for i in ids]
    rows = targets.reshape(8, -1).tolist()
    lines = [
        ",".join([w, *map(repr, r), u]) + "\n" for w, r, u in zip(written, rows, usage, strict=True)
    ]
    assert sol.to_csv().decode() == ",".join(["id", *columns, "Usage"]) + "\n" + "".join(lines)
    assert Solution.from_csv(sol.to_csv()) == sol


@pytest.mark.parametrize("kind", ["string", "large_string", "dictionary"])
def test_usage_as_an_arrow_array(kind):
    """Usage given as Arrow text (as from_csv and Arrow readers make it) reads
    as the same usage given as Python strings."""
    import pyarrow as pa

    values = ["Public", "Private", "Ignored", "Private"]
    usage = {
        "string": pa.array(values),
        "large_string": pa.array(values, pa.large_string()),
        "dictionary": pa.array(values).dictionary_encode(),
    }[kind]
    sol = Solution(ids=["a", "b", "c", "d"], targets=[1.0, 2.0, 3.0, 4.0], usage=usage)
    assert sol == Solution(ids=["a", "b", "c", "d"], targets=[1.0, 2.0, 3.0, 4.0], usage=values)
    assert sol.usage.tolist() == values
    with pytest.raises(SolutionError, match="usage must hold only"):
        Solution(ids=["a", "b"], targets=[1.0, 2.0], usage=pa.array(["Public", "Privat"]))
