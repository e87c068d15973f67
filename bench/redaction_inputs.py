"""Adversarial inputs for the redactor: one per pattern family, built to make a backtracking
pattern quadratic (long runs a pattern could rescan from every start, repeated starts that
never complete, unterminated openings). ``test_redaction_linear.py`` runs them at 100 KB;
``bench/bench_redact.py`` times them at 1 MB. Not a test module.
"""

from __future__ import annotations


def adversarial(size: int) -> dict[str, str]:
    """Inputs that drive each family's worst case: long runs a pattern could rescan from every
    start, repeated starts that never complete, unterminated openings."""

    def rep(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    return {
        "assignment: a-a-a-…key=": rep("a-") + "key=",
        "assignment: key=key=…": rep("key="),
        "assignment: token:token:…": rep("token:") + "x(",
        'assignment: password="…unterminated': rep('password="a '),
        "assignment: 'password' => '…'": rep("'password' => "),
        "assignment: dotted token run": "password = " + rep("a.token.") + "(",
        "assignment: --password flags": rep("--password "),
        "assignment: <password> tags": rep("<password>"),
        "assignment: define(…) pairs": rep("define('AUTH_KEY', "),
        "assignment: long identifier": "secret = " + rep("secret_"),
        "assignment: escaped quotes": 'password="' + rep('\\"'),
        "assignment: annotation run": rep("password: str | "),
        "token: sk- run": "sk-" + rep("sk-a"),
        "token: eyJ segments": rep("eyJaaaaaaa."),
        "token: AKIA repeated": rep("AKIA"),
        "token: PEM begin, no end": rep("-----BEGIN RSA PRIVATE KEY-----\n"),
        "token: base64 PEM run": rep("LS0tLS1CRUdJTi"),
        "token: hex run then -us": rep("0123456789abcdef") + "-us1",
        "token: Discord openings": rep("MT"),
        "token: Discord id runs, no signature": rep(" MTaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaa."),
        "token: Asana 1/ runs": rep("1/"),
        "token: Asana ids, no hex": rep(" 1/12345678901234:"),
        "token: MaxMind pieces, no _mmk": rep("aaaaaa_") + "_mmk",
        "token: API- runs": rep("API-AAAA"),
        "token: webhook paths": rep("/IncomingWebhook/" + "a" * 32 + "/"),
        "token: Sourcegraph runs": rep("sgp_" + "a" * 16 + "_"),
        "token: Bundler host runs": "BUNDLE_" + rep("A__"),
        "token: Twitter A runs": rep("A"),
        "uri: scheme runs": rep("a.") + "://",
        "uri: many schemes": rep("a://"),
        "uri: user:pass without @": "x://" + rep("a:"),
        "uri: @ run": "x://u:" + rep("@"),
        "header: authorization repeated": rep("authorization: "),
        "header: bearer bearer": rep("bearer "),
        "header: token then long word": rep("token " + "a" * 30 + " "),
        "header: cookie pairs": "Cookie: " + rep("a=bbbbbbbb; "),
        "command: mysql mysql": rep("mysql "),
        "command: mysql -p run": "mysql " + rep("-p-p"),
        "command: curl -u a:": "curl " + rep("-u a:"),
        "command: http -a a:": "http " + rep("-a a:"),
        "command: xh bearer -a": "xh -A bearer " + rep("-a "),
        "command: continuation lines": "mysql " + rep("\\\n"),
        "command: config run": rep("config"),
        "command: git config pairs": rep("git  config x "),
        "sql: identified by": rep("identified by "),
        "sql: password quote": rep("password '"),
        "pgpass: colon lines": rep("a:1:b:c:d\n"),
        "pgpass: one colon line": rep("a:1:"),
        "private: unclosed tags": rep("<private>"),
        "said: password for … runs": rep("password for a b c d "),
        "said: token is token is": rep("token is "),
        "said: secret: runs": rep("secret: x"),
        "names: camel run": "x" + rep("aB") + "Token=abc123",
        "names: unicode lowering": rep("İpassword=x "),
    }
