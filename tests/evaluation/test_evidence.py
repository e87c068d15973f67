"""Evidence ids and session dates as LoCoMo writes them, typos included."""

from __future__ import annotations

from datetime import UTC, datetime

from memlode.evaluation import parse_evidence
from memlode.evaluation.locomo import parse_session_date


def test_well_formed_ids_pass_through_in_order() -> None:
    assert parse_evidence(["D3:14", "D1:2"]) == (["D3:14", "D1:2"], [])


def test_semicolon_joined_ids_are_split() -> None:
    assert parse_evidence(["D8:6; D9:17"]) == (["D8:6", "D9:17"], [])


def test_space_joined_ids_are_split() -> None:
    assert parse_evidence(["D21:18 D21:22 D11:15"]) == (["D21:18", "D21:22", "D11:15"], [])


def test_stray_colon_after_d_is_repaired() -> None:
    assert parse_evidence(["D:11:26"]) == (["D11:26"], [])


def test_spaces_case_and_leading_zeros_are_normalised() -> None:
    assert parse_evidence([" d 4 : 07 "]) == (["D4:7"], [])


def test_entries_without_an_id_are_reported_not_hidden() -> None:
    assert parse_evidence(["D1:18", "D", "D1:20"]) == (["D1:18", "D1:20"], ["D"])


def test_repeated_ids_count_once() -> None:
    assert parse_evidence(["D2:1", "D2:1; D2:3"]) == (["D2:1", "D2:3"], [])


def test_session_date_format_of_the_data() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_date("10:04 am on 19 January,  2024") == datetime(
        2024, 1, 19, 10, 4, tzinfo=UTC
    )


def test_session_date_that_is_not_one() -> None:
    assert parse_session_date("sometime last spring") is None
