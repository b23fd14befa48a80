// Compiled (not run) by TestTypeScriptTypes under strict mode, so that
// index.d.ts stays usable: the README's agent loop and a use of every
// method with the types a caller would write.
import { ApiError, Client } from "amem-client";
import type { ApiKey, CreatedKey, CreatedWebhook, KeyInfo, LinkPage, Neighbor, Note, NotePage, SearchResult, Stats, TrashPage, UsageTotal, Version, Webhook, WebhookEvent } from "amem-client";

declare function callYourLLM(prompt: string): Promise<string>;

const mem = new Client({ baseUrl: "http://127.0.0.1:7077", apiKey: "amem_...", timeoutMs: 30000 });

export async function answer(question: string): Promise<string> {
  const context = await mem.searchNotes("agent", question, { k: 5 });
  const prompt = context.map((r) => `- ${r.content}`).join("\n") + `\n\nUser: ${question}`;
  const reply = await callYourLLM(prompt);
  await mem.createNote("agent", { content: `User: ${question}`, metadata: { role: "user" } });
  await mem.createNote("agent", { content: `Assistant: ${reply}`, metadata: { role: "assistant" } });
  return reply;
}

export async function everyMethod(id: string): Promise<void> {
  const health: string = (await mem.healthz()).status;
  const ready: string = (await mem.readyz()).status;
  const metrics: string = await mem.getMetrics();
  const doc: Record<string, unknown> = await mem.getOpenApi();
  const key: KeyInfo = await mem.getKey();
  const made: CreatedKey = await mem.createKey({ namespaces: ["agent"], name: "bot" });
  const keys: ApiKey[] = await mem.listKeys();
  await mem.revokeKey(made.id);
  const token: string = made.token;
  const revoked: string | undefined = keys[0]?.revoked_at;
  const hook: CreatedWebhook = await mem.createWebhook("agent", { url: "https://example.com/amem", kinds: ["created", "deleted"] });
  const hooks: Webhook[] = await mem.listWebhooks("agent");
  await mem.deleteWebhook("agent", hook.id);
  const secret: string = hook.secret;
  const failing: string | undefined = hooks[0]?.last_error;
  const event = JSON.parse("{}") as WebhookEvent;
  event.kind satisfies "created" | "updated" | "enriched" | "evolved" | "deleted";
  const names: string[] = (await mem.listNamespaces()).map((n) => n.name);
  const stats: Stats = await mem.getStats("agent");
  const note: Note = await mem.createNote("agent", { content: "x", time: null, tags: ["t"] }, { wait: true });
  const notes: Note[] = await mem.createNotes("agent", [{ content: "y" }]);
  const page: NotePage = await mem.listNotes("agent", { limit: 10, order: "newest", state: "done", meta: { k: "v" }, from: "2024-01-01" });
  for await (const n of mem.iterNotes("agent", { tags: ["t"], tag_source: "caller" })) n.enrichment.state satisfies "pending" | "done" | "failed";
  const curated: string[] = note.curator_tags;
  const got: Note = await mem.getNote("agent", id);
  const updated: Note = await mem.updateNote("agent", id, { context: "c", reason: "why" });
  updated.caller_set satisfies ("keywords" | "context")[];
  await mem.updateNote("agent", id, { give_back: ["context"] });
  const gone: void = await mem.deleteNote("agent", id);
  const trash: TrashPage = await mem.listTrash("agent", { limit: 10 });
  const back: Note = await mem.restoreTrashed("agent", trash.notes[0].note.id);
  const purgedOne: void = await mem.purgeTrashed("agent", id);
  const purged: number = await mem.emptyTrash("agent");
  const forGood: void = await mem.deleteNote("agent", id, { purge: true });
  const links: Neighbor[] = await mem.getNoteLinks("agent", id);
  const history: Version[] = await mem.getNoteHistory("agent", id);
  const restored: Note = await mem.restoreNote("agent", id, 1);
  const enriched: Note = await mem.enrichNote("agent", id);
  const usage: UsageTotal[] = await mem.getNoteUsage("agent", id);
  const hits: SearchResult[] = await mem.searchNotes("agent", "q", { mode: "hybrid", links: false });
  const linkPage: LinkPage = await mem.listLinks("agent", { after: page.next, limit: 5 });
  for await (const l of mem.iterLinks("agent")) l.strength.toFixed(2);
  void [health, ready, metrics, doc, key, secret, failing, names, stats, note, notes, got, updated, gone, trash, back, purgedOne, purged, forGood, links, history, restored, enriched, usage, hits, linkPage];
  try {
    await mem.getNote("agent", id);
  } catch (e) {
    if (e instanceof ApiError) {
      const fields: [number, string, string, string, string, number | undefined] = [e.status, e.title, e.detail, e.type, e.instance, e.retryAfter];
      void fields;
    }
  }
}
