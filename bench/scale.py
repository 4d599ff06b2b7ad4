"""Cost against store size: 10k, 100k and 1M memories in one SQLite store, one user scope (issue 20, "Scale").

    python bench/scale.py --n 100000 --json bench/results/scale-100k.json   # builds /tmp/mnemir-scale/n100000.db once
    python bench/scale.py --n 1000000 --build-only                          # the 1M store (reused afterwards)
    python bench/scale.py --plot bench/results/scale-*.json                 # cost vs N -> bench/results/scale.png

The store holds ``--n`` Fact records of one user, written through ``SQLiteStore.write()`` in batches of 1000 (the
build, timed once and kept in the store's meta), with precomputed vectors: random but clustered (2,000 random
centres in 512-d, each vector a centre plus noise at about 45 degrees, unit length), so that an approximate index
meets the structure real embeddings have instead of uniform noise, and texts generated from templates over a
Zipf-distributed vocabulary, English and Chinese, so that full-text search meets common and rare words alike.
Properties give filters of known selectivity, on core properties (indexed) and on a JSON property the ontology
marks filterable (``Fact.confidence``):

* ``entity`` (core): 1000 values, evenly spread                 -> 0.1 %
* ``attribute`` (core): "allergy" on 1.5 %, "weather" on 15 %   -> 1.5 %, 15 %
* ``confidence`` (JSON, filterable): uniform over 0.0000..0.9999 -> ``$gte`` 0.999 / 0.985 / 0.85: 0.1 / 1.5 / 15 %

Measured, per N: open time (constructor; first search, which loads the vector cache, from its file beside the store
when there is a sound one, else from SQLite, then writes the file; the approximate index's load or build; when
the cache came from SQLite, the store is closed and opened again and its first search timed once more: what the
next process pays), RSS after opening, disk size; ``vector_search(k=10)`` p50/p95 per filter with the store's plan (the
approximate index where the planner picks it) and exact scoring side by side, interleaved, each with recall@10
against brute force (numpy over the store's own vectors; the filtered rows computed independently from the
generated properties); full-text top-10; ``Memory.recall`` with the query embedding excluded (embedded before
timing; the embedder's query cache answers afterwards); ``Memory.add`` of new typed records into the same
scope with precomputed vectors (an embedder that looks the vectors up: the embedding model is not what is measured),
and ``Memory.add_many`` (1000 items per call, vectors given, ``govern=False``; and a few hundred with
``govern=True``), all removed again afterwards so that the store can be reused. The store is opened with
``ann=True``: "planned" is what its planner picks (sign codes with exact rescoring for large candidate sets, where
their calibration holds recall; :mod:`mnemir.store.sqlite.signs`), "exact" the exact path. Rates are given per
wall second and per CPU second of this process (the shared machine's load moves the first a lot).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

DIM = 512
MODEL = "use-multilingual-v3-512"  # the default embedder's id and dimension: recall runs on this store as is
USER = "bench"
CENTRES = 2000
CHUNK = 10_000
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

NAMES = ["Alice", "Bob", "Chen", "Dana", "Emil", "Farah", "Goro", "Hana", "Ivan", "Jia", "Kofi", "Lena", "Mateo",
         "Nour", "Oskar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Xavier", "Yara", "Zoe"]
#: Zipf-ranked: the first word is in about a fifth of the English texts, the last in well under 1 %
NOUNS = ["meeting", "report", "budget", "flight", "invoice", "dentist", "coffee", "garden", "laptop", "concert",
         "contract", "recipe", "museum", "parcel", "bicycle", "lesson", "passport", "insurance", "apartment", "wedding",
         "interview", "presentation", "vaccine", "marathon", "deadline", "printer", "subscription", "pharmacy",
         "violin", "telescope", "aquarium", "sculpture", "lighthouse", "glacier", "harbour", "orchard", "quartet",
         "tapestry", "observatory", "monastery"]
VERBS = ["moved", "cancelled", "booked", "discussed", "forgot", "finished", "postponed", "paid for", "checked",
         "mentioned", "planned", "reviewed"]
PLACES = ["Berlin", "Lisbon", "Osaka", "Nairobi", "Toronto", "Oslo", "Lima", "Hanoi", "Cairo", "Quito", "Perth",
          "Seoul"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "next week", "last month"]
ZH_NOUNS = ["会议", "报告", "预算", "航班", "发票", "牙医", "咖啡", "花园", "电脑", "音乐会", "合同", "菜谱", "博物馆",
            "包裹", "自行车", "课程", "护照", "保险", "公寓", "婚礼"]
ZH_NAMES = ["小王", "老李", "张伟", "刘洋", "陈静", "赵磊", "孙丽", "周杰"]
ZH_VERBS = ["改到了", "取消了", "订好了", "讨论了", "忘了", "完成了", "推迟了"]
ZH_PLACES = ["上海", "北京", "深圳", "杭州", "成都", "西安"]
ZH_DAYS = ["周一", "周三", "周五", "下周", "上个月"]
ATTRIBUTES = ["residence", "job", "hobby", "birthday", "pet", "car", "schedule"]
#: full-text queries: the most common noun (about 15 % of rows), a middling one, a rare one, two words
TEXT_QUERIES = ["meeting", "passport", "monastery", "budget meeting"]
#: recall queries (written for this benchmark)
RECALL_QUERIES = ["When is the budget meeting?", "Has someone booked the train to Porto?", "What happened with the "
                  "dentist appointment?", "Where is the parcel now?", "明天的会议改到几点了？", "护照办好了吗？",
                  "Who mentioned the concert on Friday?", "What is left to pay for the wedding?"]
#: name -> (where, share it selects)
FILTERS: dict[str, tuple[dict[str, Any] | None, float]] = {
    "core 0.1%": ({"entity": "e42"}, 0.001),
    "core 1.5%": ({"attribute": "allergy"}, 0.015),
    "core 15%": ({"attribute": "weather"}, 0.15),
    "JSON 0.1%": ({"confidence": {"$gte": 0.999}}, 0.001),
    "JSON 1.5%": ({"confidence": {"$gte": 0.985}}, 0.015),
    "JSON 15%": ({"confidence": {"$gte": 0.85}}, 0.15),
    "none (whole scope)": (None, 1.0),
}


def ontology() -> Any:
    """The built-in ontology with Fact.confidence marked filterable (indexed like a core property)."""
    from dataclasses import replace

    from mnemir.ontology import Ontology
    from mnemir.ontology.builtin import BUILTIN_TYPES

    types = [replace(t, properties={**t.properties, "confidence": replace(t.properties["confidence"], filterable=True)})
             if t.name == "Fact" else t for t in BUILTIN_TYPES]
    return Ontology(types)


# -- data ------------------------------------------------------------------------------------------
def centres(seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 0])
    c = rng.standard_normal((CENTRES, DIM), dtype=np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def chunk_vectors(seed: int, chunk: int, count: int, where: np.ndarray) -> np.ndarray:
    """``count`` unit vectors near random centres (cosine to the centre about 0.7), reproducible per chunk."""
    rng = np.random.default_rng([seed, 1, chunk])
    pick = rng.integers(0, CENTRES, size=count)
    noise = rng.standard_normal((count, DIM), dtype=np.float32) / np.float32(np.sqrt(DIM))
    v = where[pick] + noise
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def queries(seed: int, count: int, where: np.ndarray) -> np.ndarray:
    return chunk_vectors(seed, 10**6, count, where)  # a chunk number no store reaches: held-out points


def chunk_props(seed: int, chunk: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Per record: entity number, attribute index (0 weather, 1 allergy, 2.. others), confidence (4 decimals),
    and the text template's random draws."""
    rng = np.random.default_rng([seed, 2, chunk])
    u = rng.random(count)
    attribute = np.where(u < 0.15, 0, np.where(u < 0.165, 1, 2 + rng.integers(0, len(ATTRIBUTES), count)))
    return {"entity": (np.arange(start, start + count) % 1000), "attribute": attribute,
            "confidence": rng.integers(0, 10_000, count) / 10_000, "draws": rng.random((count, 8))}


def zipf_pick(words: Sequence[str], u: float) -> str:
    weights = _zipf_cdf(len(words))
    return words[int(np.searchsorted(weights, u * weights[-1], side="right"))]


_CDF: dict[int, np.ndarray] = {}


def _zipf_cdf(n: int) -> np.ndarray:
    if n not in _CDF:
        _CDF[n] = np.cumsum(1.0 / np.arange(1, n + 1))
    return _CDF[n]


def text_of(d: np.ndarray) -> str:
    def pick(words: Sequence[str], u: float) -> str:
        return words[min(int(u * len(words)), len(words) - 1)]

    if d[0] < 0.3:  # Chinese
        return (f"{pick(ZH_NAMES, d[1])}{pick(ZH_DAYS, d[2])}{pick(ZH_VERBS, d[3])}{zipf_pick(ZH_NOUNS, d[4])}，"
                f"地点在{pick(ZH_PLACES, d[5])}")
    text = f"{pick(NAMES, d[1])} {pick(VERBS, d[2])} the {zipf_pick(NOUNS, d[4])} in {pick(PLACES, d[5])} " \
           f"on {pick(DAYS, d[3])}"
    if d[6] < 0.4:
        text += f" with {pick(NAMES, d[7])} because of the {zipf_pick(NOUNS, d[6] / 0.4)}"
    return text


def record_of(i: int, props: dict[str, np.ndarray], j: int) -> Any:
    from mnemir.ir import MemIR

    attribute = props["attribute"][j]
    attr = "weather" if attribute == 0 else "allergy" if attribute == 1 else ATTRIBUTES[attribute - 2]
    p = {"entity": f"e{props['entity'][j]}", "attribute": attr, "value": PLACES[i % len(PLACES)],
         "confidence": float(props["confidence"][j])}
    return MemIR.model_validate({"id": f"m{i:08d}", "content": {"text": text_of(props["draws"][j])}, "type": "Fact",
                                 "properties": p, "scope": {"user_id": USER},
                                 "metadata": {"created_at": NOW, "updated_at": NOW}, "valid_from": NOW})


# -- the store -------------------------------------------------------------------------------------
def store_path(root: Path, n: int) -> Path:
    return root / f"n{n}.db"


def build(path: Path, n: int, seed: int) -> dict[str, Any]:
    """Write the store (batches of 1000 through ``write()``), then build its approximate index; both timed."""
    from mnemir.store.base import Write
    from mnemir.store.sqlite import SQLiteStore

    for suffix in ("", "-wal", "-shm", ".ann", ".vec"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(path, ontology=ontology())
    where = centres(seed)
    began = time.perf_counter()
    for chunk, lo in enumerate(range(0, n, CHUNK)):
        count = min(CHUNK, n - lo)
        vectors = chunk_vectors(seed, chunk, count, where)
        props = chunk_props(seed, chunk, lo, count)
        for b in range(0, count, 1000):
            store.write([Write(record_of(lo + j, props, j), vectors[j]) for j in range(b, min(b + 1000, count))],
                        model_id=MODEL)
        if chunk % 10 == 9:
            done = lo + count
            print(f"  {done} records, {done / (time.perf_counter() - began):.0f}/s", file=sys.stderr, flush=True)
    write_s = time.perf_counter() - began
    store.close()
    store = SQLiteStore(path, ontology=ontology(), ann=True)
    began = time.perf_counter()
    ann = store.build_ann_index()
    ann_s = time.perf_counter() - began
    info = {"n": n, "seed": seed, "write_s": write_s, "write_records_per_s": n / write_s, "ann_build_s": ann_s,
            "ann": ann, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load_average": os.getloadavg()}
    store.set_meta("bench_scale", json.dumps(info))
    store.close()
    return info


def cache_file_info(store: Any) -> dict[str, Any]:
    """How the vector cache was loaded (its file or SQLite) and the file's size."""
    cf = store.cache_file
    if cf is None:
        return {}
    size = cf.path.stat().st_size / 2**20 if cf.path.exists() else 0.0
    return {"last_load": cf.last_load, "saves": cf.saves, "mib": size, "save_s": cf.save_seconds,
            "load_s": cf.load_seconds}


def rss_mib() -> tuple[float, float]:
    """Resident set size now and its peak, MiB."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def disk_mib(path: Path) -> dict[str, float]:
    out = {}
    for suffix in ("", "-wal", ".ann", ".vec"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            out[suffix or "db"] = p.stat().st_size / 2**20
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


# -- measuring -------------------------------------------------------------------------------------
def measure(path: Path, n: int, seed: int, nq: int, rounds: int, add_n: int,
            ann_min_candidates: int | None = None, skip_recall: bool = False,
            force_index: bool = False, add_many_n: int = 0) -> dict[str, Any]:
    from mnemir.store.base import Selection
    from mnemir.store.filters import parse_filter
    from mnemir.store.sqlite import SQLiteStore

    onto = ontology()
    out: dict[str, Any] = {"n": n, "load_average_start": os.getloadavg()}
    rss0 = rss_mib()[0]
    began = time.perf_counter()
    store = SQLiteStore(path, ontology=onto, ann=True,
                        **({"ann_min_candidates": ann_min_candidates} if ann_min_candidates else {}))
    out["ann_min_candidates"] = store.ann_min_candidates
    out["open_ms"] = (time.perf_counter() - began) * 1000
    out["build"] = json.loads(store.get_meta("bench_scale") or "{}")
    where = centres(seed)
    qs = queries(seed, nq, where)
    began = time.perf_counter()
    store.vector_search(Selection(user_id=USER, types=("Fact",)), qs[0], 10)  # loads the vector cache (+ index)
    out["first_search_ms"] = (time.perf_counter() - began) * 1000
    out["cache_file"] = cache_file_info(store)
    if store.cache_file is not None and store.cache_file.last_load != "file":
        # the cache was read from SQLite (and written to its file): what the next process pays
        began = time.perf_counter()
        store.close()
        out["close_ms"] = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        store = SQLiteStore(path, ontology=onto, ann=True,
                            **({"ann_min_candidates": ann_min_candidates} if ann_min_candidates else {}))
        store.vector_search(Selection(user_id=USER, types=("Fact",)), qs[0], 10)
        out["reopen_first_search_ms"] = (time.perf_counter() - began) * 1000
        out["reopen_cache_file"] = cache_file_info(store)
    if force_index and store._ann is not None and store._ann.header is not None:
        store._ann.header.usable = True  # an experiment: what the index gives where its calibration refused it
        store._ann.header.reason += " (forced on by the benchmark)"
    out["forced_index"] = force_index
    out["ann"] = store.build_ann_index(now=False)
    began = time.perf_counter()
    store.text_search(Selection(user_id=USER), "meeting", 10)  # loads the postings of one common word
    out["first_text_search_ms"] = (time.perf_counter() - began) * 1000
    out["rss_mib_after_open"] = rss_mib()[0] - rss0
    out["disk_mib"] = disk_mib(path)

    # the filtered rows, computed from the generated properties (not by the store); rid order = write order
    cache = store._cache
    assert cache.size == n, (cache.size, n)
    attribute = np.empty(n, dtype=np.int64)
    entity = np.empty(n, dtype=np.int64)
    confidence = np.empty(n, dtype=np.float64)
    for chunk, lo in enumerate(range(0, n, CHUNK)):
        count = min(CHUNK, n - lo)
        p = chunk_props(seed, chunk, lo, count)
        attribute[lo : lo + count], entity[lo : lo + count] = p["attribute"], p["entity"]
        confidence[lo : lo + count] = p["confidence"]
    check = np.random.default_rng(1).integers(0, n, 20)  # the cache's row i is record i (spot check)
    ids = store._db.read("ids", lambda conn: dict(conn.execute(
        f"SELECT rid, id FROM records WHERE rid IN ({', '.join(str(int(cache.rids[i])) for i in check)})")))
    assert all(ids[int(cache.rids[i])] == f"m{i:08d}" for i in check), "rows are not in write order"
    allowed = {"core 0.1%": entity == 42, "core 1.5%": attribute == 1, "core 15%": attribute == 0,
               "JSON 0.1%": confidence >= 0.999, "JSON 1.5%": confidence >= 0.985, "JSON 15%": confidence >= 0.85,
               "none (whole scope)": np.ones(n, dtype=bool)}
    cases = []
    for name, (flt, _share) in FILTERS.items():
        sel = Selection(user_id=USER, types=("Fact",), where=parse_filter(flt, onto) if flt else None)
        cases.append({"name": name, "selection": sel, "mask": allowed[name], "planned": [], "exact": [], "cpu": [],
                      "planned_recall": [], "exact_recall": [], "paths": {}})
    ann = store._ann
    matrix = cache.matrix[: cache.size]
    for qi, q in enumerate(qs):
        scores = np.einsum("ij,j->i", matrix, q)  # brute force, once per query, for every case
        for case in cases:
            s = np.where(case["mask"], scores, -np.inf)
            truth = set(cache.rids[np.argpartition(-s, 9)[:10]].tolist())
            for mode in ("planned", "exact") if qi % 2 else ("exact", "planned"):
                store._ann = ann if mode == "planned" else None
                t0, c0 = time.perf_counter(), time.process_time()
                hits = store.vector_search(case["selection"], q, 10)
                case[mode].append((time.perf_counter() - t0) * 1000)
                if mode == "planned":
                    case["cpu"].append((time.process_time() - c0) * 1000)
                got = {int(h[0][1:]) for h in hits}  # record number = cache row (checked above)
                found = {int(cache.rids[i]) for i in got}
                case[f"{mode}_recall"].append(len(found & truth) / 10)
                if mode == "planned":
                    case["paths"][store.last_search_path] = case["paths"].get(store.last_search_path, 0) + 1
    store._ann = ann
    plan = store._cache.sign_plan
    out["signs"] = plan.describe() if plan is not None else {}
    out["search"] = [{"filter": c["name"], "selected": int(c["mask"].sum()), "p50_ms": statistics.median(c["planned"]),
                      "p95_ms": pct(c["planned"], 95), "cpu_p50_ms": statistics.median(c["cpu"]),
                      "recall": float(np.mean(c["planned_recall"])),
                      "min_recall": float(np.min(c["planned_recall"])),
                      "exact_p50_ms": statistics.median(c["exact"]), "exact_p95_ms": pct(c["exact"], 95),
                      "exact_recall": float(np.mean(c["exact_recall"])), "paths": c["paths"]} for c in cases]
    out["load_average_search"] = os.getloadavg()

    sel = Selection(user_id=USER)
    out["text"] = []
    for text in TEXT_QUERIES:
        times, cpu = [], []
        for _ in range(rounds):
            t0, c0 = time.perf_counter(), time.process_time()
            store.text_search(sel, text, 10)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        matched = len(store.text_search(sel, text, n))
        out["text"].append({"query": text, "matched": matched, "p50_ms": statistics.median(times),
                            "p95_ms": pct(times, 95), "cpu_p50_ms": statistics.median(cpu)})
    out["recall"] = {} if skip_recall else measure_recall(store, onto, rounds)
    out["add"] = measure_add(store, onto, seed, where, add_n, n) if add_n else {}
    out["add_many"] = measure_add_many(store, onto, seed, where, add_many_n, n) if add_many_n else {}
    out["rss_mib_end"], out["rss_peak_mib"] = rss_mib()
    out["load_average_end"] = os.getloadavg()
    store.close()
    return out


def unindexed_copy(path: Path) -> Path:
    """A copy of the store in which ``Fact.confidence`` is a plain JSON property (its side-table rows and its place in
    ``meta.indexed_properties`` removed), made once beside it: what a store whose ontology does not mark it
    filterable holds."""
    import shutil
    import sqlite3

    target = path.with_name(f"{path.stem}-unindexed{path.suffix}")
    if target.exists():
        return target
    tmp = target.with_name(target.name + ".tmp")
    shutil.copyfile(path, tmp)
    conn = sqlite3.connect(tmp)
    with conn:
        conn.execute("DELETE FROM props WHERE key = 'confidence'")
        indexed = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'indexed_properties'").fetchone()[0])
        conn.execute("UPDATE meta SET value = ? WHERE key = 'indexed_properties'",
                     (json.dumps(sorted(set(indexed) - {"confidence"})),))
        conn.execute("DELETE FROM meta WHERE key = 'ann_uid'")  # another store: its cache files are its own
    conn.execute("VACUUM")
    conn.close()
    tmp.rename(target)
    return target


def measure_unindexed_json(path: Path, n: int, seed: int, nq: int) -> dict[str, Any]:
    """Filters on a JSON property nothing indexes (``Fact.confidence`` in :func:`unindexed_copy`): SQL's
    ``json_extract`` over every row (adoption off) against the cache's own column, built at the first such filter
    (:meth:`mnemir.store.sqlite.prop_filters.PropertyColumns.adopt`). Same answers required."""
    from mnemir.ontology import Ontology
    from mnemir.ontology.builtin import BUILTIN_TYPES
    from mnemir.store.base import Selection
    from mnemir.store.filters import parse_filter
    from mnemir.store.sqlite import SQLiteStore, prop_filters

    onto = Ontology(list(BUILTIN_TYPES))  # confidence not filterable
    copy = unindexed_copy(path)
    Path(f"{copy}.vec").unlink(missing_ok=True)  # a cache file from an earlier run would hold the adopted column
    store = SQLiteStore(copy, ontology=onto, ann=True)
    qs = queries(seed, nq, centres(seed))
    store.vector_search(Selection(user_id=USER, types=("Fact",)), qs[0], 10)  # the cache is loaded
    out: dict[str, Any] = {"store": str(copy), "filters": []}
    names = ("JSON 0.1%", "JSON 1.5%", "JSON 15%")
    selections = [Selection(user_id=USER, types=("Fact",), where=parse_filter(FILTERS[name][0], onto))
                  for name in names]
    limit, prop_filters.MAX_ADOPTED = prop_filters.MAX_ADOPTED, 0  # first SQL alone, for every filter
    sql: dict[str, list[float]] = {name: [] for name in names}
    sql_hits: dict[str, list[Any]] = {name: [] for name in names}
    try:
        for q in qs:
            for name, sel in zip(names, selections, strict=True):
                t0 = time.perf_counter()
                sql_hits[name].append(store.vector_search(sel, q, 10))
                sql[name].append((time.perf_counter() - t0) * 1000)
    finally:
        prop_filters.MAX_ADOPTED = limit
    first: dict[str, float] = {}
    adopted: dict[str, list[float]] = {name: [] for name in names}
    hits: dict[str, list[Any]] = {name: [] for name in names}
    for q in qs:
        for name, sel in zip(names, selections, strict=True):
            t0 = time.perf_counter()
            hits[name].append(store.vector_search(sel, q, 10))
            took = (time.perf_counter() - t0) * 1000
            if name in first:
                adopted[name].append(took)
            else:
                first[name] = took
    for name in names:
        same = sum(a == b for a, b in zip(hits[name], sql_hits[name], strict=True)) / len(qs)
        out["filters"].append({"filter": name, "sql_p50_ms": statistics.median(sql[name]), "first_ms": first[name],
                               "p50_ms": statistics.median(adopted[name]), "path": store.last_search_path,
                               "same_answers": same})
    out["adopted"] = sorted(store._cache.props.adopted)
    store.close()
    return out


class LookupEmbedder:
    """The default model's id and dimension, with vectors made in advance: ``add`` measures the store, not the model."""

    model_id, dim = MODEL, DIM

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.vstack([self.table[t] for t in texts]) if texts else np.zeros((0, DIM), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.table[text]


def new_records(seed: int, salt: int, n: int, count: int, where: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """``count`` records numbered past a store of ``n``, with their vectors; ``salt`` keeps each benchmark's apart."""
    props = chunk_props(seed, salt, n, count)
    return [record_of(n + j, props, j) for j in range(count)], chunk_vectors(seed, salt, count, where)


class WriteBench(NamedTuple):
    """A store of ``n`` opened for a write benchmark: ``mem`` embeds ``records`` by lookup (``vectors``)."""

    store: Any
    mem: Any
    records: list[Any]
    vectors: np.ndarray
    open_s: float  # wall seconds to open the store and answer its first search


def open_for_writes(root: Path, n: int, seed: int, salt: int, count: int, **store_options: Any) -> WriteBench:
    """The store of ``n`` under ``root`` (built first if missing), opened and searched once, with ``count`` new
    records ready to write through a :class:`mnemir.Memory` whose embedder looks their vectors up."""
    import mnemir
    from mnemir.store.base import Selection
    from mnemir.store.sqlite import SQLiteStore

    path = store_path(root, n)
    if not path.exists():
        build(path, n, seed)
    onto = ontology()
    where = centres(seed)
    start = time.perf_counter()
    store = SQLiteStore(path, ontology=onto, ann=True, **store_options)
    store.vector_search(Selection(user_id=USER, types=("Fact",)), queries(seed, 1, where)[0], 10)
    open_s = time.perf_counter() - start
    records, vectors = new_records(seed, salt, n, count, where)
    mem = mnemir.Memory(store, embedder=LookupEmbedder({r.content.text: vectors[j] for j, r in enumerate(records)}),
                        ontology=onto, config=mnemir.MemoryConfig())
    return WriteBench(store, mem, records, vectors, open_s)


def measure_recall(store: Any, onto: Any, rounds: int) -> dict[str, Any]:
    import mnemir
    from mnemir.embed import make_embedder

    embedder = make_embedder("use")
    mem = mnemir.Memory(store, embedder=embedder, ontology=onto, config=mnemir.MemoryConfig())
    for q in RECALL_QUERIES:  # embedded once here; the query cache answers during timing
        embedder.embed_query(q)
        mem.recall(q, user=USER, k=5, now=NOW)  # warm-up (intent model, postings of the query words)
    times, cpu, paths = [], [], {}
    for _ in range(rounds):
        for q in RECALL_QUERIES:
            t0, c0 = time.perf_counter(), time.process_time()
            mem.recall(q, user=USER, k=5, now=NOW)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            paths[store.last_search_path] = paths.get(store.last_search_path, 0) + 1
    return {"queries": len(times), "p50_ms": statistics.median(times), "p95_ms": pct(times, 95),
            "cpu_p50_ms": statistics.median(cpu),
            "last_vector_path": paths}


def measure_add(store: Any, onto: Any, seed: int, where: np.ndarray, count: int, n: int) -> dict[str, Any]:
    """``Memory.add`` of ``count`` new Fact records into the big scope, one call each; then they are removed."""
    import mnemir

    records, vectors = new_records(seed, 10**6 + 1, n, count, where)
    table = {r.content.text: vectors[j] for j, r in enumerate(records)}
    mem = mnemir.Memory(store, embedder=LookupEmbedder(table), ontology=onto, config=mnemir.MemoryConfig())
    ids = []
    t0, c0 = time.perf_counter(), time.process_time()
    for j, r in enumerate(records):
        properties = {**r.properties, "entity": f"new{j}"}  # new subjects: nothing stored is superseded or merged
        ids.append(mem.add(r.content.text, "Fact", properties, user=USER, id=f"add{seed}-{j}", now=NOW).id)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    store.write([], model_id=MODEL, delete_ids=sorted(set(ids)))
    return {"records": count, "seconds": seconds, "records_per_s": count / seconds, "records_per_cpu_s": count / cpu}


def measure_add_many(store: Any, onto: Any, seed: int, where: np.ndarray, count: int, n: int, batch: int = 1000,
                     governed: int = 200) -> dict[str, Any]:
    """``Memory.add_many`` of ``count`` new Fact records into the big scope, ``batch`` items per call, with their
    vectors given (``govern=False``: a bulk load), and of ``governed`` more with the lifecycle rules on (one
    call); then they are removed. Each call is one store transaction."""
    import mnemir

    props = chunk_props(seed, 10**6 + 2, n, count + governed)
    vectors = chunk_vectors(seed, 10**6 + 2, count + governed, where)
    records = [record_of(n + j, props, j) for j in range(count + governed)]
    items = [{"text": r.content.text, "type": "Fact", "properties": {**r.properties, "entity": f"bulk{j}"},
              "id": f"bulk{seed}-{j}"} for j, r in enumerate(records)]
    mem = mnemir.Memory(store, embedder=LookupEmbedder({}), ontology=onto, config=mnemir.MemoryConfig())
    out: dict[str, Any] = {"records": count, "batch": batch}
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        for lo in range(0, count, batch):
            mem.add_many(items[lo : lo + batch], user=USER, vectors=vectors[lo : lo + batch], govern=False, now=NOW)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        out.update(seconds=seconds, records_per_s=count / seconds, cpu_s=cpu, records_per_cpu_s=count / cpu,
                   load_average=os.getloadavg())
        if governed:
            t0, c0 = time.perf_counter(), time.process_time()
            mem.add_many(items[count:], user=USER, vectors=vectors[count:], govern=True, now=NOW)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            out["governed"] = {"records": governed, "seconds": seconds, "records_per_s": governed / seconds,
                               "records_per_cpu_s": governed / cpu}
    finally:
        store.write([], model_id=MODEL, delete_ids=[item["id"] for item in items])
    return out


# -- report and plot -------------------------------------------------------------------------------
def report(r: dict[str, Any]) -> None:
    b = r.get("build", {})
    print(f"# scale, N = {r['n']:,} (load {r['load_average_start'][0]:.2f} at start, "
          f"{r['load_average_end'][0]:.2f} at end)")
    if b:
        print(f"build: write() {b['write_records_per_s']:.0f} records/s ({b['write_s']:.0f} s), approximate index "
              f"{b['ann_build_s']:.0f} s, load {b['load_average'][0]:.1f}, {b['built_at']}")
    print(f"open {r['open_ms']:.0f} ms; first search (vector cache + index) {r['first_search_ms']:.0f} ms; first text "
          f"search {r['first_text_search_ms']:.0f} ms; RSS +{r['rss_mib_after_open']:.0f} MiB after open, "
          f"peak {r['rss_peak_mib']:.0f} MiB; disk {sum(r['disk_mib'].values()):.0f} MiB {r['disk_mib']}")
    if r.get("cache_file"):
        line = f"vector cache: {r['cache_file']['last_load']}"
        if "reopen_first_search_ms" in r:
            line += (f"; written ({r['reopen_cache_file']['mib']:.0f} MiB), close {r['close_ms']:.0f} ms; reopened: "
                     f"first search {r['reopen_first_search_ms']:.0f} ms ({r['reopen_cache_file']['last_load']})")
        print(line)
    print(f"HNSW index: {r['ann'].get('reason')}")
    if r.get("signs"):
        sp = r["signs"]
        print(f"sign codes: {sp['reason']}, usable {sp['usable']}, calibrated in {sp['seconds']:.1f} s")
    print("\n| filter | selected | planned p50 / p95 ms (CPU p50) | recall | exact p50 / p95 ms | exact recall | path |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for s in r["search"]:
        print(f"| {s['filter']} | {s['selected']:,} | {s['p50_ms']:.2f} / {s['p95_ms']:.2f} "
              f"({s.get('cpu_p50_ms', float('nan')):.2f}) | {s['recall']:.3f} "
              f"(min {s['min_recall']:.1f}) | {s['exact_p50_ms']:.2f} / {s['exact_p95_ms']:.2f} | "
              f"{s['exact_recall']:.3f} | {', '.join(f'{k} x{v}' for k, v in s['paths'].items())} |")
    print("\n| text query | matching | p50 / p95 ms (CPU p50) |\n|---|---:|---:|")
    for t in r["text"]:
        print(f"| {t['query']} | {t['matched']:,} | {t['p50_ms']:.2f} / {t['p95_ms']:.2f} "
              f"({t.get('cpu_p50_ms', float('nan')):.2f}) |")
    rc, ad = r["recall"], r["add"]
    if rc:
        print(f"\nrecall (k=5, query embedding excluded): {rc['p50_ms']:.1f} / {rc['p95_ms']:.1f} ms p50 / p95 over "
              f"{rc['queries']}, CPU p50 {rc.get('cpu_p50_ms', float('nan')):.1f} ms ({rc['last_vector_path']})")
    if ad:
        print(f"add (one call per record, precomputed vectors): {ad['records_per_s']:.0f} records/s over "
              f"{ad['records']}")
    am = r.get("add_many")
    if am:
        print(f"add_many (govern=False, {am['batch']} per call, vectors given): {am['records_per_s']:.0f} records/s "
              f"({am.get('records_per_cpu_s', float('nan')):.0f} per CPU second) over {am['records']}")
        if am.get("governed"):
            g = am["governed"]
            print(f"add_many (govern=True, one call): {g['records_per_s']:.1f} records/s over {g['records']}")


def report_unindexed(r: dict[str, Any]) -> None:
    print("\n| filter on an unindexed JSON property | SQL (json_extract) p50 ms | first use (adopts) ms | "
          "then p50 ms | same answers |\n|---|---:|---:|---:|---:|")
    for f in r["filters"]:
        print(f"| {f['filter']} | {f['sql_p50_ms']:.1f} | {f['first_ms']:.0f} | {f['p50_ms']:.2f} ({f['path']}) | "
              f"{f['same_answers']:.2f} |")


def plot(files: list[Path], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted((json.loads(f.read_text()) for f in files), key=lambda r: r["n"])
    ns = [r["n"] for r in runs]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    ax = axes[0]
    for name in FILTERS:
        ax.plot(ns, [next(s["p50_ms"] for s in r["search"] if s["filter"] == name) for r in runs], marker="o",
                label=name)
    ax.plot(ns, [r["recall"]["p50_ms"] for r in runs], marker="s", linestyle="--", color="k", label="recall (k=5)")
    ax.plot(ns, [r["text"][0]["p50_ms"] for r in runs], marker="^", linestyle=":", color="grey",
            label=f"full text '{TEXT_QUERIES[0]}'")
    ax.set(xscale="log", yscale="log", xlabel="memories in the scope", ylabel="p50 ms", title="search latency")
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.plot(ns, [sum(r["disk_mib"].values()) for r in runs], marker="o", label="disk MiB")
    ax.plot(ns, [r["rss_mib_after_open"] for r in runs], marker="o", label="RSS after open, MiB")
    ax.plot(ns, [r["first_search_ms"] for r in runs], marker="o", label="first search ms (cache load)")
    ax.set(xscale="log", yscale="log", xlabel="memories", title="size and open cost")
    ax.legend(fontsize=7)
    ax = axes[2]
    ax.plot(ns, [r["add"]["records_per_s"] for r in runs], marker="o", label="Memory.add records/s")
    ax.plot(ns, [r["build"]["write_records_per_s"] for r in runs], marker="o", label="store.write (1000) records/s")
    ax.set(xscale="log", yscale="log", xlabel="memories", title="ingest")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(f"-> {target}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--queries", type=int, default=60, help="query vectors per filter")
    parser.add_argument("--rounds", type=int, default=20, help="repetitions of text and recall queries")
    parser.add_argument("--add", type=int, default=500, help="records added through Memory.add")
    parser.add_argument("--add-many", type=int, default=10_000,
                        help="records added through Memory.add_many (1000 per call)")
    parser.add_argument("--root", type=Path, default=Path("/tmp/mnemir-scale"))
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--ann-min-candidates", type=int, help="the planner's threshold (default: the store's)")
    parser.add_argument("--force-index", action="store_true",
                        help="use the approximate index even where its calibration refused it (an experiment)")
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: recall, add, add_many")
    parser.add_argument("--unindexed-json", action="store_true",
                        help="also time filters on a JSON property nothing indexes (a copy of the store, made once)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path, nargs="+", help="results files to plot (cost vs N)")
    parser.add_argument("--png", type=Path, default=Path(__file__).resolve().parent / "results" / "scale.png")
    args = parser.parse_args(argv)
    if args.plot:
        plot(args.plot, args.png)
        return 0
    path = store_path(args.root, args.n)
    if args.rebuild or not path.exists():
        info = build(path, args.n, args.seed)
        print(json.dumps(info, indent=1, default=str), file=sys.stderr)
    if args.build_only:
        return 0
    command = "python bench/scale.py " + " ".join(sys.argv[1:] if argv is None else argv)
    skip = set(args.skip.split(","))
    result = measure(path, args.n, args.seed, args.queries, args.rounds, 0 if "add" in skip else args.add,
                     args.ann_min_candidates, skip_recall="recall" in skip, force_index=args.force_index,
                     add_many_n=0 if "add_many" in skip else args.add_many)
    if args.unindexed_json:
        result["unindexed_json"] = measure_unindexed_json(path, args.n, args.seed, args.queries)
        report_unindexed(result["unindexed_json"])
    result["command"] = command
    result["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    report(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
