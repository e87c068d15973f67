"""The planted-secrets corpus: every secret redacted, every look-alike left exactly as it was.

``secrets_corpus.json`` holds real-shaped fake secrets in the formats they are pasted in (env
files, shell, YAML, JSON, TOML, INI, properties, URLs, headers, PEM, cloud credential files,
framework settings, SQL, .netrc, .pgpass, vendor tokens in prose) and look-alikes that must
survive (commit ids, UUIDs, lock-file hashes, references, templates, names without values).
``bench/bench_redact.py`` reports the same figures per format.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memlode.redact import redact, redact_value

CORPUS = json.loads(Path(__file__).with_name("secrets_corpus.json").read_text("utf-8"))
SECRETS = CORPUS["secrets"]
LOOKALIKES = CORPUS["lookalikes"]


def test_corpus_is_large_and_varied() -> None:
    assert len(SECRETS) >= 60
    assert len(LOOKALIKES) >= 20
    formats = Counter(case["format"] for case in SECRETS)
    for needed in ("env", "shell", "yaml", "json", "toml", "ini", "url", "header", "pem", "cloud"):
        assert formats[needed] >= 1, needed
    assert len({case["id"] for case in SECRETS + LOOKALIKES}) == len(SECRETS) + len(LOOKALIKES)
    for case in SECRETS:
        assert case["values"] and all(v in case["text"] for v in case["values"]), case["id"]


# Classes of the key-anchored cases (issue 35): values named by their key whatever their
# entropy, in config files and in code; auth headers; session cookies; connection strings.
CLASS_MINIMUMS = {
    "key-config": 30,
    "key-code": 25,
    "header": 15,
    "cookie": 8,
    "connection-string": 12,
    "cli-credential": 15,  # a password after a command's flag: HTTPie -a, mysql -p, --password
    "lookalike": 30,
}


def test_key_anchored_classes_are_covered() -> None:
    classes = Counter(case.get("class") for case in SECRETS + LOOKALIKES)
    assert {name: min(classes[name], low) for name, low in CLASS_MINIMUMS.items()} == (
        CLASS_MINIMUMS
    )
    assert sum(classes[name] for name in CLASS_MINIMUMS) >= 100
    # low entropy: most key-anchored values are plain words no shape rule could catch
    words = [v for c in SECRETS if c.get("class", "").startswith("key-") for v in c["values"]]
    assert sum(v.isalpha() and v.islower() for v in words) >= 60


def test_recall_is_complete_and_there_are_no_false_positives() -> None:
    """100% of the planted secrets go; 0 look-alikes change."""
    leaked = [c["id"] for c in SECRETS if any(v in redact(c["text"]) for v in c["values"])]
    changed = [c["id"] for c in LOOKALIKES if redact(c["text"]) != c["text"]]
    assert (leaked, changed) == ([], [])


@pytest.mark.parametrize("case", SECRETS, ids=[c["id"] for c in SECRETS])
def test_secret_case(case: dict[str, object]) -> None:
    text = str(case["text"])
    out = redact(text)
    for value in case["values"]:  # type: ignore[attr-defined]
        assert value not in out, out
    for kept in case["keep"]:  # type: ignore[attr-defined]
        assert kept in out, (kept, out)  # the text around a secret stays
    assert "[redacted:" in out or "[private]" in out
    assert redact(out) == out


@pytest.mark.parametrize("case", LOOKALIKES, ids=[c["id"] for c in LOOKALIKES])
def test_lookalike_case(case: dict[str, str]) -> None:
    assert redact(case["text"]) == case["text"]


def test_all_cases_in_one_text() -> None:
    """Secrets next to each other and to look-alikes: none survives, none is needed apart."""
    joined = "\n\n".join(c["text"] for c in SECRETS if c["id"] != "pem-unclosed")
    joined += "\n\n" + "\n\n".join(c["text"] for c in LOOKALIKES)
    out = redact(joined)
    leaked = [v for c in SECRETS if c["id"] != "pem-unclosed" for v in c["values"] if v in out]
    assert leaked == []
    assert redact(out) == out


def test_structured_values_under_secret_names() -> None:
    """In metadata and tool inputs a secret's key takes its whole value, at any depth."""
    value = {
        "env": {"DB_PASSWORD": "hunter2 horse", "PORT": "5432"},
        "headers": [{"X-Api-Key": "k3y-" + "a1" * 12}],
        "argv": ["pg_dump", "--password", "Sup3r-s3cret", "app"],
        "client_secret": None,
        "token_count": 12,
        "password_hint": "the usual one",
    }
    out = redact_value(value)
    assert out == {
        "env": {"DB_PASSWORD": "[redacted:secret]", "PORT": "5432"},
        "headers": [{"X-Api-Key": "[redacted:secret]"}],
        "argv": ["pg_dump", "--password", "[redacted:secret]", "app"],
        "client_secret": None,
        "token_count": 12,
        "password_hint": "the usual one",
    }
