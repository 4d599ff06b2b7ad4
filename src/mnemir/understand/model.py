"""A small softmax classifier over sentence vectors plus lexical cue features.

Features: the default embedder's vector of the text (512-d for USE), one
0/1 feature per cue group in :mod:`mnemir.understand.lexicon` and, for a model
that asks for them, hashed word and character n-grams (a question's form words,
"how did I", "要不要", learnt from the training data). Training is
full-batch gradient descent (Adam) with L2, in numpy: a few seconds on a CPU.
Weights ship as ``.npz`` next to a JSON header (labels, embedder id, feature
layout), so a model trained for one embedder refuses to run with another.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemir.embed.base import Embedder
from mnemir.errors import ConfigError, ModelMismatchError
from mnemir.understand.lexicon import CUE_NAMES, cue_vector

__all__ = ["DATA_DIR", "FeatureSpec", "SoftmaxModel", "boosted", "featurize", "load_model", "ngram_vectors",
           "read_jsonl", "shipped_json", "train_softmax"]

#: the package data: the shipped weights (the corpora live in the checkout: see ``mnemir._paths``)
DATA_DIR = Path(str(resources.files("mnemir.understand") / "data"))


def shipped_json(name: str) -> dict[str, Any] | None:
    """A small model shipped as JSON in the package data (``understand/data/<name>``), or None when it holds none."""
    path = DATA_DIR / name
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class PairModel:
    """A logistic reading of a pair (a new utterance and a stored candidate): ``p = sigmoid(weights @ [row, 1])``
    over named features, with the ``threshold`` from which the best candidate is taken and the ``lead`` it must hold
    over the next one. The report-to-task and the change readings are such models, fitted by their own commands."""

    weights: npt.NDArray[np.float64]  # (len(features) + 1,): the last entry is the bias
    threshold: float
    lead: float
    features: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def probability_of(self, x: npt.NDArray[np.float64]) -> float:
        z = float(x @ self.weights[:-1] + self.weights[-1])
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def to_json(self) -> dict[str, Any]:
        return {"features": list(self.features), "threshold": self.threshold, "lead": self.lead,
                "weights": [round(float(x), 6) for x in self.weights], **self.meta}


def pair_model_fields(data: Mapping[str, Any], features: tuple[str, ...], refit: str
                      ) -> tuple[npt.NDArray[np.float64], float, float, tuple[str, ...], dict[str, Any]]:
    """A :class:`PairModel`'s fields from its JSON; a model fitted on other features is refused (``refit``: the
    command that fits it again)."""
    if tuple(data["features"]) != features:
        raise ValueError(f"the model was fitted on other features; refit it (python -m {refit})")
    known = {"features", "threshold", "lead", "weights"}
    return (np.asarray(data["weights"], dtype=np.float64), float(data["threshold"]), float(data["lead"]), features,
            {k: v for k, v in data.items() if k not in known})


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file; blank lines are skipped."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]

Array = npt.NDArray[np.float32]
#: cue features are 0/1 while vector components are ~0.05: scale so neither drowns the other
CUE_SCALE = 0.5
FEATURE_LAYOUT = "vector+cues:" + ",".join(CUE_NAMES)


@dataclass(frozen=True)
class FeatureSpec:
    """How a text becomes a model's input: its sentence vector, the cue groups (0/1, times ``cue_scale``) and,
    when ``ngram_dims`` > 0, its word and character n-grams hashed into that many buckets (unit length, times
    ``ngram_scale``)."""

    cue_scale: float = CUE_SCALE
    ngram_dims: int = 0
    ngram_scale: float = 0.0
    #: also hash how the text begins (its first word and first two words, its first Chinese character and pair):
    #: the mood of a clause shows at its start (a bare verb opens a request or a to-do item, "I" / a name a statement,
    #: "在…买" / "约…" a to-do item, "我…了" a report), which a bag of n-grams does not see
    start_grams: bool = False

    @property
    def layout(self) -> str:
        return FEATURE_LAYOUT + (f"+ngrams:{self.ngram_dims}" if self.ngram_dims else "") + \
            ("+start" if self.ngram_dims and self.start_grams else "")

    def size(self, vector_dim: int) -> int:
        return vector_dim + len(CUE_NAMES) + self.ngram_dims


_WORD = re.compile(r"[a-z0-9']+")
_NOT_HAN = re.compile(r"[^\u4e00-\u9fff]")


def _grams(text: str, start: bool = False) -> list[str]:
    """English words and word pairs, Chinese characters and character pairs; with ``start``, also the text's first
    word and word pair and its first character and character pair (when it opens with Chinese), marked as such."""
    lowered = text.lower()
    words = _WORD.findall(lowered)
    han = _NOT_HAN.sub("", lowered)
    grams = ([f"w:{w}" for w in words] + [f"b:{a}_{b}" for a, b in itertools.pairwise(words)]
             + [f"c:{c}" for c in han] + [f"p:{han[i:i + 2]}" for i in range(len(han) - 1)])
    if start:
        opening = _OPENING.match(lowered)
        if opening and opening.group(1):
            grams += [f"^c:{opening.group(1)[:1]}", f"^p:{opening.group(1)[:2]}"]
        elif words:
            grams += [f"^w:{words[0]}", f"^b:{'_'.join(words[:2])}"]
    return grams


#: the first letters of a text, past punctuation and spaces: Chinese (group 1) or not
_OPENING = re.compile(r"[\W_]*([\u4e00-\u9fff]{1,2})?")


def ngram_vectors(texts: list[str], dims: int, start: bool = False) -> Array:
    """Each text's n-gram counts hashed (CRC-32, stable across runs) into ``dims`` buckets, unit length; ``start``:
    with its opening grams (:func:`_grams`)."""
    out = np.zeros((len(texts), dims), dtype=np.float32)
    for row, text in enumerate(texts):
        for gram in _grams(text, start):
            out[row, zlib.crc32(gram.encode("utf-8")) % dims] += 1.0
        norm = float(np.linalg.norm(out[row]))
        if norm:
            out[row] /= norm
    return out


def featurize(vectors: Array, texts: list[str], spec: FeatureSpec) -> Array:
    cues = np.array([cue_vector(t) for t in texts], dtype=np.float32).reshape(len(texts), -1) * spec.cue_scale
    parts = [np.asarray(vectors, dtype=np.float32), cues]
    if spec.ngram_dims:
        parts.append(ngram_vectors(texts, spec.ngram_dims, spec.start_grams) * spec.ngram_scale)
    return np.hstack(parts)


def boosted(ranked: list[tuple[str, float]], boosts: Mapping[str, float]) -> list[tuple[str, float]]:
    """``ranked`` (label, probability) with ``boosts`` added to some labels, renormalised to sum to 1, best first:
    a precise rule raises a label but the model still decides."""
    scores = dict(ranked)
    for label, extra in boosts.items():
        scores[label] = scores.get(label, 0.0) + extra
    total = sum(scores.values())
    return sorted(((label, p / total) for label, p in scores.items()), key=lambda kv: -kv[1])


@dataclass
class SoftmaxModel:
    """A softmax over the features or, with ``hidden_weights``, over one ReLU hidden layer of them (a small MLP)."""

    labels: tuple[str, ...]
    weights: Array  # (features, classes), or (hidden, classes) with a hidden layer
    bias: Array  # (classes,)
    embedder_id: str
    layout: str = FEATURE_LAYOUT
    #: how texts become features (cue weight, n-grams), chosen on the training split
    spec: FeatureSpec = field(default_factory=FeatureSpec)
    hidden_weights: Array | None = None  # (features, hidden)
    hidden_bias: Array | None = None  # (hidden,)

    @property
    def input_size(self) -> int:
        return int((self.hidden_weights if self.hidden_weights is not None else self.weights).shape[0])

    def check(self, embedder: Embedder) -> None:
        if embedder.model_id != self.embedder_id:
            raise ModelMismatchError(
                f"the understanding model was trained on vectors of {self.embedder_id!r}, "
                f"not {embedder.model_id!r}; retrain it with `python -m mnemir.understand.train`",
                trained_for=self.embedder_id, embedder=embedder.model_id)
        if self.layout != self.spec.layout:
            raise ConfigError("the understanding model's feature layout is stale; retrain it", layout=self.layout)
        features = self.spec.size(embedder.dim)
        if self.input_size != features:
            raise ConfigError(f"the understanding model has weights for {self.input_size} features, the layout "
                              f"names {features}; retrain it", layout=self.layout)

    def proba(self, features: Array) -> Array:
        if self.hidden_weights is not None and self.hidden_bias is not None:
            features = np.maximum(features @ self.hidden_weights + self.hidden_bias, 0.0)
        logits = features @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def predict(self, vectors: Array, texts: list[str]) -> list[list[tuple[str, float]]]:
        """For each text, labels with probabilities, best first."""
        probs = self.proba(featurize(vectors, texts, self.spec))
        out = []
        for row in probs:
            order = np.argsort(-row)
            out.append([(self.labels[i], float(row[i])) for i in order])
        return out

    def save(self, path: str | Path) -> None:
        path = Path(path)
        arrays = {"weights": self.weights.astype(np.float32), "bias": self.bias.astype(np.float32)}
        if self.hidden_weights is not None and self.hidden_bias is not None:
            arrays |= {"hidden_weights": self.hidden_weights.astype(np.float32),
                       "hidden_bias": self.hidden_bias.astype(np.float32)}
        np.savez_compressed(path.with_suffix(".npz"), **arrays)  # type: ignore[arg-type]
        header: dict[str, Any] = {"labels": list(self.labels), "embedder_id": self.embedder_id, "layout": self.layout,
                                  "cue_scale": self.spec.cue_scale}
        if self.hidden_weights is not None:
            header["hidden"] = int(self.hidden_weights.shape[1])
        if self.spec.ngram_dims:
            header |= {"ngram_dims": self.spec.ngram_dims, "ngram_scale": self.spec.ngram_scale}
        if self.spec.start_grams:
            header["start_grams"] = True
        path.with_suffix(".json").write_text(json.dumps(header, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def load_model(name: str, directory: str | Path | None = None) -> SoftmaxModel:
    """Load ``<name>.json`` + ``<name>.npz`` from the package data (or ``directory``)."""
    base = Path(directory) if directory is not None else DATA_DIR
    header_path, weights_path = base / f"{name}.json", base / f"{name}.npz"
    if not header_path.exists() or not weights_path.exists():
        raise ConfigError(f"understanding model {name!r} not found in {base}; "
                          "train it with `python -m mnemir.understand.train`", path=str(base))
    header = json.loads(header_path.read_text(encoding="utf-8"))
    with np.load(weights_path) as data:
        weights, bias = data["weights"], data["bias"]
        hidden = (data["hidden_weights"], data["hidden_bias"]) if "hidden_weights" in data.files else (None, None)
    spec = FeatureSpec(float(header.get("cue_scale", CUE_SCALE)), int(header.get("ngram_dims", 0)),
                       float(header.get("ngram_scale", 0.0)), bool(header.get("start_grams", False)))
    return SoftmaxModel(tuple(header["labels"]), weights, bias, header["embedder_id"], header["layout"], spec,
                        hidden[0], hidden[1])


def train_softmax(features: Array, labels: list[str], *, classes: tuple[str, ...], embedder_id: str,
                  l2: float = 1e-3, epochs: int = 600, lr: float = 0.05, seed: int = 0,
                  class_weight: bool = True, spec: FeatureSpec | None = None, hidden: int = 0,
                  sample_weight: npt.ArrayLike | None = None) -> SoftmaxModel:
    """Multinomial logistic regression (``hidden`` = 0) or a one-hidden-layer ReLU network, full batch, Adam;
    classes balanced by inverse (weighted) frequency; ``sample_weight`` scales each example (e.g. per source)."""
    rng = np.random.default_rng(seed)
    x = np.asarray(features, dtype=np.float64)
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[label] for label in labels])
    n, d = x.shape
    k = len(classes)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    base = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.bincount(y, weights=base, minlength=k)
    sample_w = base * ((base.sum() / (k * np.maximum(counts, 1e-9)))[y] if class_weight else 1.0)
    params: list[Any]
    if hidden:
        w1 = rng.normal(0, np.sqrt(2.0 / d), size=(d, hidden))
        params = [w1, np.zeros(hidden), rng.normal(0, np.sqrt(1.0 / hidden), size=(hidden, k)), np.zeros(k)]
    else:
        params = [rng.normal(0, 0.01, size=(d, k)), np.zeros(k)]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    split = None if hidden else _SplitColumns(x)
    for step in range(1, epochs + 1):
        h = np.maximum(x @ params[0] + params[1], 0.0) if hidden else x
        w, b = params[-2], params[-1]
        logits = split.times(w) + b if split is not None else h @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad_logits = (p - onehot) * sample_w[:, None] / n
        grads = [(split.transposed_times(grad_logits) if split is not None else h.T @ grad_logits) + l2 * w,
                 grad_logits.sum(axis=0)]
        if hidden:
            grad_h = (grad_logits @ w.T) * (h > 0)
            grads = [x.T @ grad_h + l2 * params[0], grad_h.sum(axis=0), *grads]
        for g, (m, v), param in zip(grads, moments, params, strict=True):
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            param -= lr * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + eps)
    spec = spec or FeatureSpec()
    f32 = [np.asarray(param, dtype=np.float32) for param in params]
    if hidden:
        return SoftmaxModel(classes, f32[2], f32[3], embedder_id, spec.layout, spec, f32[0], f32[1])
    return SoftmaxModel(classes, f32[0], f32[1], embedder_id, spec.layout, spec)


class _SplitColumns:
    """A feature matrix kept as its dense columns (the sentence vector) plus the nonzero entries of its sparse ones
    (cues, hashed n-grams: a few dozen of 8,192 per text), so that a full-batch step costs what the nonzeros cost.
    The products equal ``x @ w`` and ``x.T @ g`` up to float rounding."""

    def __init__(self, x: npt.NDArray[np.float64], dense_share: float = 0.3) -> None:
        self.n, self.d = x.shape
        share = (x != 0).mean(axis=0) if self.n else np.zeros(self.d)
        self.dense_cols = np.flatnonzero(share >= dense_share)
        sparse_cols = np.flatnonzero(share < dense_share)
        self.dense = x[:, self.dense_cols]
        rows, cols = np.nonzero(x[:, sparse_cols])
        self.rows, self.cols = rows, sparse_cols[cols]
        self.values = x[rows, self.cols]

    def times(self, w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        out = self.dense @ w[self.dense_cols]
        contrib = w[self.cols] * self.values[:, None]
        for c in range(w.shape[1]):
            out[:, c] += np.bincount(self.rows, weights=contrib[:, c], minlength=self.n)
        return out

    def transposed_times(self, g: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        out = np.zeros((self.d, g.shape[1]))
        out[self.dense_cols] = self.dense.T @ g
        contrib = g[self.rows] * self.values[:, None]
        for c in range(g.shape[1]):
            out[:, c] += np.bincount(self.cols, weights=contrib[:, c], minlength=self.d)
        return out

