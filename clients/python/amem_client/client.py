"""A synchronous client for the amem REST API, one method per operation of
/openapi.json: the method is the operationId in snake_case (createNote is
create_note). Standard library only, so it installs where no package
registry can be reached."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import APIError
from .models import (
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
    Retention,
    Stats,
    TrashedNote,
    TrashPage,
    UsageTotal,
    Version,
    Webhook,
    CreatedWebhook,
    from_json,
)

Query = List[Tuple[str, str]]


class Client:
    """Talks to one amem server with one API key.

    base_url is the server's root (http://127.0.0.1:7077); api_key a key
    from `amem keys create`, sent as a bearer token (the public routes
    healthz, readyz, get_metrics and get_open_api need none); timeout the
    seconds one request may take.
    """

    def __init__(self, base_url: str, api_key: str = "", timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    # Public routes.

    def healthz(self) -> Health:
        return from_json(Health, self._call("GET", "/healthz"))

    def readyz(self) -> Health:
        """Raises APIError (503) when the store cannot take requests."""
        return from_json(Health, self._call("GET", "/readyz"))

    def get_metrics(self) -> str:
        """The Prometheus text exposition."""
        return self._call("GET", "/metrics")

    def get_open_api(self) -> Dict[str, Any]:
        """The server's OpenAPI 3.1 document."""
        return self._call("GET", "/openapi.json")

    # The key and its namespaces.

    def get_key(self) -> KeyInfo:
        return from_json(KeyInfo, self._call("GET", "/v1/key"))

    # Keys (an admin key's).

    def list_keys(self) -> List[APIKey]:
        return from_json(List[APIKey], self._call("GET", "/v1/keys")["keys"])

    def create_key(self, *, namespaces: Optional[List[str]] = None, admin: bool = False, name: str = "") -> CreatedKey:
        """A new key for the namespaces (or every one, admin); its token is in .token, shown this once."""
        body: Dict[str, Any] = {"name": name, "admin": admin, "namespaces": list(namespaces or [])}
        return from_json(CreatedKey, self._call("POST", "/v1/keys", body=body))

    def revoke_key(self, id: str) -> None:
        self._call("DELETE", "/v1/keys/" + urllib.parse.quote(id, safe=""))

    # Webhooks of a namespace (an admin key's).

    def list_webhooks(self, ns: str) -> List[Webhook]:
        return from_json(List[Webhook], self._call("GET", _ns(ns, "/webhooks"))["webhooks"])

    def create_webhook(
        self, ns: str, url: str, *, kinds: Optional[Sequence[str]] = None, secret: Optional[str] = None
    ) -> CreatedWebhook:
        """POSTs the namespace's note events (every kind unless kinds says) to url, signed with
        the secret (generated unless given; in .secret, shown this once)."""
        body: Dict[str, Any] = {"url": url, "kinds": list(kinds or [])}
        if secret is not None:
            body["secret"] = secret
        return from_json(CreatedWebhook, self._call("POST", _ns(ns, "/webhooks"), body=body))

    def delete_webhook(self, ns: str, id: str) -> None:
        self._call("DELETE", _ns(ns, "/webhooks/", id))

    def list_namespaces(self) -> List[NamespaceInfo]:
        return from_json(List[NamespaceInfo], self._call("GET", "/v1/namespaces")["namespaces"])

    def get_stats(self, ns: str) -> Stats:
        return from_json(Stats, self._call("GET", _ns(ns, "/stats")))

    def get_retention(self, ns: str) -> Retention:
        return from_json(Retention, self._call("GET", _ns(ns, "/retention")))

    def set_retention(self, ns: str, *, max_age: str = "", max_notes: int = 0) -> Retention:
        """Sets the policy: max_age in whole days ("90d") or a duration ("2160h"); both empty or 0 turn it off."""
        body: Dict[str, Any] = {"max_age": max_age, "max_notes": max_notes}
        return from_json(Retention, self._call("PUT", _ns(ns, "/retention"), body=body))

    # Notes.

    def create_note(
        self,
        ns: str,
        content: str,
        *,
        time: Optional[str] = None,
        keywords: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        metadata: Optional[Mapping[str, str]] = None,
        context: Optional[str] = None,
        wait: bool = False,
    ) -> Note:
        """Stores a memory; it is searchable when this returns. wait=True
        enriches it (keywords, tags, context, links) before answering.
        Keywords or a context given are yours: amem keeps them as they are."""
        body = NoteInput(content, time, _list(keywords), _list(tags), _dict(metadata), context).to_json()
        return from_json(Note, self._call("POST", _ns(ns, "/notes"), _flags(wait=wait), body))

    def create_notes(self, ns: str, notes: Sequence[Union[NoteInput, str]], *, wait: bool = False) -> List[Note]:
        """Stores up to 1000 notes at once, all or none; a str is a note's content."""
        body = {"notes": [(NoteInput(n) if isinstance(n, str) else n).to_json() for n in notes]}
        page = self._call("POST", _ns(ns, "/notes/batch"), _flags(wait=wait), body)
        return from_json(List[Note], page["notes"])

    def list_notes(
        self,
        ns: str,
        *,
        after: Optional[str] = None,
        limit: Optional[int] = None,
        state: Optional[str] = None,
        order: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        tag_source: Optional[str] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        meta: Optional[Mapping[str, str]] = None,
    ) -> NotePage:
        """One page of notes in ID (creation) order; pass page.next as after
        for the next one, or use iter_notes. tag_source "caller" matches
        tags against the caller's tags only, "curator" against amem's."""
        q = _query(after=after, limit=limit, state=state, order=order, tags=tags, tag_source=tag_source,
                   from_=from_, to=to, meta=meta)
        return from_json(NotePage, self._call("GET", _ns(ns, "/notes"), q))

    def iter_notes(self, ns: str, **filters: Any) -> Iterator[Note]:
        """Every note list_notes(ns, **filters) selects, page after page."""
        after = filters.pop("after", None)
        while True:
            page = self.list_notes(ns, after=after, **filters)
            yield from page.notes
            if not page.next:
                return
            after = page.next

    def get_note(self, ns: str, id: str) -> Note:
        return from_json(Note, self._call("GET", _ns(ns, "/notes/", id)))

    def update_note(
        self,
        ns: str,
        id: str,
        *,
        content: Optional[str] = None,
        time: Optional[str] = None,
        keywords: Optional[Sequence[str]] = None,
        tags: Optional[Sequence[str]] = None,
        context: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        give_back: Optional[Sequence[str]] = None,
        reason: Optional[str] = None,
        validity: Optional[Mapping[str, str]] = None,
    ) -> Note:
        """Changes the fields given (None: unchanged); kept in the history.
        validity is the caller's word on whether the note is still true:
        {"superseded_by": ID}, {"valid_until": TIME}, or {} to restore it.
        Keywords or a context given become yours (caller_set), which amem no
        longer rewrites; give_back=["context"] (or "keywords") hands them back."""
        body = {
            k: v
            for k, v in dict(
                content=content,
                time=time,
                keywords=_list(keywords),
                tags=_list(tags),
                context=context,
                metadata=_dict(metadata),
                give_back=_list(give_back),
                reason=reason,
                validity=_dict(validity),
            ).items()
            if v is not None
        }
        return from_json(Note, self._call("PATCH", _ns(ns, "/notes/", id), body=body))

    def delete_note(self, ns: str, id: str, *, purge: Optional[bool] = None) -> None:
        """Moves the note to the namespace's trash (restore_trashed brings it
        back); purge=True deletes it for good, live or trashed."""
        self._call("DELETE", _ns(ns, "/notes/", id), _query(purge=purge))

    def get_note_links(self, ns: str, id: str) -> List[Neighbor]:
        """The notes linked to this one, strongest link first."""
        return from_json(List[Neighbor], self._call("GET", _ns(ns, "/notes/", id, "/links"))["links"])

    def get_note_history(self, ns: str, id: str) -> List[Version]:
        """Every version of the note, oldest first."""
        return from_json(List[Version], self._call("GET", _ns(ns, "/notes/", id, "/history"))["versions"])

    def restore_note(self, ns: str, id: str, version: int) -> Note:
        """Makes an earlier version current again, as a new version."""
        return from_json(Note, self._call("POST", _ns(ns, "/notes/", id, "/restore"), body={"version": version}))

    def enrich_note(self, ns: str, id: str) -> Note:
        """Enriches the note now rather than in the background."""
        return from_json(Note, self._call("POST", _ns(ns, "/notes/", id, "/enrich")))

    def get_note_usage(self, ns: str, id: str) -> List[UsageTotal]:
        """Model tokens the note's enrichment spent, per operation."""
        return from_json(List[UsageTotal], self._call("GET", _ns(ns, "/notes/", id, "/usage"))["usage"])

    # The trash.

    def list_trash(self, ns: str, *, after: Optional[str] = None, limit: Optional[int] = None) -> TrashPage:
        """One page of the namespace's deleted notes, in ID order, each with
        when it was deleted and when it expires."""
        return from_json(TrashPage, self._call("GET", _ns(ns, "/trash"), _query(after=after, limit=limit)))

    def restore_trashed(self, ns: str, id: str) -> Note:
        """Brings a deleted note back from the trash as a new version, with its
        history and its links to notes that still exist."""
        return from_json(Note, self._call("POST", _ns(ns, "/trash/", id, "/restore")))

    def purge_trashed(self, ns: str, id: str) -> None:
        """Deletes one note of the trash for good."""
        self._call("DELETE", _ns(ns, "/trash/", id))

    def empty_trash(self, ns: str) -> int:
        """Deletes every note in the namespace's trash for good; returns how many."""
        return int(self._call("DELETE", _ns(ns, "/trash"))["purged"])

    # Search and links.

    def search_notes(
        self,
        ns: str,
        q: str,
        *,
        k: Optional[int] = None,
        mode: Optional[str] = None,
        profile: Optional[str] = None,
        min_score: Optional[float] = None,
        links: Optional[bool] = None,
        tags: Optional[Sequence[str]] = None,
        tag_source: Optional[str] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        meta: Optional[Mapping[str, str]] = None,
        as_of: Optional[str] = None,
        exclude_superseded: Optional[bool] = None,
    ) -> List[SearchResult]:
        """The context for q: the k best direct hits, then the notes linked
        to them (links=False leaves those out); tag_source as list_notes.
        A direct hit's score is its relevance, 0 to 1; min_score leaves out
        weaker hits. profile: auto (default), general or conversation.
        as_of answers with what was current then; exclude_superseded leaves
        out notes no longer true (else each follows what replaced it)."""
        query = _query(q=q, k=k, mode=mode, profile=profile, min_score=min_score, links=links, tags=tags,
                       tag_source=tag_source, from_=from_, to=to, meta=meta, as_of=as_of,
                       exclude_superseded=exclude_superseded)
        return from_json(List[SearchResult], self._call("GET", _ns(ns, "/search"), query)["results"])

    def list_links(self, ns: str, *, after: Optional[str] = None, limit: Optional[int] = None) -> LinkPage:
        """One page of the namespace's links; pass page.next as after."""
        return from_json(LinkPage, self._call("GET", _ns(ns, "/links"), _query(after=after, limit=limit)))

    def iter_links(self, ns: str, *, limit: Optional[int] = None) -> Iterator[Link]:
        """Every link of the namespace, page after page."""
        after: Optional[str] = None
        while True:
            page = self.list_links(ns, after=after, limit=limit)
            yield from page.links
            if not page.next:
                return
            after = page.next

    # Transport.

    def _call(self, method: str, path: str, query: Optional[Query] = None, body: Any = None) -> Any:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, method=method)
        req.add_header("Accept", "application/json")
        if self.api_key:
            req.add_header("Authorization", "Bearer " + self.api_key)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, data, timeout=self.timeout) as resp:
                raw = resp.read()
                ctype = resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            raise _error(e) from None
        if not raw:
            return None
        if "json" in ctype:
            return json.loads(raw)
        return raw.decode()


def _error(e: urllib.error.HTTPError) -> APIError:
    raw = e.read()
    retry = e.headers.get("Retry-After")
    retry_after = int(retry) if retry and retry.isdigit() else None
    try:
        problem = json.loads(raw)
    except ValueError:
        problem = None
    if not isinstance(problem, dict):
        # Not the server's answer (a proxy's, say): keep what there is.
        problem = {"title": e.reason, "detail": raw.decode(errors="replace")[:500]}
    return APIError.from_problem(e.code, problem, retry_after)


def _ns(ns: str, *rest: str) -> str:
    # Path values are escaped whole: a namespace may hold : and @, an ID
    # from a caller anything.
    parts = [p if p.startswith("/") else urllib.parse.quote(p, safe="") for p in rest]
    return "/v1/namespaces/" + urllib.parse.quote(ns, safe="") + "".join(parts)


def _flags(**flags: bool) -> Query:
    return [(k, "true") for k, v in flags.items() if v]


def _query(**params: Any) -> Query:
    q: Query = []
    for name, value in params.items():
        if value is None:
            continue
        if name == "tags":
            q.extend(("tag", t) for t in value)
        elif name == "meta":
            q.extend(("meta", f"{k}={v}") for k, v in value.items())
        elif isinstance(value, bool):
            q.append((name, "true" if value else "false"))
        else:
            q.append((name.rstrip("_"), str(value)))
    return q


def _list(s: Optional[Sequence[str]]) -> Optional[List[str]]:
    return None if s is None else list(s)


def _dict(m: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    return None if m is None else dict(m)
