"""The desk's export and audit section and the Overview's audit text in a
browser: no serious accessibility violation (axe-core), and the desk's form
publishes the bundle the Overview then links."""

from __future__ import annotations

import httpx2
import pytest
from accessibility import audit, describe, require_axe
from browser_helpers import serve
from playwright.sync_api import Browser, expect
from server_helpers import ADMIN, add_team, bearer, create, predictions, submit

from ladderboard.server.settings import Settings


@pytest.mark.slow
def test_the_audit_bundle_published_from_the_desk_is_linked_on_the_overview(
    browser: Browser, solution, tmp_path
):
    require_axe()
    settings = Settings(
        admin_token=ADMIN,
        database_url=f"sqlite:///{tmp_path / 'site.db'}",
        rate_limit_per_minute=0,
    )
    with serve(settings) as url, httpx2.Client(base_url=url) as client:
        create(client, solution, "flowers", title="Flower challenge", daily_quota="none")
        token = add_team(client, "Gradient Gang", "flowers")
        for seed in range(2):
            assert submit(client, token, predictions(solution, seed), "flowers").status_code == 201
        for action in ("close", "publish"):
            done = client.post(f"/api/competitions/flowers/{action}", headers=bearer(ADMIN))
            assert done.status_code == 200, done.text
        context = browser.new_context(base_url=url)
        page = context.new_page()
        page.goto("/organiser")
        page.get_by_label("Organiser token").fill(ADMIN)
        page.get_by_role("button", name="Sign in").click()
        page.goto("/organiser/c/flowers")
        expect(page.get_by_role("link", name="Download the export (zip)")).to_be_visible()
        page.get_by_label("their SHA-256 only").check()
        page.get_by_role("button", name="Publish the audit bundle").click()
        expect(page.get_by_role("status")).to_contain_text("the files' SHA-256 only")
        violations = audit(page)
        assert not violations, describe(violations, "the desk with its bundle published")
        page.goto("/c/flowers")
        expect(page.get_by_role("link", name="audit bundle")).to_have_attribute(
            "href", "/api/competitions/flowers/audit"
        )
        expect(page.locator("pre")).to_contain_text("--files my-files")
        violations = audit(page)
        assert not violations, describe(violations, "the published overview")
        context.close()
