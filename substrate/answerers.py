"""Answerers: what turns a question and its context packet into an answer text.

Three are provided:

* ``ExtractiveAnswerer`` (``substrate.extractive``) quotes the evidence sentences that best
  match the question and cites each as ``[n]``. It needs no model; its output is labelled
  extractive.
* ``CommandAnswerer`` pipes a prompt (question, numbered sources, citation instructions) into a
  command's standard input and reads the answer from its standard output.
* ``HttpAnswerer`` sends the same prompt to an OpenAI-compatible chat-completions endpoint.
  The API key is read from a named environment variable at call time and never stored.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import shlex
import signal
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from substrate.context import ContextPacket
from substrate.context.compress import (
    truncate,
)
from substrate.errors import InvalidInputError, SubstrateError
from substrate.item import SubstrateItem
from substrate.retrieval import lines_of
from substrate.secrets import safe_text
from substrate.settingvalues import env_name, seconds_problem, url_problem

INSTRUCTIONS = (
    "Answer the question using only the numbered sources below. After each statement, cite "
    "the source(s) it comes from as [1], [2], etc. If the sources do not contain the answer, "
    "say that they do not; do not guess."
)
SYSTEM_PROMPT = "You answer questions from the sources you are given, and cite them."
MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class AnswererError(SubstrateError):
    """The answerer failed: a command exited non-zero or timed out, or an endpoint failed."""


def source_label(item: SubstrateItem, name: str | None) -> str:
    """``path:12-18`` (or the item id) for a source ``item`` of a packet that names it
    ``name`` (``ContextPacket.names``)."""
    where = name or f"substrate:{item.id}"
    start, end = lines_of(item)
    if start is not None:
        where += f":{start}" if end in (None, start) else f":{start}-{end}"
    return where


def build_prompt(question: str, packet: ContextPacket) -> str:
    """The prompt a model answerer receives: instructions, question, numbered sources."""
    # the sources were masked when the packet was packed; a secret typed in the question is too
    parts = [INSTRUCTIONS, "", f"Question: {safe_text(question)}", "", "Sources:"]
    sources = zip(packet.items, packet.texts, packet.names(), strict=True)
    for n, (item, text, name) in enumerate(sources, 1):
        parts.append(f"[{n}] ({source_label(item, name)}, id {item.id})")
        parts.append(text)
        parts.append("")
    parts.append("Answer:")
    return "\n".join(parts)


@dataclass
class CommandAnswerer:
    """Runs a command with the prompt on its standard input; its standard output is the answer.

    Attributes:
        command: the command line (split like a POSIX shell, but never run through one).
        timeout: seconds to wait before giving up.
    """

    command: str | Sequence[str]
    timeout: float = 120.0
    label: str = "command"

    def __repr__(self) -> str:  # the program only: its arguments may hold a key
        try:
            argv = self._split()
        except (InvalidInputError, TypeError):  # a repr never raises
            argv = []
        program = str(argv[0]) if argv else ""
        return f"CommandAnswerer(program={program!r}, timeout={self.timeout!r})"

    def argv(self) -> list[str]:
        argv = self._split()
        if not argv:
            raise InvalidInputError("the answerer command is empty")
        return argv

    def _split(self) -> list[str]:
        if not isinstance(self.command, str):
            return list(self.command)
        try:
            return shlex.split(self.command)
        except ValueError as exc:  # its message never repeats the command, which may hold a key
            raise InvalidInputError(f"the answerer command cannot be read: {exc}") from None

    def answer_packet(self, question: str, packet: ContextPacket) -> str:
        return self.complete(build_prompt(question, packet))

    def __call__(self, question: str, context: str) -> str:
        return self.complete(f"{INSTRUCTIONS}\n\nQuestion: {question}\n\n{context}\n\nAnswer:")

    def complete(self, prompt: str) -> str:
        argv = self.argv()
        returncode, out, err = _run_capped(argv, prompt.encode("utf-8"), self.timeout)
        if returncode != 0:  # a failing tool may echo the token it was given: masked
            detail = safe_text(_last_line(err.decode("utf-8", "replace")))
            raise AnswererError(
                f"answerer command {argv[0]} exited with status {returncode}"
                + (f": {detail}" if detail else "")
            )
        return out.decode("utf-8", "replace").strip()


def _run_capped(argv: list[str], data: bytes, timeout: float) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with ``data`` on its stdin; its exit status, stdout and stderr.

    The command runs in a process group of its own, killed as a whole on timeout, on an
    answer larger than ``MAX_RESPONSE_BYTES`` and when the command ends (what it started in
    the background goes too); its output is read up to the cap, never held whole.
    """
    import subprocess  # only a command answerer pays for it
    import threading

    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        raise AnswererError(f"answerer command not found: {argv[0]}") from exc
    except PermissionError as exc:
        raise AnswererError(f"answerer command is not executable: {argv[0]}") from exc
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = bytearray()
    err = bytearray()
    too_long = threading.Event()

    def feed() -> None:
        with contextlib.suppress(OSError):  # a command may exit without reading it all
            proc.stdin.write(data)  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]

    def drain(stream: Any, into: bytearray, cap: int, over: threading.Event | None) -> None:
        while chunk := stream.read1(1 << 16):
            room = cap - len(into)
            into += chunk[: max(room, 0)]
            if len(chunk) > room and over is not None:  # past the cap, even by one byte
                over.set()
                proc.kill()  # the group follows in the finally below
                return

    threads = [
        threading.Thread(target=feed, daemon=True),
        threading.Thread(
            target=drain, args=(proc.stdout, out, MAX_RESPONSE_BYTES, too_long), daemon=True
        ),
        threading.Thread(target=drain, args=(proc.stderr, err, 1 << 16, None), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        returncode = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AnswererError(f"answerer command {argv[0]} timed out after {timeout:g} s") from None
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        for thread in threads:
            thread.join(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()
    if too_long.is_set():
        raise AnswererError(
            f"answerer command {argv[0]} wrote more than {MAX_RESPONSE_BYTES} bytes"
        )
    return returncode, bytes(out), bytes(err)


@dataclass
class HttpAnswerer:
    """Calls an OpenAI-compatible ``/chat/completions`` endpoint.

    Attributes:
        base_url: e.g. ``http://127.0.0.1:8080/v1`` (``/chat/completions`` is appended).
        model: the model name sent with each request.
        api_key_env: name of the environment variable holding the API key (None: no key).
        timeout: seconds to wait for the response.
        env: where to read the key from (default: the process environment).
    """

    base_url: str
    model: str
    api_key_env: str | None = None
    timeout: float = 120.0
    env: Mapping[str, str] | None = None
    label: str = "http"

    def __repr__(self) -> str:  # neither the environment (the key) nor a URL's query
        try:
            where = self.where()
        except (ValueError, TypeError, AttributeError):  # a base_url changed since into no URL
            where = "?"
        return (
            f"HttpAnswerer(endpoint={where!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r}, timeout={self.timeout!r})"
        )

    def __post_init__(self) -> None:
        problem = url_problem(self.base_url)
        if problem is not None:
            raise InvalidInputError(f"the answerer base_url {problem}")
        if not self.model:
            raise InvalidInputError("the answerer needs a model name")

    @property
    def endpoint(self) -> str:
        base = self.base_url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def where(self) -> str:
        """The endpoint's scheme and host only (a URL may carry credentials; never shown)."""
        parsed = urllib.parse.urlsplit(self.base_url)
        host = f"[{parsed.hostname}]" if ":" in (parsed.hostname or "") else parsed.hostname
        return f"{parsed.scheme}://{host}" + (f":{parsed.port}" if parsed.port else "")

    def answer_packet(self, question: str, packet: ContextPacket) -> str:
        return self.complete(build_prompt(question, packet))

    def __call__(self, question: str, context: str) -> str:
        return self.complete(f"{INSTRUCTIONS}\n\nQuestion: {question}\n\n{context}\n\nAnswer:")

    def complete(self, prompt: str) -> str:
        # Imported here: urllib.request pulls in http.client and email (~15 ms per process).
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": prompt},
            ],
            "temperature": 0,
        }
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                raw = _read_by(response, time.monotonic() + self.timeout)
        except urllib.error.HTTPError as exc:
            detail = _scrub(_error_message(exc), key)
            raise AnswererError(
                f"answerer endpoint {self.where()} returned HTTP {exc.code}"
                + (f": {detail}" if detail else "")
            ) from None
        except urllib.error.URLError as exc:
            reason = _scrub(str(getattr(exc, "reason", exc)), key)
            raise AnswererError(
                f"cannot reach answerer endpoint {self.where()}: {reason}"
            ) from None
        except TimeoutError:
            raise AnswererError(
                f"answerer endpoint {self.where()} timed out after {self.timeout:g} s"
            ) from None
        except OSError as exc:
            raise AnswererError(
                f"answerer endpoint {self.where()} failed: {exc.strerror or type(exc).__name__}"
            ) from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise AnswererError(f"answerer endpoint {self.where()} sent an oversized response")
        return _scrub(_content(raw, self.where()), key)  # an echo of the key is no answer

    def _key(self) -> str | None:
        if not self.api_key_env:
            return None
        env = os.environ if self.env is None else self.env
        key = env.get(self.api_key_env)
        if not key:
            if not env_name(self.api_key_env):  # the key itself, pasted in its place
                raise AnswererError(
                    "api_key_env must name the environment variable that holds the key, and "
                    "this value is no such name (is it the key itself? it is not shown)"
                )
            raise AnswererError(
                f"environment variable {self.api_key_env} (named by api_key_env) is not set"
            )
        return key


def http_answerer_from_config(
    section: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    timeout: float | None = None,
    source: os.PathLike[str] | str | None = None,
) -> HttpAnswerer:
    """An ``HttpAnswerer`` from ``[answerer]`` settings, overridden by ``MIXLE_ANSWERER_*``.

    Args:
        section: the ``[answerer]`` table of mixle.toml (``base_url``, ``model``,
            ``api_key_env``, ``timeout``).
        env: the environment (``MIXLE_ANSWERER_URL``, ``MIXLE_ANSWERER_MODEL``,
            ``MIXLE_ANSWERER_KEY_ENV``); the key itself is looked up in it at call time.
        timeout: overrides the configured timeout.
        source: the mixle.toml ``section`` was read from. When git tracks it, whoever commits
            to the repository wrote it: no endpoint off this machine is called by its
            ``base_url``, nor sent the key of the variable its ``api_key_env`` names, so a
            cloned shard cannot send questions, sources and a key to a host of its author's
            choosing (``_refuse_shared_endpoint``).

    Raises:
        InvalidInputError: no endpoint is configured, or ``source`` is tracked by git and
            chose an endpoint on another machine or the key sent there.
    """
    if "api_key" in section:
        raise InvalidInputError(
            "mixle.toml must not hold an API key: put it in an environment variable and name "
            "that variable with [answerer] api_key_env"
        )
    for name in ("MIXLE_ANSWERER_URL", "MIXLE_ANSWERER_MODEL", "MIXLE_ANSWERER_KEY_ENV"):
        if name in env and not env[name].strip():  # a variable a script left unset
            raise InvalidInputError(
                f"{name} is set but empty; unset it to use the [answerer] table of mixle.toml"
            )
    base_url = env.get("MIXLE_ANSWERER_URL") or section.get("base_url")
    model = env.get("MIXLE_ANSWERER_MODEL") or section.get("model")
    key_env = env.get("MIXLE_ANSWERER_KEY_ENV") or section.get("api_key_env")
    if not base_url and not model:
        raise InvalidInputError(
            "no answerer endpoint configured: set base_url and model in the [answerer] table "
            "of mixle.toml, or MIXLE_ANSWERER_URL and MIXLE_ANSWERER_MODEL"
        )
    if not base_url or not model:
        missing = "base_url (MIXLE_ANSWERER_URL)" if model else "model (MIXLE_ANSWERER_MODEL)"
        raise InvalidInputError(
            f"the answerer endpoint has no {missing}: set it in the [answerer] table of "
            "mixle.toml, or in the environment"
        )
    problem = url_problem(str(base_url))  # (before anything reads it)
    if problem is not None:
        raise InvalidInputError(f"the answerer base_url {problem}")
    if source is not None:
        _refuse_shared_endpoint(str(base_url), section, env, source)
    configured = section.get("timeout", 120.0)
    problem = seconds_problem(configured)  # (a section not read from a shard's settings)
    if problem is not None:
        raise InvalidInputError(f"[answerer] timeout {problem}")
    return HttpAnswerer(
        base_url=str(base_url),
        model=str(model),
        api_key_env=str(key_env) if key_env else None,
        timeout=float(timeout if timeout is not None else configured),
        env=env,
    )


def _refuse_shared_endpoint(
    base_url: str,
    section: Mapping[str, Any],
    env: Mapping[str, str],
    source: os.PathLike[str] | str,
) -> None:
    """Refuse an endpoint off this machine when ``source``, the file of ``section``, is tracked
    by git (or in a repository whose index cannot be read) and chose its URL or the variable
    whose key is sent there: a clone carries the file, and its author chose them, not the
    user. The environment's choices are the user's."""
    if _loopback(urllib.parse.urlsplit(base_url).hostname or ""):
        return
    chosen = {
        key: variable
        for key, variable in (
            ("base_url", "MIXLE_ANSWERER_URL"),
            ("api_key_env", "MIXLE_ANSWERER_KEY_ENV"),
        )
        if section.get(key) and not env.get(variable)
    }
    if not chosen:
        return
    from substrate.ingest.gitindex import tracked_by_git

    if tracked_by_git(source, unread=True):
        from substrate.secrets.sources import shown_path

        raise InvalidInputError(
            f"{shown_path(os.fspath(source))} is tracked by git, so anyone who commits to the "
            f"repository chooses its [answerer] {' and '.join(chosen)}: mixle sends nothing to "
            f"another machine by it. To use that endpoint, set {' and '.join(chosen.values())} "
            "in your environment"
        )


def _loopback(host: str) -> bool:
    """Whether ``host`` is this machine: ``localhost`` or a loopback address."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        return False


def _read_by(response: Any, deadline: float) -> bytes:
    """The response body, up to ``MAX_RESPONSE_BYTES`` + 1 bytes, read by ``deadline``.

    The socket timeout bounds each read only: a server that trickles a byte at a time would
    otherwise hold the caller far beyond the timeout it asked for.
    """
    raw = bytearray()
    while len(raw) <= MAX_RESPONSE_BYTES:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = response.read1(min(1 << 16, MAX_RESPONSE_BYTES + 1 - len(raw)))
        if not chunk:
            break
        raw += chunk
    return bytes(raw)


def _content(raw: bytes, where: str) -> str:
    try:
        data = json.loads(raw)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise AnswererError(
            f"answerer endpoint {where} sent an unexpected response "
            "(expected choices[0].message.content)"
        ) from None
    if not isinstance(content, str):
        raise AnswererError(f"answerer endpoint {where} sent a non-text answer")
    return content.strip()


def _error_message(exc: Any) -> str:
    """The ``error.message`` of an HTTP error's JSON body, else its reason."""
    try:
        data = json.loads(exc.read(64 * 1024))
        message = data.get("error", {}).get("message") if isinstance(data, dict) else None
    except (ValueError, OSError, AttributeError):
        message = None
    return _last_line(str(message)) if message else str(exc.reason or "")


def _scrub(text: str, key: str | None) -> str:
    """``text`` with the API ``key`` masked: a long one wherever it is, a short one where it
    stands whole (not "none" inside "nonexistent"); a local server's stand-in ("none",
    "EMPTY", "ollama", "test") not at all, as an answer may well say it."""
    if not key or key.lower() in _STAND_IN_KEYS:
        return text
    if len(key) >= _LONG_KEY:  # anywhere: "%20Bearer%20<key>", "<key>_backup"
        return text.replace(key, "[REDACTED:api_key]")
    return re.sub(rf"(?<![\w-]){re.escape(key)}(?![\w-])", "[REDACTED:api_key]", text)


_LONG_KEY = 12  # no word of an answer holds a key this long by chance


_STAND_IN_KEYS = frozenset(
    {
        "none",
        "empty",
        "null",
        "ollama",
        "dummy",
        "key",
        "local",
        "not-needed",
        "no-key",
        "test",
        "x",
        "lm-studio",
    }
)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return truncate(lines[-1], 200) if lines else ""
