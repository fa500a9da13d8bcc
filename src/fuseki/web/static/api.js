// The JSON API under /api/ (see docs/web.md): one helper for every call.

export class ApiError extends Error {
  constructor(status, detail, data = null) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.data = data; // the whole answer: a 409 of a game carries the game as it stands (`data.game`)
    this.aborted = status === -1;
  }
}

/** The server's `detail` as one line (FastAPI may send a string or a list of errors). */
export function detailText(data, status) {
  const d = data && data.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((e) => (e && e.msg) || JSON.stringify(e)).join("; ");
  if (d) return JSON.stringify(d);
  return `request failed (HTTP ${status})`;
}

/**
 * Call the API. `body` is sent as JSON, or as-is when it is FormData.
 * Resolves to the parsed JSON; rejects with ApiError(status, detail, data).
 * `options.signal` (an AbortSignal) cancels the request: it rejects with
 * an ApiError whose `aborted` is true.
 */
export async function api(method, path, body, options = {}) {
  const init = { method, headers: { Accept: "application/json" } };
  if (options.signal) init.signal = options.signal;
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    if (e && e.name === "AbortError") throw new ApiError(-1, "cancelled");
    throw new ApiError(0, `cannot reach the server: ${e.message}`);
  }
  let data = null;
  let text = "";
  try {
    text = await resp.text();
  } catch (e) {
    if (e && e.name === "AbortError") throw new ApiError(-1, "cancelled");
    throw e;
  }
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      data = { detail: text.slice(0, 200) };
    }
  }
  if (!resp.ok) throw new ApiError(resp.status, detailText(data, resp.status), data);
  return data;
}

/** "illegal move E5: occupied" -> "Illegal move E5: occupied": the server's sentence as the page shows it. */
export function sentence(text) {
  const t = String(text || "");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** plural(1, "move") -> "1 move"; plural(3, "move") -> "3 moves". */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function percent(x, digits = 1) {
  return x == null ? "–" : `${(x * 100).toFixed(digits)}%`;
}
