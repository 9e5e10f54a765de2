"""Protocol words: values two messages share because both speak a protocol, not because
one fed the other (docs/model.md, "Data-flow refs").

Two tests, both used only by data-flow inference (``_refs.py``):

- ``protocol_header(name)``: an HTTP header whose value describes the connection, the
  encoding, caching, the client or the server (``connection``, ``accept-encoding``,
  ``user-agent``, ``date``, ``vary``, CORS ``access-control-*`` …). Its value is never
  linked, on either side: a request's ``Origin`` equals an earlier answer's
  ``Access-Control-Allow-Origin`` because the server echoed the browser, and two
  ``keep-alive`` are the same word, not the same datum. Headers that carry data from
  one message to the next stay linkable: ``authorization``, ``cookie`` and
  ``set-cookie``, the validators (``etag`` → ``if-none-match``, ``last-modified`` →
  ``if-modified-since``), ``location``, ``link`` and any header not named here
  (``x-api-key``, ``x-session-id`` …).
- ``protocol_value(text)``: a string that is a protocol token wherever it stands:
  connection and transfer tokens, content codings and lists of them, HTTP methods,
  versions and status phrases, HTTP dates, cache directives, language lists, and the
  fixed words of model APIs (roles, finish reasons, object and block types). A value
  an API lets the caller choose (a status such as ``"completed"``, a tool's name) is
  not a protocol word.
"""

from __future__ import annotations

import re
from http import HTTPStatus

__all__ = ["protocol_header", "protocol_value"]

#: headers named exactly (lower case, as the HTTP readers store them)
_HEADERS = frozenset({
    # the connection and the message framing
    "connection", "keep-alive", "host", "te", "trailer", "transfer-encoding", "upgrade",
    "content-length", "content-type", "content-encoding", "content-language", "expect",
    "max-forwards", "priority", "range", "accept-ranges", "allow", "status",
    ":authority", ":method", ":path", ":scheme", ":status", ":protocol",
    # the client and where it stands
    "user-agent", "origin", "referer", "dnt", "upgrade-insecure-requests", "purpose",
    "save-data", "x-requested-with", "device-memory", "downlink", "ect", "rtt",
    "viewport-width", "dpr", "width", "early-data", "x-real-ip", "forwarded", "via",
    "x-http-method-override",
    # caching and time
    "cache-control", "pragma", "expires", "age", "date", "vary", "warning",
    "retry-after", "x-cache", "x-cache-hits", "x-served-by", "x-timer",
    "x-response-time", "x-runtime", "server-timing", "timing-allow-origin",
    # the server and its security policy
    "server", "x-powered-by", "x-aspnet-version", "x-aspnetmvc-version", "alt-svc",
    "strict-transport-security", "x-content-type-options", "x-frame-options",
    "x-xss-protection", "content-security-policy", "content-security-policy-report-only",
    "referrer-policy", "permissions-policy", "feature-policy", "expect-ct", "nel",
    "report-to", "reporting-endpoints", "x-dns-prefetch-control", "x-download-options",
    "x-permitted-cross-domain-policies", "x-robots-tag", "x-ua-compatible", "p3p",
    # model APIs' bookkeeping
    "openai-processing-ms", "openai-version", "anthropic-version", "x-envoy-upstream-service-time",
})
#: headers named by their start
_HEADER_PREFIXES = ("accept", "access-control-", "sec-", "cross-origin-", "x-forwarded-",
                    "x-stainless-", "x-ratelimit-", "ratelimit", "anthropic-ratelimit-",
                    "cf-", "x-amz-cf-", "x-vercel-", "x-nf-", "cdn-", "x-envoy-",
                    "x-github-media-type", "x-github-api-version", "x-oauth-",
                    "x-accepted-oauth-", "x-ms-", "content-security-")


def protocol_header(name: str) -> bool:
    """Whether an HTTP header (any case) says how the message travels, not what it
    carries."""
    n = name.lower()
    return n in _HEADERS or n.startswith(_HEADER_PREFIXES)


_CODINGS = r"(?:gzip|x-gzip|deflate|br|zstd|compress|identity|chunked|\*)(?:\s*;\s*q=[\d.]+)?"
_DIRECTIVE = (r"(?:public|private|no-cache|no-store|no-transform|must-revalidate|"
              r"proxy-revalidate|must-understand|immutable|only-if-cached|"
              r"(?:max-age|s-maxage|max-stale|min-fresh|stale-while-revalidate|"
              r"stale-if-error)(?:=\d+)?)")
_LANG = r"(?:\*|[a-z]{2,3}(?:-[a-z]{2,4})?)(?:\s*;\s*q=[\d.]+)?"
_PATTERN = re.compile(
    rf"{_CODINGS}(?:\s*,\s*{_CODINGS})*"  # content codings and lists of them
    rf"|{_DIRECTIVE}(?:\s*,\s*{_DIRECTIVE})*"  # cache directives
    # language lists: a region or a weight says it is one ("en-US,en", "de;q=0.9")
    rf"|[a-z]{{2,3}}-[a-z]{{2,4}}(?:\s*,\s*{_LANG})+"
    rf"|(?=[^;]*;\s*q=){_LANG}(?:\s*,\s*{_LANG})*"
    r"|https?/\d(?:\.\d)?|h2c?|h3"  # versions
    r"|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*, \d{1,2}[ -][a-z]{3}[ -]\d{2,4} "
    r"\d\d:\d\d:\d\d (?:gmt|utc)",  # HTTP dates (RFC 9110 and RFC 850 forms)
    re.ASCII).fullmatch

_WORDS = frozenset({
    # connection, methods, status phrases
    "keep-alive", "close", "upgrade", "get", "head", "post", "put", "patch", "delete",
    "options", "trace", "connect", "nosniff", "sameorigin", "same-origin", "cross-origin",
    "same-site", "no-referrer", "strict-origin-when-cross-origin", "cors", "navigate",
    "websocket", "application/octet-stream",
    *(s.phrase.lower() for s in HTTPStatus),
    # model APIs: roles, finish reasons, object and block types, states
    "assistant", "user", "system", "developer", "tool", "function", "model",
    "tool_calls", "tool_call", "tool_use", "tool_result", "function_call",
    "function_call_output", "content_filter", "end_turn", "max_tokens", "stop_sequence",
    "stop", "length", "pause_turn", "refusal", "chat.completion", "chat.completion.chunk",
    "text_completion", "message", "response", "input_text", "output_text", "reasoning",
    "json_object", "json_schema", "ephemeral", "thinking", "redacted_thinking",
    "server_tool_use", "web_search_tool_result", "image_url", "input_image",
    "input_audio", "output_audio",
})


def protocol_value(text: str) -> bool:
    """Whether a string is a protocol token (any case): equal tokens say nothing about
    where a value came from."""
    t = text.lower()
    return t in _WORDS or _PATTERN(t) is not None
