"""An answer checked against what the OpenAPI document says of it, as Schemathesis checks it
(its status code declared, its JSON body valid for that status's schema), for a plain API test to
pin a contract finding on both databases without a Schemathesis run."""

from functools import cache
from typing import Any

from jsonschema import Draft4Validator

from tests.api.test_schemathesis import openapi_document


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema says it (the other keywords are the same)."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def _document() -> dict[str, Any]:
    return _json_schema(openapi_document())


def mismatches(response: Any, path: str, method: str = "get") -> list[str]:
    """What in `response` (of `method` on the schema's `path`, e.g. "/api/v1/flags/{id}/")
    the document does not allow; [] when the answer is as documented."""
    document = _document()
    answers = document["paths"][path][method.lower()]["responses"]
    status = str(response.status_code)
    if status not in answers:
        return [f"status {status} is not documented (only {', '.join(answers)})"]
    content = answers[status].get("content", {}).get("application/json")
    if content is None:
        return []
    validator = Draft4Validator({**content["schema"], "components": document["components"]})
    return [
        f"{'/'.join(map(str, error.absolute_path)) or 'body'}: {error.message}"
        for error in validator.iter_errors(response.json())
    ]
