"""A competition as a folder: ``competition.yaml`` and the files it names.

A bundle describes one competition completely, so that it can be reviewed,
kept under version control and created again (``ladderboard competition
create --from``, ``ladderboard competition dump``)::

    format: 1                  # this format's version
    slug: titanic              # the competition's address
    title: Titanic survival    # default: the slug
    overview_file: overview.md # or  overview: inline Markdown
    rules_file: rules.md       # or  rules: inline Markdown
    solution: solution.csv     # id, the target columns, Usage (Public/Private)
    data_files: [data/train.csv, data/test.csv]
    score: zero_one            # then any setting of CompetitionConfig:
    mechanism: ladder          # ladderboard's default when left out
    mechanism_params: {eta: 0.01}
    daily_quota: 5             # null: no limit
    deadline: 2030-01-31T23:59:00+00:00

The keys after ``data_files`` are the fields of
:class:`~ladderboard.rules.config.CompetitionConfig` (``score``,
``score_params``, ``mechanism``, ``mechanism_params``, ``board``, ``ranks``,
``daily_quota``, ``total_quota``, ``invalid_quota``, ``deadline``,
``auto_publish``, ``n_selections``, ``precision``, ``max_bytes``, the calendar,
``registration``, ...), with its
meanings and its checks; a setting left out takes the default the server's
creation form gives it, and ``mechanism_params`` needs ``mechanism``. The
deadline is ISO 8601 with its time zone. ``phase_of: dev`` makes the
competition a later phase of ``dev``, which must exist on the server first
(:mod:`ladderboard.engine.phases`).

Each path is relative to the YAML file and stays inside its folder: an
absolute path, a ``..`` or a symbolic link that leads out is refused. A data
file keeps its file's name on the server (two files of one name are
refused). An unknown key is refused with the known ones named, and every
refusal names its key, so that nothing is sent to a server before the whole
bundle reads. The YAML is read by PyYAML's safe loader (no Python objects),
which here also refuses a key given twice rather than keep the last.

:func:`write_bundle` writes every setting out, whether or not it is the
default, with the texts in ``overview.md`` and ``rules.md``, the solution in
``solution.csv`` and the data files under ``data/``: a dump is a complete
record, and the same competition dumped twice gives the same bytes.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "solution.csv").write_text("id,target,Usage\\n1,0,Public\\n2,1,Private\\n")
>>> _ = (folder / "competition.yaml").write_text(
...     "format: 1\\nslug: demo\\nsolution: solution.csv\\nscore: zero_one\\nrank: 3\\n")
>>> read_bundle(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ladderboard.bundle.BundleError: .../competition.yaml: unknown key 'rank' (known: format, ...)
>>> _ = (folder / "competition.yaml").write_text(
...     "format: 1\\nslug: demo\\nsolution: solution.csv\\nscore: zero_one\\nranks: 0\\n")
>>> read_bundle(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ladderboard.bundle.BundleError: .../competition.yaml: ranks must be an integer >= 1, got 0
>>> _ = (folder / "competition.yaml").write_text(
...     "format: 1\\nslug: demo\\nsolution: solution.csv\\nscore: zero_one\\nranks: 3\\n")
>>> bundle = read_bundle(folder)
>>> bundle.slug, bundle.settings, bundle.title
('demo', {'score': 'zero_one', 'ranks': 3}, None)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.text import (
    DESCRIPTION_CHARS,
    TITLE_CHARS,
    check_file_name,
    check_slug,
    check_text,
)

__all__ = [
    "BUNDLE_FILE",
    "FORMAT",
    "KEYS",
    "SETTINGS",
    "Bundle",
    "BundleError",
    "read_bundle",
    "write_bundle",
]

FORMAT = 1
"""The version of the format :func:`read_bundle` reads and :func:`write_bundle` writes."""
BUNDLE_FILE = "competition.yaml"
SETTINGS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(CompetitionConfig))
"""The settings a bundle may give: the fields of ``CompetitionConfig``."""
KEYS: tuple[str, ...] = (
    "format",
    "slug",
    "title",
    "overview",
    "overview_file",
    "rules",
    "rules_file",
    "solution",
    "data_files",
    *SETTINGS,
)
"""Every key of ``competition.yaml``, in the order :func:`write_bundle` writes them."""
_DEFAULTS = {
    f.name: f.default
    for f in dataclasses.fields(CompetitionConfig)
    if f.default is not dataclasses.MISSING
}
_TEXTS = {"overview": "overview.md", "rules": "rules.md"}
_SOLUTION = "solution.csv"
_DATA = "data"


class BundleError(ValueError):
    """A bundle that cannot be read or written: the message names the file
    and the key."""


@dataclass(frozen=True)
class Bundle:
    """A competition as a bundle holds it.

    Parameters
    ----------
    slug : str
    solution : bytes
        The solution CSV.
    settings : dict
        Keyword arguments of :class:`CompetitionConfig`, those the bundle
        gives (``score`` always); the others take the server's defaults.
    title : str or None
        ``None``: the slug.
    overview, rules : str
        Markdown.
    data_files : tuple of (name, bytes)
        The files participants download, by their names on the server.
    """

    slug: str
    solution: bytes
    settings: dict[str, Any]
    title: str | None = None
    overview: str = ""
    rules: str = ""
    data_files: tuple[tuple[str, bytes], ...] = field(default=())

    def config(self) -> CompetitionConfig:
        """The configuration the settings describe, the mechanism left out
        being ladderboard's default (whose parameters the server settles at
        the solution's public size)."""
        return _config(self.settings, "settings")

    def form(self) -> dict[str, Any]:
        """The settings as the server's creation form takes them: a deadline
        as ISO 8601 text, and ``None`` as ``"none"`` where it is not the
        default (a quota: no limit) and left out where it is (no deadline,
        ladderboard's default mechanism)."""
        values: dict[str, Any] = {}
        for name, value in self.settings.items():
            if isinstance(value, datetime):
                value = value.isoformat()
            elif value is None:
                if _DEFAULTS.get(name) is None:
                    continue
                value = "none"
            values[name] = value
        return values


def _config(settings: Mapping[str, Any], where: str) -> CompetitionConfig:
    """``CompetitionConfig`` of ``settings``, built one setting at a time so
    that a refusal names the setting that brought it."""
    given = dict(settings)
    for name in ("score", "mechanism"):
        if given.get(name) is not None and not isinstance(given[name], str):
            raise BundleError(f"{where}: {name} must be a name, got {given[name]!r}")
    if given.get("score") is None:
        raise BundleError(f"{where}: score is required (a loss or a metric, e.g. zero_one)")
    if given.get("mechanism_params") and given.get("mechanism") is None:
        raise BundleError(
            f"{where}: mechanism_params sets parameters of a mechanism: give mechanism too, "
            f"or neither for ladderboard's default, {RECOMMENDED.label}"
        )
    named = {"score": given.pop("score"), "mechanism": given.pop("mechanism", None)}
    if named["mechanism"] is None:
        named["mechanism"] = RECOMMENDED.mechanism
    config = _checked(named, where, None)  # their refusals name them
    checked = dict(named)
    for name, value in given.items():
        config = _checked({**checked, name: value}, where, name)
        checked[name] = value
    return config


def _checked(settings: dict[str, Any], where: str, name: str | None) -> CompetitionConfig:
    """``CompetitionConfig(**settings)``; a refusal that does not name
    ``name``, the setting last added, is said with it."""
    try:
        return CompetitionConfig(**settings)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if name is not None and name not in message:
            message = f"{name}: {message}"
        raise BundleError(f"{where}: {message}") from None


def _path(folder: Path, key: str, value: object, where: str) -> Path:
    """The file ``value`` names, relative to ``folder`` and inside it."""
    if not isinstance(value, str) or not value.strip():
        raise BundleError(f"{where}: {key} must be a path relative to the folder, got {value!r}")
    windows = PureWindowsPath(value)
    if PurePosixPath(value).is_absolute() or windows.is_absolute() or windows.drive:
        raise BundleError(f"{where}: {key}: {value!r} is absolute; give a path inside the folder")
    if ".." in windows.parts:  # either separator
        raise BundleError(f"{where}: {key}: {value!r} leads out of the folder ('..')")
    root = folder.resolve()
    path = (folder / value).resolve()
    if not path.is_relative_to(root):
        raise BundleError(f"{where}: {key}: {value!r} leads out of the folder (a symbolic link)")
    if not path.is_file():
        raise BundleError(f"{where}: {key}: no file {value!r} in {folder}")
    return path


def _text(folder: Path, data: Mapping[str, Any], name: str, where: str) -> str:
    """The overview or the rules: inline under ``name`` or in the file
    ``name_file``, else empty."""
    key = f"{name}_file"
    if name in data and key in data:
        raise BundleError(f"{where}: give {name} (the text) or {key} (a file), not both")
    if key in data:
        raw = _path(folder, key, data[key], where).read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BundleError(f"{where}: {key}: {data[key]!r} is not UTF-8 text") from None
    else:
        text = data.get(name, "")
        if text is None:
            text = ""
    try:
        return check_text(name, text, max_chars=DESCRIPTION_CHARS, multiline=True)
    except (TypeError, ValueError) as exc:
        raise BundleError(f"{where}: {exc}") from None


def _data_files(folder: Path, value: object, where: str) -> tuple[tuple[str, bytes], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BundleError(f"{where}: data_files must be a list of paths, got {value!r}")
    files: dict[str, tuple[str, bytes]] = {}
    for entry in value:
        path = _path(folder, "data_files", entry, where)
        name = PureWindowsPath(entry).name
        try:
            check_file_name(name)
        except ValueError as exc:
            raise BundleError(f"{where}: data_files: {exc}") from None
        if name in files:
            raise BundleError(
                f"{where}: data_files: {files[name][0]!r} and {entry!r} would both be "
                f"{name!r} on the server"
            )
        files[name] = (entry, path.read_bytes())
    return tuple((name, data) for name, (_, data) in files.items())


def _loader() -> type:
    """PyYAML's ``SafeLoader``, refusing a key given twice in one mapping
    (which it would otherwise read as the last one)."""
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return Loader


def read_bundle(path: str | Path) -> Bundle:
    """The bundle of ``path``: a ``competition.yaml`` or a folder holding
    one. Raises :class:`BundleError` naming the key of anything wrong."""
    import yaml  # the client extra's: the core does not read YAML

    path = Path(path)
    file = path / BUNDLE_FILE if path.is_dir() else path
    where = str(file)
    try:
        data = yaml.load(file.read_bytes(), Loader=_loader())  # a SafeLoader
    except FileNotFoundError:
        raise BundleError(f"{where}: no such file") from None
    except yaml.YAMLError as exc:
        raise BundleError(f"{where}: not YAML: {exc}") from None
    if not isinstance(data, dict):
        raise BundleError(f"{where}: must be a mapping of keys to values")
    for key in data:
        if key not in KEYS:
            raise BundleError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
    if data.get("format") != FORMAT:
        raise BundleError(
            f"{where}: format must be {FORMAT} (this version of the format), "
            f"got {data.get('format')!r}"
        )
    folder = file.parent
    try:
        slug = check_slug(data.get("slug"))
        title = data.get("title")
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
    except (TypeError, ValueError) as exc:
        raise BundleError(f"{where}: {exc}") from None
    if "solution" not in data:
        raise BundleError(f"{where}: solution is required (the solution CSV's path)")
    settings = {name: data[name] for name in SETTINGS if name in data}
    _config(settings, where)
    solution = _path(folder, "solution", data["solution"], where).read_bytes()
    data_files = _data_files(folder, data.get("data_files"), where)
    for name, content in data_files:
        if content == solution:
            # Data files are for every participant: this would publish the labels.
            raise BundleError(
                f"{where}: data_files: {name!r} is the solution itself, which teams must "
                "never download"
            )
    return Bundle(
        slug=slug,
        solution=solution,
        settings=settings,
        title=title,
        overview=_text(folder, data, "overview", where),
        rules=_text(folder, data, "rules", where),
        data_files=data_files,
    )


def write_bundle(bundle: Bundle, folder: str | Path) -> Path:
    """Write ``bundle`` into ``folder`` (absent or empty) and return the
    path of its ``competition.yaml``. Every setting is written, the defaults
    too, in the order of :data:`KEYS`, so that equal bundles give equal bytes."""
    import yaml

    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BundleError(f"{folder}: a bundle is written into a new or empty folder")
    config = bundle.config().to_json()
    document: dict[str, Any] = {
        "format": FORMAT,
        "slug": bundle.slug,
        "title": bundle.slug if bundle.title is None else bundle.title,
        "overview_file": _TEXTS["overview"],
        "rules_file": _TEXTS["rules"],
        "solution": _SOLUTION,
        "data_files": [f"{_DATA}/{name}" for name, _ in sorted(bundle.data_files)],
        **{name: config[name] for name in SETTINGS},
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / _TEXTS["overview"]).write_bytes(bundle.overview.encode("utf-8"))
    (folder / _TEXTS["rules"]).write_bytes(bundle.rules.encode("utf-8"))
    (folder / _SOLUTION).write_bytes(bundle.solution)
    if bundle.data_files:
        (folder / _DATA).mkdir()
        for name, data in bundle.data_files:
            (folder / _DATA / check_file_name(name)).write_bytes(data)
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    file = folder / BUNDLE_FILE
    file.write_bytes(text.encode("utf-8"))
    return file
