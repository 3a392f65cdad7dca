"""The official Python client's `upload_file` against the test server: uploads a binary
file, then downloads it with the same credentials and compares the bytes.

Usage: TEST_SERVER_URL=http://127.0.0.1:PORT python upload_file.py
Exit status 0 on success."""

import os
import sys
import tempfile

import requests
import zulip

URL = os.environ["TEST_SERVER_URL"]


def main():
    resp = requests.post(f"{URL}/api/v1/dev_fetch_api_key", data={"username": "hamlet@zulip.com"}, timeout=30)
    resp.raise_for_status()
    api_key = resp.json()["api_key"]
    client = zulip.Client(email="hamlet@zulip.com", api_key=api_key, site=URL, client="ZulipPythonTest/1.0")
    data = bytes(range(256)) * 40
    with tempfile.NamedTemporaryFile(prefix="python upload ", suffix=".bin", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        with open(path, "rb") as fp:
            result = client.upload_file(fp)
    finally:
        os.unlink(path)
    print("upload:", result)
    if result.get("result") != "success" or not result["url"].startswith("/user_uploads/"):
        return 1
    got = requests.get(URL + result["url"], auth=("hamlet@zulip.com", api_key), timeout=30)
    if got.status_code != 200 or got.content != data:
        print("download failed:", got.status_code, len(got.content))
        return 1
    print("round trip ok:", result["filename"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
