"""Charts for the web pages, drawn server-side as inline SVG (no JavaScript).

>>> from datetime import UTC, datetime
>>> svg = score_chart([(datetime(2026, 1, 1, tzinfo=UTC), 0.4),
...                    (datetime(2026, 1, 2, tzinfo=UTC), 0.3)], precision=2)
>>> svg.startswith("<svg") and "polyline" in svg and "0.40" in svg
True
>>> score_chart([], precision=2)
''
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

__all__ = ["score_chart"]

# A viewBox close to a phone's width, so that its 12-unit labels stay readable when
# the chart is scaled down to fit one.
_WIDTH, _HEIGHT = 420, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 28, 40


def score_chart(
    points: Sequence[tuple[datetime, float]],
    *,
    precision: int,
    title: str = "Released score over time",
    y_label: str = "released score",
) -> str:
    """An SVG line chart of released scores, in submission order.

    The x axis is the submission's order (its time is in each point's
    tooltip), the y axis the released score (``y_label``), both labelled.
    """
    if not points:
        return ""
    scores = [float(score) for _, score in points]
    # Ticks only at released values: the lowest and the highest.
    ticks = sorted({min(scores), max(scores)})
    low, high = ticks[0], ticks[-1]
    if high - low < 1e-12:
        pad = 0.05 * (abs(low) or 1.0)
        low, high = low - pad, high + pad
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = _HEIGHT - _TOP - _BOTTOM
    count = len(points)

    def x(i: int) -> float:
        return _LEFT + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y(value: float) -> float:
        return _TOP + plot_h * (high - value) / (high - low)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" '
        f'class="chart" role="img" aria-labelledby="chart-title">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}"/>',
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{_WIDTH - _RIGHT}" '
        f'y2="{_TOP + plot_h}"/>',
    ]
    for value in ticks:
        parts.append(
            f'<line class="grid" x1="{_LEFT}" y1="{y(value):.1f}" x2="{_WIDTH - _RIGHT}" '
            f'y2="{y(value):.1f}"/>'
            f'<text class="tick" x="{_LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">'
            f"{value:.{precision}f}</text>"
        )
    parts.append(
        f'<text class="tick" x="{x(0):.1f}" y="{_HEIGHT - 22}" text-anchor="middle">1</text>'
    )
    if count > 1:
        parts.append(
            f'<text class="tick" x="{x(count - 1):.1f}" y="{_HEIGHT - 22}" '
            f'text-anchor="middle">{count}</text>'
        )
    parts.append(
        f'<text class="label" x="{_LEFT + plot_w / 2:.1f}" y="{_HEIGHT - 4}" '
        'text-anchor="middle">submission</text>'
        f'<text class="label" x="{_LEFT - 6}" y="{_TOP - 12}" text-anchor="start">'
        f"{escape(y_label)}</text>"
    )
    line = " ".join(f"{x(i):.1f},{y(s):.1f}" for i, s in enumerate(scores))
    parts.append(f'<polyline class="line" points="{line}"/>')
    for i, ((when, _), score) in enumerate(zip(points, scores, strict=True)):
        label = f"#{i + 1} {when:%Y-%m-%d %H:%M:%S} UTC: {score:.{precision}f}"
        parts.append(
            f'<circle class="point" cx="{x(i):.1f}" cy="{y(score):.1f}" r="4">'
            f"<title>{escape(label)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
