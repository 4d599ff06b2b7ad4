"""Full-text top-k without scoring every match in SQL: FTS5's own BM25, computed in-process over cached postings.

``text_search`` through SQL costs about 2 µs per matching row (``bm25()`` and the join to ``records`` for every
match, then the sort): ~100 ms for a word that half of a 100k store holds. This index computes the same score,
FTS5's ``bm25(fts, 1.0, 0.5, 0.2)`` to the bit (same formula, same operation order, k1 = 1.2, b = 0.75), with numpy
over postings read from FTS5's own index (the ``fts5vocab`` instance table, so tokenization is FTS5's), then lets the
vector cache's scope and property masks pick the rows a selection admits:

* per term, the postings (row ids and the column-weighted hit count) are read once and cached;
* per row, the token count comes from ``fts_docsize``; the row count and average length follow;
* the cache follows every writer through ``meta.write_seq``: rows written or deleted since are dropped from the
  cached postings and their new postings read by tokenizing their FTS row again in a temporary FTS5 table with the
  same tokenizer.

The store falls back to SQL when this cannot be exact: a query token FTS5 would split into several tokens (a
phrase), a selection the vector cache cannot answer, or a store with rows the vector cache does not hold.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

K1, B = 1.2, 0.75
#: queries whose words' postings hold at most this many rows in all are scored whole, without early termination
SCORE_ALL_BELOW = 2048
#: the flat copy of every cached posting's rows (see TextIndex._holding) is made again once more than this many
#: terms (or an eighth of the cached terms, if more) changed since it was made
FLAT_STALE = 256


def fts_term(token: str) -> str | None:
    """The FTS5 (unicode61) term a query token is, when it is exactly one: lowercase ASCII letters and digits, or
    letters without case (hanzi ...); None otherwise (the SQL path handles it)."""
    if not token:
        return None
    for ch in token:
        if ch.isascii():
            if not ch.isalnum() or ch.isupper():
                return None
        elif not (ch.isalnum() and unicodedata.category(ch) in ("Lo", "Nd")):
            return None
    return token


def _varints(blob: bytes) -> list[int]:
    out, value, shift = [], 0, 0
    for byte in blob:  # FTS5 varints are SQLite's (big-endian groups of 7 bits, high bit: more)
        value = (value << 7) | (byte & 0x7F)
        shift += 1
        if not byte & 0x80 or shift == 9:
            out.append(value)
            value, shift = 0, 0
    return out


class TextIndex:
    """Cached postings and row lengths of the store's FTS5 table ``fts`` (columns words, extra, hanzi)."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = tuple(float(w) for w in weights)
        self.seq = -1
        self.length = np.zeros(0, dtype=np.float64)  # rid -> tokens in the row
        self.present = np.zeros(0, dtype=bool)  # rid -> the row exists (a row may hold no token)
        self.rows = 0
        self.tokens = 0
        self.postings: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
        #: how many of the query's words the last top_rows merged the postings of (fewer than all: it stopped early)
        self.last_words_merged = 0
        #: term -> (index state, rows, BM25 term per row, its largest value): see _contribution
        self._contributions: dict[str, tuple[tuple[int, int, int], npt.NDArray[np.int64], npt.NDArray[np.float64],
                                             float]] = {}
        #: rid -> memory id of every row ("" for none), loaded when ties first need it (see smallest_ids)
        self.ids: npt.NDArray[np.str_] | None = None
        #: every cached posting's rows end to end, the index of the term each row belongs to, and the terms (made
        #: when rows held before change: see _holding); ``_changed``: the terms whose postings changed since
        self._flat: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], list[str]] | None = None
        self._changed: set[str] = set()

    def smallest_ids(self, conn: sqlite3.Connection, rids: npt.NDArray[np.int64], count: int) -> list[int]:
        """The ``count`` rows among ``rids`` with the smallest memory ids (ties in score break by id). The ids of the
        store's rows are kept in memory (a fixed-width string array by rid), refreshed with the postings."""
        if count <= 0:
            return []
        if self.ids is None:
            self.ids = np.zeros(0, dtype="<U1")
            self._set_ids(conn.execute("SELECT rid, id FROM records").fetchall())
        held = rids[rids < len(self.ids)]
        names = self.ids[held]
        held = held[names != ""]
        names = names[names != ""]
        order = np.argsort(names, kind="stable")[:count]
        return [int(r) for r in held[order]]

    def _set_ids(self, rows: list[tuple[int, str]]) -> None:
        assert self.ids is not None
        if not rows:
            return
        top = max(r for r, _ in rows)
        width = max(max(len(i) for _, i in rows), self.ids.dtype.itemsize // 4, 1)
        if top >= len(self.ids) or width > self.ids.dtype.itemsize // 4:
            grown = np.zeros(max(top + 1, int(len(self.ids) * 1.5) + 16), dtype=f"<U{width}")
            grown[: len(self.ids)] = self.ids
            self.ids = grown
        for rid, mid in rows:
            self.ids[rid] = mid

    # -- keeping in step ---------------------------------------------------------------------
    def sync(self, conn: sqlite3.Connection) -> None:
        found = conn.execute("SELECT value FROM meta WHERE key = 'write_seq'").fetchone()
        seq = int(found[0]) if found else 0
        if seq == self.seq:
            return
        if self.seq < 0:
            self._load_lengths(conn, None)
        else:
            changed = [r for (r,) in conn.execute("SELECT rid FROM records WHERE seq > ? UNION "
                                                  "SELECT rid FROM deleted WHERE seq > ?", (self.seq, self.seq))]
            if changed:
                # rows the cached postings can hold: those present at self.seq (new rows are in no posting yet)
                held = [r for r in changed if r < len(self.present) and self.present[r]]
                self._load_lengths(conn, changed)
                self._refresh_postings(conn, changed, held)
                if self.ids is not None:
                    self.ids[[r for r in changed if r < len(self.ids)]] = ""  # deleted rows keep no id
                    for lo in range(0, len(changed), 500):
                        chunk = changed[lo : lo + 500]
                        self._set_ids(conn.execute(f"SELECT rid, id FROM records WHERE rid IN "
                                                   f"({', '.join('?' * len(chunk))})", chunk).fetchall())
        self.seq = seq

    def _grow(self, top: int) -> None:
        if top >= len(self.length):
            size = max(top + 1, int(len(self.length) * 1.5) + 16)
            grown = np.zeros(size, dtype=np.float64)
            grown[: len(self.length)] = self.length
            present = np.zeros(size, dtype=bool)
            present[: len(self.present)] = self.present
            self.length, self.present = grown, present

    def _load_lengths(self, conn: sqlite3.Connection, rids: list[int] | None) -> None:
        if rids is None:
            found = conn.execute("SELECT id, sz FROM fts_docsize").fetchall()
        else:
            held = [r for r in rids if r < len(self.length)]
            self.length[held] = 0
            self.present[held] = False
            found = []
            for lo in range(0, len(rids), 500):
                chunk = rids[lo : lo + 500]
                found += conn.execute(f"SELECT id, sz FROM fts_docsize WHERE id IN ({', '.join('?' * len(chunk))})",
                                      chunk).fetchall()
        if found:
            self._grow(max(r for r, _ in found))
            for rid, size in found:
                self.length[rid] = sum(_varints(size))
                self.present[rid] = True
        self.rows = int(np.count_nonzero(self.present))
        self.tokens = int(self.length.sum())

    def _refresh_postings(self, conn: sqlite3.Connection, rids: list[int], held_rids: list[int]) -> None:
        """Drop the changed rows from the cached postings and add their new ones. Postings are in rid order, so a
        term's changed rows are found by binary search (a term none of them holds, most of the cache, is left as
        it is) and the changed rows' terms are read in one query. ``held_rids``: the changed rows that existed
        before (only they can be in a cached posting); when there are none (a write of new records only), only
        the terms the new rows hold are touched, not every cached term."""
        if not self.postings:
            return
        drop = np.unique(np.array(held_rids, dtype=np.int64))
        fresh = self._tokenized(conn, rids)
        # only the terms whose postings hold a dropped row or gain a new one can change (a term that does neither
        # is left as it is below): found without going through every cached term, which a store that has been
        # searched for a while holds thousands of (a task moved by remember changes a row held before)
        touched = (self._holding(drop) | fresh.keys()) if len(drop) else set(fresh)
        if self._flat is not None:
            self._changed |= touched
        terms = [(t, self.postings[t]) for t in sorted(touched) if t in self.postings]
        for term, (held, weight) in terms:
            at = np.searchsorted(held, drop)
            inside = at < len(held)
            found = at[inside][held[at[inside]] == drop[inside]]
            new = fresh.get(term)
            if not len(found) and new is None:
                continue
            if len(found):
                keep = np.ones(len(held), dtype=bool)
                keep[found] = False
                held, weight = held[keep], weight[keep]
            if new is not None:
                rows, weights = np.concatenate([held, new[0]]), np.concatenate([weight, new[1]])
                if len(held) and new[0][0] < held[-1]:  # not rows appended after every held one (new[0] is sorted)
                    order = np.argsort(rows, kind="stable")  # postings stay in rid order (top_rows looks rows up)
                    rows, weights = rows[order], weights[order]
                held, weight = rows, weights
            self.postings[term] = (held, weight)

    def _holding(self, rids: npt.NDArray[np.int64]) -> set[str]:
        """The cached terms whose postings may hold any of ``rids``: those whose rows in the flat copy of every
        posting do (one pass in numpy), and those changed since the copy was made (their postings are looked at
        by the caller). The copy is made again once FLAT_STALE terms (or an eighth of them) changed."""
        if self._flat is None or len(self._changed) > max(FLAT_STALE, len(self.postings) // 8):
            terms = list(self.postings)
            rows = [self.postings[t][0] for t in terms]
            counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
            flat = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
            self._flat = (flat, np.repeat(np.arange(len(terms), dtype=np.int64), counts), terms)
            self._changed = set()
        flat, owner, terms = self._flat
        return {terms[i] for i in np.unique(owner[np.isin(flat, rids)]).tolist()} | self._changed

    def _tokenized(self, conn: sqlite3.Connection, rids: list[int]
                   ) -> dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]:
        """The postings of the given rows, for the cached terms: their FTS row tokenized again (same tokenizer)."""
        # contentless (the rows are only tokenized, never read back): emptied whole by 'delete-all', which a table
        # keeping its content cannot do (a DELETE there reads each row back to remove its tokens)
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_tokens USING fts5(words, extra, hanzi, "
                     "content = '', tokenize = 'unicode61 remove_diacritics 2')")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_tokens_terms USING fts5vocab(temp, 'fts_tokens', "
                     "'instance')")
        conn.execute("INSERT INTO temp.fts_tokens (fts_tokens) VALUES ('delete-all')")
        for lo in range(0, len(rids), 500):
            chunk = rids[lo : lo + 500]
            conn.execute(f"INSERT INTO temp.fts_tokens (rowid, words, extra, hanzi) SELECT rowid, words, extra, "
                         f"hanzi FROM main.fts WHERE rowid IN ({', '.join('?' * len(chunk))})", chunk)
        by_term: dict[str, list[tuple[int, str, int]]] = {}
        for term, doc, col, hits in conn.execute("SELECT term, doc, col, count(*) FROM temp.fts_tokens_terms "
                                                 "GROUP BY term, doc, col"):
            if term in self.postings:
                by_term.setdefault(term, []).append((doc, col, hits))
        conn.execute("INSERT INTO temp.fts_tokens (fts_tokens) VALUES ('delete-all')")
        return {term: self._weighted(rows) for term, rows in by_term.items()}

    def _weighted(self, rows: list[tuple[int, str, int]]
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """(rid, column name, hits) rows -> rids and their column-weighted hit counts (FTS5's f(q, D))."""
        column = {"words": 0, "extra": 1, "hanzi": 2}
        freq: dict[int, float] = {}
        for doc, col, hits in sorted(rows, key=lambda row: (row[0], column[row[1]])):
            w = self.weights[column[col]]
            for _ in range(hits):  # FTS5 adds the weight once per hit, in this order
                freq[doc] = freq.get(doc, 0.0) + w
        rids = np.fromiter(freq, dtype=np.int64, count=len(freq))
        return rids, np.fromiter(freq.values(), dtype=np.float64, count=len(freq))

    def _postings(self, conn: sqlite3.Connection, term: str
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        found = self.postings.get(term)
        if found is None:
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, 'fts', 'instance')")
            rows = conn.execute("SELECT doc, col, count(*) FROM temp.fts_terms WHERE term = ? GROUP BY doc, col",
                                (term,)).fetchall()
            found = self.postings[term] = self._weighted(rows)
            if self._flat is not None:
                self._changed.add(term)
        return found

    def matches(self, conn: sqlite3.Connection, terms: list[str]) -> int:
        """An upper bound of the rows matching any of the terms (the sum of their postings)."""
        return sum(len(self._postings(conn, term)[0]) for term in terms)

    # -- scoring -----------------------------------------------------------------------------
    def _contribution(self, conn: sqlite3.Connection, term: str
                      ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], float]:
        """The term's rows (ascending), its BM25 term of each (as :meth:`score` adds it) and the largest one; kept
        until the index changes (the row count and average length enter every value)."""
        stamp = (self.seq, self.rows, self.tokens)
        found = self._contributions.get(term)
        if found is not None and found[0] == stamp:
            return found[1], found[2], found[3]
        rids, freq = self._postings(conn, term)
        hits = len(rids)
        idf = float(np.log((self.rows - hits + 0.5) / (hits + 0.5)))
        if idf <= 0.0:
            idf = 1e-6
        d = self.length[rids]
        value = idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * d / (self.tokens / self.rows))))
        top = float(value.max()) if hits else 0.0
        self._contributions[term] = (stamp, rids, value, top)
        return rids, value, top

    def top_rows(self, conn: sqlite3.Connection, terms: list[str], k: int,
                 admitted: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.bool_]]
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Rows (with their :meth:`score`) among which the ``k`` best admitted rows are, every one of them tied
        with the k-th included: early termination in the manner of MaxScore. Words are taken from the rarest
        (largest possible contribution) on; once the k-th best score of the rows holding a word taken so far
        exceeds what the words left could add up to at most, no other row can reach it and the rest of the
        postings (those of the common words, the long ones) are never merged. Scores are summed word by word in
        query order, as :meth:`score` does, so they are the same floats."""
        if not self.rows or not terms:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        parts = [self._contribution(conn, t) for t in terms]
        if len(terms) > 1 and sum(len(p[0]) for p in parts) <= SCORE_ALL_BELOW:
            # few postings (a small store, rare words): scoring every row at once costs less than the passes
            # below; the same sums in the same order (see _summed), so the same floats
            self.last_words_merged = len(terms)
            rows, score = self._summed(parts)
            keep = admitted(rows)
            return rows[keep], score[keep]
        if len(terms) == 1:  # one word: its rows and contributions are the scores (0.0 + x, as score adds)
            self.last_words_merged = 1
            rids, value = parts[0][0], parts[0][1]
            keep = admitted(rids)
            return rids[keep], value[keep]
        by_bound = sorted(range(len(terms)), key=lambda i: (-parts[i][2], i))
        for taken in range(1, len(terms)):
            rest = sum(parts[i][2] for i in by_bound[taken:])
            rows = parts[by_bound[0]][0] if taken == 1 else \
                np.unique(np.concatenate([parts[i][0] for i in by_bound[:taken]]))  # (one word's rows are unique)
            rows = rows[admitted(rows)]
            if len(rows) < k:
                continue
            score = np.zeros(len(rows), dtype=np.float64)
            for rids, value, _ in parts:  # in query order
                at = np.minimum(np.searchsorted(rids, rows), max(len(rids) - 1, 0))
                hit = rids[at] == rows if len(rids) else np.zeros(len(rows), dtype=bool)
                score[hit] += value[at[hit]]
            kth = float(np.partition(score, len(score) - k)[len(score) - k])
            if rest < kth:
                self.last_words_merged = taken
                return rows, score
        self.last_words_merged = len(terms)
        rows, score = self.score(conn, terms)
        keep = admitted(rows)
        return rows[keep], score[keep]

    @staticmethod
    def _summed(parts: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], float]]
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The rows holding any of the terms (ascending) and their scores: the terms' contributions (as
        :meth:`_contribution` makes them) added term by term in query order, as :meth:`score` adds them."""
        every = np.concatenate([r for r, _, _ in parts])
        rows, where = np.unique(every, return_inverse=True)
        score = np.zeros(len(rows), dtype=np.float64)
        at = 0
        for rids, contribution, _ in parts:
            score[where[at : at + len(rids)]] += contribution
            at += len(rids)
        return rows, score

    def score(self, conn: sqlite3.Connection, terms: list[str]
              ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The rows matching any term (rids, ascending) and their -bm25 (FTS5's value, sign flipped)."""
        if not self.rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        avgdl = self.tokens / self.rows
        parts = []
        for term in terms:
            rids, freq = self._postings(conn, term)
            hits = len(rids)
            idf = float(np.log((self.rows - hits + 0.5) / (hits + 0.5)))
            if idf <= 0.0:
                idf = 1e-6
            d = self.length[rids]
            parts.append((rids, idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * d / avgdl)))))
        every = np.concatenate([r for r, _ in parts]) if parts else np.zeros(0, dtype=np.int64)
        rows, where = np.unique(every, return_inverse=True)
        score = np.zeros(len(rows), dtype=np.float64)
        at = 0
        for rids, contribution in parts:  # term by term, as FTS5 adds them
            score[where[at : at + len(rids)]] += contribution
            at += len(rids)
        return rows, score
