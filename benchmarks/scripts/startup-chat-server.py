#!/usr/bin/env python3
"""A loopback stand-in for OpenAI: answers every POST with one canned chat completion (startup-rounds.py)."""
import http.server, json, sys
BODY = json.dumps({"id":"chatcmpl-startup","object":"chat.completion","created":1764547200,"model":"gpt-4o-mini",
  "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","refusal":None},"logprobs":None,"finish_reason":"stop"}],
  "usage":{"prompt_tokens":14,"completion_tokens":3,"total_tokens":17}}).encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
