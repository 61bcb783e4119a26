"""The export and the audit bundle over HTTP: who may download and publish
them, and what the archives hold."""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile

from organiser_helpers import alert, sign_in, status
from server_helpers import add_team, bearer, create, organiser, predictions, submit

from ladderboard.engine.audit_bundle import verify_bundle


def _played(client, solution) -> str:
    create(client, solution, daily_quota="none")
    token = add_team(client, "alpha")
    for seed in range(3):
        assert submit(client, token, predictions(solution, seed)).status_code == 201
    assert submit(client, token, b"not,a,submission\n").status_code == 400
    return token


def _members(response) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_organiser_downloads_the_export_as_a_zip(client, solution):
    token = _played(client, solution)
    response = client.get("/api/competitions/demo/export", headers=organiser())
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    assert 'filename="demo-export.zip"' in response.headers["content-disposition"]
    assert int(response.headers["content-length"]) == len(response.content)
    members = _members(response)
    index = list(csv.DictReader(io.StringIO(members["submissions.csv"].decode())))
    assert [row["number"] for row in index] == ["1", "2", "3"]
    for row in index:
        data = members[f"submissions/{row['file']}"]
        assert hashlib.sha256(data).hexdigest() == row["file_sha256"]
    assert members["solution.csv"] == solution.to_csv()
    assert "not,a,submission" not in members["refused.csv"].decode()  # its record, not its bytes
    assert len(list(csv.DictReader(io.StringIO(members["refused.csv"].decode())))) == 1

    for headers, code in ((bearer(token), 403), ({}, 401)):
        refused = client.get("/api/competitions/demo/export", headers=headers)
        assert refused.status_code == code, refused.text
        assert refused.headers["content-type"].startswith("application/json")
    assert client.get("/api/competitions/none/export", headers=organiser()).status_code == 404


def test_the_audit_bundle_is_published_after_the_board_and_read_by_anyone(
    client, solution, tmp_path
):
    token = _played(client, solution)
    assert client.get("/api/competitions/demo/audit").status_code == 404
    early = client.post("/api/competitions/demo/audit", json={"files": "full"}, headers=organiser())
    assert early.status_code == 409 and "not published" in early.json()["message"]
    assert client.post("/api/competitions/demo/close", headers=organiser()).status_code == 200
    assert client.post("/api/competitions/demo/publish", headers=organiser()).status_code == 200
    assert client.get("/api/competitions/demo/audit").status_code == 404  # not yet published
    as_team = client.post("/api/competitions/demo/audit", json={}, headers=bearer(token))
    assert as_team.status_code == 403
    wrong = client.post("/api/competitions/demo/audit", json={"files": "some"}, headers=organiser())
    assert wrong.status_code == 422
    done = client.post("/api/competitions/demo/audit", headers=organiser())  # no body: full
    assert done.status_code == 200, done.text
    assert done.json()["files"] == "full" and done.json()["url"] == "/api/competitions/demo/audit"

    bundle = client.get("/api/competitions/demo/audit")  # no token
    assert bundle.status_code == 200 and bundle.headers["content-type"] == "application/zip"
    path = tmp_path / "bundle.zip"
    path.write_bytes(bundle.content)
    report = verify_bundle(path)
    assert report.verified, report.problems
    assert report.submissions == 3

    hashes = client.post(
        "/api/competitions/demo/audit", json={"files": "hashes"}, headers=organiser()
    )
    assert hashes.status_code == 200
    members = _members(client.get("/api/competitions/demo/audit"))
    assert not any(name.startswith("submissions/") for name in members)
    assert "README.txt" in members and b"SHA-256" in members["README.txt"]


def test_the_desk_downloads_the_export_and_publishes_the_bundle(client, solution):
    _played(client, solution)
    assert "/organiser/login" in client.get("/organiser/c/demo/export").text  # no session
    csrf = sign_in(client)
    desk = client.get("/organiser/c/demo").text
    assert 'href="/organiser/c/demo/export"' in desk
    assert 'action="/organiser/c/demo/audit"' not in desk  # not before the private board
    download = client.get("/organiser/c/demo/export")
    assert download.status_code == 200 and download.headers["content-type"] == "application/zip"
    assert "submissions.csv" in _members(download)

    forged = client.post("/organiser/c/demo/audit", data={"csrf": "0" * 32, "files": "full"})
    assert forged.status_code == 403
    early = client.post("/organiser/c/demo/audit", data={"csrf": csrf, "files": "full"})
    assert early.status_code == 409 and "not published" in alert(early.text)
    client.post("/api/competitions/demo/close", headers=organiser())
    client.post("/api/competitions/demo/publish", headers=organiser())
    assert 'action="/organiser/c/demo/audit"' in client.get("/organiser/c/demo").text
    wrong = client.post("/organiser/c/demo/audit", data={"csrf": csrf, "files": "some"})
    assert wrong.status_code == 422 and "Files must be" in alert(wrong.text)
    assert client.get("/api/competitions/demo/audit").status_code == 404
    done = client.post("/organiser/c/demo/audit", data={"csrf": csrf, "files": "hashes"})
    assert done.status_code == 200, done.text
    assert "published, with the files' SHA-256 only" in status(done.text)
    assert client.get("/api/competitions/demo/audit").status_code == 200


def test_the_overview_says_what_a_participant_can_verify(client, solution):
    _played(client, solution)
    before = client.get("/c/demo").text
    assert "ladderboard verify --bundle" in before and "/api/competitions/demo/audit" not in before
    client.post("/api/competitions/demo/close", headers=organiser())
    client.post("/api/competitions/demo/publish", headers=organiser())
    waiting = client.get("/c/demo").text
    assert "once it is published here" in waiting
    assert "/api/competitions/demo/audit" not in waiting
    client.post("/api/competitions/demo/audit", json={"files": "full"}, headers=organiser())
    full = client.get("/c/demo").text
    assert 'href="/api/competitions/demo/audit"' in full
    assert "ladderboard verify --bundle demo-audit.zip\n" in full or (
        "ladderboard verify --bundle demo-audit.zip</code>" in full
    )
    assert "--files" not in full
    client.post("/api/competitions/demo/audit", json={"files": "hashes"}, headers=organiser())
    hashes = client.get("/c/demo").text
    assert "ladderboard submissions demo --download my-files" in hashes
    assert "ladderboard verify --bundle demo-audit.zip --files my-files" in hashes


def test_the_audit_bundle_is_built_once_a_publication(client, solution, monkeypatch):
    """Anyone may download the bundle, as often as they like: the store is
    read for the first download of a publication, and the later ones (with
    a team's token or none) get the same bytes from the kept file; a new
    publication builds the new bundle."""
    from ladderboard.engine import Competitions

    _played(client, solution)
    for step in ("close", "publish", "audit"):
        assert client.post(f"/api/competitions/demo/{step}", headers=organiser()).status_code == 200
    built: list[str] = []
    real = Competitions.audit_bundle

    def counted(self, slug, sink):
        built.append(slug)
        return real(self, slug, sink)

    monkeypatch.setattr(Competitions, "audit_bundle", counted)
    first = client.get("/api/competitions/demo/audit")
    assert first.status_code == 200
    for _ in range(4):
        again = client.get("/api/competitions/demo/audit")
        assert again.status_code == 200 and again.content == first.content
    assert built == ["demo"]
    hashes = client.post(
        "/api/competitions/demo/audit", json={"files": "hashes"}, headers=organiser()
    )
    assert hashes.status_code == 200
    assert client.get("/api/competitions/demo/audit").content != first.content
    assert built == ["demo", "demo"]
