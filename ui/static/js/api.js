// The HTTP API client. The key travels only in the Authorization header,
// never in a URL (which would reach logs and history).

export class APIError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export class API {
  constructor(key) {
    this.key = key;
  }

  async call(method, path, { query, body } = {}) {
    let url = path;
    const qs = query ? query.toString() : '';
    if (qs) url += '?' + qs;
    const init = {
      method,
      headers: { Authorization: 'Bearer ' + this.key },
      cache: 'no-store',
      credentials: 'omit',
    };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(url, init);
    if (!res.ok) {
      let detail = res.statusText;
      try {
        const p = await res.json();
        detail = p.detail || p.title || detail;
      } catch { /* not problem+json */ }
      throw new APIError(res.status, detail);
    }
    return res.status === 204 ? null : res.json();
  }

  get(path, query) { return this.call('GET', path, { query }); }
}

// nsPath is the API path of a namespace, or of something under it.
export function nsPath(ns, ...parts) {
  return ['/v1/namespaces', ns, ...parts].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
}
