"""The test tree's own rule: test modules are imported by their file name
(tests/ has no packages), so two with the same name stop pytest at collection."""

from collections import Counter
from pathlib import Path


def test_test_module_names_are_unique():
    names = Counter(p.name for p in Path(__file__).parent.rglob("*.py") if p.name != "conftest.py")
    assert [name for name, count in names.items() if count > 1] == []
