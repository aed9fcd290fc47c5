// api fetches a JSON endpoint of the explorer; errors carry the server's
// message.
export async function api(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, v);
  }
  const url = "/api/v1" + path + (q.toString() ? "?" + q : "");
  const res = await fetch(url, { headers: { Accept: "application/json" } });
  let body;
  try {
    body = await res.json();
  } catch {
    throw new Error(`${url}: HTTP ${res.status}`);
  }
  if (!res.ok) {
    const err = new Error(body.error || `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

// pages follows a list's cursors, at most max items.
export async function pages(path, params, max) {
  const items = [];
  let cursor = "";
  do {
    const page = await api(path, { ...params, cursor });
    items.push(...page.items);
    cursor = page.next;
  } while (cursor && items.length < max);
  return { items, more: Boolean(cursor) };
}
