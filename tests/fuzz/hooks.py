"""Checks that `make fuzz` adds to schemathesis' own (loaded through SCHEMATHESIS_HOOKS)."""

import json

import schemathesis


@schemathesis.check
def success_is_documented(ctx, response, case):
    """A 2xx or 3xx answer must be one Zulip's OpenAPI file documents for the operation:
    an undocumented success means the server accepted what Zulip would refuse. Error
    statuses are left to `not_a_server_error` (a 4xx for bad input is always right)."""
    status = response.status_code
    if not 200 <= status < 400:
        return None
    # The coverage phase also asks each path with OPTIONS: the API answers it as Zulip's
    # rest_dispatch does (204, a CORS preflight), which no operation documents.
    if case.method.upper() == "OPTIONS" and case.operation.method.upper() != "OPTIONS" and status == 204:
        return None
    documented = [str(code) for code in case.operation.responses.status_codes]
    if "default" in documented or str(status) in documented or f"{str(status)[0]}XX" in documented:
        return None
    raise AssertionError(f"{case.operation.label} answered {status}; documented: {', '.join(documented)}")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    """Form fields whose `encoding` in Zulip's file says `contentType: application/json` go
    JSON-encoded, as Zulip clients send them (schemathesis would send a list as repeated
    fields): without this, no generated list or object reaches past the parser."""
    if case.media_type != "application/x-www-form-urlencoded" or not isinstance(case.body, dict):
        return
    content = case.operation.definition.raw.get("requestBody", {}).get("content", {})
    encoding = content.get(case.media_type, {}).get("encoding", {})
    for name, value in list(case.body.items()):
        if encoding.get(name, {}).get("contentType") == "application/json":
            case.body[name] = json.dumps(value)
