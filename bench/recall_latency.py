"""Benchmark: mem.recall() latency on a 100k-memory store, side by side with plain hybrid search.

Records are written straight through the store contract (random unit vectors: the embedder is not what is
measured) over many users and all built-in types; 5% of them are noisy copies of the query vectors so that
every query has close candidates to rank, expand and judge (as in real use). The query embedding is excluded:
every query is embedded once before timing and the embedder's query cache serves it afterwards; intent
inference (the shipped classifier) IS included in recall's time.

    .venv/bin/python bench/recall_latency.py                 # 100k memories, 100 users (1k each)
    .venv/bin/python bench/recall_latency.py --users 10      # 10k memories per user
    .venv/bin/python bench/recall_latency.py --n 20000       # quicker
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

import mnemir
from mnemir.embed.base import normalize_rows
from mnemir.ir import Content, MemIR, Metadata, Relationship, Scope, Source
from mnemir.ontology import format_datetime
from mnemir.store.base import Selection, Write
from mnemir.store.filters import Cmp

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
#: how many frames recall reads (a literal in mnemir.retrieve.recall._frames, not a RecallConfig setting)
FRAMES_LIMIT = 20
#: episodes (what remember keeps verbatim) are counted among the n memories; most typed memories link to one
MIX = {"Episode": 0.4, "Fact": 0.18, "Preference": 0.09, "Task": 0.09, "Plan": 0.06, "EmotionalState": 0.07,
       "DialogueAct": 0.05, "Hypothesis": 0.03, "ContextualFrame": 0.03}
#: words the queries use; each text carries one of them with probability TOPICAL, else only filler words
TOPICAL = 0.02
FILLER = [f"w{i:04d}" for i in range(5000)]
WORDS = ["上海", "天气", "机票", "报告", "咖啡", "搬家", "会议", "预算", "Lisbon", "weather", "flight", "report",
         "coffee", "invoice", "dentist", "museum", "plan", "budget", "car", "insurance", "dog", "vet", "tea"]
QUERIES = ["上海天气怎么样？", "我让你订的机票订好了吗？", "还有什么事没做？", "我喜欢喝什么咖啡？", "上次开会我是什么心情？",
           "What's the weather in Lisbon?", "Which moving chores are still open?", "Did the invoice get sent?",
           "What should I drink this afternoon?", "Where is the dentist?", "How much is the car insurance?",
           "What did the vet say about the dog?", "装修预算还剩多少？", "明天的会议是几点？", "Which museum opens on Monday?"]


def make_record(type_: str, i: int, rng: random.Random, users: int) -> MemIR:
    user = f"user{rng.randrange(users)}"
    at = NOW - timedelta(minutes=rng.randrange(60 * 24 * 90))
    filler = rng.sample(FILLER, 6)
    words = " ".join(filler + ([rng.choice(WORDS)] if rng.random() < TOPICAL else []))
    props: dict[str, object]
    if type_ == "Fact":
        props = {"entity": filler[0], "attribute": f"attr{i % 50}", "value": str(i),
                 "confidence": rng.choice([0.3, 0.7, 0.95]), "source": rng.choice(["user", "external"])}
    elif type_ == "Preference":
        props = {"subject": filler[0], "preference_type": rng.choice(["like", "dislike"]), "strength": 0.6}
    elif type_ in ("Task", "Plan"):
        props = {"status": rng.choice(["pending", "in_progress", "completed", "failed"])}
        props["goal" if type_ == "Task" else "order"] = f"goal {i}" if type_ == "Task" else rng.randrange(1, 6)
    elif type_ == "EmotionalState":
        props = {"emotion_type": rng.choice(["anger", "joy", "anxiety"]), "intensity": round(rng.random(), 2)}
    elif type_ == "DialogueAct":
        props = {"act_type": "inform"}
    elif type_ == "Episode":
        props = {"speaker": "user", "turn": i % 40}
    elif type_ == "Hypothesis":
        props = {"entity": filler[0], "attribute": "guess", "value": "x", "confidence": 0.3}
    else:
        props = {"frame_type": "meeting", "topic": words, "active": rng.random() < 0.1}
    return MemIR(content=Content(text=f"{words} {type_} memory {i}"), type=type_, properties=props,
                 scope=Scope(user_id=user), valid_from=at,
                 metadata=Metadata(created_at=at, updated_at=at, source=Source(speaker="user", creator="bench", at=at)))


def build(mem: mnemir.Memory, n: int, users: int, queries: np.ndarray, seed: int) -> float:
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    types = [t for t, share in MIX.items() for _ in range(round(share * 1000))]
    started = time.perf_counter()
    batch: list[Write] = []
    previous: dict[str, str] = {}
    said: dict[str, str] = {}  # each user's latest episode
    for i in range(n):
        record = make_record(types[i % len(types)], i, rng, users)
        user = record.scope.user_id or ""
        links = []
        if user in previous and rng.random() < 0.2:  # some relationships for the graph walk to follow
            links.append(Relationship(target=previous[user], relation="related_to_entity"))
        if record.type != "Episode" and user in said and rng.random() < 0.8:  # read from an utterance
            links.append(Relationship(target=said[user], relation="derived_from"))
        if links:
            record = record.model_copy(update={"relationships": links})
        previous[user] = record.id
        if record.type == "Episode":
            said[user] = record.id
        if rng.random() < 0.05:  # close to one of the queries
            vec = queries[rng.randrange(len(queries))] + nprng.normal(0, 0.04, queries.shape[1])
        else:
            vec = nprng.normal(0, 1, queries.shape[1])
        batch.append(Write(record, normalize_rows(vec)[0]))
        if len(batch) == 2000:
            mem.store.write(batch, model_id=mem.embedder.model_id)
            batch = []
    if batch:
        mem.store.write(batch, model_id=mem.embedder.model_id)
    return time.perf_counter() - started


#: the process CPU time of each timed call, per operation (on a shared machine, wall time includes waiting for a core)
CPU: dict[str, list[float]] = {}


def timed(fn: Callable[[], object], repeat: int, name: str | None = None) -> list[float]:
    out = []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        fn()
        out.append((time.perf_counter() - started) * 1000)
        if name is not None:
            CPU.setdefault(name, []).append((time.process_time() - cpu) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3, help="passes over the query set")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--k", type=int, default=5, help="recall's k")
    parser.add_argument("--variant", default=None,
                        help='JSON of RecallConfig changes: recall under them too, timed beside the default '
                             '(e.g. \'{"plain_tail_share": 1.0}\')')
    args = parser.parse_args()
    k = args.k
    with tempfile.TemporaryDirectory(prefix="mnemir-recall-bench-") as tmp:
        mem = mnemir.open(Path(tmp) / "mem")
        qvecs = np.vstack([mem.embedder.embed_query(q) for q in QUERIES])  # warms the query cache
        seconds = build(mem, args.n, args.users, qvecs, args.seed)
        print(f"built {args.n} memories over {args.users} users in {seconds:.1f} s")
        rng = random.Random(args.seed)
        plan = [(q, f"user{rng.randrange(args.users)}") for _ in range(args.rounds) for q in QUERIES]
        for q, user in plan[:5]:  # warm-up: vector cache load, intent model load
            mem.recall(q, user=user, k=5, now=NOW)
        results: dict[str, list[float]] = {"recall": [], "rules_only": [], "search": [], "vector_search": [],
                                           "intent": [], "present": [], "frames": [], "count": [], "variant": []}
        # the settings recall itself reads (mem.recall_config: RecallConfig() unless replaced)
        config = mem.recall_config
        rules_only = config.with_(learned=False)
        variant = config.with_(**json.loads(args.variant)) if args.variant else None
        since = Cmp("@created_at", "$gte", format_datetime(NOW - config.ranking.present_window), "datetime")
        hits = []
        for q, user in plan:
            qv = mem.embedder.embed_query(q)
            results["vector_search"] += timed(lambda q=q, u=user, qv=qv: mem.store.vector_search(
                Selection(user_id=u), qv, 20), 1)
            results["search"] += timed(lambda q=q, u=user: mem.search(q, user=u, k=5, now=NOW), 1, "search")
            results["intent"] += timed(lambda q=q: mem.intent(q, now=NOW), 1)
            # the two selects recall makes besides its searches (the present state, the frames), timed alone
            results["present"] += timed(lambda u=user: [mem.store.select(
                Selection(user_id=u, types=(t,), where=since), order_by=[("@created_at", False)],
                limit=config.present_limit) for t in ("Fact", "EmotionalState")], 1)  # one read per type, as recall does
            results["frames"] += timed(lambda u=user: mem.store.select(
                Selection(user_id=u, types=("ContextualFrame",)), order_by=[("@created_at", False)],
                limit=FRAMES_LIMIT), 1)
            # what recall reads over a long conversation between people (RecallConfig.chat_text_weight_long)
            results["count"] += timed(lambda u=user: mem.store.count(Selection(user_id=u, types=("Episode",))), 1)
            results["recall"] += timed(lambda q=q, u=user: hits.append(len(mem.recall(q, user=u, k=k, now=NOW).hits)),
                                       1, "recall")
            mem.recall_config = rules_only  # the same query without the learned nudge (its features and model)
            results["rules_only"] += timed(lambda q=q, u=user: mem.recall(q, user=u, k=k, now=NOW), 1, "rules_only")
            if variant is not None:  # the same query under the variant's settings
                mem.recall_config = variant
                results["variant"] += timed(lambda q=q, u=user: mem.recall(q, user=u, k=k, now=NOW), 1, "variant")
            mem.recall_config = config
        per_user = mem.store.count(Selection(user_id="user0"))
        mem.close()
    base = statistics.median(results["search"])
    print(f"{len(plan)} queries, ~{per_user} memories per user scope, mean hits per recall {np.mean(hits):.1f}")
    print(f"{'operation':<32}{'p50 ms':>9}{'p95 ms':>9}{'p50 / search':>14}{'p50 cpu ms':>12}")
    for name, label in (("vector_search", "store.vector_search (k=20)"), ("search", "mem.search (hybrid, k=5)"),
                        ("present", "store.select present state"), ("frames", "store.select frames"),
                        ("count", "store.count episodes"),
                        ("intent", "mem.intent (in recall)"), ("rules_only", f"mem.recall, rules only (k={k})"),
                        ("recall", f"mem.recall (k={k})"), ("variant", f"mem.recall, variant (k={k})")):
        if not results[name]:
            continue
        values = sorted(results[name])
        p50, p95 = statistics.median(values), values[int(0.95 * (len(values) - 1))]
        cpu = f"{statistics.median(CPU[name]):>12.2f}" if name in CPU else ""
        print(f"{label:<32}{p50:>9.2f}{p95:>9.2f}{p50 / base:>14.2f}{cpu}")


if __name__ == "__main__":
    main()
