"""Command-line flags generated from a documented dataclass, the CleanRL way: each field is a
flag, its docstring is the ``--help`` text, its annotation the type, its default the default,
and its metadata (``meta(...)``) what else the flag needs, above all the rule every value
must pass, so a flag and the same field set from Python are checked by one definition.

Annotations map to argparse as follows (``X | None`` is ``X`` with the default None):

- ``int``, ``float``: ``type=`` from the field's ``rule`` (a ``Number``: a bad value is
  argparse's usage error naming the flag, the value and what is allowed), metavar N or X.
- ``str``: plain text, or a ``rule`` (``Pattern``), or ``choices``; ``Literal[...]`` too.
- ``bool``: ``--x`` (store_true) when the default is False, ``--no-x`` when it is True.
- ``Path``: ``type=Path``.
- ``list[int]``, ``list[Path]``: ``nargs="+"`` (or the field's ``nargs``); ``list[str]``: a
  repeatable flag (``action="append"``) unless the field gives ``nargs``.

``meta(positional=True)`` makes the field a positional argument of the same name.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import itertools
import math
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass
from pathlib import Path
from typing import Any, Literal, Protocol


class Rule(Protocol):
    """What a field's ``rule`` does: say what it allows, check a value, parse a flag."""

    def describe(self) -> str: ...

    def problem(self, value: Any) -> str | None: ...

    def parse(self, text: str) -> Any: ...


@dataclass(frozen=True)
class Number:
    """What a numeric flag allows: an ``int`` or a finite ``float`` within bounds. The one
    definition both the argparse ``type=`` (``argtype``) and the Python-side checks use
    (``TrainArgs.resolved``, the commands), so a value is refused the same way from the
    shell and from Python."""

    kind: type = int
    low: float | None = None
    high: float | None = None
    low_open: bool = False

    def describe(self) -> str:
        """``an integer >= 1``, ``a finite number in (0, 1]`` ..."""
        what = "an integer" if self.kind is int else "a finite number"
        low, high = self._shown(self.low), self._shown(self.high)
        if self.low is not None and self.high is not None:
            return f"{what} in {'(' if self.low_open else '['}{low}, {high}]"
        if self.low is not None:
            return f"{what} {'>' if self.low_open else '>='} {low}"
        if self.high is not None:
            return f"{what} <= {high}"
        return what

    def _shown(self, bound: float | None) -> str:
        return str(int(bound)) if self.kind is int and bound is not None else f"{bound:g}"

    def problem(self, value: Any) -> str | None:
        """None if ``value`` is allowed, else ``must be <what is allowed>, got <value>``."""
        wrong = f"must be {self.describe()}, got {shown(value)}"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return wrong
        if self.kind is int and not isinstance(value, int):
            return wrong
        if isinstance(value, float) and not math.isfinite(value):
            return wrong
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return wrong
        if self.high is not None and value > self.high:
            return wrong
        return None

    def parse(self, text: str) -> int | float:
        """``text`` as this number; ``ValueError`` saying what is allowed."""
        stripped = text.strip()
        value: int | float
        if self.kind is int:
            if not _INT.fullmatch(stripped):
                raise ValueError(f"must be {self.describe()}, got {shown(text)}")
            value = int(stripped)
        else:
            try:
                value = float(stripped)
            except ValueError:
                raise ValueError(f"must be {self.describe()}, got {shown(text)}") from None
        if self.problem(value):
            raise ValueError(f"must be {self.describe()}, got {shown(text)}")
        return value


@dataclass(frozen=True)
class Pattern:
    """What a text flag allows: a regular expression (matched whole) and its meaning."""

    regex: str
    meaning: str

    def describe(self) -> str:
        return self.meaning

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str) and re.fullmatch(self.regex, value):
            return None
        return f"must be {self.meaning}, got {shown(value)}"

    def parse(self, text: str) -> str:
        problem = self.problem(text)
        if problem:
            raise ValueError(problem)
        return text


#: An integer literal: at most 40 ASCII digits (``int()`` would also take ``1_000``, other
#: scripts' digits, and thousands of digits at quadratic cost).
_INT = re.compile(r"[+-]?[0-9]{1,40}")


def shown(value: Any) -> str:
    """``repr`` of a value, cut short for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def argtype(flag: str, rule: Rule) -> Callable[[str], Any]:
    """An argparse ``type=`` for ``rule``: a bad value is argparse's usage error naming
    ``flag``, the value and what is allowed."""

    def convert(text: str) -> Any:
        try:
            return rule.parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = rule.describe()  # argparse names the type in some messages
    return convert


def meta(
    *,
    rule: Rule | None = None,
    choices: Sequence[str] | None = None,
    metavar: str | None = None,
    nargs: str | None = None,
    positional: bool = False,
    cli: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """A field's ``metadata``, what its flag needs beyond type and default (see the module
    docstring): ``field(default=0, metadata=meta(rule=Number(int, 0, 9)))``. ``cli=False``
    keeps a field off the command line; ``extra`` is more metadata for the dataclass's own
    use (``TrainArgs``: ``backends``)."""
    given = {
        "rule": rule,
        "choices": tuple(choices) if choices is not None else None,
        "metavar": metavar,
        "nargs": nargs,
        "positional": positional or None,
        "cli": None if cli else False,
        **extra,
    }
    return {key: value for key, value in given.items() if value is not None}


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string right below it), read from ``cls``'s source (once:
    every parser built for the CLI and its fuzz test reads it)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
        ):
            docs[node.target.id] = " ".join(str(following.value.value).split())
    return docs


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, evaluated once per class (do not modify the result)."""
    return typing.get_type_hints(cls)


def unwrap(annotation: Any) -> tuple[Any, bool]:
    """``(the type without None, whether None was allowed)``."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0], True
    return annotation, False


def default_of(field: dataclasses.Field[Any]) -> Any:
    """The field's default value (a fresh one from its factory), MISSING if it has none."""
    if field.default_factory is not MISSING:
        return field.default_factory()
    return field.default


def flag_of(cls: type, name: str) -> str:
    """The flag of field ``name`` (``batch_size`` -> ``--batch-size``; a bool defaulting to
    True -> ``--no-x``)."""
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    flag = "--" + name.replace("_", "-")
    if unwrap(type_hints(cls)[name])[0] is bool and default_of(field) is True:
        return "--no-" + flag[2:]
    return flag


def choices_of(cls: type, name: str) -> tuple[Any, ...] | None:
    """The values field ``name`` allows, from its ``choices`` or a ``Literal`` annotation."""
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    if "choices" in field.metadata:
        return tuple(field.metadata["choices"])
    kind, _ = unwrap(type_hints(cls)[name])
    return typing.get_args(kind) if typing.get_origin(kind) is Literal else None


def cli_fields(cls: type) -> list[dataclasses.Field[Any]]:
    """The fields of ``cls`` that are flags or positionals."""
    return [f for f in dataclasses.fields(cls) if f.metadata.get("cli", True)]


def add_dataclass_arguments(
    parser: argparse.ArgumentParser, cls: type, extra_help: Mapping[str, str] | None = None
) -> None:
    """One argument per field of the dataclass ``cls`` (``extra_help``: text added to a
    field's doc, by field name)."""
    docs, hints = field_docs(cls), type_hints(cls)
    for field in cli_fields(cls):
        meta = field.metadata
        kind, _ = unwrap(hints[field.name])
        default = default_of(field)
        flag = flag_of(cls, field.name)
        rule: Rule | None = meta.get("rule")
        help_text = " ".join(
            part for part in (docs.get(field.name, ""), (extra_help or {}).get(field.name)) if part
        )
        if rule is not None:
            help_text += f" Allowed: {rule.describe()}."
        kwargs: dict[str, Any] = {}
        origin = typing.get_origin(kind)
        item = typing.get_args(kind)[0] if origin is list else kind
        if kind is bool:
            kwargs["action"] = "store_false" if default is True else "store_true"
            if default is True:
                kwargs["dest"] = field.name
        elif origin is list and "nargs" not in meta and item is str and not meta.get("positional"):
            kwargs["action"] = "append"
            help_text += " Repeatable."
        elif origin is list:
            kwargs["nargs"] = meta.get("nargs", "+")
        choices = choices_of(cls, field.name)
        if choices is not None:
            kwargs["choices"] = choices
        if rule is not None:
            kwargs["type"] = argtype(flag, rule)
        elif item in (int, float, Path):
            kwargs["type"] = item
        metavar = meta.get("metavar")
        if metavar is None and isinstance(rule, Number) and not meta.get("positional"):
            metavar = "N" if rule.kind is int else "X"
        if metavar is not None:
            kwargs["metavar"] = metavar
        kwargs["help"] = help_text.replace("%", "%%")  # argparse %-formats help texts
        if meta.get("positional"):
            if kwargs.get("nargs") in ("?", "*") and default is not MISSING:
                kwargs["default"] = default
            parser.add_argument(field.name, **kwargs)
            continue
        if kind is not bool and kwargs.get("action") != "append":
            kwargs["default"] = None if default is MISSING else default
        parser.add_argument(flag, **kwargs)


def from_namespace(cls: type, namespace: argparse.Namespace) -> Any:
    """A ``cls`` of the parsed flags (the fields the namespace has; unchecked)."""
    return cls(
        **{
            f.name: getattr(namespace, f.name)
            for f in dataclasses.fields(cls)
            if hasattr(namespace, f.name)
        }
    )


def summary(cls: type) -> tuple[str, str]:
    """``(the first line, the whole)`` of ``cls``'s docstring: a subcommand's help and
    description."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    return doc.split("\n\n")[0].replace("\n", " "), doc


__all__ = [
    "Number",
    "Pattern",
    "Rule",
    "add_dataclass_arguments",
    "argtype",
    "choices_of",
    "cli_fields",
    "default_of",
    "field_docs",
    "flag_of",
    "from_namespace",
    "meta",
    "shown",
    "summary",
    "unwrap",
]
