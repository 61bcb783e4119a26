"""The accessibility audit of a page in the browser: axe-core's rules for
WCAG 2.0, 2.1 and 2.2 at levels A and AA and its best practices, and the
contrast of the keyboard focus ring, which axe does not measure.

axe-core comes from npm (``tests/js/package.json``, pinned in its lock file):
``cd tests/js && npm ci``. A test calls :func:`require_axe` first, which skips
it with that instruction when axe-core is missing (fails it under
``CI=true``).

>>> round(contrast_ratio((240, 160, 0), (255, 255, 255)), 2)
2.16
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from playwright.sync_api import Page

from system import require

AXE = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "axe-core" / "axe.min.js"
AXE_INSTRUCTION = (
    "axe-core is not installed, for the accessibility audit (cd tests/js && npm ci): "
    "see the README's Set-up"
)
# axe-core's tags: every WCAG 2.x success criterion at level A and AA, and its
# best practices (one main landmark, headings in order, and so on).
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice")
SEVERE = ("serious", "critical")


@dataclass(frozen=True)
class Node:
    """One element that fails a rule: axe's CSS selector for it, its HTML
    (start tag, shortened by axe) and axe's summary of what would fix it."""

    target: str
    html: str
    summary: str


@dataclass(frozen=True)
class Violation:
    """A rule of axe-core that the page breaks, and the elements that break it."""

    rule: str
    impact: str
    help: str
    help_url: str
    nodes: tuple[Node, ...]


def axe_available() -> bool:
    return AXE.is_file()


def require_axe() -> None:
    """Skip the test unless axe-core is installed (fail under ``CI=true``)."""
    require(axe_available(), AXE_INSTRUCTION)


@cache
def _axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def audit(page: Page) -> list[Violation]:
    """The serious and critical violations of axe-core's WCAG 2.x A and AA
    rules and best practices on the page as it is now.

    axe is evaluated from the file's text rather than added as a ``<script>``
    element (``page.add_script_tag``): the pages' Content-Security-Policy
    refuses inline scripts, and switching it off (``bypass_csp``) would audit
    a page that renders otherwise than for a visitor.
    """
    # A form's click may have started a navigation: audit the document it
    # arrives at once loaded, never one torn down mid-run.
    page.wait_for_load_state("load")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source() + "\n;undefined")
    options = {"runOnly": {"type": "tag", "values": list(TAGS)}, "resultTypes": ["violations"]}
    results = page.evaluate("options => window.axe.run(document, options)", options)
    return [
        Violation(
            rule=v["id"],
            impact=v["impact"],
            help=v["help"],
            help_url=v["helpUrl"],
            nodes=tuple(
                Node(
                    target=" >>> ".join(_selector(part) for part in n["target"]),
                    html=n["html"],
                    summary=n.get("failureSummary") or "",
                )
                for n in v["nodes"]
            ),
        )
        for v in results["violations"]
        if v["impact"] in SEVERE
    ]


def _selector(part: str | list[str]) -> str:
    # A target inside a shadow root or a frame is a list of selectors.
    return part if isinstance(part, str) else " >>> ".join(part)


def describe(violations: Sequence[Violation], where: str = "the page") -> str:
    """A failure message: each rule with its impact and help, then each failing
    element's selector, HTML and what axe says would fix it."""
    if not violations:
        return f"no serious or critical accessibility violation on {where}"
    lines = [f"{len(violations)} serious or critical accessibility violation(s) on {where}:"]
    for v in violations:
        lines.append(f"- {v.rule} ({v.impact}): {v.help}  <{v.help_url}>")
        for node in v.nodes:
            lines.append(f"    {node.target}  {node.html}")
            lines.extend(
                f"      {line.strip()}" for line in node.summary.splitlines() if line.strip()
            )
    return "\n".join(lines)


# ------------------------------------------------------------------ focus ring
RGB = tuple[float, float, float]


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2's relative luminance of an sRGB colour with channels in 0..255.

    >>> relative_luminance((255, 255, 255)), relative_luminance((0, 0, 0))
    (1.0, 0.0)
    """

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    """WCAG 2's contrast ratio of two opaque colours, from 1 to 21.

    >>> contrast_ratio((0, 0, 0), (255, 255, 255))
    21.0
    """
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _over(top: Sequence[float], below: RGB) -> RGB:
    """``top`` (red, green, blue, alpha) painted over the opaque colour ``below``."""
    red, green, blue, alpha = top
    return (
        alpha * red + (1 - alpha) * below[0],
        alpha * green + (1 - alpha) * below[1],
        alpha * blue + (1 - alpha) * below[2],
    )


@dataclass(frozen=True)
class FocusRing:
    """The keyboard focus ring of one element: where it comes from (``outline``,
    ``box-shadow`` or ``none``), its colour, the background behind it where
    the contrast is lowest, and that contrast (WCAG 2's ratio; 1.0 without a
    ring). WCAG 1.4.11 (non-text contrast, level AA) asks for at least 3:1
    between a focus indicator and the colours next to it."""

    selector: str
    source: str
    ring: str
    background: str
    contrast: float

    def __str__(self) -> str:
        return (
            f"focus ring of {self.selector} ({self.source}): {self.ring} on {self.background}, "
            f"contrast {self.contrast:.2f}:1"
        )


# In the page: tabbed to ``element``, where is its ring drawn and in which colour,
# and what is painted below it? Colours go through a canvas, which turns any CSS
# colour syntax into sRGB bytes. The ring's middle line is sampled at the middle
# of each side; the background there is every element's background colour under
# that point, from the top down to the first opaque one (then the white canvas).
_RING_JS = """
element => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const context = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = css => {
    context.clearRect(0, 0, 1, 1);
    context.fillStyle = 'rgba(0, 0, 0, 0)';
    context.fillStyle = css;
    context.fillRect(0, 0, 1, 1);
    const d = context.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const style = getComputedStyle(element);
  let source = 'none', color = null, distance = 0;
  const width = parseFloat(style.outlineWidth) || 0;
  if (style.outlineStyle !== 'none' && width > 0) {
    source = 'outline';
    color = style.outlineColor;
    distance = (parseFloat(style.outlineOffset) || 0) + width / 2;
  } else if (style.boxShadow && style.boxShadow !== 'none') {
    const m = style.boxShadow.match(
      /^((?:rgba?|hsla?|color|oklch|oklab|lab|lch)\\([^)]*\\)|#[0-9a-f]+|[a-z]+)\\s+(-?[\\d.]+)px\\s+(-?[\\d.]+)px(?:\\s+(-?[\\d.]+)px)?(?:\\s+(-?[\\d.]+)px)?(\\s+inset)?/i);
    if (m) {
      source = 'box-shadow';
      color = m[1];
      const reach = parseFloat(m[5] || '0') + parseFloat(m[4] || '0') / 2;  // spread + blur/2
      distance = m[6] ? -reach / 2 : reach / 2;
    }
  }
  const r = element.getBoundingClientRect();
  const midX = r.left + r.width / 2, midY = r.top + r.height / 2;
  const points = [
    [r.left - distance, midY], [r.right + distance, midY],
    [midX, r.top - distance], [midX, r.bottom + distance],
  ].filter(([x, y]) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight);
  const backgrounds = points.map(([x, y]) => {
    const layers = [];
    for (const below of document.elementsFromPoint(x, y)) {
      const layer = rgba(getComputedStyle(below).backgroundColor);
      if (layer[3] > 0) layers.push(layer);
      if (layer[3] >= 1) break;
    }
    return layers;
  });
  return {source, ring: color === null ? null : rgba(color), backgrounds};
}
"""

_TAB_LIMIT = 400


def focus_ring_contrast(page: Page, selector: str) -> FocusRing:
    """Tab from the top of the page to the first element matching ``selector``
    (as a keyboard user reaches it, so that ``:focus-visible`` applies), and
    measure the contrast of its focus ring against what is behind it.

    The ring is the element's ``outline`` if it has one, else the first
    ``box-shadow``; the background is sampled at the middle of the ring on each
    side of the element, and the lowest contrast of the sides is returned.
    Background images and gradients are not seen (background colours only).
    Raises :class:`AssertionError` when Tab never reaches the element.
    """
    element = page.locator(selector).first
    element.wait_for(state="attached")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(_TAB_LIMIT):
        page.keyboard.press("Tab")
        if element.evaluate("e => e === document.activeElement"):
            break
    else:
        raise AssertionError(f"{_TAB_LIMIT} presses of Tab never reached {selector}")
    measured = element.evaluate(_RING_JS)
    ring = measured["ring"]
    if ring is None or ring[3] == 0 or not measured["backgrounds"]:
        why = "none" if ring is None or ring[3] == 0 else measured["source"] + ", off screen"
        return FocusRing(selector, why, "no ring", "-", 1.0)
    sides = []
    for layers in measured["backgrounds"]:
        behind: RGB = (255.0, 255.0, 255.0)  # the canvas
        for layer in reversed(layers):
            behind = _over(layer, behind)
        painted = _over(ring, behind)
        sides.append((contrast_ratio(painted, behind), painted, behind))
    contrast, painted, behind = min(sides)
    return FocusRing(selector, measured["source"], _css(painted), _css(behind), contrast)


def _css(rgb: RGB) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in rgb)
