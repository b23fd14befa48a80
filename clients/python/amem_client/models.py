"""The JSON shapes of the amem API (components/schemas of /openapi.json) as
dataclasses. Times are RFC 3339 strings as the server sends them: Python
before 3.11 cannot parse their nanoseconds, and a string round-trips
exactly. Fields the server adds later are ignored rather than refused, so
an older client keeps working against a newer server."""

from __future__ import annotations

import dataclasses
import sys
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Type, TypeVar

T = TypeVar("T")


def from_json(cls: Type[T], data: Any) -> T:
    """Builds cls from decoded JSON, nested dataclasses and lists included."""
    return typing.cast(T, _convert(cls, data))


def _convert(tp: Any, data: Any) -> Any:
    if data is None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union:  # Optional[X]
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(inner[0], data)
    if origin in (list, List):
        (item,) = typing.get_args(tp)
        return [_convert(item, x) for x in data]
    if origin in (dict, Dict):
        _, value = typing.get_args(tp)
        return {k: _convert(value, v) for k, v in data.items()}
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp, vars(sys.modules[tp.__module__]))
        known = {f.name: f for f in dataclasses.fields(tp)}
        kwargs = {}
        for key, value in data.items():
            if key in known:
                kwargs[key] = _convert(hints[key], value)
        return tp(**kwargs)
    return data


@dataclass
class Health:
    status: str
    version: str = ""


@dataclass
class KeyInfo:
    id: str
    admin: bool
    namespaces: List[str] = field(default_factory=list)


@dataclass
class APIKey:
    """A stored API key (never its token)."""

    id: str
    admin: bool
    namespaces: List[str] = field(default_factory=list)
    name: str = ""
    created_at: str = ""
    revoked_at: Optional[str] = None


@dataclass
class CreatedKey(APIKey):
    """A new key with its token, which is shown this once."""

    token: str = ""


@dataclass
class Webhook:
    """A namespace's webhook, with its delivery counts (never its secret)."""

    id: str
    namespace: str
    url: str
    kinds: List[str] = field(default_factory=list)  # empty: every kind
    created_at: str = ""
    pending: int = 0
    failed: int = 0
    delivered: int = 0
    last_delivered_at: Optional[str] = None
    last_error: str = ""
    last_error_at: Optional[str] = None


@dataclass
class CreatedWebhook:
    """A new webhook with its signing secret, which is shown this once."""

    id: str
    namespace: str
    url: str
    secret: str
    kinds: List[str] = field(default_factory=list)
    created_at: str = ""


@dataclass
class NamespaceInfo:
    name: str
    embedder: str
    dimensions: int
    created_at: str = ""


@dataclass
class UsageTotal:
    operation: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


@dataclass
class Tokens:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class EventRef:
    id: str
    event_time: Optional[str] = None


@dataclass
class Retention:
    """A namespace's retention policy and what it would move to the trash now."""

    namespace: str
    max_age: str = ""
    max_notes: int = 0
    policy: str = ""
    due: int = 0
    oldest_due: Optional[EventRef] = None


@dataclass
class Stats:
    namespace: str
    notes: int
    links: int
    by_state: Dict[str, int] = field(default_factory=dict)
    tokens: Tokens = field(default_factory=Tokens)
    embedder: str = ""
    dimensions: int = 0
    usage: List[UsageTotal] = field(default_factory=list)
    retention: Optional[Retention] = None


@dataclass
class Link:
    source: str
    target: str
    strength: float
    created_at: str
    reason: str = ""
    kind: str = "related"  # related, or supersedes: the source made the target no longer true


@dataclass
class Enrichment:
    state: str  # pending, done or failed
    attempts: int = 0
    error: str = ""
    at: str = ""
    due_at: str = ""


@dataclass
class Note:
    id: str
    namespace: str
    content: str
    event_time: str
    ingest_time: str
    updated_at: str
    version: int
    enrichment: Enrichment
    keywords: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    curator_tags: List[str] = field(default_factory=list)  # the tags amem added; the rest are the caller's
    context: str = ""
    # "keywords" and/or "context" when the caller wrote them: amem never
    # rewrites those until update_note(give_back=[...]).
    caller_set: List[str] = field(default_factory=list)
    metadata: Dict[str, str] = field(default_factory=dict)
    links: List[Link] = field(default_factory=list)
    valid_until: str = ""  # when what it says stopped being true; empty while it holds
    superseded_by: str = ""  # the note that replaced it
    caller_validity: bool = False  # a caller set or cleared its validity; the curator leaves it alone


@dataclass
class NotePage:
    notes: List[Note]
    next: str = ""  # pass as after for the next page; empty on the last


@dataclass
class TrashedNote:
    note: Note
    deleted_at: str
    expires_at: str  # deleted for good then, unless restored


@dataclass
class TrashPage:
    notes: List[TrashedNote]
    next: str = ""  # pass as after for the next page; empty on the last


@dataclass
class Neighbor:
    link: Link
    note: Note


@dataclass
class LinkPage:
    links: List[Link]
    next: str = ""


@dataclass
class FieldChange:
    field: str
    old: str  # JSON-encoded
    new: str  # JSON-encoded


@dataclass
class Version:
    note_id: str
    namespace: str
    version: int
    actor: str
    created_at: str
    changes: List[FieldChange] = field(default_factory=list)
    snapshot: Dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass
class SearchResult:
    id: str
    content: str
    score: float
    kind: str  # direct or linked
    via: str = ""  # for a linked note: the direct hit it came through
    namespace: str = ""
    event_time: str = ""
    keywords: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    curator_tags: List[str] = field(default_factory=list)  # the tags amem added; the rest are the caller's
    context: str = ""
    # "keywords" and/or "context" when the caller wrote them: amem never
    # rewrites those until update_note(give_back=[...]).
    caller_set: List[str] = field(default_factory=list)
    metadata: Dict[str, str] = field(default_factory=dict)
    superseded_by: str = ""  # the note that replaced it, listed above it
    valid_until: str = ""


@dataclass
class NoteInput:
    """A note to create: content, and optionally its event time (RFC 3339),
    keywords, tags, metadata and context. Keywords or a context given are the
    caller's (caller_set): amem keeps them as they are."""

    content: str
    time: Optional[str] = None
    keywords: Optional[List[str]] = None
    tags: Optional[List[str]] = None
    metadata: Optional[Dict[str, str]] = None
    context: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}
