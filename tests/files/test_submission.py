"""parse_submission: every refusal with its code and a message naming the offender,
and the freedom a valid file has (row order, gzip, BOM, whitespace, formatting)."""

from __future__ import annotations

import gzip
import pickle
import tracemalloc
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladderboard.files import (
    Solution,
    SubmissionError,
    canonical_predictions_hash,
    parse_submission,
    submission_sha256,
)

N = 10


def make_solution(kind: str = "int", n: int = N, targets: int = 1) -> Solution:
    """Solutions whose ids take each path of the id lookup."""
    ids = {
        "int": None,  # "0" .. "n-1": the dense integer table
        "sparse": [str(1000003 * i) for i in range(n)],  # integers far apart
        "text": [f"row-{i:03d}" for i in range(n)],  # one length: the sorted-hash match
        "mixed": [f"r{7 * i}" for i in range(n)],  # lengths differ: the string hash lookup
    }[kind]
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=(n, targets)) if targets > 1 else np.arange(n) % 2
    columns = tuple(f"p{j}" for j in range(targets)) if targets > 1 else None
    return Solution.from_labels(
        labels, public_fraction=0.5, random_state=0, ids=ids, target_columns=columns
    )


def csv_bytes(solution: Solution, values: np.ndarray, order=None, *, header=None) -> bytes:
    order = range(solution.n) if order is None else order
    values = np.asarray(values, dtype=float).reshape(solution.n, -1)
    head = header or ",".join((solution.id_column, *solution.target_columns))
    rows = [f"{solution.ids[i]}," + ",".join(map(repr, values[i].tolist())) for i in order]
    return ("\n".join([head, *rows]) + "\n").encode()


def predictions(n: int = N) -> np.ndarray:
    return np.linspace(0.05, 0.95, n)


def refused(data: bytes, solution: Solution, **options) -> SubmissionError:
    with pytest.raises(SubmissionError) as info:
        parse_submission(data, solution, **options)
    assert info.value.code in SubmissionError.CODES
    return info.value


@pytest.fixture
def solution() -> Solution:
    return make_solution()


@pytest.fixture
def good(solution) -> bytes:
    return csv_bytes(solution, predictions())


def replace_row(data: bytes, old: bytes, new: bytes) -> bytes:
    assert data.count(old) == 1
    return data.replace(old, new)


# ------------------------------------------------------------------ valid files
@pytest.mark.parametrize("kind", ["int", "sparse", "text", "mixed"])
def test_rows_in_any_order_are_aligned_by_id(kind):
    sol = make_solution(kind)
    p = predictions()
    order = np.random.default_rng(1).permutation(N)
    out = parse_submission(csv_bytes(sol, p, order), sol)
    assert out.dtype == np.float64 and out.shape == (N,)
    np.testing.assert_array_equal(out, p)


def test_same_order_result_is_a_writable_copy(solution, good):
    out = parse_submission(good, solution)
    out[0] = 99.0  # the caller owns the array
    np.testing.assert_array_equal(parse_submission(good, solution), predictions())


def test_gzip_round_trip(solution, good):
    out = parse_submission(gzip.compress(good), solution)
    np.testing.assert_array_equal(out, predictions())


def test_multi_member_gzip(solution, good):
    head, tail = good[:20], good[20:]
    out = parse_submission(gzip.compress(head) + gzip.compress(tail), solution)
    np.testing.assert_array_equal(out, predictions())


def test_utf8_bom_is_accepted(solution, good):
    np.testing.assert_array_equal(parse_submission(b"\xef\xbb\xbf" + good, solution), predictions())


def test_whitespace_around_header_names_is_ignored(solution, good):
    data = good.replace(b"id,target", b"  id ,\ttarget  ", 1)
    np.testing.assert_array_equal(parse_submission(data, solution), predictions())


def test_crlf_blank_lines_and_spaces_around_numbers(solution):
    rows = [f"{i}, {v!r} " for i, v in enumerate(predictions().tolist())]
    data = ("id,target\r\n\r\n" + "\r\n".join(rows) + "\r\n\r\n").encode()
    np.testing.assert_array_equal(parse_submission(data, solution), predictions())


def test_number_formats(solution):
    written = ["1", "1.", ".5", "+.5", "-0", "1e-3", "2E+2", "0.25", "3", "4"]
    data = ("id,target\n" + "".join(f"{i},{w}\n" for i, w in enumerate(written))).encode()
    expected = [1.0, 1.0, 0.5, 0.5, 0.0, 0.001, 200.0, 0.25, 3.0, 4.0]
    np.testing.assert_array_equal(parse_submission(data, solution), expected)


def test_quoted_fields(solution, good):
    data = good.replace(b"\n3,", b'\n"3",', 1).replace(b"id,target", b'"id","target"', 1)
    np.testing.assert_array_equal(parse_submission(data, solution), predictions())


@pytest.mark.parametrize("kind", ["int", "text"])
def test_multi_target_columns_in_any_order(kind):
    sol = make_solution(kind, targets=3)
    p = np.random.default_rng(2).random((N, 3))
    order = np.random.default_rng(3).permutation(N)
    swapped = [",".join(["p2", "id", "p0", "p1"])]
    v = p.tolist()
    swapped += [f"{v[i][2]!r},{sol.ids[i]},{v[i][0]!r},{v[i][1]!r}" for i in order]
    out = parse_submission(("\n".join(swapped) + "\n").encode(), sol)
    assert out.shape == (N, 3)
    np.testing.assert_array_equal(out, p)


def test_ignored_rows_must_be_submitted_too():
    sol = Solution.from_csv(b"id,target,Usage\na,1,Public\nb,0,Private\nc,1,Ignored\n")
    np.testing.assert_array_equal(parse_submission(b"id,target\nc,3\nb,2\na,1\n", sol), [1, 2, 3])
    error = refused(b"id,target\na,1\nb,2\n", sol)
    assert error.code == "missing_ids" and "'c'" in str(error)


def test_probabilities_in_range_pass(solution, good):
    np.testing.assert_array_equal(
        parse_submission(good, solution, probabilities=True), predictions()
    )


def test_sample_submission_is_a_valid_submission():
    for sol in (make_solution("text"), make_solution("int", targets=2)):
        out = parse_submission(sol.sample_submission_csv(fill=0.25), sol, probabilities=True)
        np.testing.assert_array_equal(out, np.full(sol.targets.shape, 0.25))


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["int", "sparse", "text"]),
    seed=st.integers(0, 2**32 - 1),
    values=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=N, max_size=N),
)
def test_any_permutation_parses_to_the_same_array(kind, seed, values):
    sol = make_solution(kind)
    p = np.array(values)
    reference = parse_submission(csv_bytes(sol, p), sol)
    order = np.random.default_rng(seed).permutation(N)
    shuffled = parse_submission(csv_bytes(sol, p, order), sol)
    np.testing.assert_array_equal(shuffled, reference)
    np.testing.assert_array_equal(reference, p)  # repr round-trips every float
    assert canonical_predictions_hash(shuffled) == canonical_predictions_hash(reference)


# ------------------------------------------------------------------ hashes
def test_canonical_hash_ignores_order_and_formatting_but_not_values(solution, good):
    p = predictions()
    reformatted = csv_bytes(solution, p, order=range(N - 1, -1, -1))
    reformatted = reformatted.replace(b"0.05\n", b"5e-2\n").replace(b"id,target", b" id, target")
    assert submission_sha256(reformatted) != submission_sha256(good)
    a, b = parse_submission(good, solution), parse_submission(reformatted, solution)
    assert canonical_predictions_hash(a) == canonical_predictions_hash(b)
    assert canonical_predictions_hash(np.nextafter(a, 1)) != canonical_predictions_hash(a)


def test_canonical_hash_is_sha256_of_little_endian_float64():
    import hashlib

    p = np.array([0.5, -0.0, 2.0])
    expected = hashlib.sha256(np.array([0.5, 0.0, 2.0], dtype="<f8").tobytes()).hexdigest()
    assert canonical_predictions_hash(p) == expected
    assert canonical_predictions_hash(p.astype(">f8")) == expected
    # Several target columns: row-major, whatever the array's own memory order.
    q = np.array([[0.5, 1.0], [-0.0, 2.0]])
    rows = hashlib.sha256(np.array([0.5, 1.0, 0.0, 2.0], dtype="<f8").tobytes()).hexdigest()
    assert canonical_predictions_hash(q) == rows
    assert canonical_predictions_hash(np.asfortranarray(q)) == rows
    assert canonical_predictions_hash(q.T.copy().T) == rows


def test_submission_sha256_is_of_the_raw_bytes(good):
    import hashlib

    assert submission_sha256(good) == hashlib.sha256(good).hexdigest()
    assert submission_sha256(gzip.compress(good)) != submission_sha256(good)


# ------------------------------------------------------------------ bytes
def test_empty_file(solution):
    error = refused(b"", solution)
    assert error.code == "empty" and "empty" in str(error)


def test_blank_file_is_empty(solution):
    assert refused(b" \n\r\n\t\n", solution).code == "empty"


def test_empty_gzip_is_empty(solution):
    assert refused(gzip.compress(b""), solution).code == "empty"


def test_header_only(solution):
    error = refused(b"id,target\n\n", solution)
    assert error.code == "header_only"
    assert f"{N} rows" in str(error)


def test_too_large_as_received(solution, good):
    error = refused(good, solution, max_bytes=len(good) - 1)
    assert error.code == "too_large"
    assert f"{len(good)} bytes" in str(error) and f"{len(good) - 1} bytes" in str(error)


def test_too_large_once_decompressed(solution, good):
    packed = gzip.compress(good)
    assert len(packed) < len(good) - 1
    error = refused(packed, solution, max_bytes=len(good) - 1)
    assert error.code == "too_large" and "decompresses" in str(error)


def test_exactly_at_the_limit_passes(solution, good):
    out = parse_submission(gzip.compress(good), solution, max_bytes=len(good))
    np.testing.assert_array_equal(out, predictions())


@pytest.mark.slow
def test_gzip_bomb_is_stopped_without_inflating_it(solution):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = b"0" * 2**20
    bomb = compressor.compress(b"id,target\n0,") + b"".join(
        compressor.compress(zeros) for _ in range(512)
    )  # half a gigabyte of digits, a few hundred kilobytes of gzip
    bomb += compressor.flush()
    limit = 2**20
    tracemalloc.start()
    try:
        error = refused(bomb, solution, max_bytes=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.code == "too_large"
    assert peak < 8 * limit, f"peak {peak} bytes: the bomb was inflated"


def test_bad_gzip(solution):
    error = refused(b"\x1f\x8b" + b"definitely not deflate data", solution)
    assert error.code == "bad_gzip" and "gzip" in str(error)


def test_truncated_gzip(solution, good):
    error = refused(gzip.compress(good)[:-12], solution)
    assert error.code == "bad_gzip" and "truncated" in str(error)


def test_gzip_followed_by_garbage(solution, good):
    error = refused(gzip.compress(good) + b"trailing junk", solution)
    assert error.code == "bad_gzip" and "13 bytes" in str(error)


def test_not_utf8(solution, good):
    data = replace_row(good, b"\n4,", b"\n4\xe9,")  # latin-1 e-acute in an id
    error = refused(data, solution)
    assert error.code == "not_utf8"
    assert "line 6" in str(error) and "0xe9" in str(error)


def test_utf16_is_not_utf8(solution, good):
    assert refused(good.decode().encode("utf-16"), solution).code == "not_utf8"


def test_str_instead_of_bytes_is_a_type_error(solution, good):
    with pytest.raises(TypeError, match="bytes"):
        parse_submission(good.decode(), solution)


@pytest.mark.parametrize("max_bytes", [0, -5])
def test_max_bytes_must_be_positive(solution, good, max_bytes):
    with pytest.raises(ValueError, match="max_bytes"):
        parse_submission(good, solution, max_bytes=max_bytes)


# ------------------------------------------------------------------ columns
def test_missing_column(solution):
    error = refused(b"id\n" + b"".join(f"{i}\n".encode() for i in range(N)), solution)
    assert error.code == "missing_column"
    assert "'target' is missing" in str(error)


def test_misnamed_column_is_reported_as_missing_and_unexpected(solution, good):
    error = refused(good.replace(b"id,target", b"id,pred", 1), solution)
    assert error.code == "missing_column"
    assert "'target' is missing" in str(error) and "'pred' is not expected" in str(error)


def test_extra_column(solution, good):
    lines = good.decode().splitlines()
    data = "\n".join([lines[0] + ",confidence"] + [r + ",1" for r in lines[1:]]).encode()
    error = refused(data, solution)
    assert error.code == "extra_column" and "'confidence' is not expected" in str(error)


def test_duplicate_column(solution, good):
    lines = good.decode().splitlines()
    data = "\n".join([lines[0] + ",target"] + [r + ",1" for r in lines[1:]]).encode()
    error = refused(data, solution)
    assert error.code == "duplicate_column" and "'target'" in str(error)


def test_column_names_are_case_sensitive(solution, good):
    error = refused(good.replace(b"id,target", b"ID,target", 1), solution)
    assert error.code == "missing_column" and "'id' is missing" in str(error)


# ------------------------------------------------------------------ rows
def test_ragged_row(solution, good):
    error = refused(replace_row(good, b"\n4,", b"\n4,1,"), solution)
    assert error.code == "bad_csv"
    assert "line 6 has 3 fields" in str(error)


def test_not_a_number(solution, good):
    data = replace_row(good, b"\n3,0.35\n", b"\n3,high\n")
    error = refused(data, solution)
    assert error.code == "not_a_number"
    message = str(error)
    assert "'target'" in message and "'high'" in message
    assert "id '3'" in message and "line 5" in message


def test_empty_cell_is_not_a_number(solution, good):
    error = refused(replace_row(good, b"\n7,0.75\n", b"\n7,\n"), solution)
    assert error.code == "not_a_number"
    assert "''" in str(error) and "id '7'" in str(error) and "line 9" in str(error)


def test_python_only_number_syntax_is_not_a_number(solution, good):
    error = refused(replace_row(good, b"\n2,0.25\n", b"\n2,1_000\n"), solution)
    assert error.code == "not_a_number" and "'1_000'" in str(error)


def test_not_a_number_counts_and_lists_the_first_few(solution, good):
    data = good
    for i in range(5):
        data = data.replace(f"\n{i},".encode(), f"\n{i},x".encode(), 1)
    error = refused(data, solution)
    assert "5 values that are not a number" in str(error)
    assert "line 2" in str(error) and "line 4" in str(error) and "..." in str(error)


@pytest.mark.parametrize("written", ["nan", "NaN", "inf", "-Infinity", "1e400"])
def test_not_finite(solution, good, written):
    error = refused(replace_row(good, b"\n3,0.35\n", f"\n3,{written}\n".encode()), solution)
    assert error.code == "not_finite"
    assert "'target'" in str(error) and "id '3'" in str(error) and "line 5" in str(error)


def test_not_finite_in_second_target_column():
    sol = make_solution(targets=2)
    p = np.full((N, 2), 0.5)
    data = csv_bytes(sol, p).replace(b"\n6,0.5,0.5\n", b"\n6,0.5,nan\n")
    error = refused(data, sol)
    assert error.code == "not_finite" and "'p1'" in str(error) and "id '6'" in str(error)


def test_probability_out_of_range(solution, good):
    data = replace_row(good, b"\n3,0.35\n", b"\n3,1.5\n")
    error = refused(data, solution, probabilities=True)
    assert error.code == "probability_out_of_range"
    assert "1.5" in str(error) and "id '3'" in str(error) and "line 5" in str(error)
    # The same file is fine for a metric that does not take probabilities.
    assert parse_submission(data, solution)[3] == 1.5


def test_negative_probability(solution, good):
    data = replace_row(good, b"\n0,0.05\n", b"\n0,-0.01\n")
    error = refused(data, solution, probabilities=True)
    assert error.code == "probability_out_of_range" and "-0.01" in str(error)


def test_not_a_class(solution):
    """With the solution's classes given (a score comparing labels), every
    prediction must be one of them; the first few others are named."""
    labels = solution.targets.copy()
    assert solution.classes.tolist() == [0.0, 1.0]
    assert parse_submission(csv_bytes(solution, labels), solution, classes=solution.classes)[
        1
    ] == float(labels[1])
    shifted = labels.copy()
    shifted[[2, 4, 6, 8]] += 0.5
    error = refused(csv_bytes(solution, shifted), solution, classes=solution.classes)
    assert error.code == "not_a_class"
    assert "4 values" in str(error) and "the classes are 0, 1" in str(error)
    assert "0.5 (id '2', line 4)" in str(error) and "id '8'" not in str(error)
    whole = labels.copy()
    whole[3] = 2.0  # whole, but still no class
    assert "2.0 (id '3'" in str(refused(csv_bytes(solution, whole), solution, classes=[0, 1]))
    # Without classes the same values are predictions like any other.
    assert parse_submission(csv_bytes(solution, shifted), solution)[2] == shifted[2]


def test_not_a_class_in_a_second_column_lists_the_first_classes():
    sol = Solution.from_labels(
        np.arange(24).reshape(12, 2), public_fraction=0.5, random_state=0, target_columns=("a", "b")
    )
    values = sol.targets.copy()
    values[5, 1] = 7.25
    error = refused(csv_bytes(sol, values), sol, classes=sol.classes)
    assert error.code == "not_a_class" and "'b'" in str(error) and "7.25" in str(error)
    assert "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 14 more" in str(error)


def test_not_finite_is_reported_before_not_a_class(solution, good):
    data = replace_row(good, b"\n3,0.35\n", b"\n3,nan\n")
    assert refused(data, solution, classes=solution.classes).code == "not_finite"


# ------------------------------------------------------------------ ids
@pytest.mark.parametrize("kind", ["int", "sparse", "text", "mixed"])
def test_missing_ids(kind):
    sol = make_solution(kind)
    keep = [i for i in range(N) if i not in (2, 5, 7, 8)]
    lines = ["id,target"] + [f"{sol.ids[i]},0.5" for i in keep]
    error = refused(("\n".join(lines) + "\n").encode(), sol)
    assert error.code == "missing_ids"
    message = str(error)
    assert message.startswith("4 ids of the solution are missing, e.g. ")
    assert all(repr(sol.ids[i]) in message for i in (2, 5, 7))


@pytest.mark.parametrize("kind", ["int", "sparse", "text", "mixed"])
def test_extra_ids(kind):
    sol = make_solution(kind)
    data = csv_bytes(sol, predictions()) + b"ghost,0.5\n999999999,0.5\n"
    error = refused(data, sol)
    assert error.code == "extra_ids"
    message = str(error)
    assert "2 ids are not in the solution" in message
    assert "'ghost' (line 12)" in message and "'999999999' (line 13)" in message


def test_duplicate_ids(solution, good):
    error = refused(good + b"4,0.1\n", solution)
    assert error.code == "duplicate_ids"
    assert "'4' (lines 6, 12)" in str(error)


def test_duplicate_replacing_another_id_reports_both(solution, good):
    data = replace_row(good, b"\n9,0.95\n", b"\n4,0.95\n")
    error = refused(data, solution)
    assert error.code == "duplicate_ids"
    assert "'4' (lines 6, 11)" in str(error)
    assert "1 id of the solution is missing: '9'" in str(error)


def test_ids_match_exactly_as_text(solution, good):
    # "017" is not "17", and "3.0" is not "3": extra and missing, in one message.
    data = replace_row(good, b"\n3,0.35\n", b"\n3.0,0.35\n")
    error = refused(data, solution)
    assert error.code == "extra_ids"
    assert "'3.0' (line 5)" in str(error) and "missing: '3'" in str(error)


@pytest.mark.parametrize("kind", ["int", "sparse"])
@pytest.mark.parametrize("prefix", ["0", "-", "+", " "])
def test_integer_ids_written_otherwise_are_not_the_solution_ids(kind, prefix):
    # "03" or "+3" parses to the integer 3, but it is not the id "3".
    sol = make_solution(kind)
    target = sol.ids[3]
    data = csv_bytes(sol, predictions()).replace(
        f"\n{target},".encode(), f"\n{prefix}{target},".encode()
    )
    error = refused(data, sol)
    assert error.code == "extra_ids"
    assert f"'{prefix}{target}' (line 5)" in str(error) and f"missing: '{target}'" in str(error)


def test_negative_zero_id_is_not_zero():
    sol = make_solution("int")
    error = refused(csv_bytes(sol, predictions()).replace(b"\n0,", b"\n-0,"), sol)
    assert error.code == "extra_ids" and "'-0' (line 2)" in str(error)


def test_empty_id_is_an_extra_id(solution, good):
    error = refused(replace_row(good, b"\n5,", b"\n,"), solution)
    assert error.code == "extra_ids" and "'' (line 7)" in str(error)


def test_line_numbers_count_blank_lines_and_quoted_line_breaks(solution):
    rows = [f"{i},0.5" for i in range(N)]
    rows[6] = "6,nan"
    text = "\n\nid,target\n" + '"0",0.5\n\n' + "\n".join(rows[1:]) + "\n"
    error = refused(text.encode(), solution)
    # header on line 3, "0" on 4, a blank line 5, then "1" on 6: "6" is on line 11.
    assert "line 11" in str(error)


# ------------------------------------------------------------------ the error
def test_error_keeps_its_code_through_pickling(solution):
    error = refused(b"", solution)
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, SubmissionError) and copy.code == "empty"
    assert str(copy) == str(error)


def test_every_code_is_reachable_and_listed():
    assert len(set(SubmissionError.CODES)) == len(SubmissionError.CODES)
    assert isinstance(SubmissionError("empty", "x"), ValueError)


def _good_and_defects() -> dict[str, bytes]:
    """A valid file and files with one defect each, before gzip."""
    sol = make_solution("text")
    good = csv_bytes(sol, predictions())
    lines = good.split(b"\n")
    return {
        "valid": good,
        "bom": b"\xef\xbb\xbf" + good,
        "crlf": good.replace(b"\n", b"\r\n"),
        "shuffled": csv_bytes(sol, predictions(), order=[3, 1, 0, 2, 4, 9, 8, 7, 6, 5]),
        "blank line before the header": b"\n" + good,
        "header in another order": good.replace(b"id,target", b"target,id", 1),
        "header spaces": good.replace(b"id,target", b" id , target", 1),
        "missing column": good.replace(b"id,target", b"id,score", 1),
        "header only": lines[0] + b"\n",
        "header and blank lines": lines[0] + b"\n\n  \n",
        "not a number": good.replace(b"0.05", b"abc", 1),
        "empty cell": good.replace(b",0.05", b",", 1),
        "NaN": good.replace(b"0.05", b"nan", 1),
        "missing row": b"\n".join(lines[:-2]) + b"\n",
        "repeated row": good + lines[1] + b"\n",
        "unknown id": good.replace(b"row-003", b"row-999", 1),
        "too many fields": good.replace(b"0.05", b"0.05,1", 1),
        "invalid UTF-8 in an id": good.replace(b"row-003", b"row-\xff03", 1),
        "invalid UTF-8 after the rows": good + b"\xff\n",
        "carriage returns only": good.replace(b"\n", b"\r"),
        "quoted ids": good.replace(b"row-001", b'"row-001"', 1),
    }


@pytest.mark.parametrize("defect", list(_good_and_defects()))
@pytest.mark.parametrize("packing", ["gzip", "gzip, garbage after", "two members", "truncated"])
def test_a_large_gzip_file_parsed_while_decompressed_gets_the_same_answer(
    monkeypatch, defect, packing
):
    """Large gzip files are parsed as they are decompressed; any file, valid
    or not, gets the answer (the predictions, or the refusal's code and
    message) it gets when decompressed whole first."""
    from ladderboard.files import submission as module

    sol = make_solution("text")
    text = _good_and_defects()[defect]
    data = {
        "gzip": gzip.compress(text),
        "gzip, garbage after": gzip.compress(text) + b"junk",
        "two members": gzip.compress(text[:25]) + gzip.compress(text[25:]),
        "truncated": gzip.compress(text)[:-10],
    }[packing]

    def answer(streamed_from: int):
        monkeypatch.setattr(module, "_STREAMED_BYTES", streamed_from)
        try:
            return parse_submission(data, sol, max_bytes=10_000).tolist()
        except SubmissionError as error:
            return error.code, str(error)

    whole = answer(10**9)
    decompressed_whole = []
    gunzip = module._csv.gunzip_limited
    monkeypatch.setattr(
        module._csv, "gunzip_limited", lambda *a: decompressed_whole.append(1) or gunzip(*a)
    )
    assert answer(0) == whole
    if defect in ("valid", "bom", "crlf", "shuffled", "header spaces") and packing in (
        "gzip",
        "two members",
    ):
        assert whole == predictions().tolist()
        assert not decompressed_whole  # parsed while decompressed, not read again


def test_a_large_gzip_bomb_is_stopped_while_parsed(monkeypatch):
    from ladderboard.files import submission as module

    monkeypatch.setattr(module, "_STREAMED_BYTES", 0)
    sol = make_solution("text")
    data = gzip.compress(csv_bytes(sol, predictions()) + b"\n" * 10**7)
    assert refused(data, sol, max_bytes=10**6).code == "too_large"
