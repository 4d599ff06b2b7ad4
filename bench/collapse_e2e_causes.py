"""Count the end-to-end collapse failures of kind *ranking* by sub-cause, from ``collapse_e2e_ranking.py``'s rows
(decision 0114). Counts only; prints no query.

    PYTHONPATH=src python bench/collapse_e2e_causes.py OUT.json SPLIT

Each failed query (the typed store passes it; ``typed_fails_too`` apart) gets the first sub-cause that applies:

* ``forbidden_episode``: the utterance of a forbidden memory, kept verbatim (Episode), takes a place of the top 3
  (split by whether the forbidden memory's typed reading was ruled out or ranked lower);
* ``forbidden_typed``: a typed reading of a forbidden memory (of its hand type) is shown, where the typed store did
  not show it: split by what differs (its task status, emotion intensity, entity or subject left out, more than one
  reading of it, its score above the relevant's);
* ``relevant_out``: no forbidden memory shown, the relevant memory's reading ranks below 3: split by what took the
  places (episodes, other scenario memories, noise memories, another reading of the same utterance) and whether
  the relevant reading is in the top 10 at all;
* ``intent``: the intent (kind) or the answer's role differs between the two stores (read before the others when
  it does).
"""
import json
import sys
from collections import Counter
from typing import Any


def _role_note(meta: dict[str, Any]) -> str:
    return next((n.split(":")[-1].strip().split(" ")[0] for n in meta["notes"] if n.startswith("the answer's role")),
                "")


def sub_cause(r: dict[str, Any], memories: dict[str, Any] | None = None) -> tuple[str, str]:
    """``memories``: the scenario's memories by key (its hand ``frame:`` links), when known."""
    e3 = r["e2e3"]
    ek, tk = r["e2e_meta"]["intent"], r["typed_meta"]["intent"]
    if ek.get("kind") != tk.get("kind"):
        return "intent", "kind differs"
    if _role_note(r["e2e_meta"]) != _role_note(r["typed_meta"]):
        return "intent", "answer role read from the memories differs"
    forb = [h for h in e3 if h["qrole"] == "forbidden"]
    if forb:
        h = forb[0]
        key = next(k for k in h["keys"] if k in r["forbidden"])
        m = r["memories"][key]
        if h["type"] == "Episode" and memories is not None and memories[key].get("frame") and \
                memories[key].get("frame") != next((memories[k].get("frame") for k in r["relevant"]), None):
            return "forbidden_episode", "tied by hand to another frame than the relevant (no tie end to end)"
        if h["type"] == "Episode":
            typed_shown = [x for x in r["e2e10"] if key in x["keys"] and x["type"] != "Episode"]
            why = "typed reading ranked lower" if typed_shown else "typed reading not in top 10 (ruled out)"
            if "only a feeling" in " ".join(h["reasons"]):
                why += "; only a feeling read from it" + ("; a weak filler" if "weak" in h["flags"] else "")
            if m["n_readings"] == 0:
                why = "no typed reading"
            return "forbidden_episode", why
        if memories is not None:
            framed = memories[key].get("frame")
            if framed and framed != next((memories[k].get("frame") for k in r["relevant"]), None):
                return "forbidden_typed", "tied by hand to another frame than the relevant (no tie end to end)"
        hand = m["hand"]
        stored = h["props"]
        rel_e = [x for x in r["e2e10"] if x["qrole"] == "relevant"]
        rel_t = [x for x in r["typed10"] if x["qrole"] == "relevant"]
        forb_t = [x for x in r["typed10"] if key in x["keys"]]
        if m["hand_type"] != h["type"]:
            return "forbidden_typed", f"shown reading {h['type']} beside hand {m['hand_type']}"
        if m["n_readings"] > 1:
            return "forbidden_typed", "utterance read as more than one memory"
        if hand.get("status") and hand.get("status") != stored.get("status"):
            return "forbidden_typed", f"task status {hand.get('status')} -> {stored.get('status')}"
        if hand.get("intensity") is not None and stored.get("intensity") is not None and \
                abs(float(hand["intensity"]) - float(stored["intensity"])) >= 0.2:
            return "forbidden_typed", "emotion intensity differs by 0.2 or more"
        if not forb_t:
            return "forbidden_typed", "typed store ranks it beyond 10 (ruled out there)"
        if rel_e and rel_t:
            ge = h["score"] - max(x["score"] for x in rel_e)
            gt = forb_t[0]["score"] - max(x["score"] for x in rel_t)
            if gt < 0 <= ge:
                return "forbidden_typed", "scores: relevant above forbidden typed, below end to end"
        if not rel_e:
            return "forbidden_typed", "relevant not in the top 10 end to end"
        return "forbidden_typed", "other"
    # relevant not shown
    rel10 = [x for x in r["e2e10"] if x["qrole"] == "relevant"]
    takers = Counter()
    for h in e3:
        if h["type"] == "Episode":
            takers["episode"] += 1
        elif h["qrole"] == "noise":
            takers["noise memory"] += 1
        elif h["qrole"] in ("other",):
            takers["other scenario memory"] += 1
        else:
            takers["record standing for nothing"] += 1
    where = "relevant in top 10" if rel10 else "relevant not in top 10"
    rel_keys = r["relevant"]
    readings = [r["memories"][k] for k in rel_keys]
    if all(m["n_readings"] == 0 for m in readings):
        return "relevant_out", "no typed reading of the relevant"
    top = takers.most_common(1)[0][0] if takers else "fewer than 3 shown"
    return "relevant_out", f"{where}; places taken mostly by {top}"


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = json.load(f)
    by_scenario: dict[str, dict[str, Any]] = {}
    if len(sys.argv) > 2 and sys.argv[2] in ("train", "dev"):
        from mnemir.eval import collapse
        by_scenario = {s.id: {m["key"]: m for m in s.memories} for s in collapse.load(sys.argv[2])}
    failed = [r for r in rows if not r["iso"]]
    print(len(rows), "queries;", len(failed), "failed end to end")
    print("by kind:", dict(Counter(r["kind"] for r in failed)))
    ranking = [r for r in failed if r["kind"] == "ranking"]
    print("ranking:", len(ranking), "typed fails too:", sum(r["cause"] == "typed_fails_too" for r in ranking))
    subs = Counter(sub_cause(r, by_scenario.get(r["scenario"])) for r in ranking if r["cause"] != "typed_fails_too")
    for (cause, detail), n in sorted(subs.items(), key=lambda x: (x[0][0], -x[1])):
        print(f"  {cause:<20}{detail:<70}{n:>5}")
    print("typed fails too, the same sub-causes read on the end-to-end store:")
    subs = Counter(sub_cause(r, by_scenario.get(r["scenario"]))[0] for r in ranking if r["cause"] == "typed_fails_too")
    print(" ", dict(subs))


if __name__ == "__main__":
    main()
