"""Credentials recognisable by their shape alone: a vendor's prefix and a run of token
characters (``sk-ant-``, ``ghp_``, ``AKIA``, ``xoxb-``, ``eyJ…`` JWTs, PEM private keys…).

Each starts with ``_B``: no letter, digit, ``_`` or ``-`` just before, so "task-runner" is not
an ``sk-`` key and a match never starts inside a run another start has read (see _rules.py).
Vendors' formats are from their documentation and the published detectors of secret scanners
(gitleaks, GitHub secret scanning); the values in the tests are made up.
"""

from __future__ import annotations

from memlode.redact._rules import WORD_CHARS, Probe, Rule, after, bounded, has, mark, word_starts

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

__all__ = ["PEM_RULES", "TOKEN_RULES"]

_B = r"(?<![A-Za-z0-9_\-])"
_AWS = ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA")
_PEM_TYPES = r"[A-Z0-9 ]{0,40}"  # bounded: backing off it to find "PRIVATE" stays cheap


def _pem_in_base64(match: re.Match[str]) -> str:
    """A base64-encoded PEM block (kubeconfig ``client-key-data``, a Kubernetes secret):
    redacted when it encodes a private key, kept when it is a certificate."""
    import binascii

    head = match.group(0)[:64]
    try:
        decoded = binascii.a2b_base64(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return match.group(0)
    return mark("private_key") if b"PRIVATE" in decoded else match.group(0)


_HEX = frozenset("0123456789abcdef")


def _mailchimp_shape(text: str, lowered: str) -> bool:
    """32 hex digits, then "-us" and a digit (the data centre)."""
    i = text.find("-us")
    while i >= 0:
        head = text[max(0, i - 32) : i]
        if len(head) == 32 and text[i + 3 : i + 4].isdigit() and set(head) <= _HEX:
            return True
        i = text.find("-us", i + 1)
    return False


# A Discord bot token opens with a user id (digits) in base64: "1" encodes as "MT", "2" as "Mj",
# ... "9" as "OT".
_DISCORD_OPENINGS = ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")


def _discord_shape(text: str, lowered: str) -> bool:
    """A run of 24-26 token characters that opens like a base64 user id, a dot, six token
    characters, a dot and 27 more: a Discord bot token."""
    for opening in _DISCORD_OPENINGS:
        for i in word_starts(text, opening):
            j = i + 2
            while j < i + 27 and j < len(text) and text[j] in WORD_CHARS:
                j += 1
            if (
                24 <= j - i <= 26
                and text[j : j + 1] == "."
                and text[j + 7 : j + 8] == "."
                and all(c in WORD_CHARS for c in text[j + 1 : j + 7])
                and len(tail := text[j + 8 : j + 35]) == 27
                and all(c in WORD_CHARS for c in tail)
            ):
                return True
    return False


def _discord_token(match: re.Match[str]) -> str:
    """Redacted when both the user id and the signature hold a digit, as base64 does: a dotted
    name in code ("NotificationServiceClient.client.sendNotificationToAllSubscribers") has the
    same shape but no digits."""
    head, _stamp, tail = match.group(0).split(".")
    if any(c.isdigit() for c in head) and any(c.isdigit() for c in tail):
        return mark("discord_token")
    return match.group(0)


def _asana_shape(text: str, lowered: str) -> bool:
    """ "1/" or "2/" at the start of a word, digits (and for "2/" a second "/digits"), ":" and
    32 hex digits: an Asana personal access token."""
    for opening in ("1/", "2/"):
        for i in word_starts(text, opening, not_after="/"):
            j = i + 2
            end = min(len(text), i + 44)  # "2/", 20 digits, "/", 20 digits, ":"
            while j < end and (text[j].isdigit() or text[j] == "/"):
                j += 1
            tail = text[j + 1 : j + 33]
            if j - i >= 12 and text[j : j + 1] == ":" and len(tail) == 32 and set(tail) <= _HEX:
                return True
    return False


_notion_secret = after("secret_", 43)
_notion_new = after("ntn_", 46)
_notion_probe = Probe(
    ("secret_", "ntn_"),
    lambda text, lowered: _notion_secret(text, lowered) or _notion_new(text, lowered),
)


_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9])"


def _aws_keys(match: re.Match[str]) -> str:
    """The key id, and the 40 characters after it when they mix cases and hold a digit, "/" or
    "+", as a secret access key does (not a word run)."""
    key_id = mark("aws_access_key")
    value = match.group("v")
    if value is None:
        return key_id
    mixed = value != value.lower() and value != value.upper()
    if mixed and any(c.isdigit() or c in "/+" for c in value):
        return key_id + match.group("sep") + mark("aws_secret_key")
    return key_id + match.group("sep") + value


def _mixed_run(kind: str) -> Callable[[re.Match[str]], str]:
    """Redact a match whose run after the prefix holds a digit and a letter, as a random one
    does (not "live_" and a long name)."""

    def action(match: re.Match[str]) -> str:
        run = match.group(0).partition("_")[2]
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
            return mark(kind)
        return match.group(0)

    return action


def _lob_shape(text: str, lowered: str) -> bool:
    """ "live_" or "test_" at the start of a word, then 35 hex digits with a digit and a letter
    among them, then no more token characters: a Lob API key."""
    for needle in ("live_", "test_"):
        for i in word_starts(text, needle):
            run = text[i + 5 : i + 40]
            ends = text[i + 40 : i + 41] not in WORD_CHARS  # "" at the end of the text
            mixed = not (run.isdigit() or run.isalpha())
            if len(run) == 35 and ends and mixed and set(run) <= _HEX:
                return True
    return False


_lob = Probe(("live_", "test_"), _lob_shape)
_harness_pat = after("pat.", 22, then=".")
_harness_sat = after("sat.", 22, then=".")
_harness = Probe(
    ("pat.", "sat."),
    lambda text, lowered: _harness_pat(text, lowered) or _harness_sat(text, lowered),
)


PEM_RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        r"-----BEGIN " + _PEM_TYPES + r"PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END " + _PEM_TYPES + r"PRIVATE KEY(?: BLOCK)?-----|\Z)",
        has("PRIVATE KEY"),
    ),
    Rule(
        "private_key",
        r"PuTTY-User-Key-File-[0-9]: .*?(?:Private-MAC: [0-9a-fA-F]++|\Z)",
        has("PuTTY-User-Key-File-"),
    ),
    # "-----BEGIN " in base64 is LS0tLS1CRUdJTi; the callback reads which kind of block it is
    Rule(
        "private_key",
        r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}+",
        has("LS0tLS1CRUdJTi"),
        action=_pem_in_base64,
    ),
)

TOKEN_RULES: tuple[Rule, ...] = (
    Rule("anthropic_key", _B + r"sk-ant-[A-Za-z0-9_\-]{16,}+", has("sk-ant-")),
    Rule(
        "openai_key",
        _B + r"sk-(?:proj-|svcacct-|admin-|live-)?+[A-Za-z0-9_\-]{20,}+",
        after("sk-", 20),
    ),
    Rule(
        "github_token",
        _B + r"gh[pousr]_[A-Za-z0-9]{30,}+",
        has("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    Rule("github_token", _B + r"github_pat_[A-Za-z0-9_]{22,}+", has("github_pat_")),
    Rule(
        "gitlab_token",
        _B + r"gl(?:pat|dt|ptt|rt|cbt|imt|agent|ft|oas|soat)-[A-Za-z0-9_\-]{20,}+",
        bounded("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "glagent-", "glft-"),
    ),
    Rule("gitlab_token", _B + r"GR1348941[A-Za-z0-9_\-]{20,}+", has("GR1348941")),
    Rule(  # and the secret beside the key id: "AKIA…,wJalr…" (the console's CSV), "AKIA… wJalr…"
        "aws_access_key",
        r"(?<![A-Z0-9])(?:" + "|".join(_AWS) + r")[A-Z0-9]{16}(?![A-Z0-9])"
        r"(?:(?P<sep>[ \t,;:|]{1,6}+)(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=]))?",
        has(*_AWS),
        action=_aws_keys,
    ),
    Rule("alibaba_key", r"(?<![A-Za-z0-9])LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])", has("LTAI")),
    Rule("slack_token", _B + r"xox[abposrec]-[A-Za-z0-9\-]{10,}+", bounded("xox")),
    Rule("slack_token", _B + r"xapp-[0-9]-[A-Za-z0-9\-]{20,}+", has("xapp-")),
    Rule(
        "slack_webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]++",
        has("hooks.slack.com"),
    ),
    Rule(
        "discord_token",
        _B + r"(?:M[Tjz]|N[DTjz]|O[DT])[A-Za-z0-9_\-]{22,24}\.[A-Za-z0-9_\-]{6}"
        r"\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-])",
        Probe(_DISCORD_OPENINGS, _discord_shape),
        action=_discord_token,
    ),
    Rule(
        "asana_token",
        r"(?<![A-Za-z0-9_\-/])[12]/[0-9]{10,20}(?:/[0-9]{10,20})?:[0-9a-f]{32}(?![0-9A-Za-z])",
        Probe(("1/", "2/"), _asana_shape),
    ),
    Rule(
        "discord_webhook",
        r"https://(?:[a-z]+\.)?discord(?:app)?\.com/api/webhooks/[0-9]++/[A-Za-z0-9_\-]++",
        has("/api/webhooks/"),
    ),
    Rule("google_api_key", _B + r"AIza[0-9A-Za-z_\-]{35}", has("AIza")),
    Rule("google_oauth", _B + r"ya29\.[0-9A-Za-z_\-]{20,}+", has("ya29.")),
    Rule("google_oauth", _B + r"GOCSPX-[0-9A-Za-z_\-]{20,}+", has("GOCSPX-")),
    Rule("google_oauth", r"(?<![A-Za-z0-9_/\-])1//0[0-9A-Za-z_\-]{30,}+", has("1//0")),
    Rule(
        "stripe_key",
        _B + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}+",
        has("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ),
    Rule("stripe_key", _B + r"whsec_[0-9A-Za-z]{24,}+", has("whsec_")),
    Rule("huggingface_token", _B + r"hf_[A-Za-z0-9]{30,}+", after("hf_", 30)),
    Rule("npm_token", _B + r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", has("npm_")),
    Rule("pypi_token", _B + r"pypi-AgE[A-Za-z0-9_\-]{40,}+", has("pypi-AgE")),
    Rule("rubygems_key", _B + r"rubygems_[a-f0-9]{48}", has("rubygems_")),
    Rule(
        "sendgrid_key",
        _B + r"SG\.[A-Za-z0-9_\-]{20,}+\.[A-Za-z0-9_\-]{20,}+",
        after("SG.", 20),
    ),
    Rule("twilio_key", _B + r"SK[0-9a-f]{32}(?![A-Za-z0-9])", after("SK", 32)),
    Rule("mailgun_key", _B + r"key-[0-9a-z]{32}(?![0-9a-z])", after("key-", 32)),
    Rule(
        "mailchimp_key",
        r"(?<![0-9a-f])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])",
        Probe(("-us",), _mailchimp_shape),
    ),
    Rule(
        "shopify_token",
        _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        has("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    Rule("digitalocean_token", _B + r"do[opr]_v1_[a-f0-9]{64}", has("_v1_")),
    Rule(
        "doppler_token",
        _B + r"dp\.(?:st|ct|pt|sa|scim|audit)\.(?:[a-z0-9_\-]{1,32}\.)?+[A-Za-z0-9_\-]{20,}+",
        bounded("dp."),
    ),
    Rule("vault_token", _B + r"hv[sbr]\.[A-Za-z0-9_\-]{24,}+", has("hvs.", "hvb.", "hvr.")),
    Rule(
        "terraform_token",
        r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}+",
        has(".atlasv1."),
    ),
    Rule("atlassian_token", _B + r"ATATT3[A-Za-z0-9_\-=]{50,}+", has("ATATT3")),
    Rule("databricks_token", _B + r"dapi[0-9a-f]{32}(?:-[0-9])?+", after("dapi", 32)),
    Rule("linear_key", _B + r"lin_api_[A-Za-z0-9]{40}", has("lin_api_")),
    Rule("postman_key", _B + r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}", has("PMAK-")),
    Rule("square_token", _B + r"sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,}+", has("sq0atp-", "sq0csp-")),
    Rule("meta_token", _B + r"EAA[A-Za-z0-9]{60,}+", after("EAA", 60)),
    Rule("groq_key", _B + r"gsk_[A-Za-z0-9]{48,}+", after("gsk_", 48)),
    Rule("replicate_token", _B + r"r8_[A-Za-z0-9]{37}", after("r8_", 37)),
    Rule(
        "notion_token",
        _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})",
        _notion_probe,
    ),
    Rule("airtable_token", _B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", after("pat", 14, then=".")),
    Rule("supabase_token", _B + r"sbp_[a-f0-9]{40}", has("sbp_")),
    Rule(
        "planetscale_token",
        _B + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}+",
        has("pscale_"),
    ),
    Rule("age_key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", has("AGE-SECRET-KEY-1")),
    Rule("docker_token", _B + r"dckr_pat_[A-Za-z0-9_\-]{20,}+", has("dckr_pat_")),
    Rule("grafana_token", _B + r"glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}", has("glsa_")),
    Rule("grafana_token", _B + r"glc_[A-Za-z0-9+/]{32,}+={0,2}+", has("glc_")),
    Rule("newrelic_key", _B + r"NRAK-[A-Z0-9]{27}", has("NRAK-")),
    Rule("sentry_token", _B + r"sntry[su]_[A-Za-z0-9+/=_\-]{40,}+", has("sntrys_", "sntryu_")),
    Rule("pulumi_token", _B + r"pul-[a-f0-9]{40}", after("pul-", 40)),
    Rule(
        "telegram_token",
        r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])",
        has(":AA"),
    ),
    Rule(
        "firebase_key",
        r"(?<![A-Za-z0-9_\-])AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}+",
        has(":APA91b"),
    ),
    Rule(
        "mapbox_token",
        _B + r"sk\.eyJ[A-Za-z0-9_\-]{20,}+\.[A-Za-z0-9_\-]{20,}+",
        has("sk.eyJ"),
    ),
    Rule(
        "azure_secret",
        r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}"
        r"(?![A-Za-z0-9_~.\-])",
        has("Q~"),
    ),
    # AI and developer platforms whose keys show up in coding sessions (session 27: each was
    # printed bare in prose by a probe and went through unredacted)
    Rule("xai_key", _B + r"xai-[A-Za-z0-9]{60,}+", after("xai-", 60)),
    Rule("perplexity_key", _B + r"pplx-[A-Za-z0-9]{40,}+", after("pplx-", 40)),
    Rule("langsmith_key", _B + r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", has("lsv2_")),
    Rule("pinecone_key", _B + r"pcsk_[A-Za-z0-9]{4,}+_[A-Za-z0-9]{40,}+", has("pcsk_")),
    Rule("nvidia_key", _B + r"nvapi-[A-Za-z0-9_\-]{60,}+", after("nvapi-", 60)),
    Rule("tavily_key", _B + r"tvly-(?:dev-|prod-)?+[A-Za-z0-9]{30,}+", has("tvly-")),
    Rule("cerebras_key", _B + r"csk-[a-z0-9]{48}(?![A-Za-z0-9])", after("csk-", 48)),
    Rule("elevenlabs_key", _B + r"sk_[a-f0-9]{48}(?![A-Za-z0-9])", after("sk_", 48)),
    Rule("huggingface_token", _B + r"api_org_[A-Za-z0-9]{30,}+", after("api_org_", 30)),
    Rule(
        "tailscale_key",
        _B + r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}+-[A-Za-z0-9]{16,}+",
        has("tskey-"),
    ),
    Rule("figma_token", _B + r"figd_[A-Za-z0-9_\-]{40,}+", after("figd_", 40)),
    Rule("brevo_key", _B + r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", has("xkeysib-")),
    Rule("heroku_key", _B + r"HRKU-[A-Za-z0-9_\-]{40,}+", after("HRKU-", 40)),
    Rule("jfrog_token", _B + r"AKCp[A-Za-z0-9]{60,}+", after("AKCp", 60)),
    Rule("bitbucket_token", _B + r"ATBB[A-Za-z0-9_=.\-]{32,}+", has("ATBB")),
    Rule("contentful_token", _B + r"CFPAT-[A-Za-z0-9_\-]{43}", after("CFPAT-", 43)),
    Rule("sonarqube_token", _B + r"sq[pua]_[a-f0-9]{40}", has("sqp_", "squ_", "sqa_")),
    Rule("circleci_token", _B + r"CCIPAT_[A-Za-z0-9]{20,}+_[a-f0-9]{40}", has("CCIPAT_")),
    Rule("buildkite_token", _B + r"bkua_[a-f0-9]{40}", after("bkua_", 40)),
    Rule("netlify_token", _B + r"nfp_[A-Za-z0-9]{36}(?![A-Za-z0-9])", after("nfp_", 36)),
    Rule("render_key", _B + r"rnd_[A-Za-z0-9]{32}(?![A-Za-z0-9])", after("rnd_", 32)),
    Rule("neon_key", _B + r"napi_[a-z0-9]{64}", after("napi_", 64)),
    Rule("typeform_token", _B + r"tfp_[A-Za-z0-9_\-.]{40,}+", after("tfp_", 40)),
    Rule("dropbox_token", _B + r"sl\.(?:u\.)?+[A-Za-z0-9_\-=]{130,}+", has("sl.")),
    Rule("easypost_key", _B + r"EZ[AT]K[A-Za-z0-9]{54}", has("EZAK", "EZTK")),
    Rule("fly_token", r"FlyV1 fm[12]_[A-Za-z0-9+/=_\-]{40,}+", has("FlyV1 fm")),
    Rule("cloudflare_key", _B + r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", has("v1.0-")),
    Rule("onepassword_token", _B + r"ops_eyJ[A-Za-z0-9+/=_\-]{50,}+", has("ops_eyJ")),
    Rule("gcs_hmac_key", r"(?<![A-Za-z0-9])GOOG1[A-Z0-9]{50,}+", has("GOOG1")),
    Rule("tencent_key", r"(?<![A-Za-z0-9])AKID[A-Za-z0-9]{32}(?![A-Za-z0-9])", has("AKID")),
    Rule("resend_key", _B + r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9])", after("re_", 8)),
    Rule("clickup_token", _B + r"pk_[0-9]{6,}+_[A-Z0-9]{32}(?![A-Za-z0-9])", has("pk_")),
    Rule("wandb_key", r"(?<=wandb login )[a-f0-9]{40}(?![A-Za-z0-9])", has("wandb login ")),
    Rule("shippo_token", _B + r"shippo_(?:live|test)_[a-fA-F0-9]{40}", has("shippo_")),
    Rule("flutterwave_key", _B + r"FLWSECK(?:_TEST)?+-[a-hA-H0-9]{32}-X", has("FLWSECK")),
    Rule("frameio_token", _B + r"fio-u-[A-Za-z0-9_=\-]{64}", has("fio-u-")),
    Rule("infracost_key", _B + r"ico-[A-Za-z0-9]{32}(?![A-Za-z0-9])", after("ico-", 32)),
    Rule("dynatrace_token", _B + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", has("dt0c01.")),
    Rule("adafruit_key", _B + r"aio_[A-Za-z0-9]{28}(?![A-Za-z0-9])", after("aio_", 28)),
    Rule("clojars_token", _B + r"CLOJARS_[A-Za-z0-9]{60}", has("CLOJARS_")),
    Rule("duffel_token", _B + r"duffel_(?:test|live)_[A-Za-z0-9_=\-]{43}", has("duffel_")),
    Rule("prefect_key", _B + r"pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])", after("pnu_", 36)),
    Rule("readme_key", _B + r"rdme_[a-z0-9]{70}(?![A-Za-z0-9])", after("rdme_", 70)),
    Rule("scalingo_token", _B + r"tk-us-[A-Za-z0-9_\-]{48}(?![A-Za-z0-9_\-])", has("tk-us-")),
    Rule("linear_key", _B + r"lin_oauth_[a-f0-9]{64}", has("lin_oauth_")),
    Rule(
        "plaid_token",
        _B + r"access-(?:sandbox|development|production)-" + _UUID,
        has("access-sandbox-", "access-development-", "access-production-"),
    ),
    Rule(
        "lob_key",
        _B + r"(?:live|test)_[a-f0-9]{35}(?![A-Za-z0-9])",
        _lob,
        action=_mixed_run("lob_key"),
    ),
    Rule("newrelic_key", _B + r"NRII-[A-Za-z0-9\-]{32}", has("NRII-")),
    Rule("newrelic_key", _B + r"NRJS-[a-f0-9]{19}(?![A-Za-z0-9])", has("NRJS-")),
    Rule("hubspot_token", _B + r"pat-(?:na|eu)1-" + _UUID, has("pat-na1-", "pat-eu1-")),
    Rule("octopus_key", _B + r"API-[A-Z0-9]{26}(?![A-Za-z0-9])", after("API-", 26)),
    Rule(
        "harness_token",
        _B + r"(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}",
        _harness,
    ),
    Rule(
        "sourcegraph_token",
        _B + r"sgp_(?:[a-fA-F0-9]{16}_|local_)?+[a-fA-F0-9]{40}",
        has("sgp_"),
    ),
    Rule(
        "openshift_token",
        _B + r"sha256~[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])",
        after("sha256~", 43),
    ),
    Rule("yandex_key", _B + r"AQVN[A-Za-z0-9_\-]{35,38}+(?![A-Za-z0-9_\-])", has("AQVN")),
    Rule("nuget_key", _B + r"oy2[a-z0-9]{43}(?![A-Za-z0-9])", after("oy2", 43)),
    Rule("maxmind_key", _B + r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9])", has("_mmk")),
    Rule("packagist_token", _B + r"packagist_[ou][ru]t_[a-f0-9]{68}", has("packagist_")),
    Rule("ubidots_token", _B + r"BBFF-[A-Za-z0-9]{30}(?![A-Za-z0-9])", after("BBFF-", 30)),
    Rule(
        "gocardless_token",
        _B + r"live_[A-Za-z0-9_\-]{40}(?![A-Za-z0-9_=\-])",
        after("live_", 40),
        action=_mixed_run("gocardless_token"),
    ),
    Rule("twitter_token", r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}+", has("AAAAAAAAAAAAAAAAAAAAA")),
    Rule("launchdarkly_token", _B + r"api-" + _UUID, after("api-", 36)),
    Rule(
        "defined_networking_key",
        _B + r"dnkey-[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52}",
        has("dnkey-"),
    ),
    Rule(  # Bundler's credentials for a gem server: BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:pw
        "bundler_credentials",
        r"(?<![A-Za-z0-9_])BUNDLE_[A-Z0-9_]{0,80}?__[A-Z0-9_]{1,80}+[ \t]*+[=:][ \t]*+['\"]?+"
        r"(?P<v>[^\s'\"]{6,}+)",
        has("BUNDLE_"),
        group="v",
    ),
    Rule(
        "teams_webhook",
        r"(?<=/IncomingWebhook/)[A-Za-z0-9]{32}/[A-Za-z0-9\-]{8,}+",
        has("/IncomingWebhook/"),
    ),
    Rule(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_\-]{6,}+\.eyJ[A-Za-z0-9_\-]{6,}+\.[A-Za-z0-9_\-]*+",
        has("eyJ"),
    ),
)
