// Runs the installed client against a live amem serve (clients_test.go
// starts it, installs the package beside a copy of this file and runs
// node --test): every method, the errors a caller meets, and paging.
// AMEM_URL is the server; AMEM_KEY a key for namespace AMEM_NS only;
// AMEM_ADMIN_KEY an admin key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, Client } from "amem-client";

const URL = process.env.AMEM_URL;
const NS = process.env.AMEM_NS;
const MISSING = "01M8W34RYXBX4APF6ZFM7DKX9V"; // a well-formed ID no note has
const c = new Client({ baseUrl: URL, apiKey: process.env.AMEM_KEY });
const admin = new Client({ baseUrl: URL, apiKey: process.env.AMEM_ADMIN_KEY });
const anon = new Client({ baseUrl: URL });

async function rejects(promise, status) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.status, status);
    assert.ok(e.title && e.detail && e.instance, JSON.stringify(e));
    return true;
  });
}

test("public routes", async () => {
  assert.equal((await anon.healthz()).status, "ok");
  assert.equal((await anon.readyz()).status, "ready");
  assert.match(await anon.getMetrics(), /amem_/);
  assert.equal((await anon.getOpenApi()).openapi, "3.1.0");
});

test("key and namespaces", async () => {
  const key = await c.getKey();
  assert.equal(key.admin, false);
  assert.deepEqual(key.namespaces, [NS]);
  assert.equal((await admin.getKey()).admin, true);
  await c.createNote(NS, { content: "a note so that the namespace exists" });
  assert.ok((await c.listNamespaces()).some((n) => n.name === NS));
});

test("keys", async () => {
  const made = await admin.createKey({ namespaces: [NS], name: "ts-live" });
  assert.match(made.token, /^amem_/);
  assert.deepEqual(made.namespaces, [NS]);
  const fresh = new Client({ baseUrl: URL, apiKey: made.token });
  assert.equal((await fresh.getKey()).id, made.id);
  const listed = (await admin.listKeys()).find((k) => k.id === made.id);
  assert.equal(listed.name, "ts-live");
  assert.equal(listed.revoked_at, undefined);
  await assert.rejects(c.listKeys(), (e) => e instanceof ApiError && e.status === 403);
  await assert.rejects(admin.createKey({}), (e) => e instanceof ApiError && e.status === 400);
  await admin.revokeKey(made.id);
  await assert.rejects(fresh.getKey(), (e) => e instanceof ApiError && e.status === 401);
  assert.ok((await admin.listKeys()).find((k) => k.id === made.id).revoked_at);
  await assert.rejects(admin.revokeKey("key_000000000000"), (e) => e instanceof ApiError && e.status === 404);
});

test("webhooks", async () => {
  const made = await admin.createWebhook(NS, { url: "https://example.com/amem", kinds: ["deleted", "created"] });
  assert.match(made.id, /^wh_/);
  assert.ok(made.secret.length >= 16);
  assert.deepEqual(made.kinds, ["created", "deleted"]);
  const own = await admin.createWebhook(NS, { url: "https://hooks.example.org/hook", secret: "ts-live-secret-0123" });
  assert.equal(own.secret, "ts-live-secret-0123");
  const listed = (await admin.listWebhooks(NS)).find((h) => h.id === made.id);
  assert.equal(listed.url, "https://example.com/amem");
  assert.equal(listed.failed, 0);
  assert.equal(listed.secret, undefined);
  await rejects(c.listWebhooks(NS), 403);
  await rejects(admin.createWebhook(NS, { url: "ftp://example.com/" }), 400);
  await admin.deleteWebhook(NS, made.id);
  await admin.deleteWebhook(NS, own.id);
  assert.ok(!(await admin.listWebhooks(NS)).some((h) => h.id === made.id));
  await rejects(admin.deleteWebhook(NS, made.id), 404);
});

test("a note's life", async () => {
  const n = await c.createNote(
    NS,
    { content: "Caroline is researching adoption agencies.", time: "2023-05-25T13:56:00Z", tags: ["family"], metadata: { source: "chat" } },
    { wait: true },
  );
  assert.equal(n.enrichment.state, "done");
  assert.deepEqual(n.metadata, { source: "chat" });
  assert.equal((await c.getNote(NS, n.id)).content, n.content);

  const u = await c.updateNote(NS, n.id, { content: "Caroline chose an adoption agency.", reason: "news" });
  assert.equal(u.version, n.version + 1);
  const history = await c.getNoteHistory(NS, n.id);
  assert.ok(history.length >= 2);
  // A new content is enriched again in the background, which may have
  // added a version after ours by now.
  assert.ok(history.some((v) => v.reason === "news" && v.actor === "user"));
  const r = await c.restoreNote(NS, n.id, history[0].version);
  assert.equal(r.content, "Caroline is researching adoption agencies.");

  assert.equal((await c.enrichNote(NS, n.id)).id, n.id);
  assert.ok(Array.isArray(await c.getNoteUsage(NS, n.id)));
  assert.ok(Array.isArray(await c.getNoteLinks(NS, n.id)));

  const hits = await c.searchNotes(NS, "adoption agencies", { k: 5, mode: "lexical", tags: ["family"] });
  assert.ok(hits.some((h) => h.id === n.id));
  // family is the caller's tag, never the curator's.
  assert.ok(Array.isArray(n.curator_tags) && !n.curator_tags.includes("family"));
  const callers = await c.searchNotes(NS, "adoption agencies", { mode: "lexical", tags: ["family"], tag_source: "caller" });
  assert.ok(callers.some((h) => h.id === n.id));
  assert.deepEqual((await c.listNotes(NS, { tags: ["family"], tag_source: "curator" })).notes, []);
  assert.deepEqual(await c.searchNotes(NS, "adoption", { meta: { source: "mail" } }), []);

  assert.equal(await c.deleteNote(NS, n.id), undefined);
  await rejects(c.getNote(NS, n.id), 404);
});

test("trash", async () => {
  const n = await c.createNote(NS, { content: "The lighthouse keeper retires in June." }, { wait: true });
  await c.deleteNote(NS, n.id);
  await rejects(c.getNote(NS, n.id), 404);
  const lexical = async () => (await c.searchNotes(NS, "lighthouse keeper", { mode: "lexical" })).map((h) => h.id);
  assert.ok(!(await lexical()).includes(n.id));
  const trashed = (await c.listTrash(NS, { limit: 1000 })).notes.find((t) => t.note.id === n.id);
  assert.ok(trashed && trashed.expires_at > trashed.deleted_at, JSON.stringify(trashed));

  const back = await c.restoreTrashed(NS, n.id);
  assert.equal(back.version, n.version + 1);
  assert.equal((await c.getNoteHistory(NS, n.id)).at(-1).actor, "restore");
  assert.ok((await lexical()).includes(n.id));
  await rejects(c.restoreTrashed(NS, n.id), 404);

  await c.deleteNote(NS, n.id, { purge: true });
  await rejects(c.restoreTrashed(NS, n.id), 404);

  const gone = await c.createNote(NS, { content: "A note purged from the trash." });
  await c.deleteNote(NS, gone.id);
  assert.equal(await c.purgeTrashed(NS, gone.id), undefined);
  await rejects(c.purgeTrashed(NS, gone.id), 404);
  const emptied = await c.createNote(NS, { content: "A note emptied with the trash." });
  await c.deleteNote(NS, emptied.id);
  assert.ok((await c.emptyTrash(NS)) >= 1);
  assert.deepEqual((await c.listTrash(NS)).notes, []);
});

test("supersession", async () => {
  const word = "zq" + Math.random().toString(36).slice(2, 10);
  const old = await c.createNote(NS, { content: `I live in Boston ${word}.`, time: "2026-01-10T00:00:00Z" }, { wait: true });
  const nw = await c.createNote(NS, { content: `I moved to Seattle ${word}; I live in Seattle now.`, time: "2026-03-15T00:00:00Z" }, { wait: true });
  const marked = await c.updateNote(NS, old.id, { validity: { superseded_by: nw.id } });
  assert.equal(marked.superseded_by, nw.id);
  assert.ok(marked.links.some((l) => l.kind === "supersedes"));
  const hits = await c.searchNotes(NS, `live ${word}`, { mode: "lexical", links: false });
  assert.deepEqual(hits.slice(0, 2).map((h) => h.id), [nw.id, old.id]);
  assert.equal(hits[1].superseded_by, nw.id);
  const then = await c.searchNotes(NS, `live ${word}`, { mode: "lexical", links: false, as_of: "2026-02-01" });
  assert.equal(then[0].id, old.id);
  const now = await c.searchNotes(NS, `live ${word}`, { mode: "lexical", links: false, exclude_superseded: true });
  assert.ok(!now.some((h) => h.id === old.id));
  assert.equal((await c.updateNote(NS, old.id, { validity: {} })).superseded_by, undefined);
});

test("caller_set", async () => {
  const n = await c.createNote(NS, { content: "Rex is my dog.", context: "My own words." }, { wait: true });
  assert.equal(n.context, "My own words.");
  assert.deepEqual(n.caller_set, ["context"]);
  const u = await c.updateNote(NS, n.id, { give_back: ["context"] });
  assert.deepEqual(u.caller_set, []);
  await c.deleteNote(NS, n.id);
});

test("paging", async () => {
  const tag = "page-" + Math.random().toString(36).slice(2, 10);
  const made = await c.createNotes(
    NS,
    Array.from({ length: 7 }, (_, i) => ({ content: `paging note ${i} about gardening and tomatoes`, tags: [tag] })),
    { wait: true },
  );
  assert.equal(made.length, 7);
  const first = await c.listNotes(NS, { tags: [tag], limit: 3 });
  assert.equal(first.notes.length, 3);
  assert.ok(first.next);
  const second = await c.listNotes(NS, { tags: [tag], limit: 3, after: first.next });
  assert.equal(second.notes.length, 3);
  const all = [];
  for await (const n of c.iterNotes(NS, { tags: [tag], limit: 3 })) all.push(n.id);
  assert.deepEqual(all, made.map((n) => n.id));
  const newest = await c.listNotes(NS, { tags: [tag], order: "newest", limit: 1 });
  assert.equal(newest.notes[0].id, made.at(-1).id);

  const stats = await c.getStats(NS);
  assert.ok(stats.notes >= 7);
  assert.ok(stats.links > 0); // the offline curator links the similar notes
  // limit counts notes (a page holds the links those notes chose).
  assert.ok((await c.listLinks(NS, { limit: 1 })).next);
  let links = 0;
  for await (const _ of c.iterLinks(NS, { limit: 2 })) links++;
  assert.equal(links, stats.links);

  // A retention policy too loose to remove anything, then none.
  const policy = await c.setRetention(NS, { max_age: "36500d", max_notes: 1000000 });
  assert.deepEqual([policy.max_age, policy.max_notes, policy.due], ["36500d", 1000000, 0]);
  assert.equal((await c.getStats(NS)).retention.max_notes, 1000000);
  assert.equal((await c.setRetention(NS, {})).policy, "none (every note is kept)");
  assert.equal((await c.getRetention(NS)).max_age, "");
  assert.equal((await c.getStats(NS)).retention, undefined);
});

test("errors", async () => {
  await rejects(new Client({ baseUrl: URL, apiKey: "amem_wrong" }).getKey(), 401);
  await rejects(c.listNotes("someone-else"), 403);
  await rejects(c.getNote(NS, MISSING), 404);
  await rejects(c.getNote(NS, "not-an-id"), 400);
  await rejects(c.listNotes(NS, { limit: 0 }), 400);
});
