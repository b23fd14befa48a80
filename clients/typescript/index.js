// A client for the amem REST API: one method per operation of the
// server's /openapi.json, named after its operationId. Plain ESM with
// hand-written types (index.d.ts), so that `npm install` needs no
// compiler, and fetch, so that it needs no dependency.

/** An answer of 400 or more, with its problem+json fields. */
export class ApiError extends Error {
  constructor(status, problem = {}, retryAfter = undefined) {
    const title = problem.title || String(status);
    super(problem.detail ? `${status} ${title}: ${problem.detail}` : `${status} ${title}`);
    this.name = "ApiError";
    this.status = problem.status || status;
    this.title = title;
    this.detail = problem.detail || "";
    this.type = problem.type || "about:blank";
    this.instance = problem.instance || "";
    this.retryAfter = retryAfter;
  }
}

export class Client {
  constructor({ baseUrl, apiKey = "", timeoutMs = 30000, fetch = globalThis.fetch } = {}) {
    if (!baseUrl) throw new TypeError("amem Client: baseUrl is required");
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.apiKey = apiKey;
    this.timeoutMs = timeoutMs;
    this.fetch = fetch;
  }

  // Public routes.

  async healthz() { return this.#call("GET", "/healthz"); }
  async readyz() { return this.#call("GET", "/readyz"); }
  async getMetrics() { return this.#call("GET", "/metrics"); }
  async getOpenApi() { return this.#call("GET", "/openapi.json"); }

  // The key and its namespaces.

  async getKey() { return this.#call("GET", "/v1/key"); }
  // Keys (an admin key's).

  async listKeys() { return (await this.#call("GET", "/v1/keys")).keys; }
  async createKey({ namespaces = [], admin = false, name = "" } = {}) {
    return this.#call("POST", "/v1/keys", [], { name, admin, namespaces });
  }
  async revokeKey(id) { await this.#call("DELETE", "/v1/keys/" + encodeURIComponent(id)); }

  // Webhooks of a namespace (an admin key's).

  async listWebhooks(ns) { return (await this.#call("GET", path(ns, "webhooks"))).webhooks; }
  async createWebhook(ns, { url, kinds = [], secret } = {}) {
    return this.#call("POST", path(ns, "webhooks"), [], secret === undefined ? { url, kinds } : { url, kinds, secret });
  }
  async deleteWebhook(ns, id) { await this.#call("DELETE", path(ns, "webhooks", id)); }

  async listNamespaces() { return (await this.#call("GET", "/v1/namespaces")).namespaces; }
  async getStats(ns) { return this.#call("GET", path(ns, "stats")); }

  async getRetention(ns) { return this.#call("GET", path(ns, "retention")); }

  async setRetention(ns, policy = {}) { return this.#call("PUT", path(ns, "retention"), [], policy); }

  // Notes.

  async createNote(ns, note, { wait = false } = {}) {
    return this.#call("POST", path(ns, "notes"), flags({ wait }), note);
  }

  async createNotes(ns, notes, { wait = false } = {}) {
    return (await this.#call("POST", path(ns, "notes", "batch"), flags({ wait }), { notes })).notes;
  }

  async listNotes(ns, query = {}) { return this.#call("GET", path(ns, "notes"), params(query)); }

  /** Every note listNotes(ns, query) selects, page after page. */
  async *iterNotes(ns, query = {}) {
    let after = query.after;
    for (;;) {
      const page = await this.listNotes(ns, { ...query, after });
      yield* page.notes;
      if (!page.next) return;
      after = page.next;
    }
  }

  async getNote(ns, id) { return this.#call("GET", path(ns, "notes", id)); }
  async updateNote(ns, id, patch) { return this.#call("PATCH", path(ns, "notes", id), [], patch); }
  /** To the trash (restoreTrashed brings it back); { purge: true }: for good. */
  async deleteNote(ns, id, query = {}) { await this.#call("DELETE", path(ns, "notes", id), params(query)); }
  async getNoteLinks(ns, id) { return (await this.#call("GET", path(ns, "notes", id, "links"))).links; }
  async getNoteHistory(ns, id) { return (await this.#call("GET", path(ns, "notes", id, "history"))).versions; }
  async restoreNote(ns, id, version) { return this.#call("POST", path(ns, "notes", id, "restore"), [], { version }); }
  async enrichNote(ns, id) { return this.#call("POST", path(ns, "notes", id, "enrich")); }
  async getNoteUsage(ns, id) { return (await this.#call("GET", path(ns, "notes", id, "usage"))).usage; }

  // The trash.

  async listTrash(ns, query = {}) { return this.#call("GET", path(ns, "trash"), params(query)); }
  async restoreTrashed(ns, id) { return this.#call("POST", path(ns, "trash", id, "restore")); }
  async purgeTrashed(ns, id) { await this.#call("DELETE", path(ns, "trash", id)); }
  async emptyTrash(ns) { return (await this.#call("DELETE", path(ns, "trash"))).purged; }

  // Search and links.

  async searchNotes(ns, q, query = {}) {
    return (await this.#call("GET", path(ns, "search"), params({ ...query, q }))).results;
  }

  async listLinks(ns, query = {}) { return this.#call("GET", path(ns, "links"), params(query)); }

  /** Every link of the namespace, page after page. */
  async *iterLinks(ns, { limit } = {}) {
    let after;
    for (;;) {
      const page = await this.listLinks(ns, { after, limit });
      yield* page.links;
      if (!page.next) return;
      after = page.next;
    }
  }

  // Transport.

  async #call(method, route, query = [], body = undefined) {
    let url = this.baseUrl + route;
    if (query.length) url += "?" + new URLSearchParams(query);
    const headers = { Accept: "application/json" };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await this.fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    const json = (res.headers.get("Content-Type") || "").includes("json");
    if (!res.ok) {
      let problem;
      try {
        problem = json ? JSON.parse(text) : undefined;
      } catch {
        // Not the server's answer (a proxy's, say): keep what there is.
      }
      if (!problem || typeof problem !== "object") problem = { title: res.statusText, detail: text.slice(0, 500) };
      const retry = Number.parseInt(res.headers.get("Retry-After") || "", 10);
      throw new ApiError(res.status, problem, Number.isNaN(retry) ? undefined : retry);
    }
    if (!text) return undefined;
    return json ? JSON.parse(text) : text;
  }
}

// path escapes each path value whole: a namespace may hold : and @.
function path(ns, ...rest) {
  return ["/v1/namespaces", ns, ...rest].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join("/");
}

function flags(f) {
  return Object.entries(f).filter(([, v]) => v).map(([k]) => [k, "true"]);
}

// params turns a query object into repeated pairs: tags are tag=,
// meta {k: v} is meta=k=v, undefined is left out.
function params(query) {
  const out = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (name === "tags") for (const t of value) out.push(["tag", t]);
    else if (name === "meta") for (const [k, v] of Object.entries(value)) out.push(["meta", `${k}=${v}`]);
    else out.push([name, String(value)]);
  }
  return out;
}
