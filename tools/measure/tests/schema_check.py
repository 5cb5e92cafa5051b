"""The subset of JSON Schema (2020-12) that bpw-measurement-pack.schema.json uses, enough
to test conformance without a dependency beyond the standard library."""

import re


def _resolve(root, ref):
    node = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _type_ok(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return {"object": dict, "array": list, "string": str, "boolean": bool}[name] is type(value)


def errors(value, schema, root=None, path="$"):
    """Every violation of @schema by @value, as "PATH: reason" strings."""
    root = schema if root is None else root
    out = []
    if "$ref" in schema:
        out += errors(value, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema and not _type_ok(value, schema["type"]):
        return out + [f"{path}: expected {schema['type']}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: above {schema['maximum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            out.append(f"{path}: not above {schema['exclusiveMinimum']}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        out.append(f"{path}: too short")
    for sub in schema.get("allOf", []):
        out += errors(value, sub, root, path)
    if "oneOf" in schema:
        passing = sum(1 for sub in schema["oneOf"] if not errors(value, sub, root, path))
        if passing != 1:
            out.append(f"{path}: matches {passing} of oneOf, not exactly one")
    if "if" in schema and not errors(value, schema["if"], root, path):
        out += errors(value, schema.get("then", {}), root, path)
    elif "if" in schema:
        out += errors(value, schema.get("else", {}), root, path)
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing {key}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out += errors(value[key], sub, root, f"{path}.{key}")
        for pattern, sub in schema.get("patternProperties", {}).items():
            for key in value:
                if re.search(pattern, key):
                    out += errors(value[key], sub, root, f"{path}.{key}")
        names = schema.get("propertyNames")
        if names is not None:
            for key in value:
                if not errors(key, names.get("not", {}), root, path) and "not" in names:
                    out.append(f"{path}.{key}: name not allowed")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        out.append(f"{path}: does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], root, f"{path}[{i}]")
    return out
