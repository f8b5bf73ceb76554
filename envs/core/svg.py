"""SVG drawing shared by the four tables (the web table, ``cardarena serve``).

Standard library only. A table is drawn from a seat's ``table_view`` (a JSON-able dict holding
only what that seat sees), never from the rules state, so the picture cannot show more than the
view; the leak tests compare views. Every piece of text goes through ``escape``.

A clickable element carries ``class="act"`` and ``data-action="N"`` (the action index): the
page sends that action when it is clicked (a Cardline gap, a card in your hand, a board cell).
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape as _escape

CARD_WIDTH, CARD_HEIGHT = 64, 90
#: Colours: the felt, a face-up card, a face-down back, an outline, text, a highlight.
FELT, FACE, BACK, INK, TEXT, HIGHLIGHT = (
    "#1f5e3b",
    "#fdfbf4",
    "#3a4f8f",
    "#222222",
    "#f4f4f4",
    "#f2c14e",
)


def escape(text: object) -> str:
    """Text safe inside an SVG element or attribute."""
    return _escape(str(text), quote=True)


class Svg:
    """An SVG document built element by element (``str(svg)`` is the markup)."""

    def __init__(self, width: int, height: int, title: str = "") -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []
        if title:
            self.parts.append(f"<title>{escape(title)}</title>")
        self.rect(0, 0, width, height, fill=FELT, rx=12)

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def rect(self, x: float, y: float, w: float, h: float, fill: str = FACE,
             stroke: str = "none", rx: float = 6, extra: str = "") -> None:  # fmt: skip
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" '
            f'fill="{fill}" stroke="{stroke}"{extra}/>'
        )

    def text(self, x: float, y: float, content: object, size: int = 14, fill: str = TEXT,
             anchor: str = "start", weight: str = "normal", cls: str = "") -> None:  # fmt: skip
        klass = f' class="{cls}"' if cls else ""
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}" '
            f'text-anchor="{anchor}" font-weight="{weight}" font-family="sans-serif"{klass}>'
            f"{escape(content)}</text>"
        )

    def card(self, x: float, y: float, face: Iterable[object] | None, action: int | None = None,
             label: str = "", width: float = CARD_WIDTH, height: float = CARD_HEIGHT,
             highlight: bool = False) -> None:  # fmt: skip
        """A card at ``(x, y)``: ``face`` is its lines of text (the first large), or None for
        a face-down back. With ``action`` it is clickable and says so in its tooltip
        (``label``, e.g. the action's name)."""
        opening, closing = "", ""
        if action is not None:
            opening = (
                f'<g class="act" data-action="{int(action)}" role="button" tabindex="0">'
                f"<title>{escape(label or action)}</title>"
            )
            closing = "</g>"
        self.parts.append(opening)
        stroke = HIGHLIGHT if highlight or action is not None else INK
        if face is None:
            self.rect(x, y, width, height, fill=BACK, stroke=stroke, extra=' class="back"')
            self.rect(x + 6, y + 6, width - 12, height - 12, fill="none", stroke="#8fa3d8")
        else:
            self.rect(x, y, width, height, fill=FACE, stroke=stroke, extra=' class="face"')
            for index, line in enumerate(face):
                size = 22 if index == 0 else 10
                self.text(x + width / 2, y + 28 + index * 16 + (6 if index else 0), line,
                          size=size, fill=INK, anchor="middle",
                          weight="bold" if index == 0 else "normal")  # fmt: skip
        self.parts.append(closing)

    def button(self, x: float, y: float, w: float, h: float, action: int, label: str) -> None:
        """A clickable labelled box (concede, end turn, a gap in a line)."""
        self.parts.append(
            f'<g class="act" data-action="{int(action)}" role="button" tabindex="0">'
            f"<title>{escape(label)}</title>"
        )
        self.rect(x, y, w, h, fill="#f7e3a1", stroke=INK)
        self.text(x + w / 2, y + h / 2 + 5, label, size=13, fill=INK, anchor="middle")
        self.parts.append("</g>")

    def __str__(self) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
            f'width="{self.width}" height="{self.height}" role="img">'
            + "".join(self.parts)
            + "</svg>"
        )


def text_table(title: str, lines: Iterable[str], width: int = 720) -> str:
    """The fallback picture of a game without its own drawing: its view as lines of text."""
    lines = list(lines)
    svg = Svg(width, 60 + 20 * len(lines), title)
    svg.text(16, 30, title, size=18, weight="bold")
    for index, line in enumerate(lines):
        svg.text(16, 56 + 20 * index, line, size=14)
    return str(svg)


__all__ = ["CARD_HEIGHT", "CARD_WIDTH", "Svg", "escape", "text_table"]
