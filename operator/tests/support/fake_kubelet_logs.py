#!/usr/bin/env python3
"""The kubelet's part of `kubectl logs`, for the operator's tests against the
real API server, which has no kubelet: the API server proxies
GET /api/v1/namespaces/NS/pods/POD/log to
https://<node address>:<kubeletEndpoint port>/containerLogs/NS/POD/CONTAINER,
and this answers from LOGS/NS/POD/CONTAINER.log (404 when there is none).
As the kubelet does, tailLines=N keeps the last N lines and limitBytes=M
then the first M bytes of those; unless LOGS/NS/POD/CONTAINER.ignore-limits
exists, for a test of a reader that must bound what it reads itself. The log
is streamed, never read whole: a test may serve gigabytes.

  fake_kubelet_logs.py --port P --cert C --key K --logs DIR

Prints "listening on 127.0.0.1:P" once it accepts connections.
"""
import argparse
import http.server
import os
import ssl
import sys
import urllib.parse

BLOCK = 1 << 20


def tail_offset(f, size, lines):
    """Where the last `lines` lines of the open file `f` of `size` bytes
    begin (a last line without a newline counts as one)."""
    if lines <= 0:
        return size
    pos = size
    seen = 0
    # The newline ending the file ends its last line: not a line before it.
    skip_last = size > 0
    while pos > 0:
        start = max(0, pos - BLOCK)
        f.seek(start)
        block = f.read(pos - start)
        i = len(block)
        while True:
            i = block.rfind(b"\n", 0, i)
            if i < 0:
                break
            if skip_last and start + i == size - 1:
                skip_last = False
                continue
            skip_last = False
            seen += 1
            if seen == lines:
                return start + i + 1
        pos = start
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True, help="serving certificate (PEM)")
    parser.add_argument("--key", required=True, help="its private key (PEM)")
    parser.add_argument("--logs", required=True, help="directory of NS/POD/CONTAINER.log files")
    args = parser.parse_args()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            parts = urllib.parse.urlparse(self.path).path.split("/")
            # ["", "containerLogs", ns, pod, container]
            if len(parts) != 5 or parts[1] != "containerLogs" or any(
                p in ("", ".", "..") for p in parts[2:]
            ):
                self.send_error(404, "not a containerLogs path")
                return
            base = os.path.join(args.logs, parts[2], parts[3], parts[4])
            query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            limits = not os.path.exists(base + ".ignore-limits")
            try:
                f = open(base + ".log", "rb")
            except FileNotFoundError:
                self.send_error(404, "no log for " + "/".join(parts[2:]))
                return
            with f:
                size = os.fstat(f.fileno()).st_size
                start, end = 0, size
                if limits and "tailLines" in query:
                    start = tail_offset(f, size, int(query["tailLines"][0]))
                if limits and "limitBytes" in query:
                    end = min(end, start + int(query["limitBytes"][0]))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(end - start))
                self.end_headers()
                f.seek(start)
                sent = 0
                try:
                    while sent < end - start:
                        chunk = f.read(min(BLOCK, end - start - sent))
                        if not chunk:
                            break
                        self.wfile.write(chunk)
                        sent += len(chunk)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass  # the reader hung up: what a bounded reader does
                sys.stderr.write("fake kubelet: sent %d of %d bytes\n" % (sent, end - start))

        def log_message(self, fmt, *fmt_args):
            sys.stderr.write("fake kubelet: " + (fmt % fmt_args) + "\n")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("listening on 127.0.0.1:%d" % args.port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
