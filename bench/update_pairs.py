"""How far can the supersession rules' own readings go? A study of the update sets' pairs.

A standalone experiment, not the product. For every later statement of the update files (a
case's replacing statement, a control's later one), every statement of its project stored before
it is a candidate pair, labelled a replacement only when it is that case's replaced statement.
Each pair gets the readings the rules already make without a model
(``memlode.engine.supersede_rules``, ``memlode.search.statements``) and the cosine of the two
statements' all-MiniLM-L6-v2 vectors (plain text, ``memlode.embed``). A logistic regression over
those readings is trained on all files but one and judged on the one left out, each file in
turn; each later statement keeps its best-scored candidate. It prints, per threshold, the
replacements linked and the false links made (a control's later statement linked, or a wrong
statement), beside the rules alone read pair by pair.

The question it answers: would a better combination of the same readings link the replacements
the rules miss (paraphrases, a new owner or value said in other words) without false links? If
the left-out files' replacements score low too, the readings do not hold what separates them.

    .venv/bin/python bench/update_pairs.py [FILES ...] [--json]

Default files: the training update sets (bench/update_train_*.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from memlode.config import Settings
from memlode.embed import make_embedder
from memlode.engine import supersede_rules as rules
from memlode.errors import InvalidInput
from memlode.evaluation.updates import UpdateCase, load_update_cases
from memlode.search import statements

BENCH = Path(__file__).resolve().parent
DEFAULT_FILES = sorted(BENCH.glob("update_train_[a-g].json"))
# Pairs less alike than this are left out of training and judging: the rules' candidates are
# the near ones, and the far ones would only teach the model that far pairs are not replacements.
MIN_COSINE = 0.4
THRESHOLDS = (0.5, 0.7, 0.8, 0.9)
FEATURES = (
    "cosine",
    "margin",
    "nearest_of_type",
    "same_type",
    "cue",
    "names_old",
    "names_gone",
    "overlap",
    "shared",
    "rule",
    "kept_apart",
    "adds",
    "temporary",
    "undecided",
    "value_changed",
)


def _statements(path: Path) -> dict[str, list[UpdateCase]]:
    """project -> the cases and controls of one update file (silent questions have no pair)."""
    out: dict[str, list[UpdateCase]] = {}
    for case in load_update_cases(path):
        if not case.silent:
            out.setdefault(case.project, []).append(case)
    return out


def _readings(new: str, old: str) -> dict[str, float]:
    new_terms, old_terms = rules.terms(new), rules.terms(old)
    shared = new_terms & old_terms
    found = rules.best_match(rules.Statement("n", new, "2"), [rules.Statement("o", old, "1")])
    new_values, old_values = rules.values(new), rules.values(old)
    return {
        "cue": float(rules.has_cue(new)),
        "names_old": float(bool(rules.named_in(new, old_terms))),
        "names_gone": float(bool(rules.negated(new))),
        "overlap": len(shared) / max(1, min(len(new_terms), len(old_terms))),
        "shared": float(len(shared)),
        "rule": float(found is not None),
        "kept_apart": float(rules.kept_apart(new, old)),
        "adds": float(statements.adds(new)),
        "temporary": float(statements.temporary(new)),
        "undecided": float(statements.undecided(new)),
        "value_changed": float(bool(new_values - old_values) and bool(old_values - new_values)),
    }


def pairs(files: list[Path]) -> list[dict[str, Any]]:
    embedder = make_embedder(Settings())
    if embedder is None:
        raise SystemExit("error: no embedder (set MEMLODE_EMBED_PROVIDER=local)")
    rows: list[dict[str, Any]] = []
    for path in files:
        for project, cases in _statements(path).items():
            first: list[tuple[str, str, str, bool]] = []  # text, type, case id, is its earlier
            for case in cases:
                first.append((case.old, case.memory_type, case.id, True))
                first += [(d, "decision", case.id, False) for d in case.distractors]
            texts = list(dict.fromkeys([t for t, *_ in first] + [c.new for c in cases]))
            vectors = dict(zip(texts, np.asarray(embedder.embed(texts)), strict=True))
            later: list[tuple[str, str, str, bool]] = []
            for case in cases:
                role, case_id, new, kind = case.role, case.id, case.new, case.memory_type
                earlier = first + later
                sims = [float(vectors[new] @ vectors[e[0]]) for e in earlier]
                of_type = sorted(
                    (s for s, e in zip(sims, earlier, strict=True) if e[1] == kind), reverse=True
                )
                ranked = sorted(sims, reverse=True)
                for (text, other_kind, other_case, is_earlier), sim in zip(
                    earlier, sims, strict=True
                ):
                    runner_up = ranked[1] if len(ranked) > 1 and sim == ranked[0] else ranked[0]
                    rows.append(
                        {
                            "file": path.name,
                            "project": project,
                            "case": case_id,
                            "role": role,
                            "later": new,
                            "label": int(role == "update" and other_case == case_id and is_earlier),
                            "cosine": sim,
                            "margin": sim - runner_up,
                            "nearest_of_type": float(other_kind == kind and sim == of_type[0]),
                            "same_type": float(other_kind == kind),
                            **_readings(new, text),
                        }
                    )
                later.append((new, kind, case_id, False))
    return rows


def _matrix(rows: list[dict[str, Any]]) -> np.ndarray:
    x = np.array([[r[f] for f in FEATURES] for r in rows], dtype=float)
    return np.hstack([x, x[:, :1] ** 2, x[:, :1] * x[:, 4:5]])


class _Logistic:
    def __init__(self, x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 3000) -> None:
        self.mean, self.scale = x.mean(0), x.std(0) + 1e-9
        z = self._z(x)
        self.w = np.zeros(z.shape[1])
        for _ in range(steps):
            p = 1 / (1 + np.exp(-z @ self.w))
            self.w -= 0.5 * (z.T @ (p - y) / len(y) + l2 * self.w)

    def _z(self, x: np.ndarray) -> np.ndarray:
        return np.hstack([(x - self.mean) / self.scale, np.ones((len(x), 1))])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-self._z(x) @ self.w))


def judge(rows: list[dict[str, Any]]) -> dict[str, Any]:
    near = [r for r in rows if r["cosine"] >= MIN_COSINE]
    replacements = sum(r["label"] for r in rows)
    best: dict[tuple[str, str], tuple[dict[str, Any], float]] = {}
    for name in sorted({r["file"] for r in near}):
        train = [r for r in near if r["file"] != name]
        test = [r for r in near if r["file"] == name]
        model = _Logistic(_matrix(train), np.array([r["label"] for r in train], dtype=float))
        for row, p in zip(test, model(_matrix(test)), strict=True):
            key = (row["case"], row["later"])
            if key not in best or p > best[key][1]:
                best[key] = (row, float(p))
    by_threshold = []
    for threshold in THRESHOLDS:
        kept = [(r, p) for r, p in best.values() if p >= threshold]
        right = sum(r["label"] for r, _p in kept)
        by_threshold.append(
            {
                "threshold": threshold,
                "linked": right,
                # of those, replacements the rules alone (pair by pair) do not link
                "beyond_rules": sum(1 for r, _p in kept if r["label"] and not r["rule"]),
                "false": len(kept) - right,
                "false_on_controls": sum(
                    1 for r, _p in kept if not r["label"] and r["role"] == "control"
                ),
            }
        )
    rule_links = [r for r in rows if r["rule"]]
    return {
        "pairs": len(rows),
        "replacements": replacements,
        "near_pairs": len(near),
        "near_replacements": sum(r["label"] for r in near),
        "rules_pairwise": {
            "linked": sum(r["label"] for r in rule_links),
            "false": sum(1 for r in rule_links if not r["label"]),
        },
        "model_left_out": by_threshold,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if len(args.files) < 2:
        print("error: give at least two update files (one is left out in turn)", file=sys.stderr)
        return 2
    try:
        report = judge(pairs(args.files))
    except InvalidInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{report['replacements']} replacements over {report['pairs']} candidate pairs"
        f" ({report['near_replacements']} of them among the {report['near_pairs']} at cosine"
        f" >= {MIN_COSINE}); the rules, pair by pair: {report['rules_pairwise']['linked']} linked,"
        f" {report['rules_pairwise']['false']} false"
    )
    for line in report["model_left_out"]:
        print(
            f"  model >= {line['threshold']}: {line['linked']} linked"
            f" ({line['beyond_rules']} the rules miss), {line['false']} false"
            f" ({line['false_on_controls']} of them a control's later statement)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
