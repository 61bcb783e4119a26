"""Every place that names the release names the same one: the package's
version, the citation, the newest released heading of the changelog, and the
image tags the deployment files and guides build and run."""

import re
from pathlib import Path

import ladderboard

ROOT = Path(__file__).resolve().parents[1]
VERSION = ladderboard.__version__
# An image of ours tagged with a release: ladderboard:X.Y.Z, ladderboard-synapse:X.Y.Z.
IMAGE_TAG = re.compile(r"\bladderboard(?:-[a-z]+)?:(\d+\.\d+\.\d+)\b")


def test_the_version_is_semantic():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)


def test_the_citation_cites_this_version():
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r'^version: "?([^"\n]+)"?$', text, re.M).group(1) == VERSION


def test_the_changelog_s_newest_release_is_this_version():
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased"
    assert headings[1].split()[0] == VERSION, headings[1]


def test_every_image_tag_in_the_deployment_files_and_guides_is_this_version():
    places = [
        path
        for folder in ("deploy", "docs", "integrations")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and "wheels" not in path.parts and path.suffix != ".png"
    ] + [ROOT / "README.md"]
    tags = {
        (str(path.relative_to(ROOT)), tag)
        for path in places
        for tag in IMAGE_TAG.findall(path.read_text(errors="replace"))
    }
    assert len({path for path, _ in tags}) >= 4  # compose, the Dockerfiles, the guide
    assert {tag for _, tag in tags} == {VERSION}, sorted(tags)
