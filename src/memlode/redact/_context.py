"""Secrets known by where they stand rather than by their shape.

Passwords in URLs (``postgres://app:pw@db``), HTTP credentials (``Authorization: Basic …``,
``Bearer …``, cookies), command lines (``mysql -ppw``, ``curl -u user:pw``, ``sshpass -p pw``,
``redis-cli -a pw``, HTTPie's ``http -a user:pw``, ``ldapsearch -w pw``, ``docker login -p pw``,
``smbclient -U user%pw``, ``openssl … pass:pw``, ``htpasswd -b file user pw``), SQL
(``IDENTIFIED BY 'pw'``, ``PASSWORD 'pw'``), ``.netrc``, ``.pgpass``, ``redis.conf``, Oracle's
``user/pw@db`` and ``auth=("user", "pw")``.
The linear-time rules of _rules.py apply to every pattern here.
"""

from __future__ import annotations

from memlode.redact._names import SHELL, STRONG, WEAK, is_marker, keep_value, looks_random
from memlode.redact._names import secret_name as _secret_name
from memlode.redact._rules import Probe, Rule, has_lower, mark

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

__all__ = ["CONTEXT_RULES", "redact_cookies"]

# A value on a command line: quoted (its end quote may be missing) or one word.
_ARG = r"(?P<v>'[^'\n]*+'?+|\"[^\"\n]*+\"?+|[^\s'\"]\S*+)"
_AUTH_SCHEMES = frozenset(
    {"basic", "bearer", "token", "digest", "negotiate", "ntlm", "apikey", "api-key", "key"}
)
_COOKIE_ATTRIBUTES = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority"}
    | {"partitioned", "version", "comment"}
)
_MIN_COOKIE_VALUE = 6  # shorter values are flags and preferences (theme=dark), not sessions
# A cookie whose name says it carries a session or a credential loses any value of at least
# _MIN_KEPT characters (sid=a1b): its name, not its length, says what it is.
_SESSION_COOKIE_WORDS = ("sess", "sid", "auth", "token", "jwt", "remember", "login", "xsrf")
_MIN_KEPT = 3  # keep_value's floor: "x", "0", "" are flags, not credentials
_MIN_HEADER_VALUE = 6


def _skip(text: str, i: int, chars: str) -> int:
    """The first index at or after ``i`` whose character is not in ``chars``."""
    n = len(text)
    while i < n and text[i] in chars:
        i += 1
    return i


def _kept(value: str) -> bool:
    """A value that is already a marker, a variable or a placeholder."""
    bare = value.strip("'\"")
    return is_marker(bare) or keep_value(bare, context=SHELL)


def _value_mark(kind: str) -> Callable[[re.Match[str]], str]:
    """Replace the group ``v`` unless it is kept; quotes around it stay."""

    def action(match: re.Match[str]) -> str:
        value = match.group("v")
        if value is None or _kept(value):
            return match.group(0)
        start, end = match.span("v")
        lead = len(value) - len(value.lstrip("'\""))
        trail = len(value) - len(value.rstrip("'\""))
        start, end = start + lead, end - trail
        whole, offset = match.group(0), match.start()
        return whole[: start - offset] + mark(kind) + whole[end - offset :]

    return action


# ---- URLs ---------------------------------------------------------------------------------


def _uri_password(match: re.Match[str]) -> str:
    """user:password@host: the password is whatever lies between the first ``:`` of the
    user part and the last ``@`` of the authority (pasted passwords hold ``@``, ``:``, ``#``
    and ``?`` unencoded)."""
    auth = match.group("auth")
    at = auth.rfind("@")
    colon = auth.find(":", 0, at) if at > 0 else -1
    if colon < 0:
        return match.group(0)
    password = auth[colon + 1 : at]
    if not password or (len(password) >= _MIN_KEPT and not password.isdigit() and _kept(password)):
        return match.group(0)  # short ones go too: in user:pw@host nothing else stands there
    head = match.group(0)[: match.start("auth") - match.start()]
    return head + auth[: colon + 1] + mark("password") + auth[at:]


_uri_probe = Probe(("://",), lambda text, lowered: "@" in text)


# ---- HTTP ---------------------------------------------------------------------------------


def _authorization(match: re.Match[str]) -> str:
    value = match.group("v")
    if value.lower() in _AUTH_SCHEMES or len(value) < _MIN_HEADER_VALUE or _kept(value):
        return match.group(0)
    start, end = match.span("v")
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + mark("secret") + whole[end - offset :]


def _long_credential(match: re.Match[str]) -> str:
    """A credential after "bearer" or "token": letters and digits mixed (not a long word)."""
    value = match.group("v")
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return match.group(0)
    if _kept(value):
        return match.group(0)
    start = match.start("v") - match.start()
    return match.group(0)[:start] + mark("bearer_token")


def _word_then_long_run(words: tuple[str, ...], minimum: int) -> Probe:
    """One of ``words``, blanks, then a run of at least ``minimum`` non-blank characters."""

    def probe(text: str, lowered: str) -> bool:
        for word in words:
            i = lowered.find(word)
            while i >= 0:
                j = i + len(word)
                k = _skip(lowered, j, " \t")
                if k > j:
                    run = lowered[k : k + minimum]
                    if len(run) == minimum and not any(c.isspace() for c in run):
                        return True
                i = lowered.find(word, i + 1)
        return False

    return Probe(words, probe)


def _cookie_secret(name: str, value: str) -> bool:
    """Whether a cookie's value goes: any long one; a short one under a session's name."""
    if len(value) >= _MIN_COOKIE_VALUE:
        return True
    low = name.lower()
    named = any(w in low for w in _SESSION_COOKIE_WORDS) or _secret_name(name) == STRONG
    return named and len(value) >= _MIN_KEPT and not keep_value(value, context=SHELL)


def redact_cookies(value: str) -> str:
    """``a=1; session=abc…; Path=/``: the value of each cookie goes, attributes stay."""
    parts = value.split(";")
    for i, part in enumerate(parts):
        name, eq, val = part.partition("=")
        bare = val.strip()
        if not eq or name.strip().lower() in _COOKIE_ATTRIBUTES:
            continue
        if is_marker(bare) or not _cookie_secret(name.strip(), bare):
            continue
        lead = val[: len(val) - len(val.lstrip())]
        trail = val[len(val.rstrip()) :]
        parts[i] = f"{name}={lead}{mark('cookie')}{trail}"
    return ";".join(parts)


def _cookie_header(match: re.Match[str]) -> str:
    start = match.start("v") - match.start()
    whole = match.group(0)
    return whole[:start] + redact_cookies(match.group("v"))


# ---- command lines ----------------------------------------------------------------------

_inner: dict[str, re.Pattern[str]] = {}
_INNER = {
    "mysql": r"(?<![\w-])-p" + _ARG,
    "curl_user": r"(?<![\w-])(?:-u|--user|-U|--proxy-user)(?:=|[ \t]*+)['\"]?+[^\s:'\"]*+:"
    r"(?P<v>[^\s'\"]*+)",
    # HTTPie and xh: -a USER:PW (a bare USER makes them prompt for the password; --auth is a
    # secret's name, whose whole value goes by _assign.py)
    "httpie": r"(?<![\w-])-a(?:=|[ \t]++)['\"]?+[^\s:'\"]*+:(?P<v>[^\s'\"]*+)",
    "curl_cookie": r"(?<![\w-])(?:-b|--cookie)(?:=|[ \t]++)['\"]?+(?P<v>[^\s'\"=]*+=[^'\"\n]*+)",
    "curl_bearer": r"(?<![\w-])--oauth2-bearer(?:=|[ \t]++)" + _ARG,
    "space_p": r"(?<![\w-])-p[ \t]*+" + _ARG,
    "login_p": r"(?<![\w-])-p[ \t]++" + _ARG,
    "redis": r"(?<![\w-])-a[ \t]++" + _ARG,
    "ldap": r"(?<![\w-])-w[ \t]++" + _ARG,
    "smb": r"(?<![\w-])-U[ \t]*+['\"]?+[^\s%'\"]++%(?P<v>[^\s'\"]++)",
    "openssl_pass": r"(?<![\w-])-pass(?:in|out)?+[ \t]++pass:(?P<v>\S++)",
    "openssl_k": r"(?<![\w-])-k[ \t]++" + _ARG,
    "sshkeygen": r"(?<![\w-])-[NP][ \t]*+" + _ARG,
    "zip": r"(?<![\w-])-P[ \t]++" + _ARG,
    "rabbitmq": r"(?<![\w-])(?:add_user|change_password)[ \t]++\S++[ \t]++" + _ARG,
    "7z": r"(?<![\w-])-p" + _ARG,
    "htpasswd": r"(?<![\w-])-(?P<f>[a-zA-Z]*b[a-zA-Z]*+)[ \t]++(?P<a>\S++)[ \t]++(?P<b>\S++)"
    r"(?:[ \t]++(?P<c>\S++))?+",
}
_COMMAND_INNER = {
    "curl": ("curl_user", "curl_cookie", "curl_bearer"),
    "sshpass": ("space_p",),
    "redis-cli": ("redis",),
    "http": ("httpie",),
    "https": ("httpie",),
    "xh": ("httpie",),
    "xhs": ("httpie",),
    "smbclient": ("smb",),
    "openssl": ("openssl_pass", "openssl_k"),
    "htpasswd": ("htpasswd",),
    "ssh-keygen": ("sshkeygen",),
    "zip": ("zip",),
    "unzip": ("zip",),
    "7z": ("7z",),
    "7za": ("7z",),
    "7zz": ("7z",),
    "sqlcmd": ("zip",),  # sqlcmd -U sa -P pw, bcp ... -P pw
    "bcp": ("zip",),
    "rabbitmqctl": ("rabbitmq",),
}
_LOGIN_COMMANDS = frozenset(
    {"docker", "podman", "nerdctl", "buildah", "helm", "oras", "skopeo", "az"}
)


def _inner_pattern(key: str) -> re.Pattern[str]:
    pattern = _inner.get(key)
    if pattern is None:
        import re

        pattern = _inner[key] = re.compile(_INNER[key])
    return pattern


def _htpasswd(match: re.Match[str]) -> str:
    """``htpasswd -b file user pw`` / ``htpasswd -nb user pw``: the last word is the password."""
    group = "b" if "n" in match.group("f") else "c"
    value = match.group(group)
    if value is None or _kept(value):
        return match.group(0)
    start, end = match.span(group)
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + mark("password") + whole[end - offset :]


def _command(match: re.Match[str]) -> str:
    command = match.group("cmd").lower()
    segment = match.group("seg")
    if command.startswith(("mysql", "mariadb")):
        keys: tuple[str, ...] = ("mysql",)
    elif command.startswith("ldap"):
        keys = ("ldap",)
    elif command in _LOGIN_COMMANDS:
        keys = ("login_p",) if "login" in segment else ()
    else:
        keys = _COMMAND_INNER.get(command, ())
        if keys == ("httpie",) and "bearer" in segment.lower():
            keys = ("redis",)  # -A bearer -a TOKEN: the whole value is the token
    for key in keys:
        pattern = _inner_pattern(key)
        if key == "htpasswd":
            segment = pattern.sub(_htpasswd, segment)
        elif key == "curl_cookie":
            segment = pattern.sub(_cookie_header, segment)
        else:
            segment = pattern.sub(_value_mark("password"), segment)
    return match.group("cmd") + segment


def _config_set(match: re.Match[str]) -> str:
    """``npm config set //host/:_authToken VALUE``, ``git config --global github.token VALUE``,
    ``aws configure set aws_secret_access_key VALUE``: the value of a secret's name."""
    strength = _secret_name(match.group("name"))
    value = match.group("v").strip("'\"")
    if strength == WEAK and not looks_random(value):
        return match.group(0)
    if strength not in (WEAK, STRONG):
        return match.group(0)
    return _value_mark("secret")(match)


_CONFIG_COMMANDS = frozenset(
    {"git", "npm", "yarn", "pnpm", "pip", "pip3", "composer", "aws", "gcloud", "heroku", "conda"}
    | {"bundle", "cargo", "gh"}
)
_LONGEST_COMMAND = max(map(len, _CONFIG_COMMANDS))


def _config_after_command(text: str, lowered: str) -> bool:
    """The word config right after a command that has a config subcommand (git, npm, aws)."""
    i = lowered.find("config")
    while i >= 0:
        j = i
        while j > 0 and lowered[j - 1] in " \t":
            j -= 1
        if j < i:
            k = j
            while k > 0 and j - k <= _LONGEST_COMMAND and lowered[k - 1].isalnum():
                k -= 1
            if lowered[k:j] in _CONFIG_COMMANDS:
                return True
        i = lowered.find("config", i + 1)
    return False


# ---- SQL, config files --------------------------------------------------------------------


def _word_then_quote(word: str) -> Probe:
    """``word``, at least one blank, then a quote."""

    def probe(text: str, lowered: str) -> bool:
        i = lowered.find(word)
        while i >= 0:
            j = i + len(word)
            k = _skip(lowered, j, " \t")
            if k > j and lowered[k : k + 1] in ("'", '"'):
                return True
            i = lowered.find(word, i + 1)
        return False

    return Probe((word,), probe)


def _netrc_file(text: str, lowered: str) -> bool:
    """Text shaped like a .netrc: "machine" and "login" entries."""
    return "machine" in lowered and "login" in lowered


def _pgpass_line(text: str, lowered: str) -> bool:
    """A line ``host:port:database:user:password`` with no blanks inside."""
    if text.count(":") < 4:
        return False
    for line in text.split("\n"):
        if line.count(":") < 4:
            continue
        parts = line.strip().split(":")
        port = parts[1]
        if (port == "*" or (port.isdigit() and len(port) <= 5)) and len(parts[0].split()) == 1:
            return True
    return False


def _assigned(word: str, openers: str, *, operator: str = "=") -> Probe:
    """``word``, then quotes, backslashes and blanks, ``operator``, blanks, then one of
    ``openers`` (anything when empty): where ``auth=(`` or ``Authorization:`` may start."""

    def probe(text: str, lowered: str) -> bool:
        i = lowered.find(word)
        while i >= 0:
            k = _skip(lowered, _skip(lowered, i + len(word), "\\'\""), " \t\r\n\f\v")
            if lowered[k : k + 1] and lowered[k] in operator:
                k = _skip(lowered, k + 1, " \t\r\n\f\v")
                if not openers or (lowered[k : k + 1] and lowered[k] in openers):
                    return True
            i = lowered.find(word, i + 1)
        return False

    return Probe((word,), probe)


# Each command word with the flags that carry its password: the command rule compiles only
# when a text names one of the commands and one of its flags.
_COMMAND_FLAGS = (
    (("mysql", "mariadb", "sshpass"), ("-p",)),
    (("curl",), ("-u", "--user", "-b", "--cookie", "--oauth2-bearer", "--proxy-user")),
    (("redis-cli",), ("-a",)),
    (("http", "xh"), ("-a",)),
    (("ldap",), ("-w",)),
    (("smbclient",), ("-u",)),
    (("openssl",), ("pass:", "-k")),
    (("htpasswd",), ("b",)),
    (("ssh-keygen",), ("-n", "-p")),
    (("zip", "7z", "sqlcmd", "bcp"), ("-p",)),
    (("rabbitmqctl",), ("add_user", "change_password")),
    (("docker", "podman", "nerdctl", "buildah", "helm", "oras", "skopeo", "az"), ("-p",)),
)


def _command_flags(text: str, lowered: str) -> bool:
    for words, flags in _COMMAND_FLAGS:
        if any(w in lowered for w in words) and any(f in lowered for f in flags):
            return True
    return False


_command_probe = Probe(tuple(w for words, _ in _COMMAND_FLAGS for w in words), _command_flags)


_auth_tuple = _assigned("auth", "([")


_basic_auth_probe = Probe(
    ("auth",), lambda text, lowered: "basicauth(" in lowered or _auth_tuple(text, lowered)
)


_QUOTED_V = r"(?P<q>['\"])(?P<v>[^'\"\n]*+)(?P=q)"

# ---- said in words ------------------------------------------------------------------------
# "the password for the staging db is Tr0ub4dor&3", "my api key: q8Zt3mK9…", "the token was
# reset to …": a secret's name, a few words, a verb of being (or ":"), and a value that looks
# like a password: letters with digits or symbols, not a word, a path, a version, a variable or
# an expression. Code's ``name = value`` is _assign.py's.
_SAID_NAMES = (
    "password",
    "pw",
    "mot de passe",
    "passwort",
    "kennwort",
    "contraseña",
    "contrasena",
    "senha",
    "wachtwoord",
    "passwd",
    "passphrase",
    "passcode",
    "api key",
    "api-key",
    "api_key",
    "apikey",
    "secret",
    "token",
    "access key",
    "access_key",
    "access-key",
)
_SAID = (
    r"(?i)(?<![a-z0-9_\-])(?:pass(?:word|wd|phrase|code)|pwd?+|api[ _\-]?key|secret(?:[ _\-]key)?+"
    r"|access[ _\-]key|token|mot de passe|passwort|kennwort|contrase(?:ñ|n)a|senha"
    r"|wachtwoord)s?+(?:\*\*|__)?+"
    r"(?:[ \t]++(?:for|of|on|to|für|pour|de|para|del?)(?:[ \t]++[^\s:=]{1,40}+){1,4}?)?"
    r"(?:[ \t]++(?:(?:is|was|are|were|has[ \t]++been)[ \t]++)?+(?:set|changed|reset)[ \t]++to"
    r"|[ \t]++(?:is|was|are|were|est|ist|war|es|era|é|è)(?:[ \t]++(?:now|still))?+"
    r"|[ \t]*+:(?:\*\*|__)?+)[ \t]++[`'\"]?+(?P<v>[^\s`'\"]{6,128}+)"
)
# Words with digits that name a technique, not a secret ("the token is base64", "sha256").
_TECHNICAL = frozenset(
    "base sha md utf http https oauth x pbkdf argon aes rsa ed hs rs es ps int uint float"
    " v ipv tls ssl python py node k8s s3 ec2 h crc ucs latin iso win".split()
)
_SYMBOLS = frozenset("!@#$%^&*+=?~")


def _said_value(value: str) -> bool:
    """A value said after a secret's name that looks like a password."""
    if len(value) < 6 or _kept(value):
        return False
    if any(c in "/()[]{}<>\\" for c in value) or value[0] in "$%@&":
        return False
    if "_" in value and value.replace("_", "").isalnum():
        return False  # an identifier: token_2, SECRET_NAME
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(c in _SYMBOLS for c in value)
    if not letters or not (digits or symbols):
        return False
    low = value.lower()
    if low.rstrip("0123456789-_.") in _TECHNICAL:
        return False
    number = low.rstrip("abcdefghijklmnopqrstuvwxyz%")
    if number.isdigit() and len(low) - len(number) <= 3:
        return False  # a quantity: "3600s", "512mb", "30min"
    if "-" in low and low.rpartition("-")[2].isalpha() and low == value:
        return False  # "base64-encoded", "sha256-signed": a compound word
    # a dotted name or a version: "config.v2", "1.2.3", "v2.1"
    return not ("." in value and not symbols and all(p.isalnum() for p in value.split(".")))


def _said(match: re.Match[str]) -> str:
    value = match.group("v").rstrip(".,;:!?")
    if not _said_value(value):
        return match.group(0)
    start = match.start("v") - match.start()
    whole = match.group(0)
    return whole[:start] + mark("password") + whole[start + len(value) :]


_SAID_AFTER = (
    *(":", " is ", " was ", " are ", " were ", " to ", "\tis\t", "\tto\t"),
    *(" est ", " ist ", " war ", " es ", " era ", " é ", " è "),
)
_SAID_REACH = 200  # the name, up to four words of 40 characters, the verb
# Words the probe looks at before it leaves the text to the pattern (linear in any case): a
# text full of secrets' names and colons ("token:token:…") would cost it the window's length
# for every name, where the pattern reads each character a bounded number of times.
_SAID_PROBE_BUDGET = 256


def _said_probe(text: str, lowered: str) -> bool:
    """A secret's name, then within reach ":" or a verb followed by a word that could be a
    password (six characters or more, a letter and a digit or symbol): string methods only,
    so that most texts never compile the pattern. True too when the text has more candidates
    than the budget."""
    budget = _SAID_PROBE_BUDGET
    for name in _SAID_NAMES:
        i = lowered.find(name)
        while i >= 0:
            window = lowered[i + len(name) : i + len(name) + _SAID_REACH]
            for after in _SAID_AFTER:
                j = window.find(after)
                while j >= 0:
                    budget -= 1
                    if budget < 0 or _said_word(window[j + len(after) : j + len(after) + 160]):
                        return True
                    j = window.find(after, j + 1)
            i = lowered.find(name, i + 1)
    return False


def _said_word(rest: str) -> bool:
    """Whether the word after a verb or ":" could be a password, as the pattern reads it: with
    bold marks before it ("is **hunter2") or with those the pattern takes after a colon
    (":** hunter2") left out."""
    return _could_be_password(rest) or _could_be_password(rest.lstrip("*_"))


def _could_be_password(rest: str) -> bool:
    words = rest.split(None, 2)
    if words and words[0] in ("now", "still"):
        words = words[1:]
    word = words[0].strip("`'\"") if words else ""
    return (
        len(word) >= 6
        and any(c.isalpha() for c in word)
        and any(c.isdigit() or c in _SYMBOLS for c in word)
    )


CONTEXT_RULES: tuple[Rule, ...] = (
    Rule("password", _SAID, Probe(_SAID_NAMES, _said_probe), action=_said),
    Rule(
        "password",
        r"(?i)(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}+://(?P<auth>[^\s/'\"<>\\]*+)",
        _uri_probe,
        action=_uri_password,
    ),
    Rule(
        "secret",
        r"(?i)(?<![a-z0-9_\-])(?:proxy-)?authorization\\?+['\"]?+[ \t]*+[:=][ \t]*+\\?+['\"]?+"
        r"(?:[a-z][a-z0-9\-]*+[ \t]++)?+(?P<v>[^\s\"'\\,;]++)",
        _assigned("authorization", "", operator=":="),
        action=_authorization,
    ),
    Rule(
        "bearer_token",
        r"(?i)(?<![a-z0-9_\-])(?:bearer|token)[ \t]++(?P<v>[a-z0-9._~+/\-]{16,}+=*+)",
        _word_then_long_run(("bearer", "token"), 16),
        action=_long_credential,
    ),
    Rule(
        "cookie",
        r"(?i)(?<![a-z0-9_\-])(?:set-)?cookie\\?+['\"]?+[ \t]*+:[ \t]*+\\?+['\"]?+"
        r"(?P<v>[^\r\n\"'\\]++)",
        has_lower("cookie"),
        action=_cookie_header,
    ),
    Rule(
        "password",
        r"(?i)(?<![a-z0-9_\-.])(?P<cmd>mysql[a-z]*+|mariadb[a-z\-]*+|curl|sshpass|redis-cli"
        r"|ldap[a-z]++|docker|podman|nerdctl|buildah|helm|oras|skopeo|az|smbclient|htpasswd"
        r"|openssl|ssh-keygen|zip|unzip|7z[az]?+|sqlcmd|bcp|rabbitmqctl|(?:https?+|xhs?+)(?=[ \t]))"
        r"(?![a-z0-9_\-])"
        r"(?P<seg>(?:[^\n\\]++|\\.)*+)",
        _command_probe,
        action=_command,
    ),
    Rule(
        "secret",
        r"(?i)(?<![a-z0-9_\-])(?:git|npm|yarn|pnpm|pip3?+|composer|aws|gcloud|heroku|conda|bundle"
        r"|cargo|gh)[ \t]++config(?:ure)?+[ \t]++(?:set[ \t]++)?+(?:--?[a-z][\w\-]*+[ \t]++)*+"
        r"(?P<name>[^\s=]++)[ \t]++" + _ARG,
        Probe(("config",), _config_after_command),
        action=_config_set,
    ),
    Rule(
        "secret",
        r"(?i)(?<![a-z0-9_\-])(?:--body|-b)(?:=|[ \t]++)" + _ARG,
        has_lower("--body", "-b"),
        action=_value_mark("secret"),
        when=lambda text, lowered: "secret set" in lowered,  # gh secret set NAME --body VALUE
    ),
    Rule(
        "password",
        r"(?i)convertto-securestring[ \t]++(?:-string[ \t]++)?+" + _QUOTED_V,
        has_lower("convertto-securestring"),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?i)(?<![a-z0-9_])identified[ \t]++(?:with[ \t]++[a-z0-9_]++[ \t]++)?+by[ \t]++"
        r"(?:password[ \t]++)?+" + _QUOTED_V,
        has_lower("identified"),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?i)(?<![a-z0-9_\-])password[ \t]++" + _QUOTED_V,
        _word_then_quote("password"),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?i)(?<![a-z0-9_\-])(?:password|passwd)[ \t]++(?P<v>[^\s'\"]\S*+)",
        has_lower("password", "passwd"),
        action=_value_mark("password"),
        when=_netrc_file,
    ),
    Rule(
        "password",
        r"(?m)^[ \t]*+(?=[^:\s]*?[A-Za-z.*\[])[^:\s#]++:(?:[0-9]{1,5}|\*):[^:\s]++:[^:\s]++:"
        r"(?P<v>\S++)[ \t\r]*+$",
        Probe((":",), _pgpass_line),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?im)^[ \t]*+(?:requirepass|masterauth)[ \t]++(?P<v>\S++)",
        has_lower("requirepass", "masterauth"),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?i)(?:jdbc:oracle:[a-z]++:@?+|(?<![a-z0-9_\-])sqlplus[ \t]++(?:-[a-z]++[ \t]++)*+)"
        r"[a-z0-9_$#]++/(?P<v>[^\s@/\"']++)(?=[@\s]|\Z)",
        has_lower("jdbc:oracle", "sqlplus"),
        action=_value_mark("password"),
    ),
    Rule(
        "password",
        r"(?i)(?:basicauth\(|(?<![a-z0-9_])auth\s*+=\s*+[(\[])\s*+(?P<q1>['\"])[^'\"\n]*+"
        r"(?P=q1)\s*+,\s*+" + _QUOTED_V,
        _basic_auth_probe,
        action=_value_mark("password"),
    ),
)
