"""Errors: every answer of 400 or more becomes an APIError carrying the
server's application/problem+json fields (RFC 9457)."""

from __future__ import annotations

from typing import Any, Dict, Optional


class APIError(Exception):
    """The server refused or failed a request.

    status is the HTTP status; type, title, detail and instance are the
    problem+json fields. retry_after is the seconds a 429 asks to wait.
    """

    def __init__(
        self,
        status: int,
        title: str,
        detail: str = "",
        type: str = "about:blank",
        instance: str = "",
        retry_after: Optional[int] = None,
    ) -> None:
        super().__init__(f"{status} {title}: {detail}" if detail else f"{status} {title}")
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type
        self.instance = instance
        self.retry_after = retry_after

    @classmethod
    def from_problem(cls, status: int, problem: Dict[str, Any], retry_after: Optional[int]) -> "APIError":
        return cls(
            status=int(problem.get("status") or status),
            title=str(problem.get("title") or ""),
            detail=str(problem.get("detail") or ""),
            type=str(problem.get("type") or "about:blank"),
            instance=str(problem.get("instance") or ""),
            retry_after=retry_after,
        )
