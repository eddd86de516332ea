"""A real HTTP receiver that answers OSV vulnerability queries (`POST /v1/query`) from a
small advisory table, so the real pip-audit can be run end to end without the network."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.redis_server import free_port


@dataclass(frozen=True)
class Advisory:
    id: str
    package: str
    version: str
    fixed: str


@dataclass
class OsvReceiver:
    advisories: list[Advisory]
    url: str = ""
    queries: list[tuple[str, str]] = field(default_factory=list)

    def answer(self, name: str, version: str) -> dict:
        """OSV's answer: the advisories for this exact release, or `{}` for none."""
        self.queries.append((name, version))
        found = [a for a in self.advisories if (a.package, a.version) == (name, version)]
        if not found:
            return {}
        return {
            "vulns": [
                {
                    "id": advisory.id,
                    "summary": f"An advisory for {name} {version}",
                    "aliases": [],
                    "affected": [
                        {
                            "package": {"name": name, "ecosystem": "PyPI"},
                            "ranges": [
                                {
                                    "type": "ECOSYSTEM",
                                    "events": [{"introduced": "0"}, {"fixed": advisory.fixed}],
                                }
                            ],
                        }
                    ],
                }
                for advisory in found
            ]
        }


@contextmanager
def osv_receiver(advisories: list[Advisory]) -> Iterator[OsvReceiver]:
    receiver = OsvReceiver(advisories)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            query = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps(receiver.answer(query["package"]["name"], query["version"])).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    receiver.url = f"http://127.0.0.1:{server.server_port}/v1/query"
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
