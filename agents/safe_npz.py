"""Reading a ``.npz`` file somebody else wrote: nothing executes, and the cost is bounded.

``np.load`` alone is not enough for a file from a stranger: with ``allow_pickle=False`` it
runs no code, but it allocates whatever an entry's header declares (a 6 MB zip of zeros can
declare 6 GB), accepts string and structured arrays the caller never expects, and reports
problems as assorted exceptions. ``load_npz`` checks everything it can from the zip
directory and the ``.npy`` headers *before* it decompresses a single array:

1. the file size (``os.stat``) is at most ``max_file_bytes``;
2. the zip holds at most ``max_entries`` entries, each named ``<name>.npy`` with ``<name>``
   made of letters, digits and ``_`` (no folders, no repeats), stored or deflated, not
   encrypted;
3. each entry's ``.npy`` header (``numpy.lib.format``, versions 1.0 and 2.0; the header is
   parsed with ``ast.literal_eval``, never executed) declares a plain dtype: one of the
   ``allowed_dtypes`` kinds (numbers and booleans by default), never object, string,
   structured or sub-array dtypes, except that the entries listed in ``text_entries`` may
   instead be a 0-d unicode string of at most the given number of characters (the ``meta``
   JSON that ``NumpyPolicy.save`` writes);
4. the shape has at most ``max_ndim`` dimensions and the array at most ``max_array_bytes``
   bytes (computed in Python integers: no overflow), all arrays together at most
   ``max_total_bytes``, and the entry's declared uncompressed size (``ZipInfo.file_size``)
   is exactly its header plus that many bytes, so the decompressor cannot be asked for more.

Only then is each array read, with ``allow_pickle=False``, from a stream that ``zipfile``
stops at the declared size (and checks against the CRC), and its size compared with its
header. Every problem raises ``InvalidConfigError`` naming ``what``, the entry and the limit.
The caller then checks meaning (finite values, expected shapes).
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

import numpy as np
from numpy.lib import format as npy_format

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import printable

#: ``dtype.kind`` of the arrays accepted by default: booleans, integers, floats.
NUMERIC_KINDS = ("b", "i", "u", "f")
#: Largest ``.npy`` header parsed (numpy's own default is 10,000 bytes).
MAX_HEADER_BYTES = 10_000
#: Most dimensions an array may have by default.
MAX_NDIM = 8

_ENTRY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.]{0,127}\.npy")
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def load_npz(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_file_bytes: int,
    max_entries: int,
    max_array_bytes: int,
    max_total_bytes: int | None = None,
    allowed_dtypes: Iterable[str] = NUMERIC_KINDS,
    text_entries: Mapping[str, int] | None = None,
    max_ndim: int = MAX_NDIM,
) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` at ``path`` by name (without ``.npy``), each checked as the
    module docstring says before it is read. ``what`` names the file in every message.

    ``allowed_dtypes`` lists accepted ``dtype.kind`` characters (object ``O``, strings
    ``S``/``U`` and void/structured ``V`` are refused whatever it says); ``text_entries``
    maps entry names that may be a 0-d unicode string to their longest length in characters.
    ``max_total_bytes`` (default: no limit past ``max_entries * max_array_bytes``) bounds the
    memory all arrays take together.
    """
    kinds = frozenset(allowed_dtypes) - {"O", "S", "U", "V"}
    texts = dict(text_entries or {})
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InvalidConfigError(f"{what} cannot be read: {error.strerror}") from None
    if size > max_file_bytes:
        raise InvalidConfigError(f"{what} is {size:,} bytes; at most {max_file_bytes:,} are read")
    try:
        with zipfile.ZipFile(path) as archive:
            plan = _plan(archive, what, max_entries, max_array_bytes, kinds, texts, max_ndim)
            total = sum(nbytes for _, _, nbytes in plan)
            if max_total_bytes is not None and total > max_total_bytes:
                raise InvalidConfigError(
                    f"{what}: its arrays take {total:,} bytes together; at most "
                    f"{max_total_bytes:,} are read"
                )
            return {
                name: _read(archive, info, nbytes, f"{what}, entry {name!r}")
                for name, info, nbytes in plan
            }
    except InvalidConfigError:
        raise
    except (OSError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile) as error:
        raise InvalidConfigError(f"{what} is not a readable .npz (zip) file: {error}") from None
    except (ValueError, RuntimeError, NotImplementedError) as error:  # zipfile's own refusals
        raise InvalidConfigError(f"{what} is not a readable .npz (zip) file: {error}") from None


def _plan(
    archive: zipfile.ZipFile,
    what: str,
    max_entries: int,
    max_array_bytes: int,
    kinds: frozenset[str],
    texts: Mapping[str, int],
    max_ndim: int,
) -> list[tuple[str, zipfile.ZipInfo, int]]:
    """(name, entry, array bytes) for every entry, from the directory and headers alone."""
    infos = archive.infolist()
    if len(infos) > max_entries:
        raise InvalidConfigError(
            f"{what} holds {len(infos):,} entries; at most {max_entries:,} are accepted"
        )
    plan = []
    seen: set[str] = set()
    for info in infos:
        shown = printable(repr(info.filename), 80)
        if not _ENTRY_NAME.fullmatch(info.filename):
            raise InvalidConfigError(
                f"{what}: entry {shown} is not named <name>.npy (letters, digits, '_', '.')"
            )
        if info.filename in seen:
            raise InvalidConfigError(f"{what}: entry {shown} appears twice")
        seen.add(info.filename)
        if info.flag_bits & 0x1:
            raise InvalidConfigError(f"{what}: entry {shown} is encrypted")
        if info.compress_type not in _COMPRESSIONS:
            raise InvalidConfigError(
                f"{what}: entry {shown} uses zip compression {info.compress_type}; only "
                "stored (0) and deflated (8) are read"
            )
        name = info.filename.removesuffix(".npy")
        where = f"{what}, entry {name!r}"
        # The declared size bounds what the decompressor will produce: check it first.
        if info.file_size > max_array_bytes + MAX_HEADER_BYTES + 16:
            raise InvalidConfigError(
                f"{where} declares {info.file_size:,} bytes uncompressed; at most "
                f"{max_array_bytes:,} bytes of array data are read"
            )
        with archive.open(info) as stream:
            shape, dtype, header_bytes = _header(stream, where)
        nbytes = _check_array(shape, dtype, name, where, max_array_bytes, kinds, texts, max_ndim)
        if info.file_size != header_bytes + nbytes:
            raise InvalidConfigError(
                f"{where} declares {info.file_size:,} bytes uncompressed, but its header "
                f"({dtype.str} {shape}) means {header_bytes + nbytes:,}"
            )
        plan.append((name, info, nbytes))
    return plan


def _header(stream: IO[bytes], where: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """(shape, dtype, bytes up to the data) of an ``.npy`` stream; only the header is read."""
    try:
        version = npy_format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(
                stream, max_header_size=MAX_HEADER_BYTES
            )
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(
                stream, max_header_size=MAX_HEADER_BYTES
            )
        else:
            raise InvalidConfigError(
                f"{where} is .npy format {version[0]}.{version[1]}; 1.0 and 2.0 are read"
            )
    except InvalidConfigError:
        raise
    except (ValueError, TypeError, SyntaxError, OverflowError, RecursionError) as error:
        raise InvalidConfigError(f"{where} has no valid .npy header ({error})") from None
    if not isinstance(fortran, bool):
        raise InvalidConfigError(f"{where} has no valid .npy header (fortran_order)")
    return tuple(shape), dtype, stream.tell()


def _check_array(
    shape: tuple[int, ...],
    dtype: np.dtype,
    name: str,
    where: str,
    max_array_bytes: int,
    kinds: frozenset[str],
    texts: Mapping[str, int],
    max_ndim: int,
) -> int:
    """The array's size in bytes, after its dtype and shape passed the limits."""
    structured = dtype.fields is not None or dtype.subdtype is not None or dtype.hasobject
    text = dtype.kind == "U" and not structured
    if text and name in texts:
        if shape != ():
            raise InvalidConfigError(
                f"{where} is a unicode array of shape {shape}; only a single string (shape ()) "
                "is accepted"
            )
        characters = dtype.itemsize // 4
        if characters > texts[name]:
            raise InvalidConfigError(
                f"{where} is a string of {characters:,} characters; at most {texts[name]:,}"
            )
        return dtype.itemsize
    if structured or dtype.kind not in kinds:
        allowed = ", ".join(sorted(kinds)) or "none"
        also = f"; entries {sorted(texts)} may be a single string" if texts else ""
        raise InvalidConfigError(
            f"{where} has dtype {dtype.str!r} (kind {dtype.kind!r}); only plain arrays of dtype "
            f"kinds {allowed} are read (b bool, i/u integer, f float){also}"
        )
    if len(shape) > max_ndim:
        raise InvalidConfigError(
            f"{where} has {len(shape)} dimensions; at most {max_ndim} are accepted"
        )
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise InvalidConfigError(f"{where} has an invalid shape {printable(repr(shape), 80)}")
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    if nbytes > max_array_bytes:
        raise InvalidConfigError(
            f"{where} declares shape {printable(repr(shape), 80)} of {dtype.str}: "
            f"{nbytes:,} bytes; at most {max_array_bytes:,} are read"
        )
    return nbytes


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, nbytes: int, where: str) -> np.ndarray:
    """One array, read without pickle from a stream bounded by the checked declared size."""
    try:
        with archive.open(info) as stream:
            array = npy_format.read_array(
                stream, allow_pickle=False, max_header_size=MAX_HEADER_BYTES
            )
            if stream.read(1):
                raise InvalidConfigError(f"{where} has data past its array")
    except InvalidConfigError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise InvalidConfigError(f"{where} cannot be read: {error}") from None
    if array.nbytes != nbytes:
        raise InvalidConfigError(
            f"{where} holds {array.nbytes:,} bytes but its header declared {nbytes:,}"
        )
    return array


__all__ = ["MAX_HEADER_BYTES", "MAX_NDIM", "NUMERIC_KINDS", "load_npz"]
