"""The operator's served tables and the refusal of a file-key value, pinned where the mutation
run (docs/mutation/web.configs.md) found them loose: a ``--deck`` item needs both a name and a
path, a served table cannot be changed once read, and a refused value is echoed cut short."""

from __future__ import annotations

import dataclasses
import re

import pytest

from cardarena.envs.core import InvalidConfigError
from cardarena.web.configs import ServedTable, read_served_tables, resolve_config


@pytest.mark.parametrize("item", ["=years.csv", "years=", " =years.csv"])
def test_a_deck_item_without_a_name_or_a_path_is_refused_as_malformed(item):
    """Refused by its form, before any file is tried (kills ``or`` -> ``and`` in the check of
    ``not equals or not name or not path``: those would try the file and answer otherwise)."""
    with pytest.raises(InvalidConfigError, match="takes NAME=PATH"):
        read_served_tables([item])


def test_a_served_table_cannot_be_changed_once_read():
    """One table serves every session, so it is frozen (kills ``frozen=True`` -> ``False``)."""
    table = ServedTable("years", "years.csv", [{"name": "a"}], (("cardline_v0", "deck"),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.rows = []  # type: ignore[misc]


def test_a_refused_value_is_echoed_cut_at_sixty_characters():
    """A request's value comes back bounded (kills ``show(value, 60)`` -> 59 or 61)."""
    value = {"k" * 100: "v" * 100}
    with pytest.raises(InvalidConfigError) as refused:
        resolve_config("cardline_v0", {"deck": value}, {})
    echoed = re.search(r"'deck' is (.*), which is not a table", str(refused.value))
    assert echoed is not None, str(refused.value)
    assert echoed.group(1).endswith("...") and len(echoed.group(1)) == 60 + len("...")
