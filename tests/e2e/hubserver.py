#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on 127.0.0.1, for tests/e2e/hub.bats.

    hubserver.py DIR PORTFILE LOG [LIFETIME_S]

Serves the recorded responses of DIR/routes.json (request path without the
query -> {"status", "headers", "body" or "body_file"}), and the files of
DIR/repos/ORG/NAME for GET /ORG/NAME/resolve/REV/FILE the way the Hub does:
LFS files (*.safetensors, *.gguf, *.bin) answer 302 to /cdn/ORG/NAME/FILE on
"localhost" (another host name, so a client must not forward its token), and
/cdn honours one "Range: bytes=A-B" with 206 and Content-Range, reading only
those bytes (the fixtures are sparse files of many GB). A request line with an
absolute URI is a proxy request: it is served the same way and logged as one.
Each request is one JSON line in LOG: path, query, range, authorization,
host, proxy. python3 -m http.server cannot do ranges, hence this file. Binds
127.0.0.1 only, on a free port written to PORTFILE; exits after LIFETIME_S
(default 120) seconds whatever happens.
"""

import http.server
import json
import os
import re
import sys
import threading
import urllib.parse

LFS = (".safetensors", ".gguf", ".bin")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the JSON log is the record
        pass

    def record(self, parsed, proxy):
        entry = {
            "path": parsed.path,
            "query": parsed.query,
            "range": self.headers.get("Range"),
            "authorization": self.headers.get("Authorization"),
            "host": self.headers.get("Host"),
            "proxy": proxy,
        }
        with self.server.lock, open(self.server.log, "a") as fh:
            fh.write(json.dumps(entry) + "\n")

    def send(self, status, headers=None, body=b""):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 - the stdlib's name
        proxy = self.path.startswith("http://")
        parsed = urllib.parse.urlsplit(self.path)
        self.record(parsed, proxy)
        path = urllib.parse.unquote(parsed.path)
        route = self.server.routes.get(parsed.path)
        if route is not None:
            return self.recorded(route)
        m = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if m:
            return self.resolve(m.group(1), m.group(3))
        m = re.fullmatch(r"/cdn/([^/]+/[^/]+)/(.+)", path)
        if m:
            return self.file(m.group(1), m.group(2))
        self.send(404, {"X-Error-Code": "RepoNotFound", "X-Error-Message": "Repository not found"},
                  b'{"error":"Repository not found"}')

    def recorded(self, route):
        if "with_token" in route:
            route = route["with_token" if self.headers.get("Authorization") else "without_token"]
        body = route.get("body", "").encode()
        if "body_file" in route:
            with open(os.path.join(self.server.dir, route["body_file"]), "rb") as fh:
                body = fh.read()
        self.send(route.get("status", 200), route.get("headers", {}), body)

    def local(self, repo, name):
        p = os.path.normpath(os.path.join(self.server.dir, "repos", repo, name))
        root = os.path.join(self.server.dir, "repos", repo)
        return p if p.startswith(root + os.sep) and os.path.isfile(p) else None

    def resolve(self, repo, name):
        if not self.local(repo, name):
            return self.send(404, {"X-Error-Code": "EntryNotFound",
                                   "X-Error-Message": "Entry not found"}, b"Entry not found")
        if name.endswith(LFS):
            port = self.server.server_address[1]
            return self.send(302, {"Location": "http://localhost:%d/cdn/%s/%s" % (port, repo, name)})
        return self.file(repo, name)

    def file(self, repo, name):
        p = self.local(repo, name)
        if not p:
            return self.send(404)
        size = os.path.getsize(p)
        rng = self.headers.get("Range")
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng or "")
        with open(p, "rb") as fh:
            if not m:
                return self.send(200, {"Accept-Ranges": "bytes"}, fh.read())
            a = int(m.group(1))
            b = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
            if a >= size or b < a:
                return self.send(416, {"Content-Range": "bytes */%d" % size})
            fh.seek(a)
            data = fh.read(b - a + 1)
        self.send(206, {"Content-Range": "bytes %d-%d/%d" % (a, b, size)}, data)


def main():
    d, portfile, log = sys.argv[1:4]
    lifetime = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.dir, srv.log, srv.lock = d, log, threading.Lock()
    with open(os.path.join(d, "routes.json")) as fh:
        srv.routes = json.load(fh)
    srv.daemon_threads = True
    threading.Timer(lifetime, srv.shutdown).start()
    with open(portfile + ".tmp", "w") as fh:
        fh.write(str(srv.server_address[1]))
    os.replace(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()
