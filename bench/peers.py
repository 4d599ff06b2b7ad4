"""mnemir next to the stores people would pick instead: same vectors, same texts, same queries, one run.

    make bench-env                                  # once: .venv-bench with the peers (Chroma, LanceDB, ...)
    .venv-bench/bin/python bench/peers.py           # 100k records x 512-d, every system
    .venv-bench/bin/python bench/peers.py --n 10000 --systems mnemir-sqlite,sqlite-vec

Systems (each in its own process, so that memory is its own; a system whose package is missing is reported as
skipped, with the reason):

* ``mnemir-sqlite``: :class:`mnemir.store.sqlite.SQLiteStore` through ``write()`` (batches of 1000), exact search;
* ``mnemir-sqlite-ann``: the same with the approximate index for large scopes (``ann=True``; extra ``ann``);
* ``mnemir-postgres``: :class:`mnemir.store.postgres.PostgresStore` on the bundled embedded PostgreSQL 18 +
  pgvector (exact path; the HNSW index is not built);
* ``chroma``: ``chromadb.PersistentClient``, inner-product HNSW space, metadata ``where`` filters;
* ``lancedb``: one table, BTREE scalar indexes on the "indexed" columns, no index on the "JSON" one, flat
  (exact) vector search with pre-filtering, a native FTS index for the hybrid query;
* ``sqlite-vec``: a ``vec0`` table with the filtered fields as metadata columns (filtered in the KNN query) and an
  FTS5 table for the hybrid query;
* ``mem0``: ``mem0.Memory`` with ``infer=False`` (no LLM call) and its default local vector store (Qdrant, local
  mode), the embedder replaced by a lookup of the precomputed vectors (nothing is downloaded or called).

Data (:func:`dataset`): ``--n`` records, each a short zh/en text and properties laid out for known selectivity:
``entity`` (1,000 values: 0.1 %), ``attribute`` ("weather" 15 %, "allergy" 1.5 %), both "indexed" (mnemir: core
properties; LanceDB: scalar index; Chroma and sqlite-vec: no difference), and ``confidence`` uniform in [0, 1)
("JSON": a non-core property for mnemir, an unindexed column for LanceDB), filtered with ``>=`` 0.999 / 0.985 /
0.85. Vectors are L2-normalised 512-d with a low intrinsic dimension (a random 48-d Gaussian mapped into 512-d plus
a little noise), closer to real sentence embeddings than iid random vectors (on which every graph index's recall
collapses); the queries come from the same distribution. Recall@k is against numpy brute force over the same
filtered rows (computed in Python from the generated properties), for every system and every filter.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SYSTEMS = ("mnemir-sqlite", "mnemir-sqlite-ann", "mnemir-postgres", "chroma", "lancedb", "sqlite-vec", "mem0")
USER = "bench"
MODEL = "bench-lowrank-512"
ATTRIBUTES = ["residence", "job", "hobby", "birthday", "pet", "car", "phone"]
CITIES = ["上海", "北京", "London", "Berlin", "Paris", "深圳", "Tokyo", "Madrid"]
#: name -> (field, op, value, "indexed" | "json"); None: no filter
FILTERS: dict[str, tuple[str, str, Any, str] | None] = {
    "0.1% indexed": ("entity", "eq", "e42", "indexed"),
    "1.5% indexed": ("attribute", "eq", "allergy", "indexed"),
    "15% indexed": ("attribute", "eq", "weather", "indexed"),
    "0.1% JSON": ("confidence", "gte", 0.999, "json"),
    "1.5% JSON": ("confidence", "gte", 0.985, "json"),
    "15% JSON": ("confidence", "gte", 0.85, "json"),
    "unfiltered": None,
}
#: the hybrid query's text: a word on 1/8 of the records
HYBRID_TEXT = "Tokyo"
HYBRID_DEPTH = 50  # each side's depth before reciprocal-rank fusion


# -- data ------------------------------------------------------------------------------------
def dataset(n: int, dim: int, seed: int, queries: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    attribute = rng.random(n)
    props = []
    for i in range(n):
        a = "weather" if attribute[i] < 0.15 else "allergy" if attribute[i] < 0.165 else ATTRIBUTES[i % 7]
        props.append({"entity": f"e{i % 1000}", "attribute": a, "value": CITIES[i % len(CITIES)],
                      "confidence": round(float(rng.random()), 4)})
    texts = [f"{p['entity']} 的 {p['attribute']} 是 {p['value']}，记录 {i}" if i % 2 else
             f"The {p['attribute']} of {p['entity']} is {p['value']} (note {i})" for i, p in enumerate(props)]
    basis = rng.standard_normal((48, dim)).astype(np.float32)

    def draw(count: int) -> np.ndarray:
        v = rng.standard_normal((count, 48), dtype=np.float32) @ basis
        v += 0.3 * math.sqrt(48) * rng.standard_normal((count, dim), dtype=np.float32)  # noise: 0.3 of the signal
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    vectors = np.concatenate([draw(min(50_000, n - lo)) for lo in range(0, n, 50_000)])
    return {"props": props, "texts": texts, "vectors": vectors, "queries": draw(queries)}


def allowed_rows(props: list[dict[str, Any]], spec: tuple[str, str, Any, str] | None) -> np.ndarray:
    if spec is None:
        return np.arange(len(props))
    field, op, value, _ = spec
    if op == "eq":
        return np.array([i for i, p in enumerate(props) if p[field] == value], dtype=np.int64)
    return np.array([i for i, p in enumerate(props) if p[field] >= value], dtype=np.int64)


def truth(data: dict[str, Any], k: int) -> dict[str, list[list[int]]]:
    """Brute-force top-k row numbers per filter and query."""
    out = {}
    for name, spec in FILTERS.items():
        rows = allowed_rows(data["props"], spec)
        scores = data["queries"] @ data["vectors"][rows].T
        best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        out[name] = [[int(rows[j]) for j in b] for b in best]
    return out


# -- systems -----------------------------------------------------------------------------------
class System:
    """One store under test. ``search`` returns row numbers (ids are ``m{row:07d}``)."""

    name = ""
    notes = ""

    def __init__(self, root: Path, dim: int) -> None:
        self.root, self.dim = root, dim
        #: more figures of this system (reported as they are)
        self.extra: dict[str, Any] = {}

    def insert(self, data: dict[str, Any], batch: int) -> None: ...

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]: ...

    def hybrid(self, text: str, q: np.ndarray, k: int, qi: int) -> list[int] | None:
        return None

    def disk_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())

    def close(self) -> None: ...


def row_of(mid: str) -> int:
    return int(mid[1:])


def rrf(*rankings: list[int], k: int, c: int = 60) -> list[int]:
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking):
            score[row] = score.get(row, 0.0) + 1.0 / (c + rank + 1)
    return sorted(score, key=lambda r: (-score[r], r))[:k]


class MnemirSystem(System):
    name = "mnemir-sqlite"

    def __init__(self, root: Path, dim: int, *, ann: bool = False, postgres: bool = False) -> None:
        super().__init__(root, dim)
        from mnemir.ontology import Ontology

        self.onto = Ontology()
        self.server = None
        self.ann = ann
        if postgres:
            import psycopg

            from mnemir.store.postgres import PostgresStore, start_embedded_server

            root.chmod(0o711)  # as root the server runs as 'nobody'
            self.server = start_embedded_server(root / "pg", settings={"shared_buffers": "1GB"})
            with psycopg.connect(self.server.url, autocommit=True) as conn:
                conn.execute("CREATE DATABASE bench")
            self.store: Any = PostgresStore(self.server.database_url("bench"), ontology=self.onto)
        else:
            from mnemir.store.sqlite import SQLiteStore

            options = {"ann": True} if ann else {}
            self.store = SQLiteStore(root / "bench.db", ontology=self.onto, **options)

    def insert(self, data: dict[str, Any], batch: int) -> None:
        from mnemir.ir import MemIR
        from mnemir.store.base import Write

        props, texts, vectors = data["props"], data["texts"], data["vectors"]
        for lo in range(0, len(props), batch):
            writes = [Write(MemIR.model_validate({"id": f"m{i:07d}", "content": {"text": texts[i]}, "type": "Fact",
                                                  "properties": props[i], "scope": {"user_id": USER}}), vectors[i])
                      for i in range(lo, min(lo + batch, len(props)))]
            self.store.write(writes, model_id=MODEL)
        if self.server is not None:
            import psycopg

            with psycopg.connect(self.server.database_url("bench"), autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")
        if self.ann:  # what the first large search would do: build and calibrate the index (timed apart)
            began = time.perf_counter()
            self.extra["ann_index"] = self.store.build_ann_index()
            self.extra["ann_build_s"] = time.perf_counter() - began

    def _selection(self, spec: tuple[str, str, Any, str] | None) -> Any:
        from mnemir.store.base import Selection
        from mnemir.store.filters import parse_filter

        if spec is None:
            return Selection(user_id=USER)
        field, op, value, _ = spec
        where = {field: value} if op == "eq" else {field: {"$gte": value}}
        return Selection(user_id=USER, where=parse_filter(where, self.onto))

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]:
        return [row_of(mid) for mid, _ in self.store.vector_search(self._selection(spec), q, k)]

    def hybrid(self, text: str, q: np.ndarray, k: int, qi: int) -> list[int]:
        from mnemir.store.base import Selection

        sel = Selection(user_id=USER)
        vec = [row_of(m) for m, _ in self.store.vector_search(sel, q, HYBRID_DEPTH)]
        txt = [row_of(m) for m, _ in self.store.text_search(sel, text, HYBRID_DEPTH)]
        return rrf(vec, txt, k=k)

    def close(self) -> None:
        self.store.close()
        if self.server is not None:
            self.server.stop()

    def disk_bytes(self) -> int:
        if self.server is None:
            return super().disk_bytes()
        import psycopg

        with psycopg.connect(self.server.database_url("bench"), autocommit=True) as conn:
            return int(conn.execute("SELECT pg_database_size('bench')").fetchone()[0])

    def server_rss(self) -> int:
        if self.server is None:
            return 0
        import psutil

        total = 0
        for proc in psutil.process_iter(["cmdline", "memory_info"]):
            cmd = " ".join(proc.info["cmdline"] or [])
            if "postgres" in cmd and str(self.root) in cmd:
                total += proc.info["memory_info"].rss
                total += sum(c.memory_info().rss for c in proc.children(recursive=True))
        return total


class ChromaSystem(System):
    name = "chroma"
    notes = "HNSW (approximate), space=ip; every metadata field is filtered the same way"

    def __init__(self, root: Path, dim: int) -> None:
        super().__init__(root, dim)
        import chromadb

        self.client = chromadb.PersistentClient(path=str(root / "chroma"),
                                                settings=chromadb.Settings(anonymized_telemetry=False))
        self.col = self.client.create_collection("bench", metadata={"hnsw:space": "ip"})

    def insert(self, data: dict[str, Any], batch: int) -> None:
        size = min(batch * 5, self.client.get_max_batch_size())
        n = len(data["props"])
        for lo in range(0, n, size):
            hi = min(lo + size, n)
            self.col.add(ids=[f"m{i:07d}" for i in range(lo, hi)], embeddings=data["vectors"][lo:hi],
                         documents=data["texts"][lo:hi], metadatas=data["props"][lo:hi])

    @staticmethod
    def _where(spec: tuple[str, str, Any, str] | None) -> dict[str, Any] | None:
        if spec is None:
            return None
        field, op, value, _ = spec
        return {field: value} if op == "eq" else {field: {"$gte": value}}

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]:
        got = self.col.query(query_embeddings=[q], n_results=k, where=self._where(spec), include=["distances"])
        return [row_of(m) for m in got["ids"][0]]

    def hybrid(self, text: str, q: np.ndarray, k: int, qi: int) -> list[int]:
        # Chroma has no BM25: its documented text+vector query is a vector query restricted by a document filter
        got = self.col.query(query_embeddings=[q], n_results=k, where_document={"$contains": text},
                             include=["distances"])
        return [row_of(m) for m in got["ids"][0]]


class LanceSystem(System):
    name = "lancedb"
    notes = "flat (exact) vector search with prefilter; BTREE scalar indexes on entity/attribute, none on confidence"

    def __init__(self, root: Path, dim: int) -> None:
        super().__init__(root, dim)
        import lancedb

        self.db = lancedb.connect(str(root / "lance"))
        self.tbl: Any = None

    def insert(self, data: dict[str, Any], batch: int) -> None:
        import pyarrow as pa

        n = len(data["props"])
        size = 10_000
        schema = pa.schema([("id", pa.string()), ("text", pa.string()), ("entity", pa.string()),
                            ("attribute", pa.string()), ("value", pa.string()), ("confidence", pa.float64()),
                            ("vector", pa.list_(pa.float32(), self.dim))])
        for lo in range(0, n, size):
            hi = min(lo + size, n)
            p = data["props"][lo:hi]
            table = pa.table({
                "id": [f"m{i:07d}" for i in range(lo, hi)], "text": data["texts"][lo:hi],
                "entity": [x["entity"] for x in p], "attribute": [x["attribute"] for x in p],
                "value": [x["value"] for x in p], "confidence": [x["confidence"] for x in p],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(data["vectors"][lo:hi].ravel()), self.dim),
            }, schema=schema)
            if self.tbl is None:
                self.tbl = self.db.create_table("bench", data=table)
            else:
                self.tbl.add(table)
        self.tbl.create_scalar_index("entity")
        self.tbl.create_scalar_index("attribute")
        self.tbl.create_fts_index("text")

    @staticmethod
    def _where(spec: tuple[str, str, Any, str] | None) -> str | None:
        if spec is None:
            return None
        field, op, value, _ = spec
        return f"{field} = '{value}'" if op == "eq" else f"{field} >= {value}"

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]:
        query = self.tbl.search(q).distance_type("dot").limit(k).select(["id"])
        where = self._where(spec)
        if where is not None:
            query = query.where(where, prefilter=True)
        return [row_of(m) for m in query.to_arrow()["id"].to_pylist()]

    def hybrid(self, text: str, q: np.ndarray, k: int, qi: int) -> list[int]:
        from lancedb.rerankers import RRFReranker

        query = (self.tbl.search(query_type="hybrid").vector(q).text(text).distance_type("dot")
                 .rerank(RRFReranker()).limit(k).select(["id"]))
        return [row_of(m) for m in query.to_arrow()["id"].to_pylist()]


class SqliteVecSystem(System):
    name = "sqlite-vec"
    notes = "vec0 brute force (exact); filtered fields as vec0 metadata columns; FTS5 + RRF for hybrid"

    def __init__(self, root: Path, dim: int) -> None:
        super().__init__(root, dim)
        try:  # the interpreter's sqlite3 may be built without extension loading
            import pysqlite3 as sqlite3  # type: ignore[import-not-found]
        except ImportError:
            import sqlite3
        import sqlite_vec

        self.db = sqlite3.connect(root / "vec.db")
        self.db.enable_load_extension(True)
        sqlite_vec.load(self.db)
        self.db.enable_load_extension(False)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(f"CREATE VIRTUAL TABLE items USING vec0(embedding float[{dim}] distance_metric=cosine, "
                        "entity text, attribute text, confidence float, +value text)")
        self.db.execute("CREATE VIRTUAL TABLE texts USING fts5(text)")

    def insert(self, data: dict[str, Any], batch: int) -> None:
        n = len(data["props"])
        for lo in range(0, n, batch):
            hi = min(lo + batch, n)
            with self.db:
                self.db.executemany("INSERT INTO items (rowid, embedding, entity, attribute, confidence, value) "
                                    "VALUES (?, ?, ?, ?, ?, ?)",
                                    [(i, data["vectors"][i].tobytes(), p["entity"], p["attribute"], p["confidence"],
                                      p["value"]) for i, p in zip(range(lo, hi), data["props"][lo:hi], strict=True)])
                self.db.executemany("INSERT INTO texts (rowid, text) VALUES (?, ?)",
                                    [(i, data["texts"][i]) for i in range(lo, hi)])

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]:
        sql = "SELECT rowid FROM items WHERE embedding MATCH ? AND k = ?"
        args: list[Any] = [q.tobytes(), k]
        if spec is not None:
            field, op, value, _ = spec
            sql += f" AND {field} {'=' if op == 'eq' else '>='} ?"
            args.append(value)
        return [r for (r,) in self.db.execute(sql, args)]

    def hybrid(self, text: str, q: np.ndarray, k: int, qi: int) -> list[int]:
        vec = [r for (r,) in self.db.execute("SELECT rowid FROM items WHERE embedding MATCH ? AND k = ?",
                                             (q.tobytes(), HYBRID_DEPTH))]
        txt = [r for (r,) in self.db.execute("SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rank LIMIT ?",
                                             (f'"{text}"', HYBRID_DEPTH))]
        return rrf(vec, txt, k=k)


class Mem0System(System):
    name = "mem0"
    notes = "infer=False; default local vector store (Qdrant local mode); embedder = lookup of the precomputed vectors"

    def __init__(self, root: Path, dim: int) -> None:
        super().__init__(root, dim)
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ["MEM0_DIR"] = str(root / "mem0home")
        os.environ.setdefault("OPENAI_API_KEY", "unused-no-llm-call")  # infer=False: the LLM is never called
        from mem0 import Memory

        config = {"vector_store": {"provider": "qdrant", "config": {"collection_name": "bench",
                                                                    "path": str(root / "qdrant"),
                                                                    "embedding_model_dims": dim, "on_disk": True}},
                  "embedder": {"provider": "openai", "config": {"embedding_dims": dim}},
                  "history_db_path": str(root / "history.db")}
        self.mem = Memory.from_config(config)
        self.lookup: dict[str, np.ndarray] = {}
        outer = self

        class Lookup:  # mem0's embedder interface: embed(text, memory_action)
            config = self.mem.embedding_model.config

            def embed(self, text: str, memory_action: str | None = None) -> list[float]:
                return outer.lookup[text].tolist()

        self.mem.embedding_model = Lookup()

    def insert(self, data: dict[str, Any], batch: int) -> None:
        self.lookup.update(zip(data["texts"], data["vectors"], strict=True))
        for i, (text, p) in enumerate(zip(data["texts"], data["props"], strict=True)):
            self.mem.add(text, user_id=USER, metadata={**p, "row": i}, infer=False)

    def close(self) -> None:
        client = getattr(self.mem.vector_store, "client", None)
        if client is not None:
            client.close()

    @staticmethod
    def _filters(spec: tuple[str, str, Any, str] | None) -> dict[str, Any] | None:
        if spec is None:
            return None
        field, op, value, _ = spec
        return {field: value} if op == "eq" else {field: {"gte": value}}

    def search(self, q: np.ndarray, spec: tuple[str, str, Any, str] | None, k: int, qi: int) -> list[int]:
        key = f"query {qi}"
        self.lookup[key] = q
        got = self.mem.search(key, top_k=k, threshold=0.0, filters={"user_id": USER, **(self._filters(spec) or {})})
        return [int(r["metadata"]["row"]) for r in got["results"]]


FACTORIES: dict[str, Callable[[Path, int], System]] = {
    "mnemir-sqlite": MnemirSystem,
    "mnemir-sqlite-ann": lambda root, dim: MnemirSystem(root, dim, ann=True),
    "mnemir-postgres": lambda root, dim: MnemirSystem(root, dim, postgres=True),
    "chroma": ChromaSystem,
    "lancedb": LanceSystem,
    "sqlite-vec": SqliteVecSystem,
    "mem0": Mem0System,
}


# -- one system, in its own process --------------------------------------------------------------
def rss_bytes() -> int:
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_system(name: str, data_dir: Path, k: int, batch: int, rounds: int, limit: int | None) -> dict[str, Any]:
    arrays = np.load(data_dir / "data.npz")
    meta = json.loads((data_dir / "data.json").read_text())
    n = len(meta["props"]) if limit is None else min(limit, len(meta["props"]))
    data = {"vectors": arrays["vectors"][:n], "queries": arrays["queries"], "props": meta["props"][:n],
            "texts": meta["texts"][:n]}
    want = truth(data, k)
    root = Path(tempfile.mkdtemp(prefix=f"mnemir-peer-{name}-"))
    base_rss = rss_bytes()
    out: dict[str, Any] = {"system": name, "n": n}
    try:
        began = time.perf_counter()
        system = FACTORIES[name](root, data["vectors"].shape[1])
        out["open_s"] = time.perf_counter() - began
        out["notes"] = system.notes
        began = time.perf_counter()
        system.insert(data, batch)
        out["insert_s"] = time.perf_counter() - began
        out["insert_records_per_s"] = len(data["props"]) / out["insert_s"]
        out.update(system.extra)
        out["load_average"] = [round(x, 1) for x in os.getloadavg()]
        queries = data["queries"]
        for qi in range(min(3, len(queries))):  # warm caches
            system.search(queries[qi], None, k, qi)
        out["filters"] = {}
        for fname, spec in FILTERS.items():
            times, recalls, short = [], [], 0
            for _ in range(rounds):
                for qi, q in enumerate(queries):
                    began = time.perf_counter()
                    got = system.search(q, spec, k, qi)
                    times.append((time.perf_counter() - began) * 1000)
                    expected = want[fname][qi]
                    recalls.append(len(set(got) & set(expected)) / len(expected) if expected else 1.0)
                    short += len(got) < len(expected)
            out["filters"][fname] = {"p50_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95)),
                                     "qps": 1000 * len(times) / sum(times), "recall": float(np.mean(recalls)),
                                     "min_recall": float(np.min(recalls)), "short_answers": short}
        times = []
        hybrid_ok = True
        for qi, q in enumerate(queries):
            began = time.perf_counter()
            got_h = system.hybrid(HYBRID_TEXT, q, k, qi)
            times.append((time.perf_counter() - began) * 1000)
            if got_h is None:
                hybrid_ok = False
                break
        out["hybrid"] = {"p50_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95))} \
            if hybrid_ok else None
        out["rss_mib"] = (rss_bytes() - base_rss) / 2**20
        server = getattr(system, "server_rss", lambda: 0)()
        if server:
            out["server_rss_mib"] = server / 2**20
        out["disk_mib"] = system.disk_bytes() / 2**20
        system.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


# -- the run ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1, help="passes over the queries per filter")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per system")
    parser.add_argument("--mem0-n", type=int, default=2000,
                        help="records for mem0 (its add() stores one record per call: 100k would take hours)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--system", help=argparse.SUPPRESS)  # internal: run one system
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.system:
        try:
            result = run_system(args.system, args.data, args.k, args.batch, args.rounds,
                                args.mem0_n if args.system == "mem0" else None)
        except Exception as exc:
            import traceback

            traceback.print_exc()
            result = {"system": args.system, "skipped": f"{type(exc).__name__}: {exc}"[:500]}
        args.out.write_text(json.dumps(result))
        return 0

    systems = [s for s in args.systems.split(",") if s]
    unknown = [s for s in systems if s not in FACTORIES]
    if unknown:
        parser.error(f"unknown systems {unknown}; known: {', '.join(SYSTEMS)}")
    began = time.perf_counter()
    data = dataset(args.n, args.dim, args.seed, args.queries)
    work = Path(tempfile.mkdtemp(prefix="mnemir-peers-"))
    np.savez(work / "data.npz", vectors=data["vectors"], queries=data["queries"])
    (work / "data.json").write_text(json.dumps({"props": data["props"], "texts": data["texts"]}, ensure_ascii=False))
    print(f"data: {args.n} x {args.dim} in {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    results: dict[str, Any] = {}
    try:
        for name in systems:
            out = work / f"{name}.json"
            print(f"-- {name}", file=sys.stderr, flush=True)
            began = time.perf_counter()
            try:
                done = subprocess.run([sys.executable, __file__, "--system", name, "--data", str(work), "--out",
                                       str(out), "--k", str(args.k), "--batch", str(args.batch), "--rounds",
                                       str(args.rounds), "--mem0-n", str(args.mem0_n)], capture_output=True, text=True, timeout=args.timeout)
                failed = done.returncode != 0 or not out.exists()
                reason = done.stderr.strip().splitlines()[-1] if failed and done.stderr.strip() else ""
            except subprocess.TimeoutExpired:
                failed, reason = True, f"timed out after {args.timeout:.0f} s"
            if not failed and "skipped" in json.loads(out.read_text()):
                failed, reason = True, json.loads(out.read_text())["skipped"]
            if failed:
                results[name] = {"system": name, "skipped": reason or "failed"}
                print(f"   skipped: {results[name]['skipped']}", file=sys.stderr, flush=True)
            else:
                results[name] = json.loads(out.read_text())
                print(f"   done in {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    versions = {}
    for package in ("chromadb", "lancedb", "sqlite_vec", "mem0", "qdrant_client", "usearch"):
        try:
            from importlib.metadata import version

            versions[package] = version({"sqlite_vec": "sqlite-vec", "mem0": "mem0ai",
                                         "qdrant_client": "qdrant-client"}.get(package, package))
        except Exception:
            versions[package] = None
    result = {"n": args.n, "dim": args.dim, "k": args.k, "queries": args.queries, "rounds": args.rounds,
              "versions": versions, "systems": results}
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def report(r: dict[str, Any]) -> None:
    ran = {n: s for n, s in r["systems"].items() if "skipped" not in s}
    print(f"# peers: {r['n']} records x {r['dim']}-d, top-{r['k']}, {r['queries']} queries x {r['rounds']} rounds")
    for name, s in r["systems"].items():
        if "skipped" in s:
            print(f"- {name}: skipped ({s['skipped']})")
    print("\n| system | records | insert records/s | disk MiB | RSS MiB (+server) | hybrid p50 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s in ran.items():
        rss = f"{s['rss_mib']:.0f}" + (f" (+{s['server_rss_mib']:.0f})" if s.get("server_rss_mib") else "")
        hybrid = f"{s['hybrid']['p50_ms']:.2f}" if s.get("hybrid") else "-"
        print(f"| {name} | {s['n']} | {s['insert_records_per_s']:.0f} | {s['disk_mib']:.0f} | {rss} | {hybrid} |")
    print("\np50 ms (recall@k) per filter:\n")
    print("| filter | " + " | ".join(ran) + " |")
    print("|---|" + "---:|" * len(ran))
    for fname in FILTERS:
        cells = []
        for s in ran.values():
            f = s["filters"][fname]
            cells.append(f"{f['p50_ms']:.2f} ({f['recall']:.3f}{', short ' + str(f['short_answers']) if f['short_answers'] else ''})")
        print(f"| {fname} | " + " | ".join(cells) + " |")
    base = ran.get("mnemir-sqlite")
    if base:
        print("\nthroughput ratio mnemir-sqlite / peer (queries/s, sequential; > 1: mnemir faster):\n")
        others = [n for n in ran if n != "mnemir-sqlite" and ran[n]["n"] == base["n"]]
        print("| filter | " + " | ".join(others) + " |")
        print("|---|" + "---:|" * len(others))
        for fname in FILTERS:
            cells = [f"{base['filters'][fname]['qps'] / ran[o]['filters'][fname]['qps']:.2f}x" for o in others]
            print(f"| {fname} | " + " | ".join(cells) + " |")
        print("\n| insert ratio mnemir-sqlite / peer | " + " | ".join(
            f"{o} {base['insert_records_per_s'] / ran[o]['insert_records_per_s']:.2f}x" for o in others) + " |")
    best_against_best(ran)


def best_against_best(ran: dict[str, Any], floor: float = 0.98) -> None:
    """Per filter: the fastest mnemir system against the fastest peer, each among the systems whose recall@k
    reaches ``floor`` (the issue's "throughput at equal or better recall")."""
    ours = {n: s for n, s in ran.items() if n.startswith("mnemir")}
    peers = {n: s for n, s in ran.items() if not n.startswith("mnemir") and s["n"] == max(x["n"] for x in ran.values())}
    if not ours or not peers:
        return
    print(f"\nfastest mnemir vs fastest peer, each at recall@k >= {floor} (queries/s, sequential):\n")
    print("| filter | mnemir (system, qps, recall) | best peer (system, qps, recall) | ratio |")
    print("|---|---|---|---:|")
    def best(group: dict[str, Any], fname: str) -> tuple[str, dict[str, Any]] | None:
        ok = [(n, s["filters"][fname]) for n, s in group.items() if s["filters"][fname]["recall"] >= floor]
        return max(ok, key=lambda x: x[1]["qps"]) if ok else None

    for fname in FILTERS:
        m, p = best(ours, fname), best(peers, fname)
        cell = lambda b: f"{b[0]}, {b[1]['qps']:.0f}, {b[1]['recall']:.3f}" if b else "none"  # noqa: E731
        ratio = f"{m[1]['qps'] / p[1]['qps']:.2f}x" if m and p else "-"
        print(f"| {fname} | {cell(m)} | {cell(p)} | {ratio} |")


if __name__ == "__main__":
    raise SystemExit(main())
