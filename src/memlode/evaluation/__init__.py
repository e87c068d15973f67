"""Retrieval evaluation: public benchmarks run through the same engine a user gets.

L3: stores benchmark data through ``Engine`` and scores what ``Engine.search`` returns.
"""

from __future__ import annotations

from memlode.evaluation.locomo import (
    Conversation,
    Question,
    Turn,
    load_locomo,
    load_questions,
    parse_evidence,
    run_locomo,
)
from memlode.evaluation.report import format_report

__all__ = [
    "Conversation",
    "Question",
    "Turn",
    "format_report",
    "load_locomo",
    "load_questions",
    "parse_evidence",
    "run_locomo",
]
