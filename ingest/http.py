"""Polite, bounded HTTP for the archive feeds (docs/sources.md, "The HTTP client").

On httpx (the brief's client; `liblore`, the b4 author's lore library, was read and not
taken: it is alpha, built on requests and git config for b4's workflow, and covers neither
openwall nor Patchwork nor the Atom cursor). What every request gets here:

- an identifying User-Agent (`patchperf/<version> (+project URL)`);
- at most `per_host` requests in flight to one host (lei uses 4);
- retries on timeouts, broken connections, 429 and 5xx, with exponential back-off and full
  jitter, honouring `Retry-After` (seconds or an HTTP date, capped);
- conditional GET against an on-disk cache (ETag / Last-Modified): a 304 is served from it;
  the cache is bounded (`cache_bytes`, least recently used out first) and a body its reader
  rejects is dropped from it (`forget`);
- a bound on the body (it is read in chunks and dropped past the limit) and on the time;
- lore's bot wall (Anubis) recognised and reported as such, never worked around.

Failures are the project's own errors, so a feed reports them in one line and the others go
on: NotFound, Blocked, FetchFailed, LimitExceeded.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import random
import ssl
import threading
import time
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from analyze.errors import LimitExceeded, PatchperfError

# the installed package's version, as `patchperf --version` shows it
USER_AGENT = f"patchperf/{metadata.version('patchperf')} (+https://github.com/patchperf/patchperf)"
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_BODY = 64 << 20  # a t.mbox.gz of a long thread is a few MB; an archive page far less
# The on-disk cache's bound: what it saves is the Atom page a cron job polls and the odd thread
# fetched again; one hostile sync filled it with 161 MB. A body over an eighth of it is not
# kept (it would push out everything else).
CACHE_BYTES = 64 << 20
ANUBIS_TITLE = "Making sure you're not a bot!"
MAX_REDIRECTS = 5


class FetchFailed(PatchperfError):
    """A request that did not succeed after its retries; the message names the URL."""


class NotFound(FetchFailed):
    """404: lore's answer for a Message-ID it does not have."""


class Blocked(FetchFailed):
    """The archive's bot wall (Anubis) answered instead of the archive."""


class BudgetSpent(FetchFailed):
    """The client's requests are spent (`max_requests`): nothing more is asked."""


@dataclass(frozen=True, slots=True)
class Response:
    url: str
    status: int
    headers: Mapping[str, str]  # lower-case names
    body: bytes
    from_cache: bool = False


@dataclass
class HttpStats:
    """What a client did: `sync` prints it with -v and tests count requests with it."""

    requests: int = 0
    retries: int = 0
    cached: int = 0  # answered 304: served from the on-disk cache
    by_path: dict[str, int] = field(default_factory=dict)


class PoliteClient:
    """A synchronous client to be shared by a feed's threads (httpx.Client is thread-safe)."""

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 120.0,
        per_host: int = 4,
        max_body: int = MAX_BODY,
        cache_dir: Path | None = None,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        deadline: float | None = None,
        max_requests: int | None = None,
        cache_bytes: int = CACHE_BYTES,
    ) -> None:
        # redirects are followed here, by hand: only on the same scheme and host
        self._client = httpx.Client(timeout=timeout, follow_redirects=False,
                                    # (httpx reads proxies from the environment only with
                                    # its own transport: behind one, the per-socket deadline
                                    # gives way to the proxy, and the body's still holds)
                                    transport=None if _env_proxy() else _DeadlineTransport(),
                                    headers={"User-Agent": user_agent,
                                             "Accept-Encoding": ACCEPT_ENCODING})
        # one URL, however its bytes trickle in (the connection, the headers, the body) and
        # however often it is retried or redirected, costs at most this
        self.deadline = deadline if deadline is not None else max(60.0, 4 * timeout)
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.max_retry_after, self.max_body = max_retry_after, max_body
        self.per_host = per_host
        # every attempt counts, retries included: a run ends, however the server answers
        self.max_requests = max_requests
        self.cache_dir = cache_dir
        self.cache_bytes = cache_bytes
        self._cache_used: int | None = None  # the bodies' bytes, counted at the first store
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self.stats = HttpStats()

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ------------------------------------------------------------------------

    def requests_left(self) -> int | None:
        """How many more requests this client may make (None: no bound)."""
        if self.max_requests is None:
            return None
        return max(0, self.max_requests - self.stats.requests)

    def get(self, url: str, *, max_body: int | None = None, conditional: bool = True) -> Response:
        """GET `url`; with a cache directory, a conditional GET against the cached copy."""
        cached = self._cached(url) if conditional else None
        headers = {}
        if cached is not None:
            if cached.get("etag"):
                headers["If-None-Match"] = cached["etag"]
            if cached.get("last_modified"):
                headers["If-Modified-Since"] = cached["last_modified"]
        response = self._send("GET", url, headers=headers, max_body=max_body,
                              allow_not_modified=cached is not None)
        if response.status == 304 and cached is not None:
            self.stats.cached += 1
            path = self._cache_path(url).with_suffix(".body")
            body = path.read_bytes()
            _touch(path)  # recently used: pruned last
            return Response(url, 200, response.headers, body, from_cache=True)
        if conditional:
            self._store(url, response)
        return response

    def post(self, url: str, data: Mapping[str, str], *, max_body: int | None = None) -> Response:
        return self._send("POST", url, data=data, max_body=max_body)

    def _send(self, method: str, url: str, *, headers: Mapping[str, str] | None = None,
              data: Mapping[str, str] | None = None, max_body: int | None = None,
              allow_not_modified: bool = False) -> Response:
        _check_url(url)
        with _deadline(time.monotonic() + self.deadline):
            return self._send_within(method, url, headers=headers, data=data, max_body=max_body,
                                     allow_not_modified=allow_not_modified)

    def _send_within(self, method: str, url: str, *, headers: Mapping[str, str] | None,
                     data: Mapping[str, str] | None, max_body: int | None,
                     allow_not_modified: bool) -> Response:
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send_once(method, url, headers=headers, data=data,
                                       max_body=max_body, allow_not_modified=allow_not_modified)
            if response.status not in (301, 302, 303, 307, 308):
                return response
            try:
                target = urljoin(url, response.headers.get("location", ""))
            except ValueError as exc:  # `Location: http://[::1`
                raise FetchFailed(f"{url}: redirected to an unusable URL ({exc})") from None
            _check_url(target)
            here, there = urlsplit(url), urlsplit(target)
            if (here.scheme, here.netloc) != (there.scheme, there.netloc):
                raise FetchFailed(f"{url}: redirected to {target}, off the site: not followed")
            url = target
            if response.status == 303:
                method, data = "GET", None
        raise FetchFailed(f"{url}: more than {MAX_REDIRECTS} redirects")

    def _send_once(self, method: str, url: str, *, headers: Mapping[str, str] | None = None,
                   data: Mapping[str, str] | None = None, max_body: int | None = None,
                   allow_not_modified: bool = False) -> Response:
        limit = self.max_body if max_body is None else max_body
        host = urlsplit(url).netloc
        attempt = 0
        while True:
            with self._host(host):
                with self._lock:
                    if self.max_requests is not None and self.stats.requests >= self.max_requests:
                        raise BudgetSpent(f"{url}: not asked: the run's {self.max_requests:,} "
                                          "requests are spent (PATCHPERF_LIMIT_REQUESTS)")
                    self.stats.requests += 1
                path = urlsplit(url).path
                self.stats.by_path[path] = self.stats.by_path.get(path, 0) + 1
                try:
                    status, got_headers, body = self._once(method, url, headers, data, limit)
                    failure = None
                except httpx.TimeoutException:
                    failure, status, got_headers, body = "timed out", 0, {}, b""
                except httpx.TransportError as exc:
                    failure, status, got_headers, body = (
                        f"connection failed ({type(exc).__name__})", 0, {}, b"")
                except httpx.HTTPError as exc:  # a body that cannot be decoded, a bad URL
                    raise FetchFailed(f"{url}: {type(exc).__name__}: {exc}") from None
            if failure is None and status not in RETRY_STATUS:
                break
            delay = self._delay(attempt, got_headers.get("retry-after"))
            left = _DEADLINE.until - time.monotonic() if _DEADLINE.until else float("inf")
            if attempt >= self.retries or delay >= left:
                said = failure or f"HTTP {status}"
                spent = "" if attempt >= self.retries else f" (its {self.deadline:.0f} s are spent)"
                raise FetchFailed(f"{url}: {said} after {attempt + 1} attempts{spent}")
            attempt += 1
            self.stats.retries += 1
            self._sleep(delay)
        _check_bot_wall(url, got_headers, body)
        if status == 404:
            raise NotFound(f"{url}: not found (404)")
        if status == 304 and allow_not_modified:
            return Response(url, status, got_headers, b"")
        if status in (301, 302, 303, 307, 308) and got_headers.get("location"):
            return Response(url, status, got_headers, b"")
        if not 200 <= status < 300:
            raise FetchFailed(f"{url}: HTTP {status}")
        return Response(url, status, got_headers, body)

    def _once(self, method: str, url: str, headers: Mapping[str, str] | None,
              data: Mapping[str, str] | None, limit: int) -> tuple[int, dict[str, str], bytes]:
        with self._client.stream(method, url, headers=headers, data=data) as response:
            chunks: list[bytes] = []
            size = 0
            deadline = _DEADLINE.until or time.monotonic() + self.deadline
            # The raw bytes, decoded here a bounded step at a time: httpx inflates a whole
            # network chunk per call, and gzip of gzip of 1 GiB of zeros reached 2.1 GB
            # before the limit was looked at. Counted as they come: a body past the limit
            # is never held whole.
            decoder = _Decoder(url, response.headers.get("content-encoding", ""))
            for raw in response.iter_raw():
                for chunk in decoder.feed(raw):
                    size += len(chunk)
                    if size > limit:
                        raise LimitExceeded(f"response from {url}", limit)
                    chunks.append(chunk)
                if time.monotonic() > deadline:  # each read was in time, the whole is not
                    raise httpx.ReadTimeout(f"{url}: the response took over {self.deadline:.0f} s")
            decoder.end()
            got = {k.lower(): v for k, v in response.headers.items()}
            return response.status_code, got, b"".join(chunks)

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Retry-After when the server gives one (capped), else exponential back-off with
        full jitter (a random wait up to the exponential bound)."""
        if retry_after:
            wait = _retry_after_seconds(retry_after)
            if wait is not None:
                return min(self.max_retry_after, max(0.0, wait))
        return self._rng.uniform(0, min(self.max_backoff, self.backoff * 2 ** attempt))

    def _host(self, host: str) -> threading.BoundedSemaphore:
        with self._lock:
            if host not in self._hosts:
                self._hosts[host] = threading.BoundedSemaphore(self.per_host)
            return self._hosts[host]

    # -- the on-disk cache ----------------------------------------------------------------

    def _cache_path(self, url: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / (hashlib.sha256(url.encode()).hexdigest() + ".json")

    def _cached(self, url: str) -> dict[str, str] | None:
        if self.cache_dir is None:
            return None
        meta = self._cache_path(url)
        try:
            found = json.loads(meta.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(found, dict) or not meta.with_suffix(".body").exists():
            return None
        return found

    def _store(self, url: str, response: Response) -> None:
        if self.cache_dir is None or response.status != 200:
            return
        etag, modified = response.headers.get("etag"), response.headers.get("last-modified")
        if not etag and not modified or len(response.body) > self.cache_bytes // 8:
            self.forget(url)  # (an older copy would answer for a body that is not it)
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        meta = self._cache_path(url)
        with self._lock:
            if self._cache_used is None:
                self._cache_used = sum(size for _, size, _ in _cache_entries(self.cache_dir))
            self._cache_used += len(response.body) - _size(meta.with_suffix(".body"))
            _write_atomic(meta.with_suffix(".body"), response.body)
            _write_atomic(meta, json.dumps({"url": url, "etag": etag,
                                            "last_modified": modified}).encode())
            if self._cache_used > self.cache_bytes:
                self._cache_used = _prune(self.cache_dir, self.cache_bytes * 3 // 4)

    def forget(self, url: str) -> None:
        """Drop `url` from the cache: its reader rejected the body (not gzip, not an Atom
        feed, over a limit), and a 304 must not serve it again."""
        if self.cache_dir is None:
            return
        meta = self._cache_path(url)
        with self._lock:
            if self._cache_used is not None:
                self._cache_used -= _size(meta.with_suffix(".body"))
            meta.unlink(missing_ok=True)
            meta.with_suffix(".body").unlink(missing_ok=True)


class _Until(threading.local):
    until: float | None = None


# The monotonic time the request this thread is making must be done by (the client is
# shared by a feed's threads, so the deadline is the thread's, not the client's).
_DEADLINE = _Until()


@contextmanager
def _deadline(until: float) -> Iterator[None]:
    outer = _DEADLINE.until
    _DEADLINE.until = until if outer is None else min(outer, until)
    try:
        yield
    finally:
        _DEADLINE.until = outer


def _left(timeout: float | None, late: type[Exception]) -> float | None:
    """A socket operation's timeout, cut to what is left of the thread's deadline: httpx's
    timeouts are per read, so headers sent a byte every 5 s never timed out."""
    if _DEADLINE.until is None:
        return timeout
    left = _DEADLINE.until - time.monotonic()
    if left <= 0:
        raise late("the whole response took longer than its deadline")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.SyncBackend):
    """Sockets whose every operation ends by the thread's deadline."""

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(super().connect_tcp(
            host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options))


def _env_proxy() -> bool:
    """Whether the environment names an HTTP(S) proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY)."""
    return any(k in urllib.request.getproxies() for k in ("http", "https", "all"))


class _DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport on sockets that keep the deadline. httpx takes no network backend,
    so its connection pool is made again with one (the same settings as httpx's default);
    tests/test_ingest_lore_http.py's drip tests fail if a new httpx stops using it."""

    def __init__(self) -> None:
        super().__init__()
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20,
                              keepalive_expiry=5.0)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry, network_backend=_DeadlineBackend())


# The Content-Encodings patchperf asks for (Accept-Encoding) and undoes: zlib's window bits
# for each. One layer at most: `gzip, gzip` is no server's answer to `gzip, deflate`.
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
ACCEPT_ENCODING = "gzip, deflate"
_STEP = 1 << 16  # the most output one decompress() call may make


class _Decoder:
    """A body's Content-Encoding undone incrementally, at most _STEP bytes an output step, so
    the size limit is checked before memory grows; more than one layer, or one patchperf
    did not ask for, is refused."""

    def __init__(self, url: str, header: str) -> None:
        layers = [x.strip().lower() for x in header.split(",") if x.strip()]
        layers = [x for x in layers if x != "identity"]
        if len(layers) > 1:
            raise FetchFailed(f"{url}: {len(layers)} Content-Encoding layers "
                              f"({header[:60]!r}): refused, one at most")
        if layers and layers[0] not in _WBITS:
            raise FetchFailed(f"{url}: a Content-Encoding patchperf did not ask for "
                              f"({layers[0][:30]!r}): refused")
        self.url = url
        self.wbits = _WBITS[layers[0]] if layers else None
        self.inflate = zlib.decompressobj(self.wbits) if self.wbits is not None else None
        self.started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.inflate is None:
            if data:
                yield data
            return
        while data:
            try:
                out = self.inflate.decompress(data, _STEP)
            except zlib.error as exc:
                if self.wbits == zlib.MAX_WBITS and not self.started:
                    # `deflate` sent raw, without zlib's header, as some servers do
                    self.wbits, self.inflate = -zlib.MAX_WBITS, zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise FetchFailed(f"{self.url}: DecodingError: the body is not "
                                  f"{'gzip' if self.wbits and self.wbits > 16 else 'deflate'} "
                                  f"({exc})") from None
            self.started = True
            if out:
                yield out
            data = self.inflate.unconsumed_tail
            if self.inflate.eof:
                data = self.inflate.unused_data
                if data and self.wbits is not None and self.wbits > 16:
                    self.inflate = zlib.decompressobj(self.wbits)  # the next gzip member
                else:
                    return  # (bytes after the stream's end are not the body's)

    def end(self) -> None:
        if self.inflate is not None and self.started and not self.inflate.eof:
            raise FetchFailed(f"{self.url}: DecodingError: the body ends before its "
                              "compressed stream does")


def url_problem(url: str) -> str | None:
    """Why `url` cannot be asked for, or None for an http(s) URL both urllib and httpx can
    read: a URL taken from a response (a redirect, a link in a page or in JSON) may be
    anything, and each library raises its own errors on a malformed one (`http://[::1`, a
    NUL, 70 kB)."""
    try:
        parts = urlsplit(url)
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL) as exc:
        return f"not a usable URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "not an http(s) URL"
    return None


def _check_url(url: str) -> None:
    problem = url_problem(url)
    if problem is not None:
        raise FetchFailed(f"{url[:200]}: {problem}")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _touch(path: Path) -> None:
    with suppress(OSError):  # (a cache that cannot be touched is pruned a little early)
        os.utime(path)


def _cache_entries(directory: Path) -> list[tuple[float, int, Path]]:
    """(last used, size, body path) of each cached body."""
    found = []
    for body in directory.glob("*.body"):
        try:
            st = body.stat()
        except OSError:
            continue
        found.append((st.st_mtime, st.st_size, body))
    return found


def _prune(directory: Path, keep: int) -> int:
    """Drop the least recently used entries until the bodies hold at most `keep` bytes;
    the bytes left. The metadata goes first: an entry without it is never served."""
    entries = sorted(_cache_entries(directory))
    used = sum(size for _, size, _ in entries)
    for _, size, body in entries:
        if used <= keep:
            break
        body.with_suffix(".json").unlink(missing_ok=True)
        body.unlink(missing_ok=True)
        used -= size
    return used


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _retry_after_seconds(value: str) -> float | None:
    value = value.strip()
    if value.isascii() and value.isdigit():  # (str.isdigit() is true for `²` too)
        return float(value)  # (inf for 5,000 digits: the caller caps it)
    try:
        when = email.utils.parsedate_to_datetime(value)
        return when.timestamp() - time.time()
    except (TypeError, ValueError, OverflowError):
        return None


def _check_bot_wall(url: str, headers: Mapping[str, str], body: bytes) -> None:
    """Anubis answers with an HTML challenge titled "Making sure you're not a bot!"."""
    if "html" not in headers.get("content-type", "") and not body.lstrip()[:15].lower().startswith(
            (b"<!doctype html", b"<html")):
        return
    from .page_html import html_soup

    soup = html_soup(body[:65536])
    title = soup.title.get_text(strip=True) if soup.title else ""
    if ANUBIS_TITLE.lower() in title.lower():
        raise Blocked(f"{url}: the archive's bot wall (Anubis) answered; patchperf does not "
                      "get around it: use a git clone of the archive (lore:LIST --git PATH) or "
                      "a mirror of your own")
