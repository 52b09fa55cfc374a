"""One front door: the same request, asked of the `ddf` command, this
package and the Redis module (a real `redis-server` with the module
loaded), gets the same filter or the same refusal from each.

The requests are the rows of crates/ddf/tests/data/front-door.json."""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import time

import pytest

import ddf

from conftest import REPO

TABLE = json.loads((REPO / "crates/ddf/tests/data/front-door.json").read_text())["requests"]

# Each front end's names for the fields of a request, as its messages
# spell them (ddf-cli's choose.rs, planning.rs, ddf-redis's plan.rs).
NAMES = ["arguments", "window", "within", "rate", "capacity", "fpr", "max_memory",
         "misses_ok", "distinct", "slack", "family", "exact"]
VOCABULARY = {
    "cli": ["flags", "--window", "--within", "--rate", "--capacity", "--fpr", "--max-memory",
            "--misses-ok", "--distinct", "--slack", "--filter", "--exact"],
    "python": ["arguments", "window=", "within=", "rate=", "capacity=", "fpr=", "max_memory=",
               "misses_ok=True", "distinct=", "slack=", "family=", "exact=True"],
    "redis": ["arguments", "WINDOW", "WITHIN", "RATE", "CAPACITY", "ERROR", "MAXMEMORY",
              "MISSES-OK", "DISTINCT", "SLACK", "FILTER", "EXACT"],
}

# What each kind of refusal says, once the names are mapped back.
KINDS = {
    "family": "{family} ",
    "exact": "{exact} keeps every key of the window",
    "no-filter": "no filter meets these {arguments}",
    "invalid": "must be",
    "conflict": "{",
    "fixed-memory": "in fixed memory, a filter of the whole stream misses",
    "whole-stream": "an approximate filter needs",
}


def canonical(front: str, message: str) -> str:
    """The message with the front end's names replaced by `{field}`."""
    pairs = sorted(zip(VOCABULARY[front], NAMES), key=lambda p: -len(p[0]))
    for word, name in pairs:
        message = message.replace(word, "{" + name + "}")
    return message


def is_time(r: dict) -> bool:
    return "within_ms" in r


def cli_args(r: dict) -> list[str]:
    out = []
    for k, v in r.items():
        flag = {"family": "--filter", "within_ms": "--within"}.get(k, "--" + k.replace("_", "-"))
        if v is True:
            out.append(flag)
        elif k == "within_ms" or (k == "slack" and is_time(r)):
            out += [flag, f"{v}ms"]
        else:
            out += [flag, str(v)]
    return out


def py_kwargs(r: dict) -> dict:
    out = {}
    for k, v in r.items():
        if k == "within_ms":
            out["within"] = f"{v}ms"
        elif k == "slack" and is_time(r):
            out["slack"] = f"{v}ms"
        elif k in ("rate", "distinct", "fpr"):
            out[k] = float(v)
        else:
            out[k] = v
    return out


def redis_args(r: dict) -> list[str]:
    words = {"window": "WINDOW", "within_ms": "WITHIN", "rate": "RATE", "capacity": "CAPACITY",
             "fpr": "ERROR", "max_memory": "MAXMEMORY", "misses_ok": "MISSES-OK",
             "distinct": "DISTINCT", "slack": "SLACK", "family": "FILTER", "exact": "EXACT"}
    out = []
    for k, v in r.items():
        out += [words[k]] if v is True else [words[k], str(v)]
    return out


class Redis:
    """A real `redis-server` with the module, spoken to in RESP."""

    def __init__(self, module: str, tmp: pathlib.Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(tmp), "--loadmodule", module],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise
                time.sleep(0.05)
        self.file = self.sock.makefile("rb")

    def call(self, *args: str):
        wire = f"*{len(args)}\r\n".encode()
        for a in args:
            b = a.encode()
            wire += b"$%d\r\n%s\r\n" % (len(b), b)
        self.sock.sendall(wire)
        return self.read()

    def read(self):
        line = self.file.readline()[:-2]
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)[:-2]
            return data.decode()
        if kind == b"*":
            return [self.read() for _ in range(int(rest))]
        raise ValueError(f"unexpected reply {line!r}")

    def close(self) -> None:
        self.sock.close()
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    module = os.environ.get("DDF_REDIS_MODULE")
    if not module:
        module = str(REPO / "target" / "debug" / "libddf_redis.so")
    if not pathlib.Path(module).exists():
        pytest.fail("no Redis module: run `cargo build -p ddf-redis` or set DDF_REDIS_MODULE")
    # The server runs in a directory of its own.
    module = str(pathlib.Path(module).resolve())
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server not found: apt-get install -y redis-server")
    server = Redis(module, tmp_path_factory.mktemp("redis"))
    yield server
    server.close()


def ask_cli(ddf_bin: str, r: dict):
    p = subprocess.run([ddf_bin, "plan", "--json", *cli_args(r)], capture_output=True, text=True)
    if p.returncode != 0:
        return canonical("cli", p.stderr.strip().removeprefix("ddf: error: "))
    chosen = json.loads(p.stdout)["chosen"]
    return (chosen["family"], chosen["config"])


def ask_python(r: dict):
    try:
        d = ddf.Dedup(**py_kwargs(r), seed=1)
    except ValueError as e:
        return canonical("python", str(e))
    return (d.family, d.config)


def ask_redis(server: Redis, i: int, r: dict):
    key = f"k{i}"
    reply = server.call("DDF.RESERVE", key, *redis_args(r))
    if isinstance(reply, RuntimeError):
        return canonical("redis", str(reply).removeprefix("ERR "))
    assert reply == "OK", reply
    info = server.call("DDF.INFO", key)
    fields = dict(zip(info[::2], info[1::2]))
    return (fields["Family"], fields["Config"])


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 30
    kinds = {row["expect"] for row in TABLE}
    assert kinds == {"ok", *KINDS}, kinds


@pytest.mark.parametrize("i", range(len(TABLE)), ids=[json.dumps(r["request"]) for r in TABLE])
def test_every_front_end_gives_the_same_answer(ddf_bin: str, redis: Redis, i: int) -> None:
    row = TABLE[i]
    r = row["request"]
    cli, py, red = ask_cli(ddf_bin, r), ask_python(r), ask_redis(redis, i, r)
    assert cli == py == red, f"\ncli:    {cli}\npython: {py}\nredis:  {red}"
    if row["expect"] == "ok":
        assert isinstance(cli, tuple), cli
        if "family" in r:
            assert cli[0] == ddf.Dedup(**py_kwargs(r)).family
    else:
        assert isinstance(cli, str), cli
        assert KINDS[row["expect"]] in cli, cli
        # Never the planner's method names.
        for rust in ("allow_false_negatives", "memory_budget", "max_slack", "distinct_items"):
            assert rust not in cli
