"""The pages of the documentation site that come from the code, written at ``builder-inited``.

Into ``docs/site/generated/`` (git-ignored, rewritten by every build, stale files removed):

- ``games/<env>.md``: one page per env of ``cardarena.envs.ENVS``: its title, the picture of
  its table (``docs/screenshots/<env>.png``, when there is one), a specs table computed from
  the env itself (built with its default config), a link to its rules, the module docstring
  (arguments, observation layout, action layout, rewards, ...) and its version history;
- ``rules/<env>.md`` (and ``rules/common.md``): ``envs/rulebooks/<env>.md`` included as it ships;
- ``cli.md``: the ``cardarena`` command, walked from ``build_parser()``: every subcommand
  with its usage, description and every argument with its help and default;
- ``tutorials/*.ipynb``: the notebooks of ``notebooks/``, copied (myst-nb renders them,
  never executing them: ``nb_execution_mode = "off"`` in conf.py).

Nothing here is written by hand, so none of it can drift from the code.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

#: The folder under the site's source that this extension owns.
GENERATED = "generated"
#: Width of the usage lines in the CLI reference (fixed: the page must not depend on the
#: terminal that built it).
USAGE_WIDTH = 96
#: What the version history says when an env's docstring has none.
FIRST_RELEASE = "- v0: first release."
_PUNCTUATION = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~:$%&=])")


def md_escape(text: str) -> str:
    """``text`` shown literally in MyST markdown (help strings hold ``<ENV>``, ``*``, ...)."""
    return _PUNCTUATION.sub(r"\\\1", text)


_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`")


def md_text(text: str) -> str:
    """Plain text as MyST markdown: what the text quotes in backticks (the CLI's help uses
    double ones, reStructuredText's, or single ones) as inline code, the rest literally."""
    parts, end = [], 0
    for match in _LITERAL.finditer(text):
        parts += [md_escape(text[end : match.start()]), md_code(match[1] or match[2])]
        end = match.end()
    return "".join([*parts, md_escape(text[end:])])


def md_code(text: str) -> str:
    """``text`` as inline code, whatever backticks it holds."""
    text = " ".join(str(text).split())
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(header: tuple[str, str], rows: list[tuple[str, str]]) -> str:
    lines = [f"| {header[0]} | {header[1]} |", "|---|---|"]
    lines += [f"| {_cell(key)} | {_cell(value)} |" for key, value in rows]
    return "\n".join(lines)


# --- the games -----------------------------------------------------------------------------


def split_title(doc: str, name: str) -> tuple[str, str]:
    """(title, rest) of an env docstring: its first ``# Title`` line, and what follows."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return line[2:].strip(), "\n".join(lines[:i] + lines[i + 1 :]).strip("\n")
    return name, doc


def pop_section(doc: str, heading: str) -> tuple[str, str | None]:
    """``doc`` without its ``## heading`` section, and that section's body (None if none)."""
    lines = doc.splitlines()
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if line.startswith("## ") and line[3:].strip().lower() == heading.lower()
        ),
        None,
    )
    if start is None:
        return doc, None
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(r"#{1,2} ", lines[i])), len(lines)
    )
    body = "\n".join(lines[start + 1 : end]).strip("\n")
    rest = "\n".join(lines[:start] + lines[end:]).strip("\n")
    return rest, body


def split_intro(doc: str) -> tuple[str, str]:
    """(what comes before the first ``##`` heading, the sections from it on)."""
    match = re.search(r"^## ", doc, re.MULTILINE)
    if match is None:
        return doc, ""
    return doc[: match.start()].strip("\n"), doc[match.start() :].strip("\n")


def _range(low: Any, high: Any) -> str:
    import numpy as np

    return f"{float(np.min(low)):g} to {float(np.max(high)):g}"


def describe_space(space: Any) -> str:
    """A short text of a gymnasium space (a Box's bounds summarised, not listed)."""
    from gymnasium import spaces

    if isinstance(space, spaces.Box):
        return f"Box({_range(space.low, space.high)}, {space.shape}, {space.dtype})"
    return str(space)


def spec_rows(name: str, module: ModuleType) -> list[tuple[str, str]]:
    """The specs table of env ``name``, measured on the env built with its default config.

    Keys are stable (tests/docs/test_site.py reads the built table back by them)."""
    from gymnasium import spaces

    from cardarena.envs import make_raw, pettingzoo_id

    env = make_raw(name)
    try:
        agents = list(env.possible_agents)
        first = agents[0]
        metadata = env.metadata
        rows = [
            ("Env name", md_code(name)),
            ("Import", md_code(f"from {module.__name__.rpartition('.')[0]} import {name}")),
            ("PettingZoo id", md_code(pettingzoo_id(name))),
            ("Agents", md_code(repr(agents))),
            ("Players", f"{metadata['min_players']} to {metadata['max_players']}"),
        ]
        action_spaces = {str(env.action_space(agent)) for agent in agents}
        if len(action_spaces) == 1:
            rows.append(("Action space", md_code(str(env.action_space(first)))))
        else:
            rows += [(f"Action space of {a}", md_code(str(env.action_space(a)))) for a in agents]
        observation = env.observation_space(first)
        if isinstance(observation, spaces.Dict):
            for key, space in observation.spaces.items():
                label = key.replace("_", " ").capitalize()
                rows.append((f"{label} shape", md_code(str(space.shape))))
                rows.append((f"{label} dtype", md_code(str(space.dtype))))
                if isinstance(space, spaces.Box):
                    rows.append((f"{label} values", _range(space.low, space.high)))
        else:
            rows.append(("Observation space", md_code(describe_space(observation))))
        state = getattr(env, "state_space", None)
        if state is not None:
            rows.append(("State shape", md_code(str(state.shape))))
        rows.append(("Render modes", ", ".join(md_code(m) for m in metadata["render_modes"])))
        if "zero_sum" in metadata:
            rows.append(("Zero-sum", "yes" if metadata["zero_sum"] else "no"))
        vector = getattr(module, "VECTOR", None)
        rows.append(("Vector engine", md_code(vector) if vector else "none"))
    finally:
        env.close()
    return rows


def game_page(name: str, module: ModuleType, docs: Path, page: Path) -> str:
    """The markdown of env ``name``'s page, written at ``page`` (for relative links)."""
    doc = inspect.cleandoc(module.__doc__ or "")
    title, body = split_title(doc, name)
    body, history = pop_section(body, "Version History")
    intro, sections = split_intro(body)
    prose = "\n".join(line for line in intro.splitlines() if not line.startswith("|")).strip()
    own_table = "\n".join(line for line in intro.splitlines() if line.startswith("|"))
    parts = [f"(game-{name})=", f"# {title} ({md_code(name)})", ""]
    picture = docs / "screenshots" / f"{name}.png"
    if picture.is_file():
        src = os.path.relpath(picture, page.parent).replace(os.sep, "/")
        parts += [f"![The table of {name} in the browser (cardarena serve)]({src})", ""]
    if prose:
        parts += [prose, ""]
    parts += [
        "## Specs",
        "",
        f"Measured on {md_code(f'make_raw({name!r})')} (the default config) when this site was "
        "built:",
        "",
        table(("Spec", "Value"), spec_rows(name, module)),
        "",
    ]
    if own_table:
        parts += ["The env docstring's own table:", "", own_table, ""]
    parts += ["## Rules", ""]
    if (rulebooks(docs) / f"{name}.md").is_file():
        parts.append(
            f"The rules as implemented, with their ids: [the rules of {name}](../rules/{name}.md) "
            f"(also {md_code(f'cardarena rules {name}')}); the rules every game shares are in "
            "[the common rules](../rules/common.md)."
        )
    else:
        parts.append(
            f"No rules file ships for {md_code(name)}; {md_code(f'cardarena rules {name}')} "
            "prints the env docstring below."
        )
    parts += ["", sections, "", "## Version history", "", history or FIRST_RELEASE, ""]
    return "\n".join(parts)


def rulebooks(docs: Path) -> Path:
    """The folder of the rules each game ships (package data of ``cardarena.envs``)."""
    return docs.parent / "envs" / "rulebooks"


def rules_page(name: str, docs: Path, page: Path) -> str:
    source = os.path.relpath(rulebooks(docs) / f"{name}.md", page.parent).replace(os.sep, "/")
    return f"```{{include}} {source}\n:relative-images:\n```\n"


# --- the command line ----------------------------------------------------------------------


@contextlib.contextmanager
def _fixed_terminal() -> Iterator[None]:
    """argparse wraps to the terminal's width (and may colour in 3.14): fix both."""
    keys = ("COLUMNS", "NO_COLOR", "PYTHON_COLORS")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update(COLUMNS=str(USAGE_WIDTH + 2), NO_COLOR="1", PYTHON_COLORS="0")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _paragraphs(text: str | None) -> list[str]:
    if not text:
        return []
    return [md_text(" ".join(p.split())) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _argument(formatter: argparse.HelpFormatter, action: argparse.Action) -> str:
    invocation = formatter._format_action_invocation(action)
    help_text = " ".join(formatter._expand_help(action).split()) if action.help else ""
    line = f"- {md_code(invocation)}"
    if help_text:
        line += f": {md_text(help_text)}"
    default = action.default
    trivial = default is None or default is False or default is argparse.SUPPRESS
    said = "%(default)" in (action.help or "")  # the help already states it
    if action.option_strings and not (trivial or said or isinstance(action, argparse._HelpAction)):
        line += f" (default: {md_code(repr(default))})"
    return line


def parser_section(parser: argparse.ArgumentParser, level: int) -> list[str]:
    """The markdown of ``parser``: heading, description, usage, arguments by group, then its
    own subcommands one level down."""
    parts = [f"{'#' * level} {md_code(parser.prog)}", ""]
    for paragraph in _paragraphs(parser.description):
        parts += [paragraph, ""]
    parts += ["```text", parser.format_usage().strip(), "```", ""]
    formatter = parser._get_formatter()
    for group in parser._action_groups:
        actions = [
            action
            for action in group._group_actions
            if action.help != argparse.SUPPRESS
            and not isinstance(action, argparse._SubParsersAction)
        ]
        if not actions:
            continue
        parts += [f"**{md_text(group.title or 'arguments')}**", ""]
        for paragraph in _paragraphs(group.description):
            parts += [paragraph, ""]
        parts += [_argument(formatter, action) for action in actions]
        parts.append("")
    for paragraph in _paragraphs(parser.epilog):
        parts += [paragraph, ""]
    for child in _subcommands(parser).values():
        parts += parser_section(child, level + 1)
    return parts


def cli_page() -> str:
    from cardarena.cli import build_parser

    with _fixed_terminal():
        parser = build_parser()
        commands = _subcommands(parser)
        parts = [
            "# Command-line reference",
            "",
            f"Generated from {md_code('cardarena.cli.build_parser()')} when this site "
            f"was built; {md_code('cardarena COMMAND --help')} prints the same. Commands: "
            + ", ".join(f"[{md_code(name)}](#cli-{name})" for name in commands)
            + ".",
            "",
        ]
        for paragraph in _paragraphs(parser.description):
            parts += [paragraph, ""]
        parts += ["```text", parser.format_usage().strip(), "```", ""]
        for name, sub in commands.items():
            parts += [f"(cli-{name})=", *parser_section(sub, 2)]
    return "\n".join(parts).rstrip() + "\n"


# --- writing -------------------------------------------------------------------------------


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` in one step: another build reading it at the same moment (two test
    workers, ``make docs`` during the tests) sees the old page or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".~", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def generate(srcdir: Path) -> list[Path]:
    """Write every generated page under ``srcdir/generated``; return the files written."""
    from cardarena.envs import ENVS

    docs = srcdir.parent
    repo = docs.parent
    out = srcdir / GENERATED
    pages: dict[Path, str | Path] = {}
    for name, module in ENVS.items():
        page = out / "games" / f"{name}.md"
        pages[page] = game_page(name, module, docs, page)
    for name in [*ENVS, "common"]:
        if (rulebooks(docs) / f"{name}.md").is_file():
            page = out / "rules" / f"{name}.md"
            pages[page] = rules_page(name, docs, page)
    pages[out / "cli.md"] = cli_page()
    for notebook in sorted((repo / "notebooks").glob("*.ipynb")):
        pages[out / "tutorials" / notebook.name] = notebook
    for path, content in pages.items():
        data = content.read_bytes() if isinstance(content, Path) else content.encode()
        # Rewrite only what changed, so an incremental build rereads only those pages.
        if not path.is_file() or path.read_bytes() != data:
            _write_atomically(path, data)
    if out.is_dir():  # a game no longer registered leaves no page behind
        for stale in out.rglob("*"):
            if stale.is_file() and stale not in pages and not stale.name.startswith(".~"):
                stale.unlink(missing_ok=True)
        for folder in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
            with contextlib.suppress(OSError):  # not empty (or gone): keep it
                folder.rmdir()
    return list(pages)


# --- links of the included pages ----------------------------------------------------------

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def site_page(path: Path, srcdir: Path) -> Path | None:
    """The site page that shows the repository file ``path``, if there is one: the wrapper
    ``docs/site/<name>.md`` of ``docs/<name>.md``, the rules page of ``envs/rulebooks/<env>.md``."""
    docs = srcdir.parent
    if path.suffix != ".md":
        return None
    if path.parent == docs and (srcdir / path.name).is_file():
        return srcdir / path.name
    if path.parent == rulebooks(docs) and (srcdir / GENERATED / "rules" / path.name).is_file():
        return srcdir / GENERATED / "rules" / path.name
    return None


def relink(text: str, included: Path, including: Path, srcdir: Path) -> str:
    """The links of ``included`` (a file of docs/ shown inside the page ``including``) made to
    work from the site: a page the site shows links to that page, another file of the
    repository becomes a download (when it is a file) or plain text (a folder), as MyST
    resolves a link from the including page, not from the included file."""

    def replace(match: re.Match[str]) -> str:
        target = match["target"]
        if _SCHEME.match(target) or target.startswith("#"):
            return match[0]
        path_part, hash_, fragment = target.partition("#")
        resolved = (included.parent / path_part).resolve()
        page = site_page(resolved, srcdir)
        if page is not None:
            new = os.path.relpath(page, including.parent).replace(os.sep, "/")
            return f"[{match['text']}]({new}{hash_}{fragment})"
        if resolved.is_file() and not hash_:
            new = os.path.relpath(resolved, including.parent).replace(os.sep, "/")
            return f"[{match['text']}]({new})"
        return match["text"]

    lines, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        lines.append(line if fenced else _LINK.sub(replace, line))
    return "\n".join(lines)


def _on_include_read(
    app: Any, relative_path: Path, parent_docname: str, content: list[str]
) -> None:
    srcdir = Path(app.srcdir)
    included = (srcdir / relative_path).resolve()
    if srcdir in included.parents and GENERATED not in included.relative_to(srcdir).parts:
        return  # a page of the site itself: its links are already the site's
    including = Path(app.env.doc2path(app.env.docname))
    content[0] = relink(content[0], included, including, srcdir)


def _on_builder_inited(app: Any) -> None:
    generate(Path(app.srcdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _on_builder_inited)
    app.connect("include-read", _on_include_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
