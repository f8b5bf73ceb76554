"""load_npz and NumpyPolicy.load: a .npz from a stranger runs no code, allocates no more than
its checked headers allow, and every refusal is an InvalidConfigError naming the problem."""

from __future__ import annotations

import io
import json
import pathlib
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

from cardarena.agents import NumpyPolicy
from cardarena.agents.pretrained import shipped_policies
from cardarena.agents.safe_npz import load_npz
from cardarena.envs.core import InvalidConfigError

MB = 1024 * 1024
LIMITS = {"max_file_bytes": 64 * MB, "max_entries": 16, "max_array_bytes": 16 * MB}


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    """A version 1.0 .npy header declaring ``shape`` (no data follows)."""
    buffer = io.BytesIO()
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


def write_zip(path: pathlib.Path, entries: dict[str, bytes], compress=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compress) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def peak_bytes(call) -> int:
    """Peak memory traced while ``call()`` runs (numpy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refused(path, match, **limits):
    with pytest.raises(InvalidConfigError, match=match):
        load_npz(path, "test file", **{**LIMITS, **limits})


# --- what is accepted ------------------------------------------------------------------------
@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_numeric_arrays_round_trip(tmp_path, save):
    arrays = {
        "w": np.arange(12, dtype=np.float32).reshape(3, 4),
        "i": np.array([-1, 2], np.int64),
        "u": np.array(7, np.uint8),
        "b": np.array([True, False]),
        "empty": np.zeros((0, 5), np.float64),
    }
    save(tmp_path / "a.npz", **arrays)
    loaded = load_npz(tmp_path / "a.npz", "test file", **LIMITS)
    assert sorted(loaded) == sorted(arrays)
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array)


def test_a_listed_text_entry_may_be_one_string(tmp_path):
    np.savez(tmp_path / "a.npz", meta=np.array('{"x": 1}'), w=np.ones(2, np.float32))
    loaded = load_npz(tmp_path / "a.npz", "f", **LIMITS, text_entries={"meta": 100})
    assert str(loaded["meta"][()]) == '{"x": 1}'
    refused(tmp_path / "a.npz", r"entry 'meta' has dtype '<U8'")  # not listed: refused
    with pytest.raises(InvalidConfigError, match=r"'meta' is a string of 8 characters; at most 4"):
        load_npz(tmp_path / "a.npz", "f", **LIMITS, text_entries={"meta": 4})
    np.savez(tmp_path / "b.npz", meta=np.array(["a", "b"]))
    with pytest.raises(InvalidConfigError, match=r"unicode array of shape \(2,\); only a single"):
        load_npz(tmp_path / "b.npz", "f", **LIMITS, text_entries={"meta": 100})


# --- dtypes that are refused -----------------------------------------------------------------
@pytest.mark.parametrize(
    "array",
    [
        np.array(["spam", "eggs"]),
        np.array([b"spam"]),
        np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]),
        np.zeros(2, dtype=np.complex64),
        np.zeros(2, dtype="<M8[s]"),
    ],
    ids=["unicode", "bytes", "structured", "complex", "datetime"],
)
def test_non_numeric_dtypes_are_refused_from_the_header(tmp_path, array):
    np.savez(tmp_path / "a.npz", a=array)
    refused(tmp_path / "a.npz", r"test file, entry 'a' has dtype .* only plain arrays of dtype")


class Payload:
    """Unpickling this writes a marker file: proof that code from the file would have run."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.write_text, (self.marker, "code from the file ran"))


def test_object_array_with_a_pickled_payload_never_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "evil.npz"
    np.savez(path, a=np.array([Payload(marker), 1], dtype=object), allow_pickle=True)
    assert not marker.exists()
    refused(path, r"entry 'a' has dtype '\|O'")
    with pytest.raises(InvalidConfigError, match="dtype"):
        NumpyPolicy.load(path)
    assert not marker.exists()
    with np.load(path, allow_pickle=True) as data:  # the payload is live: pickle runs it
        data["a"]
    assert marker.read_text() == "code from the file ran"


# --- sizes, checked before anything is decompressed ------------------------------------------
def test_a_header_declaring_gigabytes_is_refused_without_allocating(tmp_path):
    # 6 MB of zeros after a header that declares 1.5e9 float32 (6 GB): np.load would
    # allocate the 6 GB array before finding the data short.
    path = write_zip(
        tmp_path / "bomb.npz",
        {"weight_0.npy": npy_header((1_500_000_000,)) + bytes(6 * MB)},
    )
    message = r"declares shape \(1500000000,\) of <f4: 6,000,000,000 bytes; at most 16,777,216"
    peak = peak_bytes(lambda: refused(path, message))
    assert peak < 4 * MB


def test_a_zip_bomb_declaring_gigabytes_uncompressed_is_refused_before_inflating(tmp_path):
    # A real entry, then its declared uncompressed size patched to 4 GB in both zip headers:
    # the decompressor would be asked for 4 GB from a file of a few KB.
    data = npy_header((4 * MB,)) + bytes(16 * MB)
    raw = bytearray(write_zip(tmp_path / "x.npz", {"weight_0.npy": data}).read_bytes())
    local, central = raw.find(b"PK\x03\x04"), raw.find(b"PK\x01\x02")
    raw[local + 22 : local + 26] = struct.pack("<I", 4_000_000_000)
    raw[central + 24 : central + 28] = struct.pack("<I", 4_000_000_000)
    path = tmp_path / "bomb.npz"
    path.write_bytes(bytes(raw))
    assert len(raw) < 100_000
    assert zipfile.ZipFile(path).getinfo("weight_0.npy").file_size == 4_000_000_000
    peak = peak_bytes(lambda: refused(path, r"declares 4,000,000,000 bytes uncompressed"))
    assert peak < 4 * MB


def test_declared_size_must_match_the_header(tmp_path):
    # The header says 10 floats, the entry holds 20: the stream could not be trusted.
    path = write_zip(tmp_path / "a.npz", {"a.npy": npy_header((10,)) + bytes(80)})
    refused(path, r"declares 208 bytes uncompressed, but its header \(<f4 \(10,\)\) means 168")
    short = write_zip(tmp_path / "b.npz", {"a.npy": npy_header((10,)) + bytes(8)})
    refused(short, r"declares 136 bytes uncompressed, but its header")


def test_file_entry_and_total_limits(tmp_path):
    np.savez(tmp_path / "a.npz", a=np.zeros(1000, np.float64), b=np.zeros(1000, np.float64))
    refused(tmp_path / "a.npz", r"test file is \d[\d,]* bytes; at most 100 are read",
            max_file_bytes=100)  # fmt: skip
    refused(tmp_path / "a.npz", r"holds 2 entries; at most 1 are accepted", max_entries=1)
    refused(tmp_path / "a.npz", r"'a' declares shape \(1000,\) of <f8: 8,000 bytes; at most 4,000",
            max_array_bytes=4000)  # fmt: skip
    with pytest.raises(InvalidConfigError, match=r"16,000 bytes together; at most 10,000"):
        load_npz(tmp_path / "a.npz", "f", **LIMITS, max_total_bytes=10_000)
    np.savez(tmp_path / "d.npz", a=np.zeros((1,) * 9))
    refused(tmp_path / "d.npz", r"has 9 dimensions; at most 8")


@pytest.mark.parametrize("name", ["../up.npy", "dir/a.npy", "a.txt", "a b.npy", ".npy"])
def test_entry_names_are_plain(tmp_path, name):
    path = write_zip(tmp_path / "a.npz", {name: npy_bytes(np.zeros(2))})
    refused(path, r"is not named <name>\.npy")


def test_repeated_entries_are_refused(tmp_path):
    path = tmp_path / "a.npz"
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.npy", npy_bytes(np.zeros(2)))
        archive.writestr("a.npy", npy_bytes(np.ones(2)))
    refused(path, r"entry 'a.npy' appears twice")


def test_other_compressions_are_refused(tmp_path):
    path = write_zip(tmp_path / "a.npz", {"a.npy": npy_bytes(np.zeros(2))}, zipfile.ZIP_BZIP2)
    refused(path, r"uses zip compression 12; only stored \(0\) and deflated \(8\)")


@pytest.mark.parametrize(
    "content",
    [b"", b"not a zip at all", b"PK\x03\x04" + bytes(40)],
    ids=["empty", "text", "truncated"],
)
def test_not_a_zip(tmp_path, content):
    path = tmp_path / "a.npz"
    path.write_bytes(content)
    refused(path, r"is not a readable \.npz \(zip\) file")


def test_bad_headers_and_missing_file(tmp_path):
    path = write_zip(tmp_path / "a.npz", {"a.npy": b"\x93NUMPY\x01\x00" + b"\x10\x00{'descr': 1}"})
    refused(path, r"entry 'a' has no valid \.npy header")
    refused(write_zip(tmp_path / "b.npz", {"a.npy": b"hello"}), r"no valid \.npy header")
    refused(tmp_path / "missing.npz", r"test file cannot be read: No such file")


def test_a_corrupted_deflate_stream_is_a_clean_error(tmp_path):
    path = tmp_path / "a.npz"
    np.savez_compressed(path, a=np.random.default_rng(0).random(5000))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    refused(path, r"(cannot be read|not a readable)")


# --- NumpyPolicy.load ------------------------------------------------------------------------
def policy_arrays(meta=None) -> dict[str, np.ndarray]:
    meta = {"format": 1, "activation": "tanh", "env": "promise_war_v0"} if meta is None else meta
    rng = np.random.default_rng(0)
    return {
        "meta": np.array(json.dumps(meta)),
        "scale_offset": np.zeros(3, np.float32),
        "scale_factor": np.ones(3, np.float32),
        "weight_0": rng.normal(size=(4, 3)).astype(np.float32),
        "bias_0": np.zeros(4, np.float32),
        "weight_1": rng.normal(size=(2, 4)).astype(np.float32),
        "bias_1": np.zeros(2, np.float32),
    }


def save_policy(tmp_path, **changes) -> pathlib.Path:
    arrays = {**policy_arrays(), **changes}
    path = tmp_path / "policy.npz"
    np.savez_compressed(path, **{k: v for k, v in arrays.items() if v is not None})
    return path


def test_a_good_policy_loads_and_acts(tmp_path):
    policy = NumpyPolicy.load(save_policy(tmp_path))
    assert policy.actions == 2 and policy.act(np.zeros(3), np.array([0, 1])) == 1


@pytest.mark.parametrize("name", ["weight_0", "bias_1", "scale_offset", "scale_factor"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_refused_at_load(tmp_path, name, bad):
    array = policy_arrays()[name].copy()
    array.flat[0] = bad
    with pytest.raises(InvalidConfigError, match=rf"policy\.npz.*: {name} holds 1 non-finite"):
        NumpyPolicy.load(save_policy(tmp_path, **{name: array}))


def test_a_float64_weight_that_overflows_float32_is_refused(tmp_path):
    weight = policy_arrays()["weight_0"].astype(np.float64)
    weight[0, 0] = 1e300
    with pytest.raises(InvalidConfigError, match=r"weight_0 holds 1 non-finite value.*float32"):
        NumpyPolicy.load(save_policy(tmp_path, weight_0=weight))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"meta": np.array("[1, 2]")}, r"meta must be a JSON object, got a list"),
        ({"meta": np.array('"text"')}, r"meta must be a JSON object, got a str"),
        ({"meta": np.array("{not json")}, r"meta is not valid JSON"),
        ({"meta": np.array("[" * 100_000 + "]" * 100_000)}, r"meta: JSON nested too deeply"),
        ({"meta": np.array('{"format": 1' + "1" * 5000 + "}")}, r"meta: refused an integer"),
        ({"meta": np.array(["{}"])}, r"'meta' is a unicode array of shape \(1,\)"),
        ({"meta": np.zeros(3)}, r"'meta' must be a JSON string, not numbers"),
        ({"meta": None}, r"not an exported cardarena policy \(no meta\)"),
        ({"scale_factor": None}, r"no scale_factor"),
        ({"bias_1": None}, r"layer arrays incomplete \(missing bias_1\)"),
        ({"weight_0": np.ones((4, 3), np.int32)}, r"'weight_0' has dtype '<i4'.* kinds f"),
        ({"weight_0": np.ones((4, 3, 1), np.float32)}, r"'weight_0' has 3 dimensions; at most 2"),
        ({"weight_0": np.ones((4, 5), np.float32)}, r"do not chain onto 3 inputs"),
        ({"scale_factor": np.ones(4, np.float32)}, r"scale_offset \(3,\) and scale_factor \(4,\)"),
        ({"weight_0": np.array(["x"])}, r"'weight_0' has dtype '<U1'"),
    ],
)
def test_malformed_policies_are_refused_clearly(tmp_path, changes, message):
    with pytest.raises(InvalidConfigError, match=message):
        NumpyPolicy.load(save_policy(tmp_path, **changes))


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"format": 2, "activation": "tanh"}, r"policy format 2; this cardarena reads format 1"),
        ({"format": 1, "activation": "gelu"}, r"meta 'activation' is 'gelu'; supported: relu"),
        ({"format": 1, "activation": ["tanh"]}, r"meta 'activation' is \['tanh'\]"),
    ],
)
def test_meta_fields_are_checked(tmp_path, meta, message):
    with pytest.raises(InvalidConfigError, match=message):
        NumpyPolicy.load(save_policy(tmp_path, meta=np.array(json.dumps(meta))))


def test_the_constructor_refuses_non_finite_weights_too():
    arrays = policy_arrays()
    weight = arrays["weight_1"].copy()
    weight[1, 1] = np.nan
    layers = [(arrays["weight_0"], arrays["bias_0"]), (weight, arrays["bias_1"])]
    with pytest.raises(InvalidConfigError, match=r"weight_1 holds 1 non-finite"):
        NumpyPolicy(layers, "tanh", arrays["scale_offset"], arrays["scale_factor"], {})


def test_shipped_policies_load_and_save_round_trips(tmp_path):
    for env_name, path in shipped_policies().items():
        policy = NumpyPolicy.load(path)
        saved = NumpyPolicy.load(policy.save(tmp_path / f"{env_name}.npz"))
        assert saved.meta == policy.meta and saved.actions == policy.actions
        for (w1, b1), (w2, b2) in zip(saved.layers, policy.layers, strict=True):
            assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_a_policy_bomb_is_refused_cheaply(tmp_path):
    path = write_zip(
        tmp_path / "policy.npz",
        {
            "meta.npy": npy_bytes(np.array(json.dumps({"format": 1, "activation": "tanh"}))),
            "weight_0.npy": npy_header((200_000, 200_000)) + bytes(MB),
        },
    )

    def load() -> None:
        with pytest.raises(
            InvalidConfigError, match=r"'weight_0' declares shape .*160,000,000,000"
        ):
            NumpyPolicy.load(path)

    assert peak_bytes(load) < 4 * MB
