"""Runs the installed client against a live amem serve (clients_test.go
starts it): every method, the errors a caller meets, and paging.

AMEM_URL is the server; AMEM_KEY a key for namespace AMEM_NS only;
AMEM_ADMIN_KEY an admin key."""

import os
import unittest
import uuid

from amem_client import APIError, Client, Note, NoteInput

URL = os.environ["AMEM_URL"]
NS = os.environ["AMEM_NS"]
MISSING = "01M8W34RYXBX4APF6ZFM7DKX9V"  # a well-formed ID no note has


class Live(unittest.TestCase):
    def setUp(self) -> None:
        self.c = Client(URL, os.environ["AMEM_KEY"], timeout=30)
        self.admin = Client(URL, os.environ["AMEM_ADMIN_KEY"], timeout=30)

    def test_public(self) -> None:
        self.assertEqual(Client(URL).healthz().status, "ok")
        self.assertEqual(Client(URL).readyz().status, "ready")
        self.assertIn("amem_", Client(URL).get_metrics())
        doc = Client(URL).get_open_api()
        self.assertEqual(doc["openapi"], "3.1.0")

    def test_key_and_namespaces(self) -> None:
        key = self.c.get_key()
        self.assertFalse(key.admin)
        self.assertEqual(key.namespaces, [NS])
        self.assertTrue(self.admin.get_key().admin)
        self.c.create_note(NS, "a note so that the namespace exists")
        self.assertIn(NS, [n.name for n in self.c.list_namespaces()])

    def test_keys(self) -> None:
        made = self.admin.create_key(namespaces=[NS], name="py-live")
        self.assertTrue(made.token.startswith("amem_"))
        self.assertEqual(made.namespaces, [NS])
        self.assertFalse(made.admin)
        fresh = Client(URL, made.token, timeout=30)
        self.assertEqual(fresh.get_key().id, made.id)
        listed = {k.id: k for k in self.admin.list_keys()}
        self.assertEqual(listed[made.id].name, "py-live")
        self.assertIsNone(listed[made.id].revoked_at)
        with self.assertRaises(APIError) as e:
            self.c.list_keys()
        self.assertEqual(e.exception.status, 403)
        with self.assertRaises(APIError) as e:
            self.admin.create_key()
        self.assertEqual(e.exception.status, 400)
        self.admin.revoke_key(made.id)
        with self.assertRaises(APIError) as e:
            fresh.get_key()
        self.assertEqual(e.exception.status, 401)
        self.assertIsNotNone({k.id: k for k in self.admin.list_keys()}[made.id].revoked_at)
        with self.assertRaises(APIError) as e:
            self.admin.revoke_key("key_000000000000")
        self.assertEqual(e.exception.status, 404)

    def test_webhooks(self) -> None:
        made = self.admin.create_webhook(NS, "https://example.com/amem", kinds=["deleted", "created"])
        self.assertTrue(made.id.startswith("wh_"))
        self.assertGreaterEqual(len(made.secret), 16)
        self.assertEqual(made.kinds, ["created", "deleted"])
        own = self.admin.create_webhook(NS, "https://hooks.example.org/hook", secret="py-live-secret-0123")
        self.assertEqual(own.secret, "py-live-secret-0123")
        self.assertEqual(own.kinds, [])
        listed = {h.id: h for h in self.admin.list_webhooks(NS)}
        self.assertEqual(listed[made.id].url, "https://example.com/amem")
        self.assertEqual(listed[made.id].failed, 0)
        with self.assertRaises(APIError) as e:
            self.c.list_webhooks(NS)
        self.assertEqual(e.exception.status, 403)
        with self.assertRaises(APIError) as e:
            self.admin.create_webhook(NS, "ftp://example.com/")
        self.assertEqual(e.exception.status, 400)
        self.admin.delete_webhook(NS, made.id)
        self.admin.delete_webhook(NS, own.id)
        self.assertNotIn(made.id, {h.id for h in self.admin.list_webhooks(NS)})
        with self.assertRaises(APIError) as e:
            self.admin.delete_webhook(NS, made.id)
        self.assertEqual(e.exception.status, 404)

    def test_note_lifecycle(self) -> None:
        n = self.c.create_note(
            NS,
            "Caroline is researching adoption agencies.",
            time="2023-05-25T13:56:00Z",
            tags=["family"],
            metadata={"source": "chat"},
            wait=True,
        )
        self.assertIsInstance(n, Note)
        self.assertEqual(n.enrichment.state, "done")
        self.assertEqual(n.metadata, {"source": "chat"})
        self.assertEqual(self.c.get_note(NS, n.id).content, n.content)

        u = self.c.update_note(NS, n.id, content="Caroline chose an adoption agency.", reason="news")
        self.assertEqual(u.version, n.version + 1)
        history = self.c.get_note_history(NS, n.id)
        self.assertGreaterEqual(len(history), 2)
        # A new content is enriched again in the background, which may
        # have added a version after ours by now.
        self.assertIn(("user", "news"), [(v.actor, v.reason) for v in history])
        r = self.c.restore_note(NS, n.id, history[0].version)
        self.assertEqual(r.content, "Caroline is researching adoption agencies.")

        self.assertEqual(self.c.enrich_note(NS, n.id).id, n.id)
        self.assertIsInstance(self.c.get_note_usage(NS, n.id), list)
        self.assertIsInstance(self.c.get_note_links(NS, n.id), list)

        hits = self.c.search_notes(NS, "adoption agencies", k=5, mode="lexical", tags=["family"])
        self.assertIn(n.id, [h.id for h in hits])
        # family is the caller's tag, never the curator's.
        self.assertNotIn("family", n.curator_tags)
        hits = self.c.search_notes(NS, "adoption agencies", mode="lexical", tags=["family"], tag_source="caller")
        self.assertIn(n.id, [h.id for h in hits])
        self.assertEqual(self.c.list_notes(NS, tags=["family"], tag_source="curator").notes, [])
        self.assertEqual(self.c.search_notes(NS, "adoption", meta={"source": "mail"}), [])

        self.c.delete_note(NS, n.id)
        with self.assertRaises(APIError) as e:
            self.c.get_note(NS, n.id)
        self.assertEqual(e.exception.status, 404)

    def test_trash(self) -> None:
        n = self.c.create_note(NS, "The lighthouse keeper retires in June.", wait=True)
        self.c.delete_note(NS, n.id)
        with self.assertRaises(APIError) as e:
            self.c.get_note(NS, n.id)
        self.assertEqual(e.exception.status, 404)
        self.assertNotIn(n.id, [h.id for h in self.c.search_notes(NS, "lighthouse keeper", mode="lexical")])
        trashed = {t.note.id: t for t in self.c.list_trash(NS, limit=1000).notes}
        self.assertIn(n.id, trashed)
        self.assertGreater(trashed[n.id].expires_at, trashed[n.id].deleted_at)

        r = self.c.restore_trashed(NS, n.id)
        self.assertEqual(r.version, n.version + 1)
        self.assertEqual(self.c.get_note_history(NS, n.id)[-1].actor, "restore")
        self.assertIn(n.id, [h.id for h in self.c.search_notes(NS, "lighthouse keeper", mode="lexical")])
        with self.assertRaises(APIError) as e:
            self.c.restore_trashed(NS, n.id)
        self.assertEqual(e.exception.status, 404)

        self.c.delete_note(NS, n.id, purge=True)
        with self.assertRaises(APIError) as e:
            self.c.restore_trashed(NS, n.id)
        self.assertEqual(e.exception.status, 404)

        gone = self.c.create_note(NS, "A note purged from the trash.")
        self.c.delete_note(NS, gone.id)
        self.c.purge_trashed(NS, gone.id)
        with self.assertRaises(APIError) as e:
            self.c.purge_trashed(NS, gone.id)
        self.assertEqual(e.exception.status, 404)
        emptied = self.c.create_note(NS, "A note emptied with the trash.")
        self.c.delete_note(NS, emptied.id)
        self.assertGreaterEqual(self.c.empty_trash(NS), 1)
        self.assertEqual(self.c.list_trash(NS).notes, [])

    def test_supersession(self) -> None:
        word = "zq" + uuid.uuid4().hex[:8]
        old = self.c.create_note(NS, f"I live in Boston {word}.", time="2026-01-10T00:00:00Z", wait=True)
        new = self.c.create_note(NS, f"I moved to Seattle {word}; I live in Seattle now.", time="2026-03-15T00:00:00Z", wait=True)
        marked = self.c.update_note(NS, old.id, validity={"superseded_by": new.id})
        self.assertEqual((marked.superseded_by, marked.caller_validity), (new.id, True))
        self.assertIn("supersedes", [link.kind for link in marked.links])
        hits = self.c.search_notes(NS, f"live {word}", mode="lexical", links=False)
        self.assertEqual([h.id for h in hits[:2]], [new.id, old.id])
        self.assertEqual(hits[1].superseded_by, new.id)
        then = self.c.search_notes(NS, f"live {word}", mode="lexical", links=False, as_of="2026-02-01")
        self.assertEqual([h.id for h in then][:1], [old.id])
        now = self.c.search_notes(NS, f"live {word}", mode="lexical", links=False, exclude_superseded=True)
        self.assertNotIn(old.id, [h.id for h in now])
        self.assertEqual(self.c.update_note(NS, old.id, validity={}).superseded_by, "")

    def test_caller_set(self) -> None:
        n = self.c.create_note(NS, "Rex is my dog.", context="My own words.", wait=True)
        self.assertEqual((n.context, n.caller_set), ("My own words.", ["context"]))
        u = self.c.update_note(NS, n.id, give_back=["context"])
        self.assertEqual(u.caller_set, [])
        self.c.delete_note(NS, n.id)

    def test_paging(self) -> None:
        tag = "page-" + uuid.uuid4().hex[:8]
        made = self.c.create_notes(
            NS,
            [NoteInput(f"paging note {i} about gardening and tomatoes", tags=[tag]) for i in range(7)],
            wait=True,
        )
        self.assertEqual(len(made), 7)
        first = self.c.list_notes(NS, tags=[tag], limit=3)
        self.assertEqual(len(first.notes), 3)
        self.assertTrue(first.next)
        second = self.c.list_notes(NS, tags=[tag], limit=3, after=first.next)
        self.assertEqual(len(second.notes), 3)
        self.assertEqual([n.id for n in self.c.iter_notes(NS, tags=[tag], limit=3)], [n.id for n in made])
        newest = self.c.list_notes(NS, tags=[tag], order="newest", limit=1)
        self.assertEqual(newest.notes[0].id, made[-1].id)

        stats = self.c.get_stats(NS)
        self.assertGreaterEqual(stats.notes, 7)
        self.assertGreater(stats.links, 0)  # the offline curator links the similar notes
        # limit counts notes (a page holds the links those notes chose).
        self.assertTrue(self.c.list_links(NS, limit=1).next)
        self.assertEqual(len(list(self.c.iter_links(NS, limit=2))), stats.links)

        # A retention policy too loose to remove anything, then none.
        policy = self.c.set_retention(NS, max_age="36500d", max_notes=1000000)
        self.assertEqual((policy.max_age, policy.max_notes, policy.due), ("36500d", 1000000, 0))
        retention = self.c.get_stats(NS).retention
        self.assertIsNotNone(retention)
        self.assertEqual(retention.max_notes if retention else 0, 1000000)
        self.assertEqual(self.c.set_retention(NS).policy, "none (every note is kept)")
        self.assertEqual(self.c.get_retention(NS).max_age, "")
        self.assertIsNone(self.c.get_stats(NS).retention)

    def test_errors(self) -> None:
        with self.assertRaises(APIError) as e:
            Client(URL, "amem_wrong").get_key()
        self.assertEqual(e.exception.status, 401)
        self.assertEqual(e.exception.title, "Unauthorized")

        with self.assertRaises(APIError) as e:
            self.c.list_notes("someone-else")
        self.assertEqual(e.exception.status, 403)
        self.assertEqual(e.exception.instance, "/v1/namespaces/someone-else/notes")

        with self.assertRaises(APIError) as e:
            self.c.get_note(NS, MISSING)
        self.assertEqual(e.exception.status, 404)
        self.assertTrue(e.exception.detail)

        with self.assertRaises(APIError) as e:
            self.c.get_note(NS, "not-an-id")
        self.assertEqual(e.exception.status, 400)
        with self.assertRaises(APIError) as e:
            self.c.list_notes(NS, limit=0)
        self.assertEqual(e.exception.status, 400)
        self.assertEqual(e.exception.type, "about:blank")


if __name__ == "__main__":
    unittest.main()
