"""Attack client: a bot's author (or the bot itself, if it can reach the server)
reads the public pages and API while a league runs, looking for matches not yet
played that name its bot — to learn its next opponent — and probes the log links
of those matches (403 "not your bot" against 404 would say which seat it has).

    python -m tests.security.schedule_spy URL BOT

Prints one JSON object: ``{"leaks": [{"where", "match", "opponents"}...]}``.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def spy(base: str, bot: str) -> list[dict[str, Any]]:
    leaks: list[dict[str, Any]] = []
    _, text = fetch(f"{base}/api/leagues")
    for league in json.loads(text):
        name = quote(league["name"], safe="")
        for query in (
            "",
            "?result=pending",
            f"?bot={quote(bot)}",
            f"?bot={quote(bot)}&result=pending",
        ):
            status, text = fetch(f"{base}/api/leagues/{name}/matches{query}")
            if status != 200:
                continue
            for match in json.loads(text):
                if match["status"] != "done" and bot in match["bots"]:
                    others = [b for b in match["bots"] if b != bot]
                    leaks.append(
                        {"where": f"api{query}", "match": match["key"], "opponents": others}
                    )
        status, page = fetch(f"{base}/leagues/{name}/matches?bot={quote(bot)}")
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
            if len(cells) < 3 or "pending" not in cells[1]:
                continue
            seated = [
                html.unescape(b) for b in re.findall(r'<a href="/bots/[^"]*">(.*?)</a>', cells[2])
            ]
            if bot in seated:
                key = re.sub(r"<[^>]+>", "", cells[0]).strip()
                others = [b for b in seated if b != bot]
                leaks.append({"where": "page", "match": key, "opponents": others})
        # Every match id the league might have: its record (an aborted match keeps
        # one, and is played again by the same seats), its log link (403 = someone's
        # seat, against 404 = nobody's).
        _, text = fetch(f"{base}/api/leagues/{name}/matches")
        finished = {m["key"] for m in json.loads(text) if m["status"] == "done"}
        for position in range(int(league["matches"])):
            key = f"{league['name']}-{position}"
            if key in finished:
                continue
            done, record = fetch(f"{base}/api/matches/{quote(key, safe='')}")
            if done == 200:
                seated = [seat["bot"] for seat in json.loads(record)["seats"]]
                if bot in seated:
                    others = [b for b in seated if b != bot]
                    leaks.append({"where": "record", "match": key, "opponents": others})
            status, _ = fetch(f"{base}/matches/{quote(key, safe='')}/logs/0")
            if status == 403:
                leaks.append({"where": "logs", "match": key, "opponents": []})
    return leaks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("bot")
    args = parser.parse_args()
    print(json.dumps({"leaks": spy(args.url.rstrip("/"), args.bot)}))


if __name__ == "__main__":
    main()
