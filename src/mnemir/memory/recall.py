"""The recall face of ``Memory``: ``recall(query) -> Recall`` (role-aware, see :mod:`mnemir.retrieve.recall`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemir.errors import ValidationError
from mnemir.memory.core import resolve_now
from mnemir.retrieve.recall import Recall, RecallConfig
from mnemir.retrieve.recall import recall as role_aware_recall
from mnemir.retrieve.search import check_k

if TYPE_CHECKING:
    from mnemir.memory.core import MemoryCore

    _Base = MemoryCore
else:
    _Base = object


class RecallMixin(_Base):
    """Adds :meth:`recall` to :class:`mnemir.Memory`."""

    #: role-aware ranking settings; replace with ``mem.recall_config = RecallConfig(...)``
    recall_config: RecallConfig = RecallConfig()

    def recall(self, query: str, *, user: str | None = None, agent: str | None = None, session: str | None = None,
               k: int = 5, now: datetime | None = None, intent: Any = None,
               include_archived: bool = False) -> Recall:
        """The k memories that serve ``query``, each with its role, score and reasons, and a role-labelled Context.

        ``intent=None`` infers it with :meth:`intent`; a given ``RetrievalIntent`` (e.g. ``mem.intent(q).override(
        types=("Fact",))``) is used as is.
        """
        check_k(k)
        now = resolve_now(now)
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query must be a non-empty string", field="query", value=query,
                                  allowed="a non-empty string")
        scope = self._selection(user=user, agent=agent, session=session, include_archived=include_archived)
        if intent is None:
            intent = self.intent(query, now=now)  # type: ignore[attr-defined]
        elif not hasattr(intent, "types") or not hasattr(intent, "kind"):
            raise ValidationError("intent must be a RetrievalIntent", field="intent", value=type(intent).__name__,
                                  allowed="RetrievalIntent (see Memory.intent)")
        elif intent.query != query:
            intent = intent.override(query=query)
        return role_aware_recall(self.store, self.embedder, self.ontology, intent, scope, k=k, now=now,
                                 config=self.recall_config)
