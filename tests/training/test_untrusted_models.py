"""Model files from somebody else never run code: crafted payloads through every entry point.

Each payload writes a marker file when unpickled. The same stealthy SB3 ``.zip`` that SB3's own
loader executes (``trust_pickle=true``, the documented opt-in, proves the payload is live) is
played safely by the default reader; payloads hidden in checkpoint arrays, in a format-1
checkpoint's ``model.zip`` or in ``policy.pth`` are refused, naming what was refused, by
``load_checkpoint``, agent specs, ``cardarena eval``/``play``/``export``/``export --best`` and
``train --resume``. A static scan keeps unpickling loads out of the package's code.
"""

from __future__ import annotations

import ast
import base64
import builtins
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cardarena.agents import make_agent
from cardarena.agents.base import EnvSpec
from cardarena.cli import main
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation import evaluate
from cardarena.training.checkpoint import load_checkpoint, save_checkpoint

sb3_contrib = pytest.importorskip("sb3_contrib")
cloudpickle = pytest.importorskip("cloudpickle")
torch = pytest.importorskip("torch")

ENV = "promise_war_v0"
ROOT = Path(__file__).resolve().parents[2]


class Payload:
    """Unpickled, it writes ``marker``; with ``then`` it evaluates to that expression
    afterwards, so the file goes on loading normally (the stealthy variant)."""

    def __init__(self, marker: Path, then: str = "None") -> None:
        self.code = f"(open({str(marker)!r}, 'w').write('ran'), {then})[1]"

    def __reduce__(self):
        return (builtins.eval, (self.code,))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from cardarena.training import SingleAgentEnv

    bridge = SingleAgentEnv(ENV)
    model = sb3_contrib.MaskablePPO("MlpPolicy", bridge, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")  # fmt: skip
    model.learn(total_timesteps=64)
    folder = tmp_path_factory.mktemp("honest")
    model.save(folder / "model.zip")
    return bridge, model, folder / "model.zip"


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "payload-ran"
    yield path


def _rewrite_zip(source: Path, target: Path, replace: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as crafted:
        for info in original.infolist():
            crafted.writestr(info.filename, replace.get(info.filename, original.read(info)))
    return target


def _pickled(payload: object) -> str:
    return base64.b64encode(cloudpickle.dumps(payload)).decode()


def _stealthy_zip(honest: Path, target: Path, marker: Path) -> Path:
    """SB3's own ``policy_class`` entry swapped for a payload that runs, then yields the real
    class: SB3's loader runs it and plays normally; the readable fields are untouched."""
    with zipfile.ZipFile(honest) as archive:
        data = json.loads(archive.read("data"))
    real = "__import__('sb3_contrib').common.maskable.policies.MaskableActorCriticPolicy"
    data["policy_class"][":serialized:"] = _pickled(Payload(marker, then=real))
    return _rewrite_zip(honest, target, {"data": json.dumps(data).encode()})


def test_the_stealthy_payload_is_live_and_only_the_opt_in_runs_it(trained, tmp_path, marker):
    _, _, honest = trained
    evil = _stealthy_zip(honest, tmp_path / "evil.zip", marker)
    safe = make_agent(str(evil))
    result = evaluate(lambda: make_raw(ENV), safe, "random", games=4, seed=1)
    assert result.games == 4 and safe.acts_in_numpy
    assert not marker.exists()  # played, from the same file, without running it
    trusting = make_agent(f"{evil}:trust_pickle=true")
    again = evaluate(lambda: make_raw(ENV), trusting, "random", games=4, seed=1)
    assert marker.read_text() == "ran"  # SB3's loader executed it: the payload is real
    assert (again.wins, again.draws, again.losses) == (result.wins, result.draws, result.losses)


def test_an_entry_the_reader_cannot_rebuild_is_refused_by_name(trained, tmp_path, marker):
    _, _, honest = trained
    with zipfile.ZipFile(honest) as archive:
        data = json.loads(archive.read("data"))
    data["sneaky"] = {":type:": "<class 'object'>", ":serialized:": _pickled(Payload(marker))}
    evil = _rewrite_zip(honest, tmp_path / "evil.zip", {"data": json.dumps(data).encode()})
    agent = make_agent(str(evil))
    with pytest.raises(InvalidConfigError, match=r"entry 'sneaky' .* only be read by unpickling"):
        evaluate(lambda: make_raw(ENV), agent, "random", games=1)
    data.pop("sneaky")
    data["policy_class"]["__init__"] = "<function EvilPolicy.__init__ at 0x0>"
    evil = _rewrite_zip(honest, tmp_path / "evil2.zip", {"data": json.dumps(data).encode()})
    with pytest.raises(InvalidConfigError, match=r"policy_class is .*EvilPolicy; this reader"):
        evaluate(lambda: make_raw(ENV), make_agent(str(evil)), "random", games=1)
    assert not marker.exists()


def test_a_pickle_in_policy_pth_is_refused_by_weights_only(trained, tmp_path, marker):
    _, _, honest = trained
    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buffer)
    evil = _rewrite_zip(honest, tmp_path / "evil.zip", {"policy.pth": buffer.getvalue()})
    with pytest.raises(InvalidConfigError, match=r"policy.pth is not a plain tensor file"):
        evaluate(lambda: make_raw(ENV), make_agent(str(evil)), "random", games=1)
    assert not marker.exists()


def test_sizes_are_checked_before_decompressing(trained, tmp_path):
    _, _, honest = trained
    with zipfile.ZipFile(honest) as archive:
        data = archive.read("data")
    padded = data[:-1] + b" " * (9 * 1024 * 1024) + data[-1:]  # 9 MB of JSON, zips to KBs
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(honest) as original, zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        for info in original.infolist():
            z.writestr(info.filename, padded if info.filename == "data" else original.read(info))
    assert big.stat().st_size < 1024 * 1024
    with pytest.raises(InvalidConfigError, match=r"data is [\d,]+ bytes; at most"):
        evaluate(lambda: make_raw(ENV), make_agent(str(big)), "random", games=1)


# --- checkpoints -----------------------------------------------------------------------------
def _checkpoint(trained, path: Path) -> Path:
    bridge, model, _ = trained
    return save_checkpoint(path, model, EnvSpec(ENV), bridge.scaler, step=64, opponents=["random"])


def _poison_policy(checkpoint: Path, marker: Path) -> Path:
    """An object array holding the payload in policy.npz, with a matching checksum."""
    from cardarena.training import checkpoint as ckpt

    with np.load(checkpoint / "policy.npz") as arrays:
        contents = {key: arrays[key] for key in arrays.files}
    evil = np.empty(1, dtype=object)
    evil[0] = Payload(marker)
    contents["action_net.bias"] = evil
    np.savez(checkpoint / "policy.npz", **contents, allow_pickle=True)
    meta = json.loads((checkpoint / "meta.json").read_text())
    meta["files"]["policy.npz"] = ckpt._sha256(checkpoint / "policy.npz")
    (checkpoint / "meta.json").write_text(json.dumps(meta))
    return checkpoint


def _format_one(trained, checkpoint: Path, marker: Path, tmp_path: Path) -> Path:
    """What an old checkpoint looked like: format 1 with an SB3 model.zip, here a stealthy one."""
    meta = json.loads((checkpoint / "meta.json").read_text())
    _stealthy_zip(trained[2], checkpoint / "model.zip", marker)
    (checkpoint / "meta.json").write_text(json.dumps({**meta, "format": 1}))
    return checkpoint


def test_a_poisoned_checkpoint_is_refused_everywhere(trained, tmp_path, marker, monkeypatch,
                                                      capsys):  # fmt: skip
    run = tmp_path / "run"
    evil = _poison_policy(_checkpoint(trained, run / "checkpoints" / "step_64"), marker)
    _poison_policy(_checkpoint(trained, run / "latest"), marker)
    (run / "eval.jsonl").write_text(json.dumps({"step": 64, "win_rate_heuristic": 0.9}) + "\n")
    with pytest.raises(InvalidConfigError, match=r"policy\.npz"):
        load_checkpoint(evil)
    with pytest.raises(InvalidConfigError, match=r"policy\.npz"):
        evaluate(lambda: make_raw(ENV), make_agent(str(evil)), "random", games=1)
    monkeypatch.setattr(builtins, "input", lambda prompt="": "1")
    commands = [
        ["eval", ENV, str(evil), "random", "--games", "2", "--quiet"],
        ["play", ENV, "--vs", str(evil)],
        ["export", str(evil), str(tmp_path / "out.npz")],
        ["export", str(run), str(tmp_path / "best.npz"), "--best", "heuristic"],
        ["train", ENV, "--out", str(run), "--resume", "--steps", "128", "--no-progress"],
    ]
    for argv in commands:
        assert main(argv) == 2, argv
        assert "policy.npz" in capsys.readouterr().err, argv
    assert not marker.exists()
    assert not (tmp_path / "out.npz").exists() and not (tmp_path / "best.npz").exists()


def test_a_format_one_checkpoint_is_refused_without_reading_its_model(trained, tmp_path, marker,
                                                                       capsys):  # fmt: skip
    old = _format_one(trained, _checkpoint(trained, tmp_path / "old"), marker, tmp_path)
    with pytest.raises(InvalidConfigError, match=r"format 1 \(an SB3 model.zip"):
        load_checkpoint(old)
    assert main(["eval", ENV, str(old), "random", "--games", "2", "--quiet"]) == 2
    assert "trust_pickle=true" in capsys.readouterr().err
    assert not marker.exists()


# --- the package's code ----------------------------------------------------------------------
#: Calls that unpickle, and the one place each may stand (an opt-in or the user's own files).
UNPICKLING = {
    "pickle.load", "pickle.loads", "cloudpickle.load", "cloudpickle.loads", "torch.load",
    "MaskablePPO.load", "PPO.load", "load_from_zip_file", "RLModule.from_checkpoint",
    "restore_from_path", "Algorithm.from_checkpoint",
}  # fmt: skip
ALLOWED = {
    ("agents/policy_agent.py", "_unsafe_sb3_load", "MaskablePPO.load"),  # trust_pickle=true
    ("agents/sb3_zip.py", "_load_weights", "torch.load"),  # weights_only=True, checked below
    # RLlib checkpoints are Ray's pickles: only a run's own are resumed (README, Security).
    ("training/rllib/export.py", "load_module", "RLModule.from_checkpoint"),
    ("training/rllib/loop.py", "_resume", "restore_from_path"),
}


def _calls(path: Path):
    tree = ast.parse(path.read_text())
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                short = ".".join(name.split(".")[-2:])
                for candidate in (name, short, name.split(".")[-1]):
                    if candidate in UNPICKLING:
                        yield getattr(function, "name", "<module>"), candidate, node


def test_no_unpickling_load_outside_the_documented_places():
    found = set()
    for folder in ("envs", "agents", "training", "evaluation", "cli", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            for function, call, node in _calls(path):
                if function == "<module>":
                    continue
                found.add((relative, function, call))
                if call == "torch.load":
                    keywords = {k.arg: ast.unparse(k.value) for k in node.keywords}
                    assert keywords.get("weights_only") == "True", (relative, function)
                for keyword in node.keywords:
                    if keyword.arg == "allow_pickle":
                        assert ast.unparse(keyword.value) == "False", (relative, function)
    unexpected = {entry for entry in found if entry not in ALLOWED}
    assert not unexpected, f"unpickling loads outside the documented places: {unexpected}"
    assert {entry for entry in ALLOWED if not entry[0].startswith("training/rllib/")} <= found
