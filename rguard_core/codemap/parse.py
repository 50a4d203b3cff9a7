"""Imports of one source file, read with tree-sitter (per-language grammar packages, nothing downloaded).

Python: ``import a.b``, ``from .x import y`` (level and names kept), ``importlib.import_module("m")`` and
``__import__("m")`` as dynamic imports. TypeScript/JavaScript: ``import … from``, ``import "x"``,
``import x = require("x")``, ``export … from`` (re-exports), ``import("x")`` and ``require("x")``. A dynamic
import or require whose argument is not a plain string is kept with ``literal=False`` (counted as
unsupported syntax, never guessed at).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .model import EdgeKind, ImportRef, Lang, ParsedFile

LANG_BY_EXT: dict[str, Lang] = {
    ".py": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
}

_PY_QUERY = """
(import_statement) @import
(import_from_statement) @from
(call function: (identifier) @fn arguments: (argument_list) @args (#any-of? @fn "__import__" "import_module"))
(call function: (attribute attribute: (identifier) @fn) arguments: (argument_list) @args (#eq? @fn "import_module"))
"""

_ES_QUERY = """
(import_statement source: (string) @import)
(export_statement source: (string) @reexport)
(call_expression function: (import) arguments: (arguments) @dynamic)
(call_expression function: (identifier) @fn arguments: (arguments) @args (#eq? @fn "require"))
"""
_TS_EXTRA = """
(import_statement (import_require_clause source: (string) @require))
"""


PREFIX_MIN_SAVING = 512  # bytes after the last import worth skipping


def lang_of(path: str) -> Lang | None:
    """The language a path is parsed as, by extension (``.d.ts`` declaration files are not parsed)."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".d.ts") or "." not in name:
        return None
    return LANG_BY_EXT.get("." + name.rsplit(".", 1)[-1].lower())


@cache
def _parser(grammar: str) -> tuple[Any, Any]:
    import tree_sitter as ts

    if grammar == "python":
        import tree_sitter_python as tsp

        lang = ts.Language(tsp.language())
        query = _PY_QUERY
    elif grammar in ("typescript", "tsx"):
        import tree_sitter_typescript as tst

        lang = ts.Language(tst.language_tsx() if grammar == "tsx" else tst.language_typescript())
        query = _ES_QUERY + _TS_EXTRA
    else:
        import tree_sitter_javascript as tsj

        lang = ts.Language(tsj.language())
        query = _ES_QUERY
    return ts.Parser(lang), ts.Query(lang, query)


def _grammar(path: str, lang: Lang) -> str:
    # .ts cannot use the TSX grammar (``<T>x`` casts); .jsx/.js use the JavaScript grammar, which reads JSX
    return "tsx" if path.endswith(".tsx") else lang


def parse_file(path: str, data: bytes) -> ParsedFile | None:
    """The imports of ``path`` (content ``data``), or None when the path is not a language we parse."""
    lang = lang_of(path)
    if lang is None:
        return None
    if b"import" not in data and b"require" not in data:
        return ParsedFile(path, lang, ())  # no import can be written without one of these words: nothing to parse
    import tree_sitter as ts

    parser, query = _parser(_grammar(path, lang))
    tree = _parse_prefix(parser, data)
    matches = ts.QueryCursor(query).matches(tree.root_node)
    refs = _python(matches) if lang == "python" else _es(matches)
    refs.sort(key=lambda r: (r.line, r.specifier))
    return ParsedFile(path, lang, tuple(refs), bool(tree.root_node.has_error))


def _parse_prefix(parser: Any, data: bytes) -> Any:
    """Parse the file up to the end of the last line that holds ``import`` or ``require``: nothing after it can
    be an import, and most files keep theirs at the top (measured 2-3x faster over a tree). A prefix that does
    not parse cleanly (it cut a multi-line import, or a string) is parsed again whole, so no import is lost;
    syntax errors are thus looked for up to the last import only."""
    last = max(data.rfind(b"import"), data.rfind(b"require"))
    end = data.find(b"\n", last)
    if 0 <= end < len(data) - PREFIX_MIN_SAVING:
        tree = parser.parse(data[: end + 1])
        if not tree.root_node.has_error:
            return tree
    return parser.parse(data)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _python(matches: list[tuple[int, dict[str, list[Any]]]]) -> list[ImportRef]:
    out: list[ImportRef] = []
    for _, caps in matches:
        if "import" in caps:
            node = caps["import"][0]
            for name in node.children_by_field_name("name"):
                dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
                out.append(ImportRef("IMPORTS", _text(dotted), node.start_point[0] + 1))
        elif "from" in caps:
            out.append(_python_from(caps["from"][0]))
        elif "args" in caps:
            out.append(_python_dynamic(caps["args"][0]))
    return out


def _python_from(node: Any) -> ImportRef:
    mod = node.child_by_field_name("module_name")
    level, module = 0, _text(mod)
    if mod is not None and mod.type == "relative_import":
        prefix = next((c for c in mod.children if c.type == "import_prefix"), None)
        level = len(_text(prefix))
        dotted = next((c for c in mod.children if c.type == "dotted_name"), None)
        module = _text(dotted)
    names: list[str] = []
    for name in node.children_by_field_name("name"):
        dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
        names.append(_text(dotted))
    if any(c.type == "wildcard_import" for c in node.children):
        names.append("*")
    return ImportRef("IMPORTS", "." * level + module, node.start_point[0] + 1, tuple(names), level)


def _python_dynamic(args: Any) -> ImportRef:
    line = args.start_point[0] + 1
    first = args.named_children[0] if args.named_children else None
    literal = _string_value(first, "python")
    if literal is None:
        return ImportRef("DYNAMIC_IMPORT", _text(first)[:80], line, literal=False)
    if literal.startswith("."):  # relative to a ``package=`` known only at run time
        return ImportRef("DYNAMIC_IMPORT", literal, line, literal=False)
    return ImportRef("DYNAMIC_IMPORT", literal, line)


def _es(matches: list[tuple[int, dict[str, list[Any]]]]) -> list[ImportRef]:
    out: list[ImportRef] = []
    kinds: dict[str, EdgeKind] = {"import": "IMPORTS", "require": "REQUIRES", "reexport": "RE_EXPORTS"}
    for _, caps in matches:
        for cap, kind in kinds.items():
            if cap in caps:
                node = caps[cap][0]
                out.append(ImportRef(kind, _string_value(node, "es") or "", node.start_point[0] + 1))
        if "dynamic" in caps or "args" in caps:
            args = (caps.get("dynamic") or caps["args"])[0]
            kind = "DYNAMIC_IMPORT" if "dynamic" in caps else "REQUIRES"
            first = args.named_children[0] if args.named_children else None
            value = _string_value(first, "es")
            line = args.start_point[0] + 1
            out.append(
                ImportRef(kind, value, line)
                if value is not None
                else ImportRef(kind, _text(first)[:80], line, literal=False)
            )
    return out


def _string_value(node: Any, style: str) -> str | None:
    """The value of a plain string literal node (no interpolation, no escapes we would have to evaluate)."""
    if node is None:
        return None
    if node.type == "string" or (style == "es" and node.type == "template_string"):
        parts = node.named_children
        if style == "python":
            parts = [c for c in parts if c.type not in ("string_start", "string_end")]
            if any(c.type != "string_content" for c in parts):
                return None  # an f-string, escapes or an implicit concatenation
            return "".join(_text(c) for c in parts)
        if any(c.type != "string_fragment" for c in parts):
            return None  # ${…} substitutions or escape sequences
        return "".join(_text(c) for c in parts)
    return None
