// Types of the amem REST API (components/schemas of /openapi.json) and its
// client. Times are RFC 3339 strings, as the server sends them.

export interface Health { status: string; version?: string }
export interface KeyInfo { id: string; admin: boolean; namespaces: string[] }
/** A stored API key (never its token). */
export interface ApiKey {
  id: string;
  name?: string;
  admin: boolean;
  namespaces: string[];
  created_at: string;
  revoked_at?: string;
}
/** A new key with its token, which is shown this once. */
export interface CreatedKey extends ApiKey { token: string }
/** The kinds of note events a webhook is sent. */
export type EventKind = "created" | "updated" | "enriched" | "evolved" | "deleted";
/** A namespace's webhook with its delivery counts (never its secret). */
export interface Webhook {
  id: string;
  namespace: string;
  url: string;
  /** Empty: every kind. */
  kinds: EventKind[];
  created_at: string;
  pending: number;
  failed: number;
  delivered: number;
  last_delivered_at?: string;
  last_error?: string;
  last_error_at?: string;
}
/** A new webhook with its signing secret, which is shown this once. */
export interface CreatedWebhook {
  id: string;
  namespace: string;
  url: string;
  kinds: EventKind[];
  created_at: string;
  secret: string;
}
/** The JSON body POSTed to a webhook's URL (check Amem-Signature first). */
export interface WebhookEvent {
  id: string;
  kind: EventKind;
  namespace: string;
  note_id: string;
  version: number;
  at: string;
}
export interface NamespaceInfo { name: string; embedder: string; dimensions: number; created_at?: string }
export interface UsageTotal { operation: string; calls: number; prompt_tokens: number; completion_tokens: number }

export interface Stats {
  namespace: string;
  notes: number;
  by_state: Record<string, number>;
  links: number;
  embedder?: string;
  dimensions?: number;
  usage?: UsageTotal[];
  tokens: { prompt_tokens?: number; completion_tokens?: number };
  /** Absent without a policy. */
  retention?: Retention;
}

export interface Retention {
  namespace: string;
  /** Whole days ("90d") or a duration ("36h0m0s"); "" for no limit. */
  max_age: string;
  /** 0 for no limit. */
  max_notes: number;
  policy: string;
  /** How many notes the policy would move to the trash now. */
  due: number;
  oldest_due?: { id: string; event_time?: string };
}

export interface Link {
  source: string; target: string; reason?: string; strength: number; created_at: string;
  /** related: one topic; supersedes: the source made the target no longer true. */
  kind: "related" | "supersedes";
}

export interface Enrichment {
  state: "pending" | "done" | "failed";
  error?: string;
  attempts: number;
  at?: string;
  due_at?: string;
}

export interface Note {
  id: string;
  namespace: string;
  content: string;
  event_time: string;
  ingest_time: string;
  updated_at: string;
  keywords: string[];
  tags: string[];
  /** The tags amem's curator added; the rest are the caller's. */
  curator_tags: string[];
  context: string;
  /** The attributes the caller wrote, which amem never rewrites until given back. */
  caller_set: ("keywords" | "context")[];
  metadata?: Record<string, string>;
  links: Link[];
  version: number;
  enrichment: Enrichment;
  /** When what the note says stopped being true; absent while it holds. */
  valid_until?: string;
  /** The note that replaced this one. */
  superseded_by?: string;
  /** True once a caller set or cleared the validity; the curator then leaves it alone. */
  caller_validity?: boolean;
}

/** A page: pass next as after for the next one; absent on the last. */
export interface NotePage { notes: Note[]; next?: string }
export interface LinkPage { links: Link[]; next?: string }
/** A deleted note, restorable until expires_at. */
export interface TrashedNote { note: Note; deleted_at: string; expires_at: string }
export interface TrashPage { notes: TrashedNote[]; next?: string }
export interface Neighbor { link: Link; note: Note }

export interface Version {
  note_id: string;
  namespace: string;
  version: number;
  actor: "user" | "construct" | "evolve" | "restore" | "import";
  reason?: string;
  /** old and new are JSON-encoded values. */
  changes: { field: string; old: string; new: string }[];
  snapshot: Record<string, unknown>;
  created_at: string;
}

export interface SearchResult {
  id: string;
  content: string;
  score: number;
  kind: "direct" | "linked";
  /** For a linked note: the direct hit it came through. */
  via?: string;
  namespace?: string;
  event_time?: string;
  keywords?: string[];
  tags?: string[];
  /** The tags amem's curator added; the rest are the caller's. */
  curator_tags?: string[];
  context?: string;
  /** The attributes the caller wrote, which amem never rewrites until given back. */
  caller_set?: ("keywords" | "context")[];
  metadata?: Record<string, string>;
  /** The note that replaced this one, by the time the search answers for; it is listed above. */
  superseded_by?: string;
  valid_until?: string;
}

export interface NoteInput {
  content: string;
  /** When it was said or happened; absent or null: now. */
  time?: string | null;
  /** Yours (caller_set): amem adds none. */
  keywords?: string[];
  tags?: string[];
  /** Yours (caller_set): amem never rewrites it. */
  context?: string;
  metadata?: Record<string, string>;
}

export interface NotePatch {
  content?: string;
  time?: string | null;
  keywords?: string[];
  tags?: string[];
  context?: string;
  /** Replaces the whole map. */
  metadata?: Record<string, string>;
  /** Hands keywords or context back to amem's curator, which rewrites them. */
  give_back?: ("keywords" | "context")[];
  /** Kept in the history. */
  reason?: string;
  /** The caller's word on whether the note is still true: {} restores it to current. */
  validity?: { superseded_by?: string; valid_until?: string };
}

/** Filters listNotes and searchNotes share: every one given must match. */
export interface Filters {
  tags?: string[];
  /** Which of a note's tags `tags` match: the caller's, the curator's, or any (default). */
  tag_source?: "caller" | "curator" | "any";
  /** Event time at or after this (RFC 3339 time or a date). */
  from?: string;
  /** Event time before this. */
  to?: string;
  /** Metadata key=value pairs, compared exactly. */
  meta?: Record<string, string>;
}

export interface ListNotesQuery extends Filters {
  after?: string;
  /** Page size, 1-1000 (default 100). */
  limit?: number;
  state?: "pending" | "done" | "failed";
  order?: "oldest" | "newest" | "oldest_event" | "newest_event";
}

export interface SearchQuery extends Filters {
  /** Direct hits, 1-1000. */
  k?: number;
  mode?: "hybrid" | "vector" | "lexical";
  /** Hybrid mode's profile: auto (default), general or conversation. */
  profile?: "auto" | "general" | "conversation";
  /** Leave out direct hits whose score (relevance, 0 to 1) is below this. */
  min_score?: number;
  /** Include the notes linked to the hits (default true). */
  links?: boolean;
  /** Answer with what was current then (RFC 3339 time or a date). */
  as_of?: string;
  /** Leave out notes no longer true. */
  exclude_superseded?: boolean;
}

/** An answer of 400 or more, with its problem+json fields. */
export class ApiError extends Error {
  constructor(status: number, problem?: Partial<{ type: string; title: string; status: number; detail: string; instance: string }>, retryAfter?: number);
  status: number;
  title: string;
  detail: string;
  type: string;
  instance: string;
  /** Seconds a 429 asks to wait. */
  retryAfter?: number;
}

export interface ClientOptions {
  /** The server's root, e.g. http://127.0.0.1:7077. */
  baseUrl: string;
  /** A key from `amem keys create`; the public routes need none. */
  apiKey?: string;
  /** Per request; default 30000. */
  timeoutMs?: number;
  /** Default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
}

export class Client {
  constructor(options: ClientOptions);
  healthz(): Promise<Health>;
  /** Rejects with ApiError 503 when the store cannot take requests. */
  readyz(): Promise<Health>;
  /** The Prometheus text exposition. */
  getMetrics(): Promise<string>;
  getOpenApi(): Promise<Record<string, unknown>>;
  getKey(): Promise<KeyInfo>;
  /** Admin keys only. */
  listKeys(): Promise<ApiKey[]>;
  /** Admin keys only: a key for the namespaces, or every one with admin. */
  createKey(key: { namespaces?: string[]; admin?: boolean; name?: string }): Promise<CreatedKey>;
  /** Admin keys only. */
  revokeKey(id: string): Promise<void>;
  /** Admin keys only: the namespace's webhooks. */
  listWebhooks(ns: string): Promise<Webhook[]>;
  /** Admin keys only: POST the namespace's note events (every kind unless kinds says) to url, signed with secret (generated unless given). */
  createWebhook(ns: string, webhook: { url: string; kinds?: EventKind[]; secret?: string }): Promise<CreatedWebhook>;
  /** Admin keys only. */
  deleteWebhook(ns: string, id: string): Promise<void>;
  listNamespaces(): Promise<NamespaceInfo[]>;
  getStats(ns: string): Promise<Stats>;
  /** The namespace's retention policy and what it would move to the trash now. */
  getRetention(ns: string): Promise<Retention>;
  /** Sets the policy: max_age in whole days ("90d") or a duration ("2160h"); both absent, empty or 0 turn it off. */
  setRetention(ns: string, policy: { max_age?: string; max_notes?: number }): Promise<Retention>;
  /** Stores a memory; searchable when this resolves. wait enriches it first. */
  createNote(ns: string, note: NoteInput, options?: { wait?: boolean }): Promise<Note>;
  /** Up to 1000 notes, all or none. */
  createNotes(ns: string, notes: NoteInput[], options?: { wait?: boolean }): Promise<Note[]>;
  listNotes(ns: string, query?: ListNotesQuery): Promise<NotePage>;
  iterNotes(ns: string, query?: ListNotesQuery): AsyncGenerator<Note, void, undefined>;
  getNote(ns: string, id: string): Promise<Note>;
  updateNote(ns: string, id: string, patch: NotePatch): Promise<Note>;
  /** Moves the note to the trash; { purge: true } deletes it for good, live or trashed. */
  deleteNote(ns: string, id: string, query?: { purge?: boolean }): Promise<void>;
  /** The linked notes, strongest link first. */
  getNoteLinks(ns: string, id: string): Promise<Neighbor[]>;
  /** Every version, oldest first. */
  getNoteHistory(ns: string, id: string): Promise<Version[]>;
  restoreNote(ns: string, id: string, version: number): Promise<Note>;
  enrichNote(ns: string, id: string): Promise<Note>;
  getNoteUsage(ns: string, id: string): Promise<UsageTotal[]>;
  /** A page of the namespace's deleted notes, in ID order. */
  listTrash(ns: string, query?: { after?: string; limit?: number }): Promise<TrashPage>;
  /** Brings a deleted note back as a new version, with its history and its links to notes that still exist. */
  restoreTrashed(ns: string, id: string): Promise<Note>;
  /** Deletes one note of the trash for good. */
  purgeTrashed(ns: string, id: string): Promise<void>;
  /** Deletes every note of the trash for good; resolves to how many. */
  emptyTrash(ns: string): Promise<number>;
  /** The direct hits, best first, then the notes linked to them. */
  searchNotes(ns: string, q: string, query?: SearchQuery): Promise<SearchResult[]>;
  /** A page of links; limit counts the notes whose links a page holds. */
  listLinks(ns: string, query?: { after?: string; limit?: number }): Promise<LinkPage>;
  iterLinks(ns: string, query?: { limit?: number }): AsyncGenerator<Link, void, undefined>;
}
