"""Uploads a file over tus with tuspy (the tus project's Python client), for
tests/tus_uploads.rs.

usage: tus_upload.py <server url> <email> <api key> <file> <chunk size> <chunks before the cut>

Sends the first chunks, then a PATCH whose body stops half way (the connection closes),
then resumes with a new uploader on the same URL (which asks HEAD for the offset) and
finishes. Prints one JSON line: the upload URL, the offset HEAD gave after the cut, the
number of PATCHes, and the body of the last one.
"""

import base64
import http.client
import json
import os
import sys
from urllib.parse import urlsplit

from tusclient import client as tus

server, email, api_key, path, chunk_size, before_cut = sys.argv[1:7]
chunk_size, before_cut = int(chunk_size), int(before_cut)
auth = "Basic " + base64.b64encode(f"{email}:{api_key}".encode()).decode()
tus_client = tus.TusClient(f"{server}/api/v1/tus", headers={"Authorization": auth})
metadata = {"filename": os.path.basename(path), "filetype": "application/octet-stream"}

first = tus_client.uploader(path, chunk_size=chunk_size, metadata=metadata)
first.upload(stop_at=before_cut * chunk_size)
patches = before_cut

# A PATCH cut off after half its declared body.
url = urlsplit(first.url)
with open(path, "rb") as f:
    f.seek(first.offset)
    data = f.read(chunk_size)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
conn.putrequest("PATCH", url.path)
for name, value in [
    ("Authorization", auth),
    ("Tus-Resumable", "1.0.0"),
    ("Upload-Offset", str(first.offset)),
    ("Content-Type", "application/offset+octet-stream"),
    ("Content-Length", str(len(data))),
]:
    conn.putheader(name, value)
conn.endheaders()
conn.send(data[: len(data) // 2])
conn.sock.close()
conn.close()

# A new uploader on the same URL asks HEAD where to resume.
resumed = tus_client.uploader(path, url=first.url, chunk_size=chunk_size, metadata=metadata)
offset_after_cut = resumed.offset
while resumed.offset < resumed.get_file_size():
    resumed.upload_chunk()
    patches += 1

print(
    json.dumps(
        {
            "upload_url": first.url,
            "offset_after_cut": offset_after_cut,
            "patches": patches,
            "last_response": json.loads(resumed.request.response_content),
        }
    )
)
