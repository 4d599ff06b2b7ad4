"""SQLite: text_search from the in-process BM25 postings (mnemir.store.sqlite.fts_index) gives exactly what the
FTS5 query gives (ids, order and scores to the bit), for single words, several words, Chinese, selections the
vector cache answers and ones it does not, and after other writers inserted, rewrote and deleted records."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from store_cases import MODEL, ONTOLOGY, record, unit

from mnemir.ir import MemoryStatus
from mnemir.store.base import ANY, Selection, Write
from mnemir.store.filters import parse_filter
from mnemir.store.sqlite import SQLiteStore, fts_index
from mnemir.store.sqlite import store as sqlite_store
from mnemir.store.sqlite.fts_index import fts_term

WORDS = ["coffee", "tea", "上海", "北京", "weather", "rain", "sun", "咖啡", "note", "the", "a", "cat"]
QUERIES = ["coffee", "tea coffee", "上海", "上海 咖啡", "weather in 北京", "the", "note the cat", "rain sun tea",
           "糖", "nothing-here", "Coffee!", "e42", "咖"]


def text_of(rnd: random.Random) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 8)))


def fill(path: Path, n: int = 300, seed: int = 4) -> SQLiteStore:
    rnd = random.Random(seed)
    records = [record(text_of(rnd), "Fact", {"entity": rnd.choice(["e42", "e7", "上海"]),
                                             "attribute": rnd.choice(["weather", "tea"])},
                      user=rnd.choice(["alice", "bob"]), status=rnd.choice([MemoryStatus.active, MemoryStatus.archived]),
                      id=f"t{i:04d}") for i in range(n)]
    store = SQLiteStore(path, ontology=ONTOLOGY)
    store.write([Write(r, v) for r, v in zip(records, unit(np.random.default_rng(seed), n), strict=True)],
                model_id=MODEL)
    return store


@pytest.fixture(autouse=True)
def in_process_for_every_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are tiny: every word is 'rare'; answer in-process anyway (the routing has its own test)."""
    monkeypatch.setattr(sqlite_store, "TEXT_SQL_BELOW", 0.0)


ALL = Selection(user_id=ANY, statuses=tuple(MemoryStatus))


def test_rare_words_go_to_sql(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = fill(tmp_path / "t.db")
    monkeypatch.setattr(sqlite_store, "TEXT_SQL_BELOW", 0.5)
    fast, slow = both(store, SELECTIONS[0], "cat", 5)  # on about a third of the rows
    assert fast == slow and fast
    matched = store._db.read("t", lambda conn: store._text.matches(conn, ["cat"]))
    assert 0 < matched < 0.5 * store._cache.size
    assert store.text_search(ALL, "cat", 1000) == both(store, ALL, "cat", 1000)[1]
    store.close()


def both(store: SQLiteStore, selection: Selection, query: str, k: int) -> tuple[list, list]:
    fast = store.text_search(selection, query, k)
    store.text_fast_path = False
    try:
        slow = store.text_search(selection, query, k)
    finally:
        store.text_fast_path = True
    return fast, slow


SELECTIONS = [Selection(user_id="alice"), Selection(user_id=ANY, statuses=tuple(MemoryStatus)),
              Selection(user_id="bob", where=parse_filter({"entity": "e42"}, ONTOLOGY)),
              Selection(user_id="alice", where=parse_filter({"@speaker": "user"}, ONTOLOGY))]


@pytest.mark.parametrize("score_all_below", [0, fts_index.SCORE_ALL_BELOW])
def test_same_answers_as_fts5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, score_all_below: int) -> None:
    """Both ways of scoring several words in-process: with early termination, and every row at once (what few
    postings take)."""
    monkeypatch.setattr(fts_index, "SCORE_ALL_BELOW", score_all_below)
    store = fill(tmp_path / "t.db")
    nonempty = 0
    for selection in SELECTIONS:
        for query in QUERIES:
            for k in (1, 5, 50, 1000):
                fast, slow = both(store, selection, query, k)
                assert fast == slow, (selection, query, k)
                nonempty += bool(fast)
    assert nonempty > 50
    assert {"coffee", "上海", "the"} <= set(store._text.postings)  # answered in-process, not only by SQL
    store.close()


def test_follows_other_writers(tmp_path: Path) -> None:
    store = fill(tmp_path / "t.db")
    for query in QUERIES:
        both(store, SELECTIONS[0], query, 10)  # postings cached
    writer = SQLiteStore(tmp_path / "t.db", ontology=ONTOLOGY)
    rnd = random.Random(9)
    held = writer.select(Selection(user_id=ANY, statuses=tuple(MemoryStatus)))
    rewritten = [r.model_copy(update={"content": r.content.model_copy(update={"text": text_of(rnd) + " coffee"})})
                 for r in rnd.sample(held, 40)]
    writer.write([Write(r, None) for r in rewritten], model_id=MODEL)
    new = [record("coffee coffee 上海 tea", "Fact", user="alice", id=f"n{i}") for i in range(5)]
    writer.write([Write(r, v) for r, v in zip(new, unit(np.random.default_rng(1), 5), strict=True)], model_id=MODEL)
    writer.write([], model_id=MODEL, delete_ids=[r.id for r in rnd.sample(held, 30)])
    writer.close()
    for selection in SELECTIONS:
        for query in QUERIES:
            fast, slow = both(store, selection, query, 20)
            assert fast == slow, (selection, query)
    assert store._text.postings  # the in-process path was used
    store.close()


@pytest.mark.parametrize(("token", "term"), [("coffee", "coffee"), ("上海", "上海"), ("e42", "e42"),
                                             ("Coffee", None), ("café", None), ("c++", None), ("", None)])
def test_only_single_fts_terms_take_the_fast_path(token: str, term: str | None) -> None:
    assert fts_term(token) == term


def test_common_words_stop_early_with_the_same_answers(tmp_path: Path, in_process_for_every_query: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Words of very different frequency (as in language: a few in most texts, most in few): the postings of the
    common ones are not merged once the rarer ones decide the top k, and the answers stay FTS5's to the bit."""
    monkeypatch.setattr(fts_index, "SCORE_ALL_BELOW", 0)  # a small store: it would score every row at once
    rnd = random.Random(8)
    common, middling, rare = ["the", "and"], ["meeting", "budget", "天气"], ["lighthouse", "glacier", "上海"]
    texts = [" ".join([*rnd.sample(common, 2), rnd.choice(middling), *([rnd.choice(rare)] if i % 9 == 0 else [])])
             for i in range(400)]
    store = SQLiteStore(tmp_path / "z.db", ontology=ONTOLOGY)
    store.write([Write(record(t, "Fact", user="alice", id=f"z{i:04d}"), v)
                 for i, (t, v) in enumerate(zip(texts, unit(np.random.default_rng(3), len(texts)), strict=True))],
                model_id=MODEL)
    stopped = 0
    for query in ["the lighthouse", "the and glacier", "budget the", "上海 天气 the", "meeting", "the and",
                  "lighthouse glacier", "glacier 上海 the"]:  # rare words of about equal weight: no early stop
        for k in (1, 3, 10):
            store.text_fast_path = True
            fast = store.text_search(Selection(user_id="alice"), query, k)
            stopped += store._text.last_words_merged < len(set(query.split()))
            store.text_fast_path = False
            assert fast == store.text_search(Selection(user_id="alice"), query, k), (query, k)
    store.close()
    assert stopped >= 6  # the rare-word queries stopped before the common words


@pytest.mark.parametrize("flat_stale", [0, 3, fts_index.FLAT_STALE])
def test_follows_own_writes_of_new_and_rewritten_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         flat_stale: int) -> None:
    """Writes of new records only touch the postings of the words they hold; a rewrite or delete of a record the
    postings hold is dropped from every term that holds it (found through the flat copy of the postings, made again
    at every such write, every few, or seldom). Both agree with FTS5 after each write, and in the end the postings
    are those a new index reads."""
    monkeypatch.setattr(fts_index, "FLAT_STALE", flat_stale)
    store = fill(tmp_path / "t.db")
    rnd = random.Random(5)
    for query in QUERIES:
        both(store, SELECTIONS[1], query, 10)  # postings of every query word cached
    for step in range(9):
        if step % 3 == 2:  # rewrite (new words) and delete some held records
            held = store.select(ALL)
            latest = [r for r in held if r.id.startswith(f"w{step - 1}-")]  # new since the flat copy was made
            chosen = [*rnd.sample([r for r in held if r not in latest], 4), latest[0]]
            # the newest record loses every cached word: only the terms it was in can say where it was
            rewritten = [r.model_copy(update={"content": r.content.model_copy(
                update={"text": text_of(rnd) if r is not latest[0] else "words nobody asked for"})}) for r in chosen]
            store.write([Write(r, None) for r in rewritten], model_id=MODEL,
                        delete_ids=[r.id for r in [latest[1], *rnd.sample(held, 3)] if r not in chosen][:2])
        else:
            new = [record(text_of(rnd), "Fact", user=rnd.choice(["alice", "bob"]), id=f"w{step}-{i}")
                   for i in range(3)]
            store.write([Write(r, v) for r, v in zip(new, unit(np.random.default_rng(step), 3), strict=True)],
                        model_id=MODEL)
        for selection in SELECTIONS:
            for query in QUERIES:
                fast, slow = both(store, selection, query, 20)
                assert fast == slow, (step, selection, query)
    again = SQLiteStore(tmp_path / "t.db", ontology=ONTOLOGY)
    for query in QUERIES:
        again.text_search(SELECTIONS[1], query, 10)
    assert set(again._text.postings) == set(store._text.postings)
    for term, (rows, weights) in store._text.postings.items():
        assert rows.tolist() == again._text.postings[term][0].tolist(), term
        assert weights.tolist() == again._text.postings[term][1].tolist(), term
    again.close()
    store.close()


def test_a_record_written_after_the_flat_copy_leaves_the_terms_it_held(tmp_path: Path) -> None:
    """A record added to a term's postings after the flat copy of the postings was made, then rewritten without
    that word: the term drops it (it is found among the terms changed since the copy)."""
    store = fill(tmp_path / "t.db")
    for query in ("glacier", "coffee", "tea"):
        both(store, ALL, query, 10)
    old = store.select(ALL)[0]
    store.write([Write(old.model_copy(update={"content": old.content.model_copy(update={"text": "tea"})}), None)],
                model_id=MODEL)
    both(store, ALL, "tea", 10)  # a held row changed: the flat copy is made
    assert store._text._flat is not None
    new = record("glacier", "Fact", user="alice", id="late")
    store.write([Write(new, unit(np.random.default_rng(2), 1)[0])], model_id=MODEL)
    assert [mid for mid, _ in both(store, ALL, "glacier", 10)[0]] == ["late"]
    store.write([Write(new.model_copy(update={"content": new.content.model_copy(update={"text": "words"})}), None)],
                model_id=MODEL)
    fast, slow = both(store, ALL, "glacier", 10)
    assert fast == slow == []
    store.close()


def test_a_rolled_back_block_leaves_no_rows_in_the_postings(tmp_path: Path) -> None:
    """Rows the index read inside an exclusive block that rolled back are gone (their rids and write sequence numbers
    are used again by the next write): the index starts again from the database."""
    store = fill(tmp_path / "t.db")
    for query in QUERIES:
        both(store, SELECTIONS[1], query, 10)
    with pytest.raises(RuntimeError), store.exclusive():
        doomed = [record("coffee coffee coffee tea", "Fact", user="alice", id=f"gone{i}") for i in range(4)]
        store.write([Write(r, v) for r, v in zip(doomed, unit(np.random.default_rng(7), 4), strict=True)],
                    model_id=MODEL)
        assert store.text_search(ALL, "coffee", 3)[0][0].startswith("gone")  # the index read them
        raise RuntimeError("roll back")
    kept = [record("rain rain sun", "Fact", user="bob", id=f"kept{i}") for i in range(4)]
    store.write([Write(r, v) for r, v in zip(kept, unit(np.random.default_rng(8), 4), strict=True)], model_id=MODEL)
    for selection in SELECTIONS:
        for query in QUERIES:
            fast, slow = both(store, selection, query, 20)
            assert fast == slow, (selection, query)
    assert not any(mid.startswith("gone") for mid, _ in store.text_search(ALL, "coffee", 1000))
    store.close()


def test_writes_inside_an_exclusive_block_keep_the_text_index_right(tmp_path: Path) -> None:
    """Inside one exclusive block a write reads the stored text keys once (nothing can change them before it
    writes): records rewritten with new text, with the same text, and new ones all come out as FTS5 has them."""
    store = fill(tmp_path / "t.db")
    rnd = random.Random(11)
    with store.exclusive():
        for step in range(3):
            held = store.select(ALL)
            renamed = [r.model_copy(update={"content": r.content.model_copy(update={"text": text_of(rnd) + " glacier"})})
                       for r in rnd.sample(held, 4)]
            restatused = [r.model_copy(update={"status": MemoryStatus.archived}) for r in rnd.sample(held, 4)
                          if r.id not in {x.id for x in renamed}]
            new = [record(f"glacier {text_of(rnd)}", "Fact", user="alice", id=f"x{step}-{i}") for i in range(2)]
            store.write([*(Write(r, None) for r in [*renamed, *restatused]),
                         *(Write(r, v) for r, v in zip(new, unit(np.random.default_rng(step), 2), strict=True))],
                        model_id=MODEL)
            for selection in SELECTIONS[:2]:
                for query in ["glacier", "coffee tea", "上海 咖啡"]:
                    fast, slow = both(store, selection, query, 20)
                    assert fast == slow, (step, selection, query)
    holding = {r.id for r in store.select(ALL) if "glacier" in r.content.text}
    assert {mid for mid, _ in store.text_search(ALL, "glacier", 1000)} == holding and len(holding) >= 10
    assert store.check().ok
    store.close()
