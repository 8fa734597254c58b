#!/usr/bin/env python3
"""`make abuse`'s driver: hostile load from outside, at once, while a well-behaved client keeps working.

Standard library only (asyncio over raw sockets: the attacks need to send half a request, which no HTTP
client library lets one do). Prints one summary and exits 1 if the good client saw an error or the
server's peak RSS passed the bound. tests/abuse/check.sh starts the server and passes, in the
environment: HOST, PORT, TOKEN (the admin's access token), CUSTOMER (a customer's id), PID (the server's),
DURATION (seconds), and the attackers' counts STALLED, LORIS, BOMBS, HEALTH, KEYS, GOOD, MAX_RSS_MIB.
docs/abuse.md says how to read the output.
"""

import asyncio
import collections
import json
import multiprocessing
import os
import random
import sys
import time

HOST = os.environ.get("HOST", "127.0.0.1")
PORT = int(os.environ["PORT"])
TOKEN = os.environ["TOKEN"]
CUSTOMER = os.environ["CUSTOMER"]
PID = int(os.environ["PID"])
DURATION = float(os.environ.get("DURATION", "30"))
STALLED = int(os.environ.get("STALLED", "300"))
LORIS = int(os.environ.get("LORIS", "50"))
BOMBS = int(os.environ.get("BOMBS", "2"))
HEALTH = int(os.environ.get("HEALTH", "16"))
KEYS = int(os.environ.get("KEYS", "8"))
GOOD = int(os.environ.get("GOOD", "2"))
MAX_RSS_MIB = float(os.environ.get("MAX_RSS_MIB", "256"))

CUSTOMERS = "/api/v1/customer-mgmt/customers"
GOOD_TIMEOUT = 2.0  # a good request slower than this counts as an error
GOOD_PACE = 0.7  # seconds between a good loop's requests: under the authenticated limit (100/min)
ERROR_BOUND = 16 * 1024  # docs/bounded-work.md: no error answer exceeds 16 KiB


def stranger(net=18):
    """A random address in 198.18.0.0/15 (for benchmarks). The server trusts 127.0.0.1 as a proxy, so each
    attacker is counted as the address it names in X-Forwarded-For, never as the good client. The floods'
    senders, which use up their address's allowance, take theirs from 198.19/16 and the one-request
    strangers from 198.18/16, so that no stranger draws an exhausted sender's address."""
    return f"198.{net}.{random.randint(0, 255)}.{random.randint(1, 254)}"


def head(method, path, headers):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{PORT}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def read_answer(reader):
    """One HTTP/1.1 answer: (status, headers, body). Raises on a connection closed before its end."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("closed without an answer")
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            body += await reader.readexactly(size + 2)
            if size == 0:
                break
    else:
        body = await reader.read()
    return status, headers, body


async def request(method, path, headers, body=b"", writer_reader=None):
    """Sends one whole request on a new connection (or the given one) and reads its answer."""
    reader, writer = writer_reader or await asyncio.open_connection(HOST, PORT)
    headers = {**headers, "Content-Length": str(len(body))} if body or method != "GET" else headers
    writer.write(head(method, path, headers) + body)
    await writer.drain()
    answer = await read_answer(reader)
    return answer, (reader, writer)


def close(conn):
    if conn:
        conn[1].close()


class Attack:
    """What one attack did: connections opened, answers by status (or what happened instead)."""

    def __init__(self, name):
        self.name, self.connections, self.seen, self.largest = name, 0, collections.Counter(), 0

    def saw(self, what, body=b""):
        self.seen[what] += 1
        self.largest = max(self.largest, len(body))

    def answers(self):
        return ", ".join(f"{what}×{n}" for what, n in sorted(self.seen.items(), key=lambda kv: -kv[1])) or "none"


async def stall(attack, deadline):
    """A conditional write's head, then never its body: the server must time the body out (408) without
    holding a database connection or the row's lock meanwhile (docs/bounded-work.md, bodies first)."""
    path = f"{CUSTOMERS}/{CUSTOMER}"
    while time.monotonic() < deadline:
        conn = None
        try:
            conn = await asyncio.open_connection(HOST, PORT)
            attack.connections += 1
            conn[1].write(head("PUT", path, {
                "Authorization": f"Bearer {TOKEN}", "If-Match": "*", "Content-Type": "application/json",
                "Content-Length": "64", "X-Forwarded-For": stranger()}))
            await conn[1].drain()
            status, _, body = await asyncio.wait_for(read_answer(conn[0]), deadline - time.monotonic())
            attack.saw(status, body)
        except asyncio.TimeoutError:
            attack.saw("held to the end")
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as e:
            attack.saw(type(e).__name__)
            await asyncio.sleep(0.1)
        finally:
            close(conn)


async def loris(attack, deadline):
    """A create whose 64-byte body comes one byte a second: the body's deadline runs from the head, so a
    trickle buys no more time than silence."""
    while time.monotonic() < deadline:
        conn = None
        try:
            conn = await asyncio.open_connection(HOST, PORT)
            attack.connections += 1
            conn[1].write(head("POST", CUSTOMERS, {
                "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                "Content-Length": "64", "X-Forwarded-For": stranger()}))
            await conn[1].drain()
            answer = asyncio.ensure_future(read_answer(conn[0]))
            sent = 0
            while not answer.done() and time.monotonic() < deadline:
                await asyncio.wait({answer}, timeout=1.0)
                if not answer.done() and sent < 63:  # never the last byte: the body stays unfinished
                    conn[1].write(b" ")
                    sent += 1
            if answer.done():
                status, _, body = answer.result()
                attack.saw(status, body)
            else:
                answer.cancel()
                attack.saw("held to the end")
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as e:
            attack.saw(type(e).__name__)
            await asyncio.sleep(0.1)
        finally:
            close(conn)


BOMB = ('{"name":"Bomb","email":"bomb@abuse.test","tags":[' + ",".join(["1"] * 500_000) + "]}").encode()


async def bomb(attack, deadline):
    """A body just under the 1 MiB limit whose 500 000 tags are all wrong: its error list must stay short."""
    conn = None
    while time.monotonic() < deadline:
        try:
            if conn is None:
                attack.connections += 1
            # A new address per request: the authenticated limit would otherwise stop the bombs.
            (status, _, body), conn = await asyncio.wait_for(request("POST", CUSTOMERS, {
                "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                "X-Forwarded-For": stranger()}, BOMB, conn), max(0.1, deadline - time.monotonic()))
            attack.saw(status, body)
        except asyncio.TimeoutError:
            break
        except (ConnectionError, OSError, asyncio.IncompleteReadError, ValueError) as e:
            attack.saw(type(e).__name__)
            close(conn)
            conn = None
    close(conn)


async def flood(attack, deadline, path, headers_for):
    """Requests as fast as one keep-alive connection allows; headers_for() gives each request's headers."""
    conn = None
    while time.monotonic() < deadline:
        try:
            if conn is None:
                attack.connections += 1
            (status, _, body), conn = await asyncio.wait_for(
                request("GET", path, headers_for(), b"", conn), max(0.1, deadline - time.monotonic()))
            attack.saw(status, body)
        except asyncio.TimeoutError:
            break
        except (ConnectionError, OSError, asyncio.IncompleteReadError, ValueError) as e:
            attack.saw(type(e).__name__)
            close(conn)
            conn = None
            await asyncio.sleep(0.05)
    close(conn)


def health_headers(remote):
    # Half the flood comes from loopback itself (a local probe: never limited, so it reaches the shared
    # probe every time); half through the trusted proxy from one stranger each (the public limit, 429).
    if not remote:
        return lambda: {}
    address = stranger(19)
    return lambda: {"X-Forwarded-For": address}


def unknown_key_headers():
    # One sender, a new made-up key each time: 100 answers 401 (the authenticated limit's burst), then 429.
    address = stranger(19)
    return lambda: {"Authorization": f"Bearer tly_{random.getrandbits(256):064x}", "X-Forwarded-For": address}


# The good client runs in a process of its own so that the attackers' busy event loop never delays it:
# its latencies are the server's, not this driver's.
def good_client(start_at, deadline, out):
    async def loop(n):
        # An address of its own per loop (TEST-NET-3), each paced under the authenticated limit.
        base = {"Authorization": f"Bearer {TOKEN}", "X-Forwarded-For": f"203.0.113.{10 + n}", "Connection": "close"}
        results, i = [], 0
        path = f"{CUSTOMERS}/{CUSTOMER}"
        while time.monotonic() < deadline:
            began = time.monotonic()
            # Reads and writes the very row the stalled bodies aim at, and creates a customer.
            op = ("GET", "PUT", "POST")[i % 3]
            if op == "GET":
                args = ("GET", path, base)
            elif op == "PUT":
                args = ("PUT", path, {**base, "If-Match": "*", "Content-Type": "application/json"},
                        json.dumps({"name": f"Kept Working {n}-{i}"}).encode())
            else:
                args = ("POST", CUSTOMERS, {**base, "Content-Type": "application/json"},
                        json.dumps({"name": "Good Client", "email": f"good-{os.getpid()}-{n}-{i}@abuse.test"}).encode())
            conn = None
            try:
                (status, _, body), conn = await asyncio.wait_for(request(*args), GOOD_TIMEOUT)
                ok = status in (200, 201)
                what = str(status) if ok else f"{status} {body[:200].decode('utf-8', 'replace')}"
            except asyncio.TimeoutError:
                ok, what = False, f"no answer within {GOOD_TIMEOUT:.0f} s"
            except (ConnectionError, OSError, asyncio.IncompleteReadError, ValueError) as e:
                ok, what = False, f"{type(e).__name__}: {e}"
            finally:
                close(conn)
            elapsed = time.monotonic() - began
            results.append((op, ok, elapsed * 1000, what, round(began - start_at, 1)))
            i += 1
            await asyncio.sleep(max(0.0, GOOD_PACE - elapsed))
        return results

    async def main():
        await asyncio.sleep(max(0.0, start_at + 1.0 - time.monotonic()))  # once the stalls are in place
        return [r for rs in await asyncio.gather(*(loop(n) for n in range(GOOD))) for r in rs]

    out.send(asyncio.run(main()))


def peak_rss_kib():
    """The server's high-water mark of resident memory (VmHWM), in KiB; None once it is gone."""
    try:
        with open(f"/proc/{PID}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


async def attack_all(start_at, deadline):
    attacks = {name: Attack(name) for name in ("stalled", "loris", "bombs", "health", "keys")}
    tasks = [stall(attacks["stalled"], deadline) for _ in range(STALLED)]
    tasks += [loris(attacks["loris"], deadline) for _ in range(LORIS)]
    tasks += [bomb(attacks["bombs"], deadline) for _ in range(BOMBS)]
    tasks += [flood(attacks["health"], deadline, "/health", health_headers(n % 2 == 1)) for n in range(HEALTH)]
    tasks += [flood(attacks["keys"], deadline, CUSTOMERS, unknown_key_headers()) for _ in range(KEYS)]
    peak, alive = 0, True

    async def sample():
        # VmHWM never falls, but the process may die: keep the last value read while it lived.
        nonlocal peak, alive
        while time.monotonic() < deadline + 1:
            kib = peak_rss_kib()
            if kib is None:
                alive = False
                return
            peak = max(peak, kib)
            await asyncio.sleep(0.1)

    await asyncio.gather(sample(), *tasks)
    return attacks, peak, alive


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def main():
    start_at = time.monotonic()
    deadline = start_at + DURATION
    receive, send = multiprocessing.Pipe(duplex=False)
    good = multiprocessing.Process(target=good_client, args=(start_at, deadline, send))
    good.start()
    attacks, peak_kib, alive = asyncio.run(attack_all(start_at, deadline))
    results = receive.recv() if receive.poll(GOOD_TIMEOUT + 5) else []
    good.join()

    latencies = [r[2] for r in results]
    errors = sorted((r for r in results if not r[1]), key=lambda r: r[4])
    by_op = collections.Counter(r[0] for r in results)
    peak_mib = peak_kib / 1024
    print(f"== {DURATION:.0f} s of hostile load")
    print(f"good client      {len(results)} requests ({', '.join(f'{op} {n}' for op, n in sorted(by_op.items()))}), "
          f"{len(errors)} errors, p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms, "
          f"max {max(latencies, default=float('nan')):.1f} ms")
    for op, _, ms, what, at in errors[:10]:
        print(f"    error at {at} s: {op} after {ms:.0f} ms: {what}")
    labels = {
        "stalled": f"stalled bodies   {STALLED} at a time",
        "loris": f"slow loris       {LORIS} at a time",
        "bombs": f"error-list bombs {BOMBS} at a time",
        "health": f"health flood     {HEALTH} connections",
        "keys": f"unknown keys     {KEYS} senders",
    }
    for name, attack in attacks.items():
        line = f"{labels[name]}: {attack.connections} connections, {sum(attack.seen.values())} answers: {attack.answers()}"
        if name == "bombs":
            bound = "" if attack.largest <= ERROR_BOUND else f" (over the {ERROR_BOUND // 1024} KiB bound!)"
            line += f"; largest answer {attack.largest} bytes{bound}"
        print(line)
    print(f"server peak RSS  {peak_mib:.1f} MiB (VmHWM; bound {MAX_RSS_MIB:.0f} MiB)")

    failures = []
    if not results:
        failures.append("the good client made no request")
    if errors:
        failures.append(f"the good client saw {len(errors)} errors")
    if not alive:
        failures.append("the server died")
    if peak_mib > MAX_RSS_MIB:
        failures.append(f"the server grew to {peak_mib:.1f} MiB, past {MAX_RSS_MIB:.0f} MiB")
    if failures:
        print("FAIL: " + "; ".join(failures))
        sys.exit(1)
    print("PASS: the good client saw no error and the server stayed within its memory bound")


if __name__ == "__main__":
    main()
