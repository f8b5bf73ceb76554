"""Check the internal links of a built HTML site (``make docs`` runs it on ``build/docs``).

Every ``href`` and ``src`` of every page that is not an external URL must name a file of the
site (a folder counts through its ``index.html``), and a ``#fragment`` must name an ``id`` (or
an anchor's ``name``) of the page it points to. Nothing goes to the network: external links
(``https:``, ``mailto:``, ``//host``) are not followed. Prints each broken link as
``page: link (why)`` and exits 1 if there is one.

    python scripts/check_site_links.py build/docs
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: Attributes that hold a link, by tag.
LINK_ATTRIBUTES = {"a": "href", "link": "href", "img": "src", "script": "src", "source": "src"}


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.add(str(values[key]))
        attribute = LINK_ATTRIBUTES.get(tag)
        if attribute and values.get(attribute) is not None:
            self.links.append(str(values[attribute]))


@dataclass(frozen=True)
class Broken:
    page: str
    link: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.link} ({self.reason})"


def _parse(path: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def check_site(root: Path) -> tuple[list[Broken], int]:
    """(broken links, links checked) of every ``*.html`` page under ``root``."""
    root = root.resolve()
    pages = {path: _parse(path) for path in sorted(root.rglob("*.html"))}
    broken: list[Broken] = []
    checked = 0
    for page, parsed in pages.items():
        name = page.relative_to(root).as_posix()
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue  # external: not this checker's business (and no network)
            checked += 1
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if root != target and root not in target.parents:
                broken.append(Broken(name, link, "points outside the site"))
                continue
            if not target.is_file():
                broken.append(Broken(name, link, "no such file"))
                continue
            fragment = unquote(parts.fragment)
            if not fragment or target.suffix != ".html":
                continue
            ids = pages[target].ids if target in pages else _parse(target).ids
            if fragment not in ids:
                broken.append(Broken(name, link, f"no id {fragment!r} in {target.name}"))
    return broken, checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site (e.g. build/docs)")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}: no index.html (build the site first: make docs)", file=sys.stderr)
        return 2
    broken, checked = check_site(args.site)
    for problem in broken:
        print(problem, file=sys.stderr)
    pages = sum(1 for _ in args.site.rglob("*.html"))
    print(f"{checked} internal links in {pages} pages: {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
