// What a push notification shows and what its buttons do (contract §10.3). Shared by the
// service worker (/sw.js) and the page; a test page calls these the way the worker does.
// No owner token: a card's buttons carry its one-time action token.

/** The notification for a push payload `{ title, body, url, card? }`: a card's options as actions. */
export function notificationOf(p) {
  const card = p?.card ?? null;
  return {
    title: p?.title || "OAR",
    options: {
      body: p?.body ?? "",
      tag: card ? `card-${card.id}` : p?.url,
      data: { url: p?.url ?? "/", card },
      actions: (card?.options ?? []).map((o) => ({ action: o.id, title: o.name })),
      requireInteraction: !!card,
    },
  };
}

/** The notification's link on the origin the page is served from: the relay composes it
 * with its own local address, which a phone reaching it through a proxy cannot open. */
export function onThisOrigin(url, origin) {
  try {
    const u = new URL(url, origin);
    return new URL(u.pathname + u.search + u.hash, origin).href;
  } catch {
    return new URL("/", origin).href;
  }
}

export function showPush(registration, payload) {
  const n = notificationOf(payload);
  return registration.showNotification(n.title, n.options);
}

/** A button of a card's notification: decides the card with the action token. Allow/Deny as a
 * decision; a CLI's own option (a permission card) as optionId. */
export async function actOn(data, action) {
  const card = data?.card;
  if (!card || !action) return { open: data?.url ?? "/" };
  const plain = card.options.length === 2 && card.options[0].id === "allow" && card.options[1].id === "deny";
  const body = { actionToken: card.actionToken, ...(plain ? { decision: action } : { optionId: action }) };
  const res = await fetch(`/api/cards/${encodeURIComponent(card.id)}/act`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  return res.ok ? { ok: true, status: json.status } : { ok: false, error: json.error ?? `HTTP ${res.status}` };
}
