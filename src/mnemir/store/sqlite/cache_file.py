"""The vector cache kept as a file beside the store (``<store>.vec``), so that opening a large store takes seconds.

Loading the vector cache from SQLite reads every vector, scope and indexed property row through Python: about a
minute at 1M records on this project's 2-core machine, and the sign codes' calibration
(:mod:`mnemir.store.sqlite.signs`) took another 10 s. This file holds what that produced: the float32 matrix of the
live rows, their rids and scope/property codes with the code books, the sign codes with their mean vector and
calibration. A first search reads it (one sequential read, CRC-checked) and then catches up with the store like any
later sync: what was written since the file's sequence number is read from SQLite (``meta.write_seq``).

The same rules as the approximate index's file (:mod:`mnemir.store.sqlite.ann`):

* **A cache, never the truth.** A header (format, the store's ``ann_uid``, the ``write_seq`` it reflects, model,
  dimension, the sections' layout, a CRC of the payload; itself CRC-checked) and the payload, written atomically
  (a reader never sees half a file; the last writer wins). Anything off (missing, corrupt, another store, another model, a sequence
  ahead of the store's: a restored database) and the cache is loaded from SQLite as before, then written again.
* **Follows every writer.** Loading stops at the file's sequence number; the usual sync reads the rest (vectors,
  scopes and properties written since, rows deleted since), whichever process wrote them.
* **Saved when it pays.** Right after a load from SQLite or a calibration of the sign codes (the expensive work),
  and at close when the rows changed since the file was written are more than :data:`RESAVE_SHARE` of it. Only live
  rows are written; never inside a transaction held open by :meth:`SQLiteStore.exclusive` (it could be rolled back).
* **Deletes leave it.** A hard delete through this store removes the file at once (it may hold the deleted
  vectors); it is written again, without them, at close. So is a file that a catch-up finds deletions behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.store.sqlite import signs
from mnemir.store.sqlite.prop_filters import _Values
from mnemir.store.sqlite.vectors import CodeBook, VectorCache, room_for

MAGIC = b"MNEMIR-VEC\n"
FORMAT = 1
#: the payload's sections start at multiples of this (page-aligned reads)
ALIGN = 4096
#: bytes per read (and CRC step)
STEP = 1 << 26
#: at close, the file is written again when the rows written or deleted since it was saved are more than this
#: share of the rows it holds (a catch-up that large costs about as much as reading the file)
RESAVE_SHARE = 1 / 16
#: stores with fewer rows than this are not written (a load from SQLite costs milliseconds); tests lower it
MIN_ROWS = 10_000


class CacheFile:
    """The ``.vec`` file of one SQLite store, and what was done with it (for tests and benchmarks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: the write_seq and row count of the file this process last read or wrote (None: none)
        self.seq: int | None = None
        self.rows = 0
        #: the cache should be written at the next chance (after a load from SQLite, a calibration, deletions)
        self.due = False
        #: the cache should be written at close (deletions since the file was written)
        self.stale = False
        #: rows written or deleted since the file's sequence number, as seen by this process's syncs
        self.changed = 0
        #: what the last load did: "file", "sqlite: <why the file was not used>"
        self.last_load = ""
        self.saves = 0
        #: seconds the last save and the last load from the file took
        self.save_seconds = 0.0
        self.load_seconds = 0.0

    # -- loading -----------------------------------------------------------------------------
    def load(self, conn: sqlite3.Connection, cache: VectorCache, model: str, store_seq: int) -> bool:
        """Fill an empty ``cache`` from the file (its ``seq`` becomes the file's); False: load from SQLite."""
        began = time.perf_counter()
        try:
            header, offset = self._header()
            if header["format"] != FORMAT:
                raise ValueError("another format")
            if header["store_uid"] != store_uid(conn) or not header["store_uid"]:
                raise ValueError("another store")
            if header["model"] != model:
                raise ValueError("another model")
            if header["seq"] > store_seq:
                raise ValueError("ahead of the store (a restored database)")
            self._read(cache, header, offset, model)
        except FileNotFoundError:
            self.last_load = "sqlite: no file"
            self.due = True
            return False
        except (OSError, ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError) as exc:
            self.last_load = f"sqlite: {exc}"
            cache._reset(model)
            self.due = True
            return False
        self.seq, self.rows, self.changed, self.last_load = int(header["seq"]), int(header["rows"]), 0, "file"
        self.load_seconds = time.perf_counter() - began
        return True

    def _header(self) -> tuple[dict[str, Any], int]:
        """The header (at the end of the file, where its offset at the start points) and the payload's offset."""
        with open(self.path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                raise ValueError("not a cache file")
            where = int(fh.read(16), 16)
            fh.seek(where)
            line = fh.readline(1 << 26)
        if not line.endswith(b"\n") or b" " not in line:
            raise ValueError("truncated header")
        crc, text = line[:-1].split(b" ", 1)
        if int(crc, 16) != zlib.crc32(text):
            raise ValueError("corrupt header (CRC)")
        header = json.loads(text)
        end = max((ALIGN + s["offset"] + int(np.prod(s["shape"])) * np.dtype(s["dtype"]).itemsize
                   for s in header["sections"]), default=ALIGN)
        if end > where or any(n < 0 for s in header["sections"] for n in s["shape"]):
            raise ValueError("sections beyond the payload")
        return header, ALIGN

    def _read(self, cache: VectorCache, header: dict[str, Any], offset: int, model: str) -> None:
        rows, dim = int(header["rows"]), int(header["dim"])
        capacity = room_for(rows, 0)
        sections = {s["name"]: s for s in header["sections"]}
        crc = 0
        with open(self.path, "rb") as fh:
            def read_into(name: str, target: npt.NDArray[Any]) -> None:
                nonlocal crc
                section = sections[name]
                if tuple(section["shape"]) != target.shape or np.dtype(section["dtype"]) != target.dtype:
                    raise ValueError(f"section {name} does not fit")
                fh.seek(offset + section["offset"])
                view = target.reshape(-1).view(np.uint8).data
                for lo in range(0, len(view), STEP):
                    part = view[lo : lo + STEP]
                    if fh.readinto(part) != len(part):
                        raise ValueError("truncated")
                    crc = zlib.crc32(part, crc)

            meta_bytes = np.zeros(sections["meta"]["shape"][0], dtype=np.uint8)
            read_into("meta", meta_bytes)
            meta = json.loads(meta_bytes.tobytes())
            matrix = np.empty((capacity, dim), dtype=np.float32)
            read_into("matrix", matrix[:rows])
            rids = np.zeros(capacity, dtype=np.int64)
            read_into("rids", rids[:rows])
            codes = {}
            for name in meta["columns"]:
                codes[name] = np.zeros(capacity, dtype=np.int32)
                read_into(f"codes:{name}", codes[name][:rows])
            codes_words = mean = None
            if "signs" in sections:
                words = signs.words(dim)
                packed = np.empty((words, rows), dtype=np.uint64)
                read_into("signs", packed)
                codes_words = np.zeros((words, capacity), dtype=np.uint64)
                codes_words[:, :rows] = packed
                mean = np.empty(dim, dtype=np.float32)
                read_into("sign_mean", mean)
        if crc != header["crc"]:
            raise ValueError("corrupt (CRC)")
        if rows > 1 and np.any(rids[1 : rows] <= rids[: rows - 1]):
            raise ValueError("rows out of order")
        cache._reset(model)
        cache.rids, cache.matrix, cache.size = rids, matrix, rows
        cache.live = np.zeros(capacity, dtype=bool)
        cache.live[:rows] = True
        for column, values in meta["books"].items():
            book = CodeBook()
            book.encode(values)
            cache.books[column] = book
        cache.codes = codes
        props = cache.props
        props.indexed_key = meta["props"]["indexed_key"]
        props.indexed = frozenset(json.loads(props.indexed_key)) if props.indexed_key is not None else frozenset()
        props.adopted = set(meta["props"]["adopted"])
        props.multi = set(meta["props"]["multi"])
        for kind, target in (("text", props.text), ("numbers", props.numbers)):
            for key, held in meta["props"][kind].items():
                values = _Values(kind == "numbers")
                for value in held["values"]:
                    values.code(value)
                values.counts = np.zeros(max(len(held["counts"]), len(values.values) + 1), dtype=np.int64)
                values.counts[: len(held["counts"])] = held["counts"]
                target[key] = values
        if codes_words is not None and mean is not None and meta["sign_plan"] is not None:
            cache.signs, cache.sign_mean = codes_words, mean
            cache.sign_plan = signs.SignPlan(**meta["sign_plan"])
        cache.seq = int(header["seq"])

    # -- saving ------------------------------------------------------------------------------
    def note_sync(self, loaded: int, deleted: int) -> None:
        """A sync read ``loaded`` written rows and ``deleted`` deleted ones since the last."""
        self.changed += loaded + deleted
        if deleted and self.seq is not None:
            self.stale = True  # the file may still hold their vectors

    def worth_saving(self, cache: VectorCache, *, closing: bool = False) -> bool:
        if cache.seq < 0 or cache.model is None or cache.size < MIN_ROWS:
            return False
        if self.due:
            return True
        return closing and (self.stale or self.changed > RESAVE_SHARE * max(self.rows, 1))

    def save(self, conn: sqlite3.Connection, cache: VectorCache) -> bool:
        """Write the cache's live rows (atomically). False when it could not be written (a cache: no error)."""
        uid = store_uid(conn)
        if not uid or cache.model is None:
            return False
        began = time.perf_counter()
        keep = np.flatnonzero(cache.live[: cache.size])
        meta = {
            "columns": sorted(cache.codes),
            "books": {c: list(book._codes) for c, book in cache.books.items()},
            "props": {"indexed_key": cache.props.indexed_key, "adopted": sorted(cache.props.adopted),
                      "multi": sorted(cache.props.multi),
                      "text": {k: _values_json(v) for k, v in cache.props.text.items()},
                      "numbers": {k: _values_json(v) for k, v in cache.props.numbers.items()}},
            "sign_plan": cache.sign_plan.describe() if cache.sign_plan is not None and cache.signs is not None
            else None,
        }
        rows = len(keep)
        whole = rows == cache.size
        # (name, dtype, shape, the array whose rows ``keep`` selects)
        parts: list[tuple[str, npt.NDArray[Any]]] = [
            ("meta", np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)),
            ("matrix", cache.matrix[: cache.size]), ("rids", cache.rids[: cache.size]),
            *((f"codes:{c}", codes[: cache.size]) for c, codes in sorted(cache.codes.items()))]
        if meta["sign_plan"] is not None and cache.signs is not None and cache.sign_mean is not None:
            parts.append(("signs", np.ascontiguousarray(cache.signs[:, : cache.size] if whole
                                                        else cache.signs[:, keep])))
            parts.append(("sign_mean", np.asarray(cache.sign_mean, dtype=np.float32)))
        sections: list[dict[str, Any]] = []
        at = 0
        for name, array in parts:
            shape = list(array.shape)
            if name in ("matrix", "rids") or name.startswith("codes:"):
                shape[0] = rows
            nbytes = int(np.prod(shape)) * array.dtype.itemsize
            sections.append({"name": name, "dtype": array.dtype.str, "shape": shape, "offset": at})
            at = _aligned(at + nbytes)
        tmp = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        crc = 0
        try:
            with open(tmp, "wb") as fh:
                fh.write(MAGIC + b"0" * 16 + b"\n")
                for section, (name, array) in zip(sections, parts, strict=True):
                    fh.seek(ALIGN + section["offset"])
                    by_rows = not whole and (name in ("matrix", "rids") or name.startswith("codes:"))
                    for chunk in _row_chunks(array, keep if by_rows else None):
                        fh.write(chunk)
                        crc = zlib.crc32(chunk, crc)
                header = {"format": FORMAT, "store_uid": uid, "seq": cache.seq, "model": cache.model,
                          "dim": cache.dim, "rows": rows, "crc": crc, "sections": sections}
                fh.seek(ALIGN + at)
                text = json.dumps(header).encode()
                fh.write(f"{zlib.crc32(text):08x} ".encode() + text + b"\n")
                fh.seek(len(MAGIC))
                fh.write(f"{ALIGN + at:016x}".encode())
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
            return False
        self.seq, self.rows, self.changed, self.due, self.stale = cache.seq, rows, 0, False, False
        self.saves += 1
        self.save_seconds = time.perf_counter() - began
        return True

    def remove(self) -> None:
        """Drop the file (a hard delete: it may hold the deleted vectors); written again at the next save."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            return
        self.stale = True


def _values_json(values: _Values) -> dict[str, Any]:
    return {"values": list(values.values), "counts": values.counts.tolist()}


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _row_chunks(array: npt.NDArray[Any], keep: npt.NDArray[np.intp] | None) -> Iterator[memoryview]:
    """The bytes of ``array`` (its rows ``keep`` when given), a slice of rows at a time (no whole copy)."""
    if keep is None:
        data = np.ascontiguousarray(array)
        flat = data.reshape(-1).view(np.uint8).data
        for lo in range(0, len(flat), STEP):
            yield flat[lo : lo + STEP]
        return
    row = max(1, array[:1].nbytes)
    step = max(1, STEP // row)
    for lo in range(0, len(keep), step):
        yield np.ascontiguousarray(array[keep[lo : lo + step]]).reshape(-1).view(np.uint8).data


def store_uid(conn: sqlite3.Connection) -> str:
    """The store's identity (meta ``ann_uid``): a cache file of another store is never used."""
    found = conn.execute("SELECT value FROM meta WHERE key = 'ann_uid'").fetchone()
    return str(found[0]) if found else ""
