"""Attack client: one author uploads many bots whose pre-submission check is slow
(each bot sleeps before it starts serving), all at once, to hold the server's
check slot and make every other author's upload wait behind them.

    python -m tests.security.check_hog URL TOKEN --count N --sleep S

The uploads are sent together (one thread each, a little apart so they queue in
order). Prints one JSON object: the HTTP status of each upload, in sending order.
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from urllib.parse import urlsplit

from league.cli.authors import multipart

BOT = """\
import time

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

time.sleep({sleep})  # a slow start: the check (and its slot) waits for it


class Slow(Bot[Observation, Action]):
    game = "liars_dice"
    name = "slow"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(Slow)
"""
"""A legal Liar's Dice bot that sleeps ``sleep`` seconds before it starts."""


def upload(url: str, token: str, name: str, source: str) -> int:
    body, content_type = multipart(
        {"name": name, "game": "liars_dice"}, "bot", f"{name}.py", source.encode()
    )
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=600)
    try:
        connection.request(
            "POST",
            "/api/submissions",
            body=body,
            headers={"authorization": f"Bearer {token}", "content-type": content_type},
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--sleep", type=float, default=3.0)
    args = parser.parse_args()
    statuses: list[int] = [0] * args.count

    def one(k: int) -> None:
        source = BOT.format(sleep=args.sleep) + f"# hog {k}\n"
        statuses[k] = upload(args.url, args.token, f"hog{k}", source)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(args.count)]
    for thread in threads:
        thread.start()
        time.sleep(0.3)
    for thread in threads:
        thread.join()
    print(json.dumps({"statuses": statuses}))


if __name__ == "__main__":
    main()
