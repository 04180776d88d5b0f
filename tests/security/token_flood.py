"""Attack client: floods ``POST /api/submissions`` (or ``/login``) with well-formed
but wrong tokens, each of which the server used to check with scrypt before refusing.

    python -m tests.security.token_flood URL --token-id ID --count N [--source ADDR]
        [--login] [--parallel K]

``--token-id``: a real author's id (the public part of a token, e.g. seen in a log)
with random secrets, so every attempt reaches the hash; ``random``: a made-up id per
attempt. Prints one JSON object: how many answers of each status.
"""

from __future__ import annotations

import argparse
import http.client
import json
import secrets
import threading
from collections import Counter
from urllib.parse import urlencode, urlsplit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--token-id", required=True)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--source", default="127.0.0.1")
    parser.add_argument("--login", action="store_true")
    parser.add_argument("--parallel", type=int, default=1, help="connections at a time")
    args = parser.parse_args()
    parts = urlsplit(args.url)
    statuses: Counter[int] = Counter()
    retry_after: set[str] = set()
    lock = threading.Lock()

    def attempt() -> None:
        token_id = secrets.token_hex(6) if args.token_id == "random" else args.token_id
        token = f"arena_{token_id}_{secrets.token_urlsafe(32)}"
        connection = http.client.HTTPConnection(
            parts.hostname or "", parts.port, timeout=60, source_address=(args.source, 0)
        )
        if args.login:
            body = urlencode({"token": token}).encode()
            headers = {
                "content-type": "application/x-www-form-urlencoded",
                "origin": args.url.rstrip("/"),
            }
            connection.request("POST", "/login", body=body, headers=headers)
        else:
            headers = {"authorization": f"Bearer {token}", "content-type": "text/plain"}
            connection.request("POST", "/api/submissions", body=b"x", headers=headers)
        response = connection.getresponse()
        response.read()
        with lock:
            statuses[response.status] += 1
            if response.status == 429:
                retry_after.add(response.getheader("retry-after") or "")
        connection.close()

    def worker(count: int) -> None:
        for _ in range(count):
            attempt()

    # ``--parallel`` threads, each sending its share one request after another.
    shares = [
        args.count // args.parallel + (k < args.count % args.parallel) for k in range(args.parallel)
    ]
    threads = [threading.Thread(target=worker, args=(n,)) for n in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"statuses": dict(statuses), "retry_after": sorted(retry_after)}))


if __name__ == "__main__":
    main()
