"""``file_config_keys``: every config key that can make an env read a file is declared, so a
server (``cardarena serve``) can refuse such values from requests and nothing else can."""

from __future__ import annotations

import contextlib
import inspect
from pathlib import Path

import pytest
from helpers import FileWatch

from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import CardArenaError
from cardarena.envs.core.aec import config_keys


@pytest.fixture
def bait(tmp_path: Path) -> Path:
    """A real file a config value can name (a CSV a loader would open and read)."""
    path = tmp_path / "bait.csv"
    path.write_text("name,colour,year\nA,red,1\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(ENVS))
def test_every_path_typed_config_key_is_declared(name):
    raw = ENVS[name].raw_env
    parameters = inspect.signature(raw.build_game).parameters
    path_typed = {key for key, p in parameters.items() if "PathLike" in str(p.annotation)}
    assert path_typed == set(raw.file_config_keys), (path_typed, raw.file_config_keys)


@pytest.mark.parametrize("name", sorted(ENVS))
def test_only_declared_keys_open_a_file_they_name(name, bait):
    raw = ENVS[name].raw_env
    for key in config_keys(raw.build_game) or ():
        with FileWatch(bait) as watch, contextlib.suppress(CardArenaError):
            make_raw(name, **{key: str(bait)})
        # A declared key's loader reads the file (which shows the watch works); no other may.
        assert bool(watch.events) == (key in raw.file_config_keys), (name, key, watch.events)


@pytest.mark.parametrize(
    ("name", "key"), [(n, k) for n in sorted(ENVS) for k in ENVS[n].raw_env.file_config_keys]
)
def test_each_loader_reads_the_shipped_table_into_rows_the_env_takes(name, key):
    """What ``cardarena serve --deck`` does: read the file once, then pass its rows."""
    loader = ENVS[name].raw_env.file_config_keys[key]
    rows = [dict(row) for row in loader(None).rows]
    assert make_raw(name, **{key: rows}).possible_agents == make_raw(name).possible_agents
