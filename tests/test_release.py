"""Every place that names the release names the same one: the package's
version, the citation, the newest released heading of the changelog, and the
image tags the deployment files and guides build and run."""

import re
from pathlib import Path

import ladderboard

ROOT = Path(__file__).resolve().parents[1]
VERSION = ladderboard.__version__
# An image of ours tagged with a release: ladderboard:X.Y.Z, ladderboard-synapse:X.Y.Z.
IMAGE_TAG = re.compile(r"\bladderboard(?:-[a-z]+)?:v?(\d+\.\d+\.\d+)\b")
# The files of the project's own that may name an image: not a local .env,
# wheels built for an image, or installed packages.
TEXT = {".md", ".yaml", ".yml", ".cwl", ".service", ".example", ".py", ".sh", ".toml", ".json"}


def test_the_version_is_semantic():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)


def test_the_citation_cites_this_version():
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r'^version: "?([^"\n]+)"?$', text, re.M).group(1) == VERSION


def test_the_changelog_s_newest_release_is_this_version_on_the_citation_s_date():
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased"
    version, date = re.fullmatch(r"(\S+) \((\d{4}-\d{2}-\d{2})\)", headings[1]).groups()
    assert version == VERSION
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(r'^date-released: "?([\d-]+)"?$', citation, re.M).group(1) == date


def test_every_image_tag_in_the_deployment_files_and_guides_is_this_version():
    places = [
        path
        for folder in ("deploy", "docs", "integrations")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file()
        and (path.suffix in TEXT or path.name.startswith(("Dockerfile", "Caddyfile")))
        and not {"wheels", "node_modules"} & set(path.parts)
    ] + [ROOT / "README.md"]
    tags = {
        (str(path.relative_to(ROOT)), tag)
        for path in places
        for tag in IMAGE_TAG.findall(path.read_text(errors="replace"))
    }
    assert len({path for path, _ in tags}) >= 4  # compose, the Dockerfiles, the guide
    assert {tag for _, tag in tags} == {VERSION}, sorted(tags)
