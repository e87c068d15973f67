"""Secret redaction: a planted set of real-shaped secrets must all disappear, while ordinary
prose and code stay as they were."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlode.redact import RULES, redact, redact_many, redact_value, strip_private

# (text, the secret part that must not survive)
PLANTED = [
    ("ANTHROPIC_KEY sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_xyz", "AbCdEfGhIjKlMnOp"),
    ("key: sk-proj-abcdefghijklmnopqrstuvwxyzABCD1234", "abcdefghijklmnopqrstuvwxyz"),
    ("old style sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEF", "abcdefghijklmnopqrstuvwxyz0123"),
    ("git remote token ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "ghp_abcdefghijklmnop"),
    ("oauth gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c"),
    ("fine-grained github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "11ABCDEFG0123456"),
    ("gitlab glpat-xxxxXXXXyyyyYYYY1234", "glpat-xxxxXXXX"),
    ("aws AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE"),
    ("session ASIAY34FZKBOKMUTVV7A creds", "ASIAY34FZKBOKMUTVV7A"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "1234567890123-AbCd"),
    ("user token xoxp-123456789012-123456789012-123456789012-abcdef", "xoxp-1234567"),
    ("hook https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX", "T000/B000"),
    ("maps AIzaSyD-1234567890abcdefghijklmnopqrstu used", "AIzaSyD-1234567890"),
    ("stripe sk_live_51H8abcdefghijklmnopqrstuv", "51H8abcdefghijkl"),
    ("restricted rk_live_51H8abcdefghijklmnopqrstuv", "rk_live_51H8abcdef"),
    ("test key sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjt"),
    (
        "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdef\nQWERTY==\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAA",
    ),
    ("db postgres://admin:s3cr3tPassw0rd@db.internal:5432/app", "s3cr3tPassw0rd"),
    ("redis redis://:r3d1sPass@cache:6379/0", "r3d1sPass"),
    ("mongodb+srv://user:m0ng0Pass@cluster0.example.net/db", "m0ng0Pass"),
    ("export GITHUB_TOKEN=abc123def456ghi789", "abc123def456ghi789"),
    ("DB_PASSWORD=hunter2horse", "hunter2horse"),
    ('{"api_key": "zyx987wvu654tsr"}', "zyx987wvu654tsr"),
    ("{'client_secret': 'cs-0987654321abcdef'}", "cs-0987654321abcdef"),
    ("password: correct-horse-battery", "correct-horse-battery"),
    ("the wifi password is **Troubadour", "Troubadour"),  # bold marks before the value
    ('clientSecret = "s3cretValue99"', "s3cretValue99"),
    ("mysql --password=Sup3rS3cret! -u root", "Sup3rS3cret!"),
    (
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789",
        "abcdefghijklmnopqrstuvwxyz0123",
    ),
    ("hf token hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnop"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789 in .npmrc", "npm_abcdefghijklmnop"),
    ("SENDGRID SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "SG.abcd"),
    ("pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejEyMzQ1Ng", "AgEIcHlwaS5v"),
    ('password: str = "annotated-secret"', "annotated-secret"),
    ("SECRET_KEY='django-insecure-abc123'", "django-insecure-abc123"),
    ("note <private>my home address is 1 Main St</private> done", "1 Main St"),
    ("unclosed <private>everything after this is private", "everything after"),
]

# Ordinary text that must come back unchanged.
NORMAL = [
    "sk-learn is a typo for scikit-learn; task-runner-abcdefghijklmnopqrstuvwxyz is a name",
    "max_tokens = 1024 and token_count: 5",
    "the password_hint field is shown to the user",
    "password = get_password(user)",
    "self.api_key = api_key",
    "if password == expected:",
    "DB_PASSWORD=${DB_PASSWORD}",
    "password: str",
    "see https://example.com/docs/auth?x=1 for details, mail me at dev@example.com",
    "commit 3f57e28e9a1b2c3d4e5f60718293a4b5c6d7e8f9 fixed the AKIA prefix check",
    "uuid 8c1f2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7 names the session",
    "def get_token(self) -> str:\n    return self._token",
    "monkey = 'banana'; sortKey = 'name'",
    "Tokens last one hour; the refresh token lasts a week.",
]


@pytest.mark.parametrize(("text", "secret"), PLANTED)
def test_planted_secret_is_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out, out
    assert out != text


def test_planted_set_is_large_and_fully_redacted() -> None:
    assert len(PLANTED) >= 30
    joined = "\n".join(text for text, _ in PLANTED[:-1])  # the unclosed <private> goes last
    out = redact(joined)
    leaked = [secret for _, secret in PLANTED[:-1] if secret in out]
    assert leaked == []


@pytest.mark.parametrize("text", NORMAL)
def test_normal_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_an_aws_secret_goes_beside_its_key_id_and_a_word_run_stays() -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert redact(f"AKIAIOSFODNN7EXAMPLE,{secret}") == (
        "[redacted:aws_access_key],[redacted:aws_secret_key]"
    )
    words = "ThisIsJustAFortyCharacterLongSentenceXYZ"
    assert redact(f"AKIAIOSFODNN7EXAMPLE {words}") == f"[redacted:aws_access_key] {words}"


def test_private_regions_and_values() -> None:
    assert (
        strip_private("a <PRIVATE>x</private> b <private>y</private>") == "a [private] b [private]"
    )
    nested = redact_value({"cmd": ["export TOKEN=abcdef123456"], "n": 3, "ok": True})
    assert nested == {"cmd": ["export TOKEN=[redacted:secret]"], "n": 3, "ok": True}
    assert redact("") == ""


def test_redacting_twice_changes_nothing() -> None:
    once = redact("\n".join(t for t, _ in PLANTED))
    assert redact(once) == once


_FRAGMENTS = [
    *["password", "Password", "api_key", "apiKey", "API_KEY", "clientSecret", "credentials"],
    *["secret_key", "GITHUB_TOKEN", "db-password", "pwd", "tokens", "key", "monkey", "cred"],
    *[" ", "  ", "\n", ":", "=", " = ", ": ", '"', "'", ": str", "--", "-", "_", ".", "@"],
    *["hunter2hunter2", "abc123XYZ789qwe", "sk-", "bearer ", "x" * 24, "://u", "(", "get()"],
    # the needles and shapes of the pattern rules, so that their probes meet real matches
    *["a1B2" * 10, "ghp_", "AKIA", "eyJ", ".eyJ", "xoxb-", "SG.", "hf_", "npm_", "-----BEGIN "],
    *["PRIVATE KEY-----", "LS0tLS1CRUdJTi", "Authorization", "Cookie: s=", "token ", "mysql"],
    *[" -p", "curl", " -u a:", "sshpass", "docker login", "identified by ", "password '"],
    *["machine h login u ", "requirepass ", "h:5432:d:u:", "jdbc:oracle:thin:", "sqlplus "],
    *["auth=(", "BasicAuth(", "'u'", ", ", "@h", "Q~", ":AA", "-us1", "\t", "\\"],
    *["0123456789abcdef" * 2, "sk_live_", "rk_test_", "git config ", "a1B2c3D4e5F6g7H8"],
    # secrets said in words, and an AWS secret beside its key id
    *[" is ", " est ", " to ", "**", " for the db", "Tr0ub4dor&3", "mot de passe", "pw", "token"],
    *["AKIAIOSFODNN7EXAMPLE,", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
]


_NAMES = ["password", "dbPassword", "api_key", "API-KEY", "clientSecret", "credentials", "pwd"]
_QUOTES = ["", '"', "'"]
_SPACES = ["", " ", "  ", "\n"]
_VALUES = ["hunter2hunter2", "str", "abc123XYZ789qwe", "get()", "x" * 24]
# name, quote, spaces, operator (or annotation), spaces, quote, value, quote
_ASSIGNMENT = st.tuples(
    *(st.sampled_from(options) for options in (_NAMES, _QUOTES, _SPACES, [":", "=", ": str ="])),
    *(st.sampled_from(options) for options in (_SPACES, _QUOTES, _VALUES, _QUOTES)),
).map("".join)
_TEXTS = st.lists(st.sampled_from(_FRAGMENTS) | _ASSIGNMENT, max_size=12).map("".join)


@settings(max_examples=800, deadline=None)
@given(_TEXTS)
def test_prefilters_never_skip_a_pattern_that_matches(text: str) -> None:
    """Each rule's probe is a necessary condition of its pattern: whenever the pattern would
    change the text, the probe is true, so the probes never let a secret through."""
    lowered = text.lower()
    for rule in RULES:
        if rule.rewrite(text) != text:
            assert rule.probe(text, lowered), (rule.kind, rule.source, text)


def test_redact_many_is_redact_of_each() -> None:
    """The batched form gives what ``redact`` gives one text at a time, whatever the batch
    holds around a text (secrets in neighbours, repeats, empty texts, a needle split across
    two texts) and across batch boundaries."""
    texts = [text for text, _ in PLANTED] + NORMAL + ["", "sk", "-ant-x", "", "pass", "word="]
    texts += [f"def f{i}(self, token: str = 'abcdef{i:08d}xyz') -> None" for i in range(150)]
    texts += texts[:40]  # repeats
    many = redact_many(texts)
    assert many == [redact(text) for text in texts]
    assert any(out != text for out, text in zip(many, texts, strict=True))
    assert redact_many([]) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, max_size=80))
def test_redact_many_matches_redact_on_generated_texts(texts: list[str]) -> None:
    assert redact_many(texts) == [redact(text) for text in texts]
