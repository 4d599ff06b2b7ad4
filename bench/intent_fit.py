"""Diagnostic: how often the intent model's first guess fits the collapse benchmark's queries.

For every query of a collapse split, the intent model's top kind "fits" when its first memory type (any type for
``general``) is the type of one of the query's relevant memories; "sure" is the share of queries at or above the
p=0.5 line below which recall widens the intent. Run on the train split unless told otherwise.

    .venv/bin/python bench/intent_fit.py                          # the shipped model, train split
    .venv/bin/python bench/intent_fit.py --model /tmp/old-model   # another model dir (intent.npz + intent.json),
                                                                  # e.g. from `git show REV:src/.../intent.npz`
"""

from __future__ import annotations

import argparse

from mnemir.embed import default_embedder
from mnemir.eval import collapse
from mnemir.understand.intent import KIND_TYPES, UNSURE_BELOW, IntentRecognizer
from mnemir.understand.model import load_model


def fit(recognizer: IntentRecognizer, split: str) -> tuple[float, float, int]:
    fits = sure = n = 0
    for scenario in collapse.load(split):
        types = {m["key"]: m["type"] for m in scenario.memories}
        for query in scenario.queries:
            wanted = {types[key] for key in query.relevant}
            kind, p = recognizer.predict_kinds(query.text)[0]
            first = KIND_TYPES[kind] if kind == "general" else KIND_TYPES[kind][:1]
            fits += bool(wanted & set(first))
            sure += p >= UNSURE_BELOW
            n += 1
    return fits / n, sure / n, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="train", choices=("train", "dev"))
    parser.add_argument("--model", default=None, help="directory holding intent.npz/intent.json (default: shipped)")
    args = parser.parse_args()
    model = load_model("intent", args.model) if args.model else None
    fits, sure, n = fit(IntentRecognizer(default_embedder(), model), args.split)
    print(f"{args.split}: {n} queries; top kind fits a relevant memory's type {fits:.3f}; "
          f"at or above p={UNSURE_BELOW} {sure:.3f}")


if __name__ == "__main__":
    main()
