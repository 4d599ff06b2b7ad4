"""Extraction on dev per language and class, with the confusion of the rows it gets wrong (docs/decisions/0115).

    python bench/extraction_confusion.py OUT [NAME=DIR ...]

For each model (``base``: the shipped weights; ``NAME=DIR``: ``extractor.{json,npz}`` in DIR, e.g. a
``python -m mnemir.understand.train --only extractor --out DIR`` trial; ``NAME=FILE.json``: the readings an earlier
run wrote, ``base=OUT/base.json`` to skip reading dev again with the shipped weights) it prints per language: precision, recall
and F1 per class, macro-F1, and the confusion counts: for each expected class it missed, which class the row was
read as instead ("-": the row yielded nothing, "+": only its other expected classes); for each class it read that
the row did not expect, which class the row expected ("-": a row that expected nothing, "+": a class beside the
row's expected ones, all found). Counts only, no text. Each model's readings go to OUT/<NAME>.json (ids and
types, for won / lost counts between models); a second model is compared with ``base`` row by row.

A DIR that holds ``memory_count.{json,npz}`` (``--only memory_count --out DIR``) gives the extractor that count model
(docs/decisions/0118), beside DIR's ``extractor`` if there is one, else the shipped one; ``NAME=DIR@ONE,MANY`` sets
``extract.ONE_MIN_P`` / ``MANY_MIN_P`` for that model (``-``: None), and ``NAME=DIR@ONE,MANY,keep`` also
``extract.ONE_KEEPS_PIECES``, ``…,agree`` ``extract.ONE_AGREES_WITH_PIECES``, ``…,work`` ``extract.ONE_KEEPS_WORK`` (docs/decisions/0122). ``base`` reads with no count model.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

from mnemir.embed import default_embedder
from mnemir.eval.extraction import ANCHOR_NOW, TYPES, label_of, load_split
from mnemir.understand import extract
from mnemir.understand.extract import Extractor
from mnemir.understand.model import load_model


def readings(extractor: Extractor, rows: list[dict]) -> dict[str, list[str]]:
    out = {}
    for row in rows:
        now = datetime.fromisoformat(row["now"]) if row.get("now") else ANCHOR_NOW
        drafts = extractor.extract(row["text"], speaker=row.get("speaker", "user"), now=now).drafts
        out[f'{row["source"]}:{row["id"]}'] = sorted({t for d in drafts if (t := label_of(d)) is not None})
    return out


def tables(rows: list[dict], got: dict[str, list[str]]) -> dict[str, dict]:
    by_lang: dict[str, dict] = {}
    for row in rows:
        lang = by_lang.setdefault(row["lang"], {"counts": defaultdict(lambda: [0, 0, 0]), "missed": Counter(),
                                                "false": Counter(), "rows": 0, "right": 0})
        expected = {e["type"] for e in row["expect"]}
        predicted = set(got[f'{row["source"]}:{row["id"]}'])
        lang["rows"] += 1
        lang["right"] += int(expected == predicted)
        missing, extra = expected - predicted, predicted - expected
        for t in expected & predicted:
            lang["counts"][t][0] += 1
        for t in extra:
            lang["counts"][t][1] += 1
            for e in (missing or {"+" if expected else "-"}):
                lang["false"][(t, e)] += 1
        for t in missing:
            lang["counts"][t][2] += 1
            for p in (extra or {"+" if predicted else "-"}):
                lang["missed"][(t, p)] += 1
    return by_lang


def render(name: str, by_lang: dict[str, dict]) -> str:
    lines = [f"== {name}"]
    for lang, s in sorted(by_lang.items(), key=lambda kv: kv[0] != "zh"):
        f1s = []
        lines.append(f"[{lang}] rows {s['rows']}, exactly right {s['right']}")
        lines.append(f"  {'class':<16}{'P':>7}{'R':>7}{'F1':>7}{'n':>6}{'fp':>5}{'fn':>5}")
        for t in TYPES:
            tp, fp, fn = s["counts"][t]
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            if tp + fn:
                f1s.append(f)
            lines.append(f"  {t:<16}{p:>7.3f}{r:>7.3f}{f:>7.3f}{tp + fn:>6}{fp:>5}{fn:>5}")
        lines.append(f"  macro-F1 {sum(f1s) / len(f1s):.4f}")
        lines.append("  missed (expected -> read as): " + ", ".join(
            f"{a}->{b} {n}" for (a, b), n in s["missed"].most_common(25)))
        lines.append("  false (read -> expected): " + ", ".join(
            f"{a}<-{b} {n}" for (a, b), n in s["false"].most_common(25)))
    return "\n".join(lines)


SHIPPED = (extract.COUNT_MODEL, extract.ONE_MIN_P, extract.MANY_MIN_P, extract.ONE_KEEPS_PIECES,
           extract.ONE_AGREES_WITH_PIECES, extract.ONE_KEEPS_WORK)


def extractor_of(embedder, directory: str | None) -> Extractor:
    """The extractor a model argument names (see the module's doc)."""
    shipped = SHIPPED
    (extract.ONE_MIN_P, extract.MANY_MIN_P, extract.ONE_KEEPS_PIECES, extract.ONE_AGREES_WITH_PIECES,
     extract.ONE_KEEPS_WORK) = shipped[1:]
    if not directory:
        extract.COUNT_MODEL = None
        try:
            return Extractor(embedder)
        finally:
            extract.COUNT_MODEL = shipped[0]
    folder, _, limits = directory.partition("@")
    if limits:
        one, many, *keep = limits.split(",")
        extract.ONE_MIN_P, extract.MANY_MIN_P = (None if v == "-" else float(v) for v in (one, many))
        extract.ONE_KEEPS_PIECES = "keep" in keep
        extract.ONE_AGREES_WITH_PIECES = "agree" in keep
        extract.ONE_KEEPS_WORK = "work" in keep
    model = load_model("extractor", folder) if (Path(folder) / "extractor.json").exists() else None
    if (Path(folder) / "memory_count.json").exists():
        return Extractor(embedder, model=model, count_model=load_model("memory_count", folder))
    extract.COUNT_MODEL = None
    try:
        return Extractor(embedder, model=model)
    finally:
        extract.COUNT_MODEL = shipped[0]


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    models: dict[str, str | None] = {"base": None, **{k: v for k, _, v in (a.partition("=") for a in argv[1:])}}
    rows = load_split("dev")
    embedder = default_embedder()
    base: dict[str, list[str]] | None = None
    for name, directory in models.items():
        if directory and directory.endswith(".json"):  # the readings of an earlier run (``base=OUT/base.json``)
            got = json.loads(Path(directory).read_text(encoding="utf-8"))
        else:
            got = readings(extractor_of(embedder, directory), rows)
        (out / f"{name}.json").write_text(json.dumps(got), encoding="utf-8")
        print(render(name, tables(rows, got)), flush=True)
        if base is None:
            base = got
            continue
        for lang in ("zh", "en"):
            won = lost = 0
            for row in rows:
                if row["lang"] != lang:
                    continue
                key, want = f'{row["source"]}:{row["id"]}', sorted({e["type"] for e in row["expect"]})
                won += int(got[key] == want and base[key] != want)
                lost += int(got[key] != want and base[key] == want)
            print(f"  {name} against base [{lang}]: rows won {won}, lost {lost}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
