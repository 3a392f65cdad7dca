"""The official Python client's `call_on_each_message` against the test server: one user
listens, another sends; succeeds when the listener's callback receives the message.

Usage: TEST_SERVER_URL=http://127.0.0.1:PORT python call_on_each_message.py
Exit status 0 on success, 1 when nothing arrived within the time limit."""

import os
import sys
import threading
import time
import uuid

import requests
import zulip

URL = os.environ["TEST_SERVER_URL"]
LIMIT_SECS = 40


def dev_client(email):
    resp = requests.post(f"{URL}/api/v1/dev_fetch_api_key", data={"username": email}, timeout=30)
    resp.raise_for_status()
    return zulip.Client(email=email, api_key=resp.json()["api_key"], site=URL, client="ZulipPythonTest/1.0")


def main():
    listener = dev_client("cordelia@zulip.com")
    sender = dev_client("hamlet@zulip.com")
    marker = f"python client {uuid.uuid4().hex}"
    received = threading.Event()

    def on_message(message):
        if message.get("content", "").find(marker) >= 0 and message.get("sender_email") == "hamlet@zulip.com":
            print("received:", message["id"], message["content"])
            received.set()

    threading.Thread(target=listener.call_on_each_message, args=(on_message,), daemon=True).start()
    deadline = time.time() + LIMIT_SECS
    # The listener registers its queue in its own thread: send until one message arrives.
    while time.time() < deadline and not received.is_set():
        result = sender.send_message({"type": "stream", "to": "Verona", "topic": "python client", "content": marker})
        if result.get("result") != "success":
            print("send failed:", result)
            return 1
        received.wait(timeout=2)
    if not received.is_set():
        print("call_on_each_message received nothing within", LIMIT_SECS, "s")
        return 1
    return 0


sys.exit(main())
