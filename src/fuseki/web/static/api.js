// The JSON API under /api/ (see docs/web.md): one helper for every call.

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
    this.detail = detail;
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
 * Resolves to the parsed JSON; rejects with ApiError(status, detail).
 */
export async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
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
    throw new ApiError(0, `cannot reach the server: ${e.message}`);
  }
  let data = null;
  const text = await resp.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      data = { detail: text.slice(0, 200) };
    }
  }
  if (!resp.ok) throw new ApiError(resp.status, detailText(data, resp.status));
  return data;
}

export function percent(x, digits = 1) {
  return x == null ? "–" : `${(x * 100).toFixed(digits)}%`;
}
