"""Every quality suite in one run, one results folder (docs/EVALUATION.md).

    mnemir eval all [--split dev] [--quick] [--out DIR] [--data LOCOMO.json]
    python -m mnemir.eval.all [same options]

Suites: collapse (typed, and end to end through ``remember``), extraction, intent, continuity, dialogue QA and LoCoMo, each with
its baselines in the same run. The folder gets ``report.md`` (tables), PNG plots (LoCoMo recall@k against the
baselines and per category, collapse per symptom, continuity per checkpoint kind) and ``results.json`` (every
figure, the machine, the commit, the date). ``--quick`` runs a small slice of each suite (what ``make test`` runs).

On the test split (the lead's single run) the results keep aggregate figures only: no test sentence is written out.
A suite with no data for the split (LoCoMo has only dev; a test folder not written yet) is listed as not run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemir._paths import repo_root
from mnemir.embed import Embedder, default_embedder
from mnemir.errors import MissingDependencyError, MnemirError, NotFoundError, ValidationError
from mnemir.eval import collapse, continuity, dialogue_qa, extraction, intent, locomo, paraphrase
from mnemir.eval._embedcache import cached

#: in the order they run (the longest last)
SUITES = ("extraction", "intent", "continuity", "dialogue_qa", "collapse", "locomo")
SPLITS = ("dev", "test")
RESULTS_VERSION = 1
#: detail that names evaluated text: left out of a test run's results
_TEXT_KEYS = frozenset({"misses", "errors", "confusions"})


@dataclass(frozen=True)
class Slice:
    """How much of each suite a run covers (None = all of it)."""

    collapse_scenarios: int | None = None
    understand_per_language: int | None = None
    continuity_conversations: int | None = None
    continuity_turns: int | None = None
    locomo_samples: int | None = None
    locomo_turns: int | None = None
    dialogue_conversations: int | None = None
    dialogue_turns: int | None = None


FULL = Slice()
QUICK = Slice(collapse_scenarios=2, understand_per_language=6, continuity_conversations=1, continuity_turns=16,
              locomo_samples=1, locomo_turns=40, dialogue_conversations=1, dialogue_turns=40)


# -- running ------------------------------------------------------------------------------------------
Progress = Callable[[str, int, int], None]


def run(out: str | Path | None = None, *, split: str = "dev", quick: bool = False, suites: Sequence[str] = SUITES,
        locomo_data: str | Path | None = None, embedder: Embedder | None = None, plots: bool = True,
        progress: Progress | None = None) -> dict[str, Any]:
    """Run ``suites`` on ``split`` and write the results folder ``out`` (default ``results/<date-time>``).

    Returns the results (what ``results.json`` holds), with ``folder`` set to where they were written."""
    if split not in SPLITS:
        raise ValidationError("unknown split", field="split", value=split, allowed=list(SPLITS))
    unknown = [s for s in suites if s not in SUITES]
    if unknown or not suites:
        raise ValidationError("unknown or no suite", field="suites", value=list(suites), allowed=list(SUITES))
    if plots:
        _require_matplotlib()
    folder = Path(out) if out is not None else repo_root() / "results" / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    size = QUICK if quick else FULL
    shared = cached(embedder or default_embedder())
    started = time.perf_counter()
    results: dict[str, Any] = {"results_version": RESULTS_VERSION, "date": datetime.now(UTC).isoformat(timespec="seconds"),
                               "split": split, "quick": quick, **_provenance(), "seconds": {}, "cpu_seconds": {},
                               "suites": {}}
    cpu_started = time.process_time()
    for name in suites:
        began, cpu_began = time.perf_counter(), time.process_time()
        moved: list[int] = []
        if progress:
            progress(name, 0, 0)  # the suite starts (its size comes with its first step)

        def tick(i: int, n: int, name: str = name, moved: list[int] = moved) -> None:
            moved.append(i)
            if progress:
                progress(name, i, n)

        try:
            data = _RUNNERS[name](split, size, shared, locomo_data, tick)
        except (NotFoundError, _NoData) as exc:
            data = {"not_run": str(exc)}
        if not moved:  # a suite without steps of its own: one step, done
            tick(1, 1)
        results["suites"][name] = _aggregate_only(data) if split == "test" else data
        results["seconds"][name] = round(time.perf_counter() - began, 1)
        results["cpu_seconds"][name] = round(time.process_time() - cpu_began, 1)
        _write(folder / "results.json", results)  # written after every suite: a long run's finished part is kept
    results["seconds"]["total"] = round(time.perf_counter() - started, 1)
    results["cpu_seconds"]["total"] = round(time.process_time() - cpu_started, 1)
    results["machine"]["load_average_at_end"] = _load_average()
    results["headline"] = headline(results)
    _write(folder / "results.json", results)
    results["plots"] = draw(results, folder) if plots else []
    (folder / "report.md").write_text(render_markdown(results), encoding="utf-8")
    results["folder"] = str(folder)
    return results


def _write(path: Path, results: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class _NoData(MnemirError):
    """A suite has no files for the split asked (listed as not run, not an error)."""


def _collapse(split: str, size: Slice, embedder: Embedder, _: Any, tick: Callable[[int, int], None]) -> dict[str, Any]:
    if not collapse.split_files(split):
        raise _NoData(f"the collapse manifest lists no {split} files")
    report = collapse.run(split, (3, 5), embedder=embedder, limit_scenarios=size.collapse_scenarios, progress=tick)
    out = report.to_dict()
    if paraphrase.load(split):  # the split's queries reworded by another author, side by side
        out["rewordings"] = paraphrase.run(split, embedder=embedder, limit_scenarios=size.collapse_scenarios,
                                           progress=tick).to_dict()
    return out


def _extraction(split: str, size: Slice, embedder: Embedder, _: Any,
                tick: Callable[[int, int], None]) -> dict[str, Any]:
    from mnemir.understand import Extractor

    data = extraction.run(split, Extractor(embedder), per_language=size.understand_per_language).to_dict()
    languages = data["languages"]
    data["overall"] = {"macro_f1_mean": _mean([v["macro_f1"] for v in languages.values()]),
                       "utterances": sum(v["utterances"] for v in languages.values())}
    return data


def _intent(split: str, size: Slice, embedder: Embedder, _: Any, tick: Callable[[int, int], None]) -> dict[str, Any]:
    from mnemir.understand import IntentRecognizer

    data = intent.run(split, IntentRecognizer(embedder), per_language=size.understand_per_language).to_dict()
    languages = data["languages"]
    total = sum(v["queries"] for v in languages.values())
    data["overall"] = {"type_accuracy": round(sum(v["type_accuracy"] * v["queries"] for v in languages.values())
                                              / total, 4) if total else 0.0, "queries": total}
    return data


def _continuity(split: str, size: Slice, embedder: Embedder, _: Any,
                tick: Callable[[int, int], None]) -> dict[str, Any]:
    folder = continuity.data_dir(split)
    if not (folder.is_dir() and any(folder.glob("*.yaml"))):
        raise _NoData(f"no continuity files in {folder}")
    return continuity.run(split, embedder=embedder, limit_conversations=size.continuity_conversations,
                          max_turns=size.continuity_turns, progress=tick).to_dict()


def _locomo(split: str, size: Slice, embedder: Embedder, data: Any, tick: Callable[[int, int], None]) -> dict[str, Any]:
    if split not in locomo.SPLITS:
        raise _NoData("LoCoMo has no test split (all of it is dev data)")
    report = locomo.run(split, data_path=data, limit_samples=size.locomo_samples, max_turns=size.locomo_turns,
                        embedder=embedder, progress=tick)
    return report.to_dict()


def _dialogue_qa(split: str, size: Slice, embedder: Embedder, _: Any,
                 tick: Callable[[int, int], None]) -> dict[str, Any]:
    folder = dialogue_qa.data_dir(split)
    if not (folder.is_dir() and any(folder.glob("*.yaml"))):
        raise _NoData(f"no dialogue QA files in {folder}")
    return dialogue_qa.run(split, embedder=embedder, limit_conversations=size.dialogue_conversations,
                           max_turns=size.dialogue_turns, progress=tick).to_dict()


_RUNNERS: dict[str, Callable[[str, Slice, Embedder, Any, Callable[[int, int], None]], dict[str, Any]]] = {
    "collapse": _collapse, "extraction": _extraction, "intent": _intent, "continuity": _continuity,
    "locomo": _locomo, "dialogue_qa": _dialogue_qa}


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _aggregate_only(data: Any) -> Any:
    """``data`` without the per-item detail that quotes evaluated text (misses, errors, confusions)."""
    if isinstance(data, Mapping):
        return {k: _aggregate_only(v) for k, v in data.items() if k not in _TEXT_KEYS}
    if isinstance(data, list):
        return [_aggregate_only(v) for v in data]
    return data


def _provenance() -> dict[str, Any]:
    """The commit (and whether the tree had changes) and the machine."""
    root = repo_root()

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10,
                                  check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "HEAD") or "unknown"
    dirty = bool(git("status", "--porcelain", "--untracked-files=no")) if commit != "unknown" else None
    return {"commit": commit, "dirty": dirty, "machine": machine()}


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    memory_gb = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    load = _load_average()
    from importlib.metadata import PackageNotFoundError, version

    try:
        mnemir_version = version("mnemir")
    except PackageNotFoundError:
        mnemir_version = "unknown"
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory_gb, "platform": platform.platform(),
            "python": platform.python_version(), "mnemir": mnemir_version, "load_average_at_start": load}


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


# -- headline figures -----------------------------------------------------------------------------------
def headline(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The figures the README shows, one row each: suite, measure, mnemir's value and the best baseline's."""
    rows: list[dict[str, Any]] = []
    suites = results.get("suites", {})

    def add(suite: str, measure: str, value: float | None, baseline: float | None, baseline_name: str,
            n: int | None) -> None:
        if value is not None:
            rows.append({"suite": suite, "measure": measure, "mnemir": round(value, 3),
                         "baseline": None if baseline is None else round(baseline, 3), "baseline_name": baseline_name,
                         "n": n})

    c = suites.get("collapse", {})
    if "systems" in c:
        sysm = c["systems"]
        n = sysm["recall"]["k=3"]["n"]
        add("collapse", "isolation@3 (typed)", sysm["recall"]["k=3"]["isolation"],
            sysm["vector"]["k=3"]["isolation"], "plain vector", n)
        add("collapse", "collapse@3 (typed, lower is better)", sysm["recall"]["k=3"]["collapse"],
            sysm["vector"]["k=3"]["collapse"], "plain vector", n)
        if "rewordings" in c:
            r = c["rewordings"]["systems"]
            add("collapse", "isolation@3, queries reworded (typed)", r["recall"]["isolation_reworded"],
                r["vector"]["isolation_reworded"], "plain vector", r["recall"]["n"])
        if "remember_recall" in sysm:
            add("collapse", "isolation@3 (end to end)", sysm["remember_recall"]["k=3"]["isolation"],
                sysm["vector"]["k=3"]["isolation"], "plain vector", n)
            add("collapse", "collapse@3 (end to end, lower is better)", sysm["remember_recall"]["k=3"]["collapse"],
                sysm["vector"]["k=3"]["collapse"], "plain vector", n)
            said = c.get("end_to_end_status_said", {}).get("remember_recall", {}).get("k=3")
            if said:  # the same run without the queries whose pass needs a status no utterance gives (0114)
                add("collapse", "isolation@3 (end to end, statuses no utterance gives left out)", said["isolation"],
                    None, "", said["n"])
                add("collapse", "collapse@3 (end to end, statuses no utterance gives left out, lower is better)",
                    said["collapse"], None, "", said["n"])
    e = suites.get("extraction", {})
    for lang, v in e.get("languages", {}).items():
        add("extraction", f"macro-F1 ({lang})", v["macro_f1"], None, "", v["utterances"])
    i = suites.get("intent", {})
    for lang, v in i.get("languages", {}).items():
        add("intent", f"type accuracy ({lang})", v["type_accuracy"], None, "", v["queries"])
    t = suites.get("continuity", {})
    if "systems" in t:
        sysm = t["systems"]
        best = max(("turns_vector", "turns_hybrid"), key=lambda s: sysm.get(s, {}).get("overall", {}).get(
            "accuracy", -1.0))
        n = sysm["remember_recall"]["overall"]["n"]
        add("continuity", "accuracy@5", sysm["remember_recall"]["overall"]["accuracy"],
            sysm[best]["overall"]["accuracy"], continuity.SYSTEM_TITLES[best], n)
        add("continuity", "violations@5 (lower is better)", sysm["remember_recall"]["overall"]["violations"],
            sysm[best]["overall"]["violations"], continuity.SYSTEM_TITLES[best], n)
    dq = suites.get("dialogue_qa", {})
    for mode, data in dq.get("modes", {}).items():
        sysm = data["systems"]
        if "remember_recall" in sysm and "turns_hybrid" in sysm:
            for measure in ("turn_recall@5", "turn_recall@10"):
                add("dialogue_qa", f"{measure.replace('_', ' ')} ({mode})", sysm["remember_recall"]["overall"][measure],
                    sysm["turns_hybrid"]["overall"][measure], "hybrid over raw turns", dq["questions"])
    lo = suites.get("locomo", {})
    if "systems" in lo:
        sysm = lo["systems"]
        mine = sysm["remember_recall"]["overall"]
        base = sysm["turns_hybrid"]["overall"]
        for measure in ("turn_recall@5", "turn_recall@10", "ndcg@10"):
            if measure in mine:
                add("locomo", measure.replace("_", " "), mine[measure], base.get(measure), "hybrid over raw turns",
                    mine["n"])
    return rows


# -- plots -------------------------------------------------------------------------------------------------
def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError("the plots of mnemir eval all", "matplotlib", "eval") from exc


def draw(results: Mapping[str, Any], folder: Path) -> list[str]:
    """The PNG plots of ``results`` in ``folder``; returns their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made: list[str] = []
    suites = results["suites"]

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        made.append(name)

    lo = suites.get("locomo", {})
    if "systems" in lo:
        ks = lo["k_values"]
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for system, data in lo["systems"].items():
            ax.plot(ks, [data["overall"].get(f"turn_recall@{k}", 0.0) for k in ks], marker="o",
                    label=locomo.SYSTEM_TITLES[system], linewidth=2.5 if system == "remember_recall" else 1.3)
        ax.set(xlabel="k", ylabel="turn recall@k (an evidence turn in the top k)", ylim=(0, 1), xticks=ks,
               title=f"LoCoMo evidence recall ({lo['questions']} questions)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, "locomo_recall_at_k.png")
        k = 10 if 10 in ks else ks[0]
        _bars(plt, save, "locomo_by_category.png", f"LoCoMo turn recall@{k} per category",
              list(locomo.CATEGORIES.values()),
              {locomo.SYSTEM_TITLES[s]: [d["by_category"][c].get(f"turn_recall@{k}", 0.0)
                                         for c in locomo.CATEGORIES.values()] for s, d in lo["systems"].items()},
              f"turn recall@{k}")
    c = suites.get("collapse", {})
    if c.get("by_symptom"):
        symptoms = list(c["by_symptom"])
        shown = [s for s in ("vector", "bm25", "oracle", "recall", "remember_recall") if s in c["systems"]]
        _bars(plt, save, "collapse_by_symptom.png", f"Collapse benchmark ({c['split']}): isolation@3 per symptom",
              [s.replace("_", " ") for s in symptoms],
              {collapse.SYSTEM_TITLES[s]: [c["by_symptom"][sym][s]["isolation"] for sym in symptoms] for s in shown},
              "isolation@3")
    t = suites.get("continuity", {})
    if "systems" in t:
        kinds = [k for k in continuity.KINDS if any(k in d["by_kind"] for d in t["systems"].values())]
        _bars(plt, save, "continuity_by_kind.png", f"Continuity ({t['split']}): accuracy@5 per checkpoint kind",
              kinds, {continuity.SYSTEM_TITLES[s]: [d["by_kind"].get(k, {}).get("accuracy", 0.0) for k in kinds]
                      for s, d in t["systems"].items()}, "accuracy@5")
    return made


def _bars(plt: Any, save: Callable[[Any, str], None], name: str, title: str, groups: Sequence[str],
          series: Mapping[str, Sequence[float]], ylabel: str) -> None:
    fig, ax = plt.subplots(figsize=(max(6.4, 1.3 * len(groups) + 2), 4.4))
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        ax.bar([g + i * width - 0.4 + width / 2 for g in range(len(groups))], values, width, label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20, ha="right", fontsize=8)
    ax.set(ylabel=ylabel, ylim=(0, 1), title=title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, name)


# -- the report ------------------------------------------------------------------------------------------
def _f(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(_f(c) for c in row) + " |" for row in rows)]


def render_markdown(results: Mapping[str, Any]) -> str:
    m = results["machine"]
    lines = [f"# mnemir eval all: {results['split']} split{' (quick slice)' if results['quick'] else ''}", "",
             f"- date: {results['date']}", f"- commit: `{results['commit']}`" + (" (uncommitted changes)"
                                                                                 if results.get("dirty") else ""),
             f"- machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, Python {m['python']} "
             f"(load average at start {m['load_average_at_start']})",
             "- wall time: " + ", ".join(f"{k} {v:.0f} s" for k, v in results["seconds"].items()),
             "- CPU time of the process: " + ", ".join(f"{k} {v:.0f} s" for k, v in
                                                      results.get("cpu_seconds", {}).items())
             + f" (load average at end {m.get('load_average_at_end')})", "",
             "Splits and protocol: docs/EVALUATION.md. Baselines ran in the same run.", ""]
    if results.get("headline"):
        lines += ["## Headline", "", *_table(["suite", "measure", "mnemir", "baseline", "n"], [
            (r["suite"], r["measure"], r["mnemir"], "" if r["baseline"] is None else
             f"{r['baseline']:.3f} ({r['baseline_name']})", r["n"]) for r in results["headline"]]), ""]
    suites = results["suites"]
    for name in SUITES:
        if name not in suites:
            continue
        data = suites[name]
        lines += [f"## {name}", ""]
        if "not_run" in data:
            lines += [f"Not run: {data['not_run']}", ""]
            continue
        lines += _SECTIONS[name](data)
        lines.append("")
    plots = results.get("plots") or []
    if plots:
        lines += ["## Plots", "", *(f"![{p}]({p})" for p in plots), ""]
    return "\n".join(lines)


def _collapse_section(d: Mapping[str, Any]) -> list[str]:
    ks = d["k_values"]
    head = ["system", *(f"{m}@{k}" for k in ks for m in ("isolation", "collapse", "recall"))]
    rows = [(collapse.SYSTEM_TITLES[s], *(v[f"k={k}"][m] for k in ks for m in ("isolation", "collapse", "recall")))
            for s, v in d["systems"].items()]
    systems = list(d["systems"])
    out = [f"{d['scenarios']} scenarios, {d['queries']} queries.", "", *_table(head, rows), "",
           f"isolation@{ks[0]} per symptom:", "",
           *_table(["symptom", *systems], [(sym, *(v[s]["isolation"] for s in systems))
                                           for sym, v in d["by_symptom"].items()])]
    if d.get("rewordings"):
        r = d["rewordings"]
        out += ["", f"The same queries reworded by another author ({r['queries']} queries, k={r['k']}):", "",
                *_table(["system", "isolation", "reworded", "change", "collapse", "collapse reworded"],
                        [(collapse.SYSTEM_TITLES[s], v["isolation"], v["isolation_reworded"], v["isolation_change"],
                          v["collapse"], v["collapse_reworded"]) for s, v in r["systems"].items()])]
    if d.get("learned_ranker_trained_on"):
        unseen = d.get("untrained_files", {}).get("recall", {})
        out += ["", f"recall's learned ranker was trained on {len(d['learned_ranker_trained_on'])} files; on the "
                f"files of this run it never saw ({unseen.get('n', 0)} queries): isolation@{ks[0]} "
                f"{_f(unseen.get('isolation', 0.0))}."]
    return out


def _extraction_section(d: Mapping[str, Any]) -> list[str]:
    rows = [(lang, v["utterances"], v["macro_f1"], *(v["per_type"][t]["f1"] for t in extraction.TYPES))
            for lang, v in d["languages"].items()]
    kept = [f"{lang} {a['correct']}/{a['total']}" for lang, v in d["languages"].items()
            if (a := v.get("assistant_turns_kept_out")) and a["total"]]
    return [*_table(["language", "utterances", "macro-F1", *(f"F1 {t}" for t in extraction.TYPES)], rows),
            *(["", "Assistant turns that yielded no memory of the user: " + ", ".join(kept) + "."] if kept else [])]


def _intent_section(d: Mapping[str, Any]) -> list[str]:
    rows = [(lang, v["queries"], v["type_accuracy"], v["kind_accuracy"]) for lang, v in d["languages"].items()]
    return _table(["language", "queries", "type accuracy", "kind accuracy"], rows)


def _continuity_section(d: Mapping[str, Any]) -> list[str]:
    kinds = [k for k in continuity.KINDS if any(k in v["by_kind"] for v in d["systems"].values())]
    rows = [(continuity.SYSTEM_TITLES[s], v["overall"]["accuracy"], v["overall"]["violations"],
             *(v["by_kind"].get(k, {}).get("accuracy", 0.0) for k in kinds)) for s, v in d["systems"].items()]
    n = next(iter(d["systems"].values()))["overall"]["n"] if d["systems"] else 0
    return [f"{d['conversations']} conversations, {d['turns']} turns, {n} checkpoints; accuracy@5 = a relevant turn "
            "covered and no forbidden one; violations@5 = a forbidden turn covered.", "",
            *_table(["system", "accuracy@5", "violations@5", *kinds], rows)]


def _locomo_section(d: Mapping[str, Any]) -> list[str]:
    first = next(iter(d["systems"].values()))["overall"]
    measures = [m for m in first if m != "n" and not m.startswith("turn_coverage")]
    rows = [(locomo.SYSTEM_TITLES[s], *(v["overall"][m] for m in measures)) for s, v in d["systems"].items()]
    k = "turn_recall@10" if "turn_recall@10" in first else f"turn_recall@{d['k_values'][0]}"
    cats = list(locomo.CATEGORIES.values())
    by_cat = [(locomo.SYSTEM_TITLES[s], *(v["by_category"][c].get(k, 0.0) for c in cats))
              for s, v in d["systems"].items()]
    counts = next(iter(d["systems"].values()))["by_category"]
    return [f"{d['samples']} conversations, {d['questions']} questions of categories 1-4 (left out: "
            + (", ".join(f"{n} {why}" for why, n in d["skipped"].items()) or "none") + ").", "",
            *_table(["system", *measures], rows), "", f"{k.replace('_', ' ')} per category:", "",
            *_table(["system", *(f"{c} ({counts[c]['n']})" for c in cats)], by_cat)]


def _dialogue_qa_section(d: Mapping[str, Any]) -> list[str]:
    ks = d["k_values"]
    out = [f"{d['conversations']} conversations, {d['turns']} turns, {d['questions']} questions; turn recall@k = an "
           "evidence turn among the top k memories' turns.", ""]
    for mode, data in d["modes"].items():
        systems = data["systems"]
        langs = [lg for lg in dialogue_qa.LANGUAGES if any(lg in v["by_language"] for v in systems.values())]
        out += [f"Mode `{mode}`: {data['title']}.", "",
                *_table(["system", *(f"recall@{k}" for k in ks), *(f"{lg} @{k}" for lg in langs for k in ks),
                         *(f"{kind} @{ks[0]}" for kind in dialogue_qa.KINDS)],
                        [(dialogue_qa.SYSTEM_TITLES[s], *(v["overall"][f"turn_recall@{k}"] for k in ks),
                          *(v["by_language"].get(lg, {}).get(f"turn_recall@{k}", 0.0) for lg in langs for k in ks),
                          *(v["by_kind"][kind][f"turn_recall@{ks[0]}"] for kind in dialogue_qa.KINDS))
                         for s, v in systems.items()]), ""]
    return out[:-1]


_SECTIONS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "collapse": _collapse_section, "extraction": _extraction_section, "intent": _intent_section,
    "continuity": _continuity_section, "locomo": _locomo_section, "dialogue_qa": _dialogue_qa_section}


# -- command line ------------------------------------------------------------------------------------
def rich_progress() -> tuple[Any, Progress]:
    """A rich progress display (one bar per suite) and the callback that moves it."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    display = Progress(TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       console=Console(stderr=True), transient=False)
    tasks: dict[str, Any] = {}

    def tick(suite: str, i: int, n: int) -> None:
        if suite not in tasks:
            tasks[suite] = display.add_task(suite, total=n or None)
        elif n:
            display.update(tasks[suite], completed=i, total=n)

    return display, tick


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=SPLITS)
    parser.add_argument("--quick", action="store_true", help="a small slice of each suite")
    parser.add_argument("--out", default=None, help="the results folder (default results/<date-time>)")
    parser.add_argument("--data", default=None, help="the LoCoMo JSON file (default $MNEMIR_LOCOMO or the shared copy)")
    parser.add_argument("--suites", default=",".join(SUITES), help="comma-separated, default all")
    args = parser.parse_args(argv)
    display, tick = rich_progress()
    with display:
        results = run(args.out, split=args.split, quick=args.quick, suites=args.suites.split(","),
                      locomo_data=args.data, progress=tick)
    print(f"results written to {results['folder']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
