#!/usr/bin/env python3
"""A push relay test double on 127.0.0.1, following Zulip's bouncer API as far as the
tests need it. Prints its port on the first line of stdout, then serves until killed.

Like Zulip's bouncer, it knows only registered servers and the organizations they uploaded:
- POST /api/v1/remotes/server/register (form: zulip_org_id, zulip_org_key, hostname,
  contact_email): registers the server.
- POST /api/v1/remotes/server/analytics (form, JSON fields; the server's Basic auth): keeps
  the uploaded `realms` (their uuid, host, name, deactivated).
- Every other request from an unregistered server: 401 INVALID_ZULIP_SERVER; naming a
  realm_uuid the server did not upload: 400 MISSING_REMOTE_REALM.

- POST /api/v1/remotes/push/e2ee/register: keeps the token_id.
- POST /api/v1/remotes/push/register | unregister: legacy tokens. A token starting with
  "relay-forgets-" is acknowledged but not kept (to provoke INVALID_REMOTE_PUSH_DEVICE_TOKEN).
- POST /api/v1/remotes/push/test_notification: 400 INVALID_REMOTE_PUSH_DEVICE_TOKEN for an
  unknown token.
- POST /api/v1/remotes/push/e2ee/notify: push_requests name devices by token_id;
  delete_token_ids lists unknown ones.
  A push request with push_key_id 4294967295 makes the relay answer 503 (to test retries).
- GET /log: every POST received, with the JSON answered; GET /servers: what it knows;
  POST /forget: forgets every server and organization.
"""
import base64
import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
log = []
devices = set()  # token_ids registered
legacy = set()  # (realm_uuid, user_id, token)
servers = {}  # zulip_org_id -> {"key", "hostname", "contact_email"}
realms = {}  # zulip_org_id -> {uuid: realm dict}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def handle(path, body, auth):
    if path == "/api/v1/remotes/server/register":
        servers[body["zulip_org_id"]] = {"key": body["zulip_org_key"], "hostname": body["hostname"], "contact_email": body["contact_email"]}
        return 200, {"result": "success", "msg": "", "created": True}
    if not auth.startswith("Basic ") or ":" not in base64.b64decode(auth[6:]).decode():
        return 401, {"result": "error", "code": "UNAUTHORIZED", "msg": "Missing credentials"}
    org_id, org_key = base64.b64decode(auth[6:]).decode().split(":", 1)
    if servers.get(org_id, {}).get("key") != org_key:
        return 401, {"result": "error", "code": "INVALID_ZULIP_SERVER",
                     "msg": f"Zulip server auth failure: {org_id} is not registered -- did you run `manage.py register_server`?"}
    if path == "/api/v1/remotes/server/analytics":
        uploaded = json.loads(body.get("realms", "[]"))
        if not all(UUID.match(r["uuid"]) and r["uuid_owner_secret"].startswith("zuliprealm_") for r in uploaded):
            return 400, {"result": "error", "code": "BAD_REQUEST", "msg": "Invalid realm data"}
        realms[org_id] = {r["uuid"]: r for r in uploaded}
        return 200, {"result": "success", "msg": ""}
    if body.get("realm_uuid") not in realms.get(org_id, {}):
        return 400, {"result": "error", "code": "MISSING_REMOTE_REALM", "msg": "Organization not registered"}
    if path == "/api/v1/remotes/push/e2ee/register":
        devices.add(body["token_id"])
        return 200, {"result": "success", "msg": ""}
    key = (body.get("realm_uuid"), body.get("user_id"), body.get("token"))
    if path == "/api/v1/remotes/push/register":
        if not str(body.get("token", "")).startswith("relay-forgets-"):
            legacy.add(key)
        return 200, {"result": "success", "msg": ""}
    if path == "/api/v1/remotes/push/unregister":
        legacy.discard(key)
        return 200, {"result": "success", "msg": ""}
    if path == "/api/v1/remotes/push/test_notification":
        if key not in legacy:
            return 400, {"result": "error", "code": "INVALID_REMOTE_PUSH_DEVICE_TOKEN", "msg": "Device not recognized by the push bouncer"}
        return 200, {"result": "success", "msg": ""}
    if path == "/api/v1/remotes/push/e2ee/notify":
        if any(r["payload"]["push_key_id"] == 4294967295 for r in body["push_requests"]):
            return 503, {"result": "error", "code": "BAD_REQUEST", "msg": "Try again later"}
        unknown = [r["token_id"] for r in body["push_requests"] if r["token_id"] not in devices]
        sent = len(body["push_requests"]) - len(unknown)
        return 200, {"result": "success", "msg": "", "android_successfully_sent_count": sent,
                     "apple_successfully_sent_count": 0, "delete_token_ids": unknown}
    return 404, {"result": "error", "code": "BAD_REQUEST", "msg": "Not found"}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path == "/forget":
            # Tests: the relay forgets every server and organization, as a new relay would.
            with lock:
                servers.clear()
                realms.clear()
            return self.reply(200, {})
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            body = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode()).items()}
        else:
            body = json.loads(raw or b"{}")
        with lock:
            status, answer = handle(self.path, body, self.headers.get("Authorization", ""))
            log.append({"path": self.path, "body": body, "status": status, "answer": answer})
        self.reply(status, answer)

    def do_GET(self):
        with lock:
            if self.path == "/log":
                self.reply(200, log)
            elif self.path == "/servers":
                self.reply(200, {"servers": servers, "realms": realms})
            else:
                self.reply(200, {})

    def reply(self, status, answer):
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        # One request per connection, said outright: a client that kept the connection
        # for its next request would find it closed.
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    # The tests reach the relay from several threads at once on a busy machine.
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
