"""The SQLite store's vector cache kept as a file beside the store (mnemir.store.sqlite.cache_file): read instead of
SQLite after a restart, caught up with what any writer wrote since, never used when it is corrupt, foreign or ahead
of the store, removed by a hard delete and written again without the deleted rows. Every answer is compared with a
store that keeps no file (the cache loaded from SQLite)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, record, unit

from mnemir.errors import ValidationError
from mnemir.store.base import Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore, cache_file, signs

N = 300
K = 10
ALICE = Selection(user_id="alice")
ENTITY = Selection(user_id="alice", where=parse_filter({"entity": "e1"}, ONTOLOGY))
TWO = Selection(user_id="alice", types=("Fact",), where=parse_filter({"entity": {"$in": ["e0", "e2"]}}, ONTOLOGY))
#: a JSON-only property: indexed in the cache at its first filter (and kept in the file)
CONFIDENT = Selection(user_id="alice", where=parse_filter({"confidence": {"$gte": 0.5}}, ONTOLOGY))


@pytest.fixture(autouse=True)
def small_stores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_file, "MIN_ROWS", 1)


def fill(path: Path, n: int = N, seed: int = 5, prefix: str = "f") -> None:
    store = SQLiteStore(path, ontology=ONTOLOGY, cache_file=False)
    records = [record(f"fact {i}", "Fact", {"entity": f"e{i % 4}", "confidence": (i % 10) / 10},
                      user="alice" if i % 5 else "bob",
                      session=f"s{i % 3}", id=f"{prefix}{i:04d}") for i in range(n)]
    store.write([Write(r, v) for r, v in zip(records, unit(np.random.default_rng(seed), n), strict=True)],
                model_id=MODEL)
    store.close()


def kept(path: Path) -> SQLiteStore:
    return SQLiteStore(path, ontology=ONTOLOGY, cache_file=True)


def answers(store: SQLiteStore, qs: np.ndarray) -> list[list[tuple[str, float]]]:
    selections = (ALICE, ENTITY, TWO, CONFIDENT, Selection(user_id="alice", session_id="s1"))
    return [store.vector_search(s, q, K) for q in qs for s in selections]


def truth(path: Path, qs: np.ndarray) -> list[list[tuple[str, float]]]:
    store = SQLiteStore(path, ontology=ONTOLOGY, cache_file=False)
    try:
        return answers(store, qs)
    finally:
        store.close()


def queries(n: int = 6, seed: int = 9) -> np.ndarray:
    return unit(np.random.default_rng(seed), n)


def vec_file(path: Path) -> Path:
    return Path(f"{path}.vec")


def test_survives_restart(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    qs = queries()
    first = kept(path)
    assert answers(first, qs) == truth(path, qs)
    assert first.cache_file is not None and first.cache_file.last_load == "sqlite: no file"
    assert first.cache_file.saves == 1 and vec_file(path).exists()  # written after the load from SQLite
    first.close()
    again = kept(path)
    assert answers(again, qs) == truth(path, qs)
    assert again.cache_file is not None and again.cache_file.last_load == "file" and again.cache_file.saves == 0
    assert again._cache.size == N and "confidence" in again._cache.props.adopted  # read from the file
    again.close()
    assert SQLiteStore(path, ontology=ONTOLOGY).cache_file is None  # not kept unless asked (or with ann)
    with pytest.raises(ValidationError) as info:
        SQLiteStore(path, ontology=ONTOLOGY, cache_file="yes")  # type: ignore[arg-type]
    assert info.value.field == "cache_file"


def test_follows_writes_of_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    qs = queries()
    first = kept(path)
    answers(first, qs)
    first.close()
    saved_at = vec_file(path).stat().st_mtime_ns
    reader = kept(path)
    before = reader.vector_search(ALICE, qs[0], K)
    writer = SQLiteStore(path, ontology=ONTOLOGY, cache_file=False)  # another connection: what another process does
    near = [record(f"new {i}", "Fact", {"entity": "e1"}, session="s1", id=f"new{i}") for i in range(3)]
    close_to_q = [(qs[0] + 0.01 * i * unit(np.random.default_rng(i))[0]) for i in range(3)]
    writer.write([Write(r, v / np.linalg.norm(v)) for r, v in zip(near, close_to_q, strict=True)], model_id=MODEL)
    moved = writer.fetch([before[4][0]])[0]
    writer.write([Write(moved.model_copy(update={"properties": {"entity": "e3"}}), -qs[0])], model_id=MODEL)
    rescoped = writer.fetch([before[5][0]])[0]
    writer.write([Write(rescoped.model_copy(update={"scope": rescoped.scope.model_copy(update={"user_id": "bob"})}),
                        None)], model_id=MODEL)
    writer.close()
    assert answers(reader, qs) == truth(path, qs)  # a process holding the cache follows
    reader.close()
    assert vec_file(path).stat().st_mtime_ns == saved_at  # a few rows changed: not worth writing again
    later = kept(path)  # a process loading the older file catches up
    got = answers(later, qs)
    assert got == truth(path, qs)
    assert later.cache_file is not None and later.cache_file.last_load == "file"
    assert {"new0", "new1", "new2"} <= {i for i, _ in got[0]} and moved.id not in {i for i, _ in got[0]}
    assert rescoped.id not in {i for hits in got for i, _ in hits}
    later.close()


def test_a_hard_delete_removes_the_file_and_close_writes_it_without_the_rows(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    qs = queries()
    store = kept(path)
    gone = store.vector_search(ALICE, qs[0], K)[0][0]
    assert vec_file(path).exists()
    store.write([], model_id=MODEL, delete_ids=[gone])
    assert not vec_file(path).exists()
    store.close()
    again = kept(path)
    assert again._cache.seq < 0
    got = answers(again, qs)
    assert got == truth(path, qs) and gone not in {i for hits in got for i, _ in hits}
    assert again.cache_file is not None and again.cache_file.last_load == "file" and again._cache.size == N - 1
    again.close()


def test_deletes_by_another_writer_make_the_file_written_again(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    qs = queries()
    first = kept(path)
    gone = first.vector_search(ALICE, qs[0], K)[0][0]
    first.close()
    writer = SQLiteStore(path, ontology=ONTOLOGY, cache_file=False)
    writer.write([], model_id=MODEL, delete_ids=[gone])
    writer.close()
    later = kept(path)
    assert answers(later, qs) == truth(path, qs)
    later.close()
    assert later.cache_file is not None and later.cache_file.saves == 1
    third = kept(path)
    assert answers(third, qs) == truth(path, qs) and third._cache.size == N - 1
    third.close()


@pytest.mark.parametrize("damage", ["flip", "header", "truncate", "garbage"])
def test_a_corrupt_file_is_not_used_and_written_again(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "m.db"
    fill(path)
    qs = queries()
    first = kept(path)
    expected = answers(first, qs)
    first.close()
    data = bytearray(vec_file(path).read_bytes())
    if damage == "flip":
        header, start = cache_file.CacheFile(vec_file(path))._header()
        matrix = start + next(s["offset"] for s in header["sections"] if s["name"] == "matrix")
        for at in range(matrix + 1000, matrix + 1016):  # inside the matrix
            data[at] ^= 0x55
    elif damage == "header":  # a plausible header that says more rows than the file holds
        at = data.rindex(b'"rows": ') + len(b'"rows": ')
        data[at] = ord("9")
    elif damage == "truncate":
        data = data[: len(data) // 2]
    else:
        data = bytearray(b"not a cache file")
    vec_file(path).write_bytes(bytes(data))
    again = kept(path)
    assert answers(again, qs) == expected
    assert again.cache_file is not None and again.cache_file.last_load.startswith("sqlite: ")
    assert again.cache_file.saves == 1
    again.close()
    third = kept(path)
    assert answers(third, qs) == expected and third.cache_file is not None and third.cache_file.last_load == "file"
    third.close()


def test_a_foreign_file_is_not_used(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine.db", tmp_path / "other.db"
    fill(mine)
    fill(other, seed=6, prefix="o")  # same ids would not tell: other ids, other vectors
    for path in (mine, other):
        store = kept(path)
        store.vector_search(ALICE, queries(1)[0], K)
        store.close()
    vec_file(mine).write_bytes(vec_file(other).read_bytes())
    qs = queries()
    store = kept(mine)
    assert answers(store, qs) == truth(mine, qs)
    assert store.cache_file is not None and store.cache_file.last_load == "sqlite: another store"
    store.close()


def test_a_file_ahead_of_the_store_is_not_used(tmp_path: Path) -> None:
    """A database restored from a backup older than its cache file: the file reflects writes the store never had."""
    path, backup = tmp_path / "m.db", tmp_path / "backup.db"
    fill(path)
    kept(path).close()  # the store gets its identity
    backup.write_bytes(path.read_bytes())
    store = kept(path)
    store.write([Write(record("later", "Fact", {"entity": "e1"}, id="later"), queries(1, seed=3)[0])], model_id=MODEL)
    store.write([Write(record("later 2", "Fact", {"entity": "e1"}, id="later2"), queries(1, seed=4)[0])],
                model_id=MODEL)
    store.vector_search(ALICE, queries(1)[0], K)
    store.close()
    path.write_bytes(backup.read_bytes())  # restored: the file's write_seq is ahead
    qs = queries()
    again = kept(path)
    got = answers(again, qs)
    assert got == truth(path, qs) and "later" not in {i for hits in got for i, _ in hits}
    assert again.cache_file is not None and again.cache_file.last_load.startswith("sqlite: ahead")
    again.close()


def test_nothing_is_written_inside_an_exclusive_block(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    fill(path)
    store = kept(path)
    with store.exclusive():
        store.vector_search(ALICE, queries(1)[0], K)
        assert not vec_file(path).exists()
    store.vector_search(ALICE, queries(1)[0], K)
    assert vec_file(path).exists()
    store.close()


def test_the_sign_codes_and_their_calibration_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("usearch")  # ann=True makes the (unused here) HNSW index object
    monkeypatch.setattr(signs, "MIN_CANDIDATES", 100)  # calibrate on a 3,000-row store (as test_sqlite_signs)
    monkeypatch.setattr(signs, "DEPTHS", (25, 50, 100, 200, 400, 800))
    dim, n = 256, 3000
    rng = np.random.default_rng(1)
    centres = unit(rng, 40, dim)
    vectors = centres[rng.integers(0, 40, n + 6)] + rng.standard_normal((n + 6, dim)).astype(np.float32) / 16
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    path = tmp_path / "m.db"
    writer = SQLiteStore(path, ontology=ONTOLOGY, cache_file=False)
    writer.write([Write(record(f"fact {i}", "Fact", {"entity": f"e{i % 3}"}, id=f"f{i:05d}"), v)
                  for i, v in enumerate(vectors[:n])], model_id="test-clustered-256")
    writer.close()
    qs = vectors[n:]
    first = SQLiteStore(path, ontology=ONTOLOGY, ann=True)
    first.sign_min_candidates = 500
    first_answers = [first.vector_search(ALICE, q, K) for q in qs]
    assert first.last_search_path == "signs"
    plan = first._cache.sign_plan
    assert plan is not None and plan.usable
    first.close()
    again = SQLiteStore(path, ontology=ONTOLOGY, ann=True)
    again.sign_min_candidates = 500
    assert [again.vector_search(ALICE, q, K) for q in qs] == first_answers
    assert again.last_search_path == "signs" and again.cache_file is not None
    assert again.cache_file.last_load == "file"
    assert again._cache.sign_plan == plan  # read, not calibrated again (same measured seconds)
    assert again._cache.signs is not None and first._cache.signs is not None
    assert np.array_equal(again._cache.signs[:, : again._cache.size], first._cache.signs[:, : first._cache.size])
    again.close()
