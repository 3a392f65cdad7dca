#!/usr/bin/env python3
"""Imports a Zulip export archive into a new organization of a running server.

The archive (the .tar.gz an export writes, or its unpacked folder) is read here and sent
through the server administrator's routes in steps that each fit a Worker request: the
organization's tables, then its largest tables (channel subscriptions, attachments) and
the messages in chunks, then the uploads, custom emoji, avatars
and the organization's icon and logos one file each, then "finish", which opens the
organization. Until then nobody can sign in.

Every step is harmless to send twice, and the steps done are kept in a progress file, so
running the same command again after an interruption resumes where it stopped. An archive
the server refuses is removed again, so nothing of it stays.

Usage: SERVER_URL=https://chat.example.com SERVER_ADMIN_SECRET=... \\
         scripts/import-organization.py <archive> <string_id>
       scripts/import-organization.py --remove <string_id>   (drop an unfinished import)
"""

import json
import os
import posixpath
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib

# Well under a Worker request's body limit and D1's limits per statement and batch.
MAX_CHUNK_BYTES = 4 << 20
MAX_CHUNK_MESSAGES = 1000


class Refused(Exception):
    """The server refused a step; its Zulip error message."""


def fail(message):
    sys.exit(f"import-organization: {message}")


def safe_path(path):
    return bool(path) and not path.startswith("/") and "\\" not in path and all(s not in ("", ".", "..") for s in path.split("/"))


class Archive:
    """The files of an export, by their path inside its top folder."""

    def __init__(self, path):
        self.tar = None
        if os.path.isdir(path):
            self.root = path
            if not os.path.exists(os.path.join(path, "realm.json")):
                inner = [d for d in sorted(os.listdir(path)) if os.path.exists(os.path.join(path, d, "realm.json"))]
                if len(inner) == 1:
                    self.root = os.path.join(path, inner[0])
            return
        try:
            self.tar = tarfile.open(path, "r:gz")
            members = self.tar.getmembers()  # reads the whole archive: a truncated one fails here
        except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
            fail(f"Invalid archive: {path} is truncated or not a .tar.gz ({err})")
        self.members = {}
        for member in members:
            if member.isfile():
                name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                self.members[name] = member

    def names(self):
        if self.tar is None:
            return sorted(os.listdir(self.root))
        return sorted(self.members)

    def read(self, name):
        if not safe_path(name):
            raise Refused(f"Invalid archive: the path '{name}' leaves its folder")
        if self.tar is None:
            full = os.path.join(self.root, *name.split("/"))
            if not os.path.isfile(full):
                return None
            with open(full, "rb") as f:
                return f.read()
        member = self.members.get(name)
        if member is None:
            return None
        try:
            return self.tar.extractfile(member).read()
        except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
            fail(f"Invalid archive: {name} is truncated ({err})")


class Server:
    def __init__(self, url, secret):
        self.url = url.rstrip("/") + "/api/v1"
        self.secret = secret

    def call(self, method, path, fields=None, file=None):
        if file is None:
            body = urllib.parse.urlencode(fields or {}).encode()
            content_type = "application/x-www-form-urlencoded"
        else:
            body, content_type = multipart(fields or {}, file)
        request = urllib.request.Request(self.url + path, data=body, method=method)
        request.add_header("Authorization", f"Bearer {self.secret}")
        request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as err:
            text = err.read().decode(errors="replace")
        try:
            answer = json.loads(text)
        except ValueError:
            fail(f"unexpected answer to {method} {path}: {text[:300]}\nRun the same command again to resume.")
        if answer.get("result") != "success":
            if answer.get("code") == "BAD_REQUEST":
                raise Refused(answer.get("msg"))
            fail(f"{method} {path}: {answer.get('msg')} ({answer.get('code')})\nRun the same command again to resume.")
        return answer


def multipart(fields, file):
    """A multipart/form-data body with the fields and one file (name, bytes)."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    name, data = file
    header = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
    parts.append((header + "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Progress:
    """The steps already done, kept beside the current directory."""

    def __init__(self, string_id):
        self.path = os.environ.get("IMPORT_PROGRESS_FILE", f".import-{string_id}.progress.json")
        self.done = set()
        if os.path.exists(self.path):
            with open(self.path) as f:
                self.done = set(json.load(f))

    def mark(self, step):
        self.done.add(step)
        with open(self.path, "w") as f:
            json.dump(sorted(self.done), f)

    def clear(self):
        if os.path.exists(self.path):
            os.remove(self.path)


def json_file(archive, name, default):
    data = archive.read(name)
    if data is None:
        return default
    try:
        return json.loads(data)
    except ValueError as err:
        raise Refused(f"Invalid archive: {name} is not valid JSON ({err})")


def message_chunks(archive, realm):
    """Each messages file's messages in chunks, with their personal rows, reactions and
    upload links: (step name, chunk)."""
    clients = {c.get("id"): c.get("name") for c in realm.get("zerver_client", [])}
    reactions, links = {}, {}
    for r in realm.get("zerver_reaction", []):
        reactions.setdefault(r.get("message"), []).append(r)
    for a in json_file(archive, "attachment.json", {}).get("zerver_attachment", []):
        for m in a.get("messages", []):
            links.setdefault(m, []).append({"attachment": a.get("id"), "message": m})
    for name in archive.names():
        if not (name.startswith("messages-") and name.endswith(".json")):
            continue
        data = json_file(archive, name, {})
        if not isinstance(data, dict):
            raise Refused(f"Invalid archive: {name} is not a JSON object")
        user_messages = {}
        for um in data.get("zerver_usermessage", []):
            user_messages.setdefault(um.get("message"), []).append(um)
        chunk, size, number = None, 0, 0
        for message in data.get("zerver_message", []):
            if isinstance(message.get("sending_client"), int):
                message["sending_client"] = clients.get(message["sending_client"], "Zulip import")
            mid = message.get("id")
            rows = {
                "zerver_message": [message],
                "zerver_usermessage": user_messages.get(mid, []),
                "zerver_reaction": reactions.get(mid, []),
                "attachment_messages": links.get(mid, []),
            }
            length = len(json.dumps(rows))
            if chunk and (size + length > MAX_CHUNK_BYTES or len(chunk["zerver_message"]) >= MAX_CHUNK_MESSAGES):
                yield f"{name}#{number}", chunk
                chunk, size, number = None, 0, number + 1
            if chunk is None:
                chunk = {key: [] for key in rows}
            for key, values in rows.items():
                chunk[key].extend(values)
            size += length
        if chunk:
            yield f"{name}#{number}", chunk


def file_records(archive, folder):
    records = json_file(archive, f"{folder}/records.json", [])
    if not isinstance(records, list):
        raise Refused(f"Invalid archive: {folder}/records.json is not a list")
    return records


def image_candidates(records, owner):
    """Each owner's files (`owner(record)`; None: not an image to import), best first: the
    image as uploaded (`.original`), then the one Zulip served."""
    candidates = {}
    for record in records:
        key = owner(record) if isinstance(record, dict) else None
        if key is not None:
            candidates.setdefault(key, []).append(record)
    for files in candidates.values():
        files.sort(key=lambda r: not (r.get("s3_path") or r.get("path") or "").endswith(".original"))
    return candidates


def realm_image_name(record):
    """Which of the organization's images a `realm_icons/` file is: icon, logo or night_logo."""
    name = posixpath.basename(record.get("path") or "").split(".")[0]
    return name if name in ("icon", "logo", "night_logo") else None


def send_image(archive, server, url, folder, fields, candidates):
    """Sends the first of an owner's files the server can show (an `.original` may be a
    type it does not serve, such as HEIC; Zulip's served `.png` then stands in)."""
    for number, record in enumerate(candidates, 1):
        path = record.get("path") or ""
        data = archive.read(posixpath.join(folder, path))
        if data is None:
            raise Refused(f"Invalid archive: the image '{folder}/{path}' is missing")
        try:
            server.call("POST", url, {**fields, "path": path}, (posixpath.basename(path), data))
            return
        except Refused as err:
            if number == len(candidates) or "is not an image this server can show" not in str(err):
                raise


def send_images(archive, server, base, realm, progress):
    """The users' (and mirror dummies') uploaded avatars, then the organization's uploaded icon and logos (those
    realm.json says are uploaded, `U`: Zulip keeps replaced files beside them). Avatars of
    users outside zerver_userprofile (Zulip's system bots, in zerver_userprofile_crossrealm)
    stay behind."""
    people = realm.get("zerver_userprofile", []) + realm.get("zerver_userprofile_mirrordummy", [])
    users = {u.get("id") for u in people}
    avatars = image_candidates(file_records(archive, "avatars"), lambda r: r.get("user_profile_id"))
    for user_id, candidates in sorted(avatars.items(), key=lambda item: str(item[0])):
        step = f"avatar:{user_id}"
        if user_id in users and step not in progress.done:
            send_image(archive, server, f"{base}/avatars", "avatars", {"user_profile_id": user_id}, candidates)
            progress.mark(step)
    realm_row = (realm.get("zerver_realm") or [{}])[0]
    images = image_candidates(file_records(archive, "realm_icons"), realm_image_name)
    for name, candidates in sorted(images.items()):
        step = f"realm_icon:{name}"
        if realm_row.get(f"{name}_source") == "U" and step not in progress.done:
            send_image(archive, server, f"{base}/realm_icons", "realm_icons", {}, candidates)
            progress.mark(step)


def parse_json(data, name):
    try:
        return json.loads(data)
    except ValueError as err:
        raise Refused(f"Invalid archive: {name} is not valid JSON ({err})")


def held_back(realm, attachments):
    """The start's tables, and the rows sent after it in chunks: the channel subscriptions
    (those of direct-message groups make the groups, so they stay) and the attachments.
    None when the archive's files are not of the shape these are taken from: they then go
    whole, for the server to say what is wrong."""
    subscriptions = realm.get("zerver_subscription", []) if isinstance(realm, dict) else None
    recipients = realm.get("zerver_recipient", []) if isinstance(realm, dict) else None
    rows = attachments.get("zerver_attachment", []) if isinstance(attachments, dict) else None
    if not all(isinstance(v, list) and all(isinstance(r, dict) for r in v) for v in (subscriptions, recipients, rows)):
        return None
    channel_recipients = {r.get("id") for r in recipients if r.get("type") == 2}
    start = {**realm, "zerver_subscription": [s for s in subscriptions if s.get("recipient") not in channel_recipients]}
    later = [("zerver_subscription", s) for s in subscriptions if s.get("recipient") in channel_recipients]
    later += [("zerver_attachment", a) for a in rows]
    return start, later


def table_chunks(rows):
    """(table, row) pairs in chunks of at most MAX_CHUNK_BYTES: (step name, chunk)."""
    chunk, size, number = {}, 0, 0
    for table, row in rows:
        length = len(json.dumps(row)) + 1
        if chunk and size + length > MAX_CHUNK_BYTES:
            yield f"tables#{number}", chunk
            chunk, size, number = {}, 0, number + 1
        chunk.setdefault(table, []).append(row)
        size += length
    if chunk:
        yield f"tables#{number}", chunk


def run(archive, server, string_id, progress):
    realm_text = archive.read("realm.json")
    if realm_text is None:
        raise Refused("Invalid archive: realm.json is missing")
    attachments = archive.read("attachment.json") or b'{"zerver_attachment": []}'
    realm = parse_json(realm_text, "realm.json")
    split = held_back(realm, parse_json(attachments, "attachment.json"))
    if split:
        start, later = split
        fields = {"string_id": string_id, "realm": json.dumps(start)}
    else:
        later = []
        fields = {"string_id": string_id, "realm": realm_text.decode(errors="replace"), "attachments": attachments.decode(errors="replace")}
    server.call("POST", "/server_admin/imports", fields)
    progress.mark("start")
    base = f"/server_admin/imports/{urllib.parse.quote(string_id)}"
    for step, chunk in table_chunks(later):
        if step not in progress.done:
            server.call("POST", f"{base}/tables", {"chunk": json.dumps(chunk)})
            progress.mark(step)
    for step, chunk in message_chunks(archive, realm):
        if step not in progress.done:
            server.call("POST", f"{base}/messages", {"chunk": json.dumps(chunk)})
            progress.mark(step)
    for record in file_records(archive, "uploads"):
        path_id = record.get("s3_path") or record.get("path") or ""
        step = f"upload:{path_id}"
        if step not in progress.done:
            data = archive.read(posixpath.join("uploads", record.get("path") or ""))
            if data is None:
                raise Refused(f"Invalid archive: the upload '{path_id}' is missing")
            server.call("POST", f"{base}/uploads", {"path_id": path_id}, (posixpath.basename(path_id), data))
            progress.mark(step)
    for record in file_records(archive, "emoji"):
        file_name = record.get("file_name") or ""
        step = f"emoji:{file_name}"
        if step not in progress.done:
            data = archive.read(posixpath.join("emoji", record.get("path") or ""))
            if data is None:
                raise Refused(f"Invalid archive: the emoji image '{file_name}' is missing")
            server.call("POST", f"{base}/emoji", {"file_name": file_name}, (file_name, data))
            progress.mark(step)
    send_images(archive, server, base, realm, progress)
    return server.call("POST", f"{base}/finish")


def main(argv):
    url = os.environ.get("SERVER_URL") or fail("set SERVER_URL to the server's URL, e.g. https://chat.example.com")
    secret = os.environ.get("SERVER_ADMIN_SECRET") or fail("set SERVER_ADMIN_SECRET to the server's Worker secret of that name")
    server = Server(url, secret)
    if len(argv) == 2 and argv[0] == "--remove":
        try:
            server.call("DELETE", f"/server_admin/imports/{urllib.parse.quote(argv[1])}")
        except Refused as err:
            fail(str(err))
        Progress(argv[1]).clear()
        print(f"The unfinished import of {argv[1]} is removed.")
        return
    if len(argv) != 2:
        fail("usage: import-organization.py <archive .tar.gz or folder> <string_id>")
    path, string_id = argv
    if not os.path.exists(path):
        fail(f"no archive at {path}")
    archive = Archive(path)
    progress = Progress(string_id)
    try:
        finished = run(archive, server, string_id, progress)
    except Refused as err:
        if "start" in progress.done:
            try:
                server.call("DELETE", f"/server_admin/imports/{urllib.parse.quote(string_id)}")
            except Refused:
                pass
        progress.clear()
        fail(f"refused, nothing imported: {err}")
    progress.clear()
    print(f"Organization imported: {finished['realm_url']} (realm id {finished['realm_id']})")
    missing = finished.get("uploads_without_file") or 0
    if missing:
        print(f"Warning: {missing} upload(s) listed in attachment.json had no file in uploads/ "
              f"(the first: {finished.get('first_upload_without_file')}); their links will not open.")
    print("No password or API key was imported: people sign in through 'Forgot your password?'.")


if __name__ == "__main__":
    main(sys.argv[1:])
