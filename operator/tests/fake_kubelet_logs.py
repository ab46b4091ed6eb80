#!/usr/bin/env python3
"""The kubelet's part of `kubectl logs`, for the operator's tests against the
real API server, which has no kubelet: the API server proxies
GET /api/v1/namespaces/NS/pods/POD/log to
https://<node address>:<kubeletEndpoint port>/containerLogs/NS/POD/CONTAINER,
and this answers from LOGS/NS/POD/CONTAINER.log (404 when there is none).

  fake_kubelet_logs.py --port P --cert C --key K --logs DIR

Prints "listening on 127.0.0.1:P" once it accepts connections.
"""
import argparse
import http.server
import os
import ssl
import sys
import urllib.parse


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
            path = os.path.join(args.logs, parts[2], parts[3], parts[4] + ".log")
            try:
                with open(path, "rb") as f:
                    body = f.read()
            except FileNotFoundError:
                self.send_error(404, "no log for " + "/".join(parts[2:]))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

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
