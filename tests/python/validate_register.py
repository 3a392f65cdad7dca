"""Validates a POST /register response (JSON on stdin) against the response schema of
Zulip's OpenAPI description (tests/fixtures/zulip-openapi.yaml, or the path in
ZULIP_OPENAPI). The success-envelope fields are checked separately, as Zulip's own
test-suite does, because the schema's second allOf part forbids extra properties."""

import json
import os
import sys

import jsonschema
import yaml

SPEC = os.environ.get(
    "ZULIP_OPENAPI", os.path.join(os.path.dirname(__file__), "..", "fixtures", "zulip-openapi.yaml")
)


ANNOTATIONS = ("example", "description", "x-curl-examples-parameters", "deprecated", "nullable")


def resolve(node, schemas):
    while isinstance(node, dict) and "$ref" in node:
        node = schemas[node["$ref"].split("/")[-1]]
    return node


def merge_all_of(node, schemas):
    """allOf parts merged into one object schema, as Zulip's own validator reads them
    (one part's `additionalProperties: false` covers the properties of every part)."""
    merged = {k: v for k, v in node.items() if k != "allOf"}
    for part in node["allOf"]:
        part = resolve(part, schemas)
        if "allOf" in part:
            part = merge_all_of(part, schemas)
        for key, value in part.items():
            if key == "properties":
                merged.setdefault("properties", {}).update(value)
            elif key == "required":
                merged["required"] = sorted(set(merged.get("required", [])) | set(value))
            elif key not in merged:
                merged[key] = value
    return merged


def to_json_schema(node, schemas):
    """OpenAPI 3.0 schema -> JSON Schema: refs inlined, allOf merged, `nullable` as a
    null type."""
    node = resolve(node, schemas)
    if isinstance(node, list):
        return [to_json_schema(n, schemas) for n in node]
    if not isinstance(node, dict):
        return node
    if "allOf" in node:
        node = merge_all_of(node, schemas)
    out = {}
    for key, value in node.items():
        if key in ANNOTATIONS:
            continue
        if key == "properties":
            out[key] = {name: to_json_schema(v, schemas) for name, v in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = to_json_schema(value, schemas)
        elif key in ("oneOf", "anyOf"):
            out[key] = [to_json_schema(v, schemas) for v in value]
        else:
            out[key] = value
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def main():
    body = json.load(sys.stdin)
    spec = yaml.safe_load(open(SPEC))
    schemas = spec["components"]["schemas"]
    parts = schemas["register_queue_200_response"]["allOf"]
    assert body.pop("result") == "success"
    assert body.pop("msg") == ""
    body.pop("ignored_parameters_unsupported", None)
    schema = to_json_schema(parts[1], schemas)
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
    for error in errors[:40]:
        print("/".join(str(p) for p in error.absolute_path), ":", error.message[:300])
    if errors:
        print(f"{len(errors)} schema violations")
        sys.exit(1)
    print("register response validates")


main()
