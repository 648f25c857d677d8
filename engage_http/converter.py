"""The one cattrs converter of the HTTP adapter: JSON in, attrs request objects out, and back.

Structuring is strict, because a lenient edge accepts data the published schema calls invalid:

- primitives are not coerced: `"5"` is not an int, `true` is not an int, `5` is not a string (but
  `5.0` is an int: JSON has one number type and JSON Schema calls an integral number an integer);
  a `float` field takes any JSON number, and an integer stays an `int`;
- a sequence must be a JSON array (a string is not a list of characters), and an array's length
  (`Items`) is checked before its items are read;
- no string holds a NUL character (PostgreSQL cannot store one), however deep in the body, in an
  `Any` value too (whose arrays hold at most `FREE_ARRAY_MAX` items); nor does a `str` field hold
  a lone surrogate;
- `Annotated[T, Text(...) | Integer(...) | Items(...)]` adds the constraints of `constraints.py`;
- a field whose default is `UNSET` may be left out (partial updates); `null` is only accepted where
  the type says `| None`;
- unknown keys are ignored.

Failures become `ValidationFailed` whose `errors` map field paths (`tags.0`, `conditions.1.value`) to
messages, which the error handlers render as a 422.

The edge between the wire and the core is mapped here too, by type, once:

- a request class (a body or a query) marked `@structures_into(CoreInput)` becomes that core
  value, field by field, nested request classes included (`to_core`): handlers receive core
  inputs, never wire objects;
- a response class marked `@renders(CoreEntity)` is how that core entity is rendered: its
  unstructure function reads the entity's attributes of the same names (a property where the wire
  has a computed field), so handlers return core entities as they are.

Where the wire shape really differs from the core's, a class says so with its own `convert`
function, and a one-line reason beside it.
"""

from __future__ import annotations

import functools
import json
import re
import types
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import attrs
import cattrs
import orjson
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.fns import identity
from cattrs.gen import make_dict_structure_fn

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.money import as_number
from engage_core.kernel.unset import UNSET
from engage_http.constraints import CONSTRAINT_TYPES, Items
from engage_http.uploads import Upload

T = TypeVar("T")

BODY = "body"
"""The error key for problems with the request body as a whole."""

_SURROGATE = re.compile("[\ud800-\udfff]")
NUL_MESSAGE = "The {field} may not contain NUL characters."
FREE_ARRAY_MAX = 100
"""Items of an array inside a free-form (`Any`) value: every array a request holds is bounded."""


class Invalid(ValueError):
    """A value broke a rule. `template` names the field as `{field}`; the path is filled in later,
    followed by `at`, the steps inside the value (keys and indexes of an `Any` value)."""

    def __init__(self, template: str, at: tuple[str, ...] = ()) -> None:
        super().__init__(template)
        self.template = template
        self.at = at


# -- type predicates ------------------------------------------------------------------------------


def is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def is_unset(tp: Any) -> bool:
    return get_origin(tp) is Literal and get_args(tp) == (UNSET,)


def is_literal(tp: Any) -> bool:
    return get_origin(tp) is Literal and not is_unset(tp)


def is_constrained(tp: Any) -> bool:
    return hasattr(tp, "__metadata__") and any(isinstance(m, CONSTRAINT_TYPES) for m in tp.__metadata__)


def is_list(tp: Any) -> bool:
    origin = get_origin(tp)
    if origin is tuple:
        args = get_args(tp)
        return len(args) == 2 and args[1] is Ellipsis
    return origin in (list, Sequence)


def item_type(tp: Any) -> Any:
    return get_args(tp)[0]


def union_members(tp: Any) -> tuple[list[Any], bool, bool]:
    """(members other than None and UNSET, whether None is allowed, whether UNSET is allowed)."""
    members = [m for m in get_args(tp) if m is not type(None) and not is_unset(m)]
    return members, type(None) in get_args(tp), any(is_unset(m) for m in get_args(tp))


# -- strict primitives ---------------------------------------------------------------------------


def _structure_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise Invalid("The {field} must be a string.")
    if "\x00" in value:
        raise Invalid(NUL_MESSAGE)
    if _SURROGATE.search(value):
        raise Invalid("The {field} must be valid Unicode text.")
    return value


def as_integer(value: Any) -> int | None:
    """`value` as an int when JSON Schema calls it an integer (`5`, `5.0`, `5e3`), else None.

    JSON has one number type; a number with no fractional part is an integer, whatever its spelling.
    Booleans and strings are never integers.
    """
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def _structure_int(value: Any, _: Any) -> int:
    result = as_integer(value)
    if result is None:
        raise Invalid("The {field} must be an integer.")
    return result


def _structure_number(value: Any, _: Any) -> float:
    # An int stays an int: its decimal value is exact, and a price of `20` must not become `20.0`.
    if type(value) not in (int, float):
        raise Invalid("The {field} must be a number.")
    return value  # type: ignore[no-any-return]


def _structure_bool(value: Any, _: Any) -> bool:
    if type(value) is not bool:
        raise Invalid("The {field} must be true or false.")
    return value


def _structure_upload(value: Any, _: Any) -> Upload:
    """Only a form's file part is an upload (`engage_http.multipart`); JSON holds none."""
    if isinstance(value, Upload):
        return value
    raise Invalid("The {field} must be an uploaded file.")


def _structure_any(value: Any, _: Any) -> Any:
    _check_free_json(value, ())
    return value


def _check_free_json(value: Any, at: tuple[str, ...]) -> None:
    """No string of a JSON value (keys included) holds a NUL character, and no array in it has more
    than `FREE_ARRAY_MAX` items; `at` locates the one that breaks a rule. Iterative, so a deeply nested
    value cannot exhaust the stack. (Lone surrogates in such values are the field's own rule:
    `product_attributes` names them.)"""
    pending: list[tuple[Any, tuple[str, ...]]] = [(value, at)]
    while pending:
        node, where = pending.pop()
        if isinstance(node, str):
            if "\x00" in node:
                raise Invalid(NUL_MESSAGE, where)
        elif isinstance(node, list):
            if len(node) > FREE_ARRAY_MAX:
                raise Invalid(f"The {{field}} may not have more than {FREE_ARRAY_MAX} items.", where)
            pending.extend((item, (*where, str(index))) for index, item in enumerate(node))
        elif isinstance(node, dict):
            if any("\x00" in key for key in node):  # named by the object: a path never holds a NUL
                raise Invalid(NUL_MESSAGE, where)
            pending.extend((item, (*where, key)) for key, item in node.items())


def _literal_factory(tp: Any) -> Callable[[Any, Any], Any]:
    choices = get_args(tp)
    allowed = {(type(c), c) for c in choices}
    listed = ", ".join(json.dumps(c) for c in choices)

    def structure(value: Any, _: Any) -> Any:
        try:
            ok = (type(value), value) in allowed
        except TypeError:  # unhashable: a list or an object
            ok = False
        if not ok:
            raise Invalid("The {field} must be one of: " + listed + ".")
        return value

    return structure


def _union_factory(conv: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(tp: Any) -> Callable[[Any, Any], Any]:
        members, nullable, _ = union_members(tp)
        if len(members) != 1:
            raise TypeError(f"Unsupported union for request bodies: {tp!r}")
        inner = conv.get_structure_hook(members[0])
        target = members[0]

        def structure(value: Any, _: Any) -> Any:
            if value is None:
                if nullable:
                    return None
                raise Invalid("The {field} may not be null.")
            return inner(value, target)

        return structure

    return factory


def _constrained_factory(conv: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(tp: Any) -> Callable[[Any, Any], Any]:
        base = tp.__origin__
        inner = conv.get_structure_hook(base)
        checks = [m.check for m in tp.__metadata__ if isinstance(m, CONSTRAINT_TYPES) and not isinstance(m, Items)]
        counts = [m.check for m in tp.__metadata__ if isinstance(m, Items)]

        def structure(value: Any, _: Any) -> Any:
            if isinstance(value, list):  # the length first: an oversized array is refused unread
                for count in counts:
                    message = count(value)
                    if message is not None:
                        raise Invalid(message)
            result = inner(value, base)
            for check in checks:
                message = check(result)
                if message is not None:
                    raise Invalid(message)
            return result

        return structure

    return factory


def _list_factory(conv: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(tp: Any) -> Callable[[Any, Any], Any]:
        element = item_type(tp)
        inner = conv.get_structure_hook(element)
        make = tuple if get_origin(tp) is tuple else list

        def structure(value: Any, _: Any) -> Any:
            if not isinstance(value, list):
                raise Invalid("The {field} must be an array.")
            result: list[Any] = []
            errors: list[Exception] = []
            for index, item in enumerate(value):
                try:
                    result.append(inner(item, element))
                except Exception as exc:
                    exc.__notes__ = [*getattr(exc, "__notes__", []), IterableValidationNote(str(index), index, element)]
                    errors.append(exc)
            if errors:
                raise IterableValidationError("While structuring an array", errors, tp)
            return make(result)

        return structure

    return factory


def _attrs_factory(conv: cattrs.Converter) -> Callable[[Any], Callable[[Any, Any], Any]]:
    def factory(cls: Any) -> Callable[[Any, Any], Any]:
        inner = make_dict_structure_fn(cls, conv)

        def structure(value: Any, _: Any) -> Any:
            if not isinstance(value, dict):
                raise Invalid("The {field} must be an object.")
            return inner(value, cls)

        return structure

    return factory


def render_timestamp(moment: datetime) -> str:
    """`engage_core.kernel.clock.format_timestamp`, with a fast path for the UTC datetimes storage returns.

    A page of contacts renders 30 timestamps, and lists are fetched again and again: the UTC ones
    are formatted once and then looked up (`_render_utc`, a bounded cache of a pure function)."""
    if moment.tzinfo is UTC:
        return _render_utc(moment)
    return format_timestamp(moment)


_render_utc = functools.lru_cache(maxsize=4096)(format_timestamp)


_JSON_SCALARS = (str, int, bool, type(None))
"""Types whose values are JSON as they are. Not `float`: a number field may hold the core's `Decimal`
money (`render_number`)."""


def render_number(value: Any) -> Any:
    """A number field's value: the core's `Decimal` amounts as JSON numbers, anything else as it is."""
    return as_number(value) if type(value) is Decimal else value


def _is_json_scalar(tp: Any) -> bool:
    """A type whose values are already JSON: a scalar, a Literal of scalars, a union or sequence of them."""
    if tp in _JSON_SCALARS:
        return True
    if hasattr(tp, "__metadata__"):
        return _is_json_scalar(tp.__origin__)
    if is_literal(tp):
        return True
    if is_union(tp):
        return all(_is_json_scalar(m) for m in get_args(tp))
    if is_list(tp):
        return _is_json_scalar(item_type(tp))
    return False


def make_converter() -> cattrs.Converter:
    """Build the converter. Hook factories registered later take precedence over earlier ones."""
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=False)
    conv.register_structure_hook(str, _structure_str)
    conv.register_structure_hook(int, _structure_int)
    conv.register_structure_hook(float, _structure_number)
    conv.register_structure_hook(bool, _structure_bool)
    conv.register_structure_hook(Any, _structure_any)
    conv.register_structure_hook(Upload, _structure_upload)
    conv.register_structure_hook_factory(attrs.has, _attrs_factory(conv))
    conv.register_structure_hook_factory(is_list, _list_factory(conv))
    conv.register_structure_hook_factory(is_literal, _literal_factory)
    conv.register_structure_hook_factory(is_union, _union_factory(conv))
    conv.register_structure_hook_factory(is_constrained, _constrained_factory(conv))
    conv.register_unstructure_hook(datetime, render_timestamp)
    conv.register_unstructure_hook(float, render_number)
    conv.register_unstructure_hook(Decimal, render_number)  # in a union or `Any` field
    # Values that are already JSON are passed through; `identity` lets cattrs inline attribute reads.
    conv.register_unstructure_hook_factory(_is_json_scalar, lambda _: identity)
    return conv


converter = make_converter()
"""The converter every route uses."""


# -- errors ---------------------------------------------------------------------------------------


def error_map(exc: BaseException, names: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Field path -> messages, from a (possibly nested) cattrs validation error. `names` renames
    top-level attributes (a query parameter named `from`), in the paths and in the messages."""
    errors: dict[str, list[str]] = {}
    if names and isinstance(exc, ClassValidationError):
        for sub in exc.exceptions:
            _collect(sub, tuple(names.get(step, step) for step in _step(sub)), errors)
    else:
        _collect(exc, (), errors)
    return errors


def _collect(exc: BaseException, path: tuple[str, ...], out: dict[str, list[str]]) -> None:
    if isinstance(exc, ClassValidationError | IterableValidationError):
        for sub in exc.exceptions:
            _collect(sub, (*path, *_step(sub)), out)
        return
    if isinstance(exc, Invalid):
        path = (*path, *exc.at)
    for index, step in enumerate(path):
        if "\x00" in step:  # a map key holding NUL: the error names the map, so no path holds a NUL
            path = path[:index]
            break
    field = ".".join(path) or BODY
    if isinstance(exc, Invalid):
        message = exc.template.replace("{field}", field)
    elif isinstance(exc, KeyError):
        message = f"The {field} field is required."
    else:
        message = f"The {field} is invalid."
    out.setdefault(field, []).append(message)


def _step(exc: BaseException) -> tuple[str, ...]:
    """The path step a cattrs note on `exc` records (an attribute name or an index)."""
    for note in getattr(exc, "__notes__", ()):
        if isinstance(note, AttributeValidationNote):
            return (note.name,)
        if isinstance(note, IterableValidationNote):
            return (str(note.index),)
    return ()


# -- entry points ---------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_LONG_DIGIT_RUN = re.compile(rb"[0-9]{19}")


def load_json(raw: bytes) -> Any:
    """Parse a request body. Raises ValidationFailed (422) for an empty or malformed body.

    orjson parses a body several times faster, to the same values, except two kinds that `json`
    reads instead, so that a body means the same whichever parser read it: one with a run of 19
    digits or more (orjson reads an integer beyond 64 bits as a float), and one orjson refuses
    (NaN, a byte-order mark, invalid UTF-8...), which `json`'s rules then accept or refuse."""
    if _LONG_DIGIT_RUN.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    if not raw.strip():
        raise ValidationFailed.on(BODY, "The request body must be a JSON object.")
    try:
        return json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ValidationFailed.on(BODY, "The request body is not valid JSON.") from None


def structure(data: Any, cls: type[T], names: Mapping[str, str] | None = None) -> T:
    """Structure parsed JSON into `cls`, or raise ValidationFailed naming every bad field (a
    top-level attribute by `names[attribute]` when given)."""
    try:
        return converter.structure(data, cls)
    except (ClassValidationError, IterableValidationError, Invalid) as exc:
        errors = error_map(exc, names)
        if errors == {BODY: [f"The {BODY} must be an object."]}:
            errors = {BODY: ["The request body must be a JSON object."]}
        raise ValidationFailed(errors) from None


def unstructure_hook(cls: Any) -> Callable[[Any], Any]:
    """The unstructure function for `cls`, looked up once (routes keep it)."""
    return converter.get_unstructure_hook(cls)


# -- the edge: wire classes and the core values they stand for --------------------------------------

W = TypeVar("W")
C = TypeVar("C")

REQUESTS: dict[type, tuple[type, Callable[[Any], Any]]] = {}
"""Request classes by type: the core class each becomes, and how."""
RESPONSES: dict[type, type] = {}
"""Core classes by type: the response class each renders as."""


def structures_into(core: type[C], convert: Callable[[Any], C] | None = None) -> Callable[[type[W]], type[W]]:
    """Mark a request class (body or query) as standing for `core`: a value structured as it is
    turned into a `core` value by `to_core`, field by field (every field of the request class must
    be one of `core`'s), or by `convert` where the shapes differ."""

    def register(wire: type[W]) -> type[W]:
        REQUESTS[wire] = (core, convert or _field_copy(wire, core))
        return wire

    return register


def _field_copy(wire: type, core: type) -> Callable[[Any], Any]:
    names = tuple(field.name for field in attrs.fields(wire))
    accepted = set(attrs.fields_dict(core))
    unknown = [name for name in names if name not in accepted]
    if unknown:
        raise TypeError(f"{core.__name__} has no field {', '.join(unknown)} of {wire.__name__}")

    def copy(value: Any) -> Any:
        return core(**{name: to_core(getattr(value, name)) for name in names})

    return copy


def core_type(wire: type | None) -> type | None:
    """The core class a request class stands for (itself when it stands for none)."""
    mapped = REQUESTS.get(wire) if wire is not None else None
    return wire if mapped is None else mapped[0]


def to_core(value: Any) -> Any:
    """`value` with every request class in it replaced by the core value it stands for."""
    mapped = REQUESTS.get(type(value))
    if mapped is not None:
        return mapped[1](value)
    if type(value) in (list, tuple):
        return type(value)(to_core(item) for item in value)
    return value


def renders(*core: type) -> Callable[[type[W]], type[W]]:
    """Mark a response class as how each of the `core` classes is rendered: its fields are read
    from the core value's attributes of the same names."""

    def register(wire: type[W]) -> type[W]:
        for cls in core:
            RESPONSES[cls] = wire
        return wire

    return register


__all__ = [
    "BODY",
    "NUL_MESSAGE",
    "REQUESTS",
    "RESPONSES",
    "Invalid",
    "converter",
    "error_map",
    "load_json",
    "renders",
    "structure",
    "structures_into",
    "to_core",
    "unstructure_hook",
]
