"""Structural rules in free text: PEM blocks, JWTs, Authorization schemes, URL and DSN
passwords, query parameters, cookies, assignments, command-line flags, XML, netrc and
Kubernetes Secrets. Each test states the exact span (the credential only)."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from workbench.redact._detect import find

B62 = string.ascii_letters + string.digits


def rand(n: int, seed: int = 0, alphabet: str = B62) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


def hits(text: str) -> list[tuple[str, str]]:
    return [(text[h.start:h.end], h.detector) for h in find(text)]


def b64(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


# -- PEM ---------------------------------------------------------------------------

BODY = "\n".join(rand(64, i, B62 + "+/") for i in range(5)) + "\n" + rand(20, 9) + "=="


@pytest.mark.parametrize("label", ["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY",
                                   "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY",
                                   "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"])
def test_pem_body_only(label: str) -> None:
    text = f"$ cat key.pem\n-----BEGIN {label}-----\n{BODY}\n-----END {label}-----\n$ "
    assert hits(text) == [(BODY, "private-key")]


def test_pem_in_json_with_escaped_newlines() -> None:
    doc = {"type": "service_account", "private_key_id": rand(40, 1, "0123456789abcdef"),
           "private_key": f"-----BEGIN PRIVATE KEY-----\n{BODY}\n-----END PRIVATE KEY-----\n"}
    text = json.dumps(doc)
    escaped_body = json.dumps(BODY)[1:-1]
    assert hits(text) == [(escaped_body, "private-key")]


def test_pem_indented_in_yaml_and_encrypted_headers() -> None:
    body = BODY.replace("\n", "\n    ")
    text = ("stringData:\n  tls.key: |\n    -----BEGIN RSA PRIVATE KEY-----\n"
            "    Proc-Type: 4,ENCRYPTED\n    DEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"
            f"    {body}\n    -----END RSA PRIVATE KEY-----\n")
    [(found, det)] = hits(text)
    assert det == "private-key" and found.startswith("Proc-Type") and found.endswith("==")


def test_pem_truncated_and_public_keys() -> None:
    text = f"-----BEGIN PRIVATE KEY-----\n{BODY[:200]}\n... (output truncated)"
    assert hits(text) == [(BODY[:200], "private-key")]
    public = f"-----BEGIN PUBLIC KEY-----\n{BODY}\n-----END PUBLIC KEY-----"
    cert = f"-----BEGIN CERTIFICATE-----\n{BODY}\n-----END CERTIFICATE-----"
    assert hits(public) == [] and hits(cert) == []


def test_putty_private_lines() -> None:
    priv = rand(64, 3, B62 + "+/") + "\n" + rand(40, 4, B62 + "+/")
    text = (f"PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\n{rand(60, 5)}\n"
            f"Private-Lines: 2\n{priv}\nPrivate-MAC: {rand(64, 6, '0123456789abcdef')}\n")
    assert (priv, "putty-private-key") in hits(text)


# -- JWT ---------------------------------------------------------------------------

JWT = f"{b64({'alg': 'RS256', 'typ': 'JWT'})}.{b64({'sub': 'u1', 'exp': 1})}.{rand(43, 7)}"


@pytest.mark.parametrize("context", ["Authorization: Bearer {t}", "id_token={t}&state=x",
                                     '{{"token": "{t}"}}', "cookie jar: {t}"])
def test_jwt(context: str) -> None:
    assert hits(context.format(t=JWT)) == [(JWT, "jwt")]


def test_jwt_needs_a_json_header_with_alg() -> None:
    fake = f"eyJ{rand(20, 1)}.eyJ{rand(20, 2)}.{rand(20, 3)}"
    assert hits(f"value {fake} end") == []
    unsigned = f"{b64({'alg': 'none'})}.{b64({'sub': 'x'})}."
    assert hits(f"token {unsigned} end") == [(unsigned, "jwt")]
    jwe = ".".join([b64({"alg": "RSA-OAEP", "enc": "A256GCM"})] + [rand(30, i) for i in range(4)])
    assert hits(f"token {jwe} end") == [(jwe, "jwt")]


def test_jwt_base64() -> None:
    enc = base64.b64encode(JWT.encode()).decode()
    assert hits(f"AUTH_BLOB: {enc}") == [(enc, "jwt-base64")]


# -- Authorization -------------------------------------------------------------------

CRED = rand(40, 11, B62 + "-._~")


@pytest.mark.parametrize(("line", "detector"), [
    ("Authorization: Bearer {c}", "bearer"),
    ("authorization: bearer {c}", "bearer"),
    ('{{"Authorization": "Bearer {c}"}}', "bearer"),
    ("Proxy-Authorization: Bearer {c}", "bearer"),
    ("Authorization: token {c}", "auth-header"),
    ("Authorization: ApiKey {c}", "auth-header"),
    ("Authorization: {c}", "auth-header"),
    ("curl -s -H 'Authorization: Bearer {c}' https://x", "bearer"),
    ("-H \"authorization: Bearer {c}\"", "bearer"),
    ("headers = {{'Authorization': 'Bearer {c}'}}", "bearer"),
])
def test_authorization_credential_only(line: str, detector: str) -> None:
    assert hits(line.format(c=CRED)) == [(CRED, detector)]


def test_basic_auth() -> None:
    cred = base64.b64encode(b"deploy:" + rand(16, 2).encode()).decode()
    assert hits(f"Authorization: Basic {cred}") == [(cred, "basic-auth")]
    assert hits(f"sent Basic {cred} upstream") == [(cred, "basic-auth")]
    assert hits("Basic realm=\"api\" and Basic authentication") == []


def test_bearer_standalone_needs_a_credential_shape() -> None:
    assert hits(f"retry with Bearer {CRED}") == [(CRED, "bearer")]
    assert hits("Bearer tokens are described in RFC 6750") == []
    assert hits('WWW-Authenticate: Bearer realm="example", error="invalid_token"') == []


@pytest.mark.parametrize("value", ["Bearer $TOKEN", "Bearer ${API_TOKEN}", "Bearer <token>",
                                   "Bearer {token}", "Bearer YOUR_TOKEN", "Bearer ****",
                                   "Digest username=\"bob\", response=\"6629fae49393a053\""])
def test_authorization_placeholders(value: str) -> None:
    assert hits(f"Authorization: {value}") == []


def test_existing_tokens_are_never_reported() -> None:
    text = "Authorization: Bearer «secret:bearer:7f3a9c01d2e4»\npassword=«secret:named-secret:ab»"
    assert find(text) == []


# -- URLs, DSNs, query parameters ---------------------------------------------------------------

PW = rand(18, 21, B62 + "-_.~") + "%40x"


@pytest.mark.parametrize("url", [
    "postgres://app:{p}@db.internal:5432/orders?sslmode=require",
    "postgresql://billing_rw:{p}@db-primary.prod.svc.cluster.local/billing",
    "mysql://root:{p}@localhost:3306/db",
    "mongodb+srv://svc-orders:{p}@cluster0.abcde.mongodb.net/orders?retryWrites=true",
    "redis://:{p}@cache.internal:6379/0",
    "amqp://guest:{p}@rabbit:5672/",
    "https://oauth2:{p}@gitlab.example.com/group/repo.git",
    "http://build:{p}@proxy.corp:3128",
])
def test_url_password_only(url: str) -> None:
    text = f"could not connect to {url.format(p=PW)}: timeout"
    assert hits(text) == [(PW, "url-password")]


def test_url_without_password_and_placeholders() -> None:
    assert hits("https://github.com/org/repo/pull/12?diff=split") == []
    assert hits("ssh://git@github.com:22/org/repo.git") == []
    assert hits("postgres://user:password@localhost/db") == []
    assert hits("postgres://user:${DB_PASSWORD}@localhost/db") == []
    assert hits("https://user@example.com/path") == []


def test_query_parameters() -> None:
    key, tok = rand(32, 30), rand(40, 31)
    url = f"https://api.example.com/v1/search?q=cats&api_key={key}&token={tok}&limit=10"
    assert hits(url) == [(key, "query-secret"), (tok, "query-secret")]
    assert hits("https://example.com/page?orgId=1&from=now-6h&to=now&token_type=bearer") == []


def test_presigned_url_signature() -> None:
    sig = rand(64, 5, "0123456789abcdef")
    url = (f"https://bucket.s3.amazonaws.com/f.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
           f"&X-Amz-Expires=3600&X-Amz-Signature={sig}")
    assert hits(url) == [(sig, "query-secret")]


# -- cookies ----------------------------------------------------------------------------

def test_cookie_values_keep_their_names() -> None:
    sid = rand(32, 40)
    assert hits(f"Cookie: theme=dark; sessionid={sid}") == [("dark", "cookie"),
                                                              (sid, "cookie")]
    text = f"Set-Cookie: session={sid}; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly"
    assert hits(text) == [(sid, "cookie")]


# -- assignments --------------------------------------------------------------------------

SECRET = "Harbor!violet" + rand(4, 50, "0123456789")


@pytest.mark.parametrize("line", [
    "DB_PASSWORD={s}", "export DB_PASSWORD={s}", 'DB_PASSWORD="{s}"', "DB_PASSWORD='{s}'",
    "password: {s}", 'password: "{s}"', '"password": "{s}"', "'password': '{s}'",
    'password = "{s}"', "client_secret := \"{s}\"", "'db_pass' => '{s}'",
    "clientSecret: {s}", "X-Api-Key: {s}", "SMTP_PASS={s}", "connect(password=\"{s}\")",
    "-e POSTGRES_PASSWORD={s}", '{{\\"password\\": \\"{s}\\"}}',
])
def test_secret_named_assignments(line: str) -> None:
    assert hits(line.format(s=SECRET)) == [(SECRET, "named-secret")]


@pytest.mark.parametrize("line", [
    "password = self.password", "password=password", "api_key = os.environ['API_KEY']",
    "token = get_token()", "password: ${DB_PASSWORD}", 'password: "{{ vault_password }}"',
    "Password: must be at least 8 characters", "password: null", "password: ''",
    "max_tokens: 4096", "token_type=bearer", "input_tokens = 1234", "tokenizer: cl100k_base",
    "key_id: k-123", "idempotency_key: order-2024-0001", "public_key: ssh-ed25519",
    "if password == 'hunter2':", "PWD=/workspace/app", "OLDPWD=/home/dev",
    "secret_name: prod/db", "password_policy: strict", "cache_key: user:123:profile",
    "const STORAGE_KEY = 'vue-todo-list'", "key1=value1&key2=value2",
    "authorization: Bearer test_openai_api_key", "authorization: api_key mob-…",
])
def test_ordinary_assignments(line: str) -> None:
    assert hits(line) == [], line


def test_maybe_names_need_a_secret_looking_value() -> None:
    tok = rand(32, 60)
    assert hits(f"GITHUB_TOKEN={tok}") == [(tok, "named-secret")]
    assert hits(f"session: {tok}") == [(tok, "named-secret")]
    assert hits("session: 3f2a7c1e-9b4d-4e8a-a1b2-c3d4e5f6a7b8") == []  # a UUID
    assert hits("signature: " + "ab" * 32) == []                       # a hex digest
    assert hits("next_page_token: 2") == []


def test_secret_named_values_may_be_numbers_and_short() -> None:
    assert hits("PIN_PASSWORD=12345678") == [("12345678", "named-secret")]
    assert hits("password=hunter2") == [("hunter2", "named-secret")]


# -- command lines ---------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "secret"), [
    ("mytool --password {s} --verbose", "{s}"),
    ("mytool --api-key '{s}'", "{s}"),
    ("mytool --client-secret {s}", "{s}"),
    ("curl -u admin:{s} https://api.example.com", "{s}"),
    ("curl --user 'deploy:{s}' https://api.example.com", "{s}"),
    ("mysql -uroot -p{s} orders", "{s}"),
    ("sshpass -p {s} ssh host", "{s}"),
    ("redis-cli -h cache -a {s} ping", "{s}"),
    ("openssl rsa -in k.pem -passin pass:{s}", "{s}"),
])
def test_cli_secrets(line: str, secret: str) -> None:
    s = rand(14, 70)
    assert hits(line.format(s=s)) == [(secret.format(s=s), "cli-secret")]


def test_cli_ordinary_flags() -> None:
    assert hits("mkdir -p /tmp/x && pytest -q --tb=short --max-tokens 10") == []
    assert hits("mysql -u root -p orders") == []          # -p alone: prompt for it
    assert hits("git push -u origin main") == []
    assert hits("mytool --password $DB_PASSWORD") == []
    assert hits("docker run -u 1000:1000 image") == []


# -- XML, pairs, netrc, Kubernetes ----------------------------------------------------------

def test_xml_pairs_and_netrc() -> None:
    s = rand(16, 80)
    assert hits(f"<password>{s}</password>") == [(s, "xml-secret")]
    assert hits(f'<add key="ClearTextPassword" value="{s}" />') == [(s, "named-secret")]
    assert hits(f'{{"name": "X-Api-Key", "value": "{s}"}}') == [(s, "named-secret")]
    assert hits(f"machine api.github.com login bob password {s}\n") == [(s, "netrc-password")]
    assert hits("<title>Password reset</title><b>token</b>") == []


def test_kubernetes_secret_values() -> None:
    a, b = base64.b64encode(b"hunter2hunter2").decode(), base64.b64encode(b"admin").decode()
    text = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
            f"data:\n  password: {a}\n  username: {b}\n")
    assert hits(text) == [(a, "k8s-secret"), (b, "k8s-secret")]
    config_map = text.replace("kind: Secret", "kind: ConfigMap")
    assert hits(config_map) == [(a, "named-secret")]
    as_json = json.dumps({"kind": "Secret", "data": {"tls.key": a}})
    assert hits(as_json) == [(a, "k8s-secret")]
