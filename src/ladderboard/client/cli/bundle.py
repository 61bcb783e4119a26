"""``ladderboard competition create --from`` and ``competition dump``: a
competition sent from a bundle (:mod:`ladderboard.bundle`) to the server,
and written back from the server into one."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import typer

from ladderboard.client.cli.shared import BAR_BYTES, REFUSED, USAGE, call, fail, show
from ladderboard.terminal import progress

__all__ = ["create_from", "dump", "refuse_beside_from"]

_BESIDE_FROM = frozenset({"slug", "server", "token", "as_json", "as_csv", "bundle"})
"""What ``create --from`` takes besides the bundle: where it goes and how
the answer is printed."""


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the option ``name`` was given (on the command line or by its
    environment variable) rather than left to its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def refuse_beside_from(ctx: typer.Context) -> None:
    """Refuse an option given with ``--from``: the bundle is the whole
    record of the competition, so nothing it says is overridden."""
    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name is not None and param.name not in _BESIDE_FROM and _given(ctx, param.name)
    ]
    if given:
        fail(
            f"--from takes everything from the bundle: {', '.join(given)} cannot be given "
            "beside it (edit the bundle instead)",
            USAGE,
        )


def create_from(
    source: Path, slug: str | None, server: str | None, token: str | None, fmt: str
) -> None:
    """Create the competition of the bundle ``source`` (its
    ``competition.yaml`` or its folder), under ``slug`` when given, else
    the bundle's own."""
    from ladderboard.bundle import BundleError, read_bundle
    from ladderboard.client.tables import competition_table

    try:
        bundle = read_bundle(source)
    except BundleError as exc:
        fail(str(exc), USAGE)
    name = bundle.slug if slug is None else slug
    fields = bundle.form()
    score = fields.pop("score")
    mechanism = fields.pop("mechanism", None)
    params = fields.pop("mechanism_params", None)
    size = len(bundle.solution) + sum(len(data) for _, data in bundle.data_files)
    with progress(f"sending {name}'s files", enabled=size >= BAR_BYTES) as advance:
        info = call(
            server,
            token,
            lambda c: c.create_competition(
                name,
                bundle.solution,
                score=score,
                mechanism=mechanism,
                mechanism_params=params,
                data_files=bundle.data_files,
                progress=advance,
                title=bundle.title,
                description=bundle.overview,
                rules=bundle.rules,
                **fields,
            ),
            organiser=True,
        )
    show(fmt, info, lambda: competition_table(info))


def dump(slug: str, out: Path, server: str | None, token: str | None, fmt: str) -> None:
    """Write competition ``slug`` into the new or empty folder ``out`` as a
    bundle: its settings, texts, solution and data files."""
    from rich.table import Table

    from ladderboard.bundle import SETTINGS, Bundle, BundleError, write_bundle

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"--out {out}: a bundle is written into a new or empty folder", USAGE)

    def fetch(client: Any) -> tuple[dict[str, Any], bytes, list[tuple[str, bytes]]]:
        info = client.competition(slug)
        solution = client.solution(slug)
        files = []
        for entry in client.files(slug):
            if entry["generated"]:  # the sample submission, made again from the solution
                continue
            buffer = io.BytesIO()
            if client.download_file(slug, entry["name"], buffer) != entry["sha256"]:
                fail(f"{entry['name']}: the SHA-256 of the bytes received differs", REFUSED)
            files.append((entry["name"], buffer.getvalue()))
        return info, solution, files

    info, solution, files = call(server, token, fetch, organiser=True)
    missing = [name for name in SETTINGS if name not in info]
    if missing:
        fail(f"the server does not say the setting(s) {', '.join(missing)}", REFUSED)
    bundle = Bundle(
        slug=info["slug"],
        solution=solution,
        settings={name: info[name] for name in SETTINGS},
        title=info["title"],
        overview=info["description"],
        rules=info["rules"],
        data_files=tuple(files),
    )
    try:
        written = write_bundle(bundle, out)
    except BundleError as exc:
        fail(str(exc), USAGE)
    paths = sorted(path for path in written.parent.rglob("*") if path.is_file())
    rows = [(path.relative_to(written.parent).as_posix(), path.stat().st_size) for path in paths]
    table = Table(title=f"{slug}: bundle {written.parent}")
    table.add_column("file", no_wrap=True)
    table.add_column("bytes", justify="right")
    for name, size in rows:
        table.add_row(name, str(size))
    data = {
        "slug": slug,
        "bundle": str(written),
        "files": [{"file": n, "bytes": b} for n, b in rows],
    }
    show(fmt, data, lambda: table)
