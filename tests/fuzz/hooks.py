"""Checks that `make fuzz` adds to schemathesis' own (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis


@schemathesis.check
def success_is_documented(ctx, response, case):
    """A 2xx or 3xx answer must be one Zulip's OpenAPI file documents for the operation:
    an undocumented success means the server accepted what Zulip would refuse. Error
    statuses are left to `not_a_server_error` (a 4xx for bad input is always right)."""
    status = response.status_code
    if not 200 <= status < 400:
        return None
    documented = [str(code) for code in case.operation.responses.status_codes]
    if "default" in documented or str(status) in documented or f"{str(status)[0]}XX" in documented:
        return None
    raise AssertionError(f"{case.operation.label} answered {status}; documented: {', '.join(documented)}")
