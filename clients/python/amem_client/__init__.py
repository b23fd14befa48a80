"""Client for the amem REST API. See Client."""

from .client import Client
from .errors import APIError
from .models import (
    Enrichment,
    FieldChange,
    Health,
    APIKey,
    CreatedKey,
    KeyInfo,
    Link,
    LinkPage,
    NamespaceInfo,
    Neighbor,
    Note,
    NoteInput,
    NotePage,
    SearchResult,
    Stats,
    Tokens,
    UsageTotal,
    Version,
)

__all__ = [
    "APIError",
    "Client",
    "Enrichment",
    "FieldChange",
    "Health",
    "APIKey",
    "CreatedKey",
    "KeyInfo",
    "Link",
    "LinkPage",
    "NamespaceInfo",
    "Neighbor",
    "Note",
    "NoteInput",
    "NotePage",
    "SearchResult",
    "Stats",
    "Tokens",
    "UsageTotal",
    "Version",
]
