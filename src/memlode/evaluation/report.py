"""The evaluation report as a text table (the JSON form is the report dict itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memlode.evaluation.locomo import CATEGORY_NAMES
from memlode.evaluation.metrics import METRIC_NAMES

__all__ = ["format_report"]

_HEADERS = ("R@5", "R@10", "R@25", "S@5", "S@10", "MRR", "nDCG@10")


def _row(label: str, count: object, metrics: Mapping[str, float]) -> str:
    cells = "".join(f"{metrics[name]:>9.3f}" for name in METRIC_NAMES)
    return f"{label:<22}{count!s:>6}{cells}"


def _format_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_format_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def format_report(report: Mapping[str, Any]) -> str:
    counts: Mapping[str, int] = report.get("questions_by_category", {})
    lines = [
        f"LoCoMo retrieval: {report.get('conversations', '?')} conversations,"
        f" {report.get('turns', '?')} turns, {report.get('questions', '?')} questions"
        f" ({report.get('skipped', 0)} skipped without evidence)",
        "R@k: turn-level evidence recall; S@k: any evidence session in the top k sessions",
        "",
        f"{'category':<22}{'n':>6}" + "".join(f"{h:>9}" for h in _HEADERS),
    ]
    for category, metrics in report["by_category"].items():
        name = CATEGORY_NAMES.get(int(category), "") if category.isdigit() else ""
        lines.append(_row(f"{category} {name}".strip(), counts.get(category, ""), metrics))
    if "overall_without_adversarial" in report:
        n = sum(v for c, v in counts.items() if c != "5")
        lines.append(_row("overall (1-4)", n, report["overall_without_adversarial"]))
    lines.append(_row("overall", report.get("questions", ""), report["overall"]))
    lines.append("")
    lines.append(
        f"time: {report['seconds']:.1f} s (ingest {report.get('ingest_seconds', 0):.1f} s,"
        f" search {report.get('search_seconds', 0):.1f} s,"
        f" {report.get('questions_per_second', 0):.1f} questions/s,"
        f" search p50 {report.get('search_ms_p50', 0):.1f} ms"
        f" p95 {report.get('search_ms_p95', 0):.1f} ms)"
    )
    problems = [
        f"{report[key]} {label}"
        for key, label in (
            ("unparsed_evidence", "evidence entries without an id"),
            ("unknown_evidence", "evidence ids not in the conversation"),
        )
        if report.get(key)
    ]
    if problems:
        lines.append("data: " + "; ".join(problems))
    if "store" in report:
        lines.append(f"store: {report['store']}")
    lines.append("config: " + _format_value(report.get("config", {})))
    return "\n".join(lines)
