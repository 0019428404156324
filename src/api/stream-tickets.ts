import { newToken } from "../core/ids.ts";

// The web page's live stream (EventSource) cannot send an Authorization header, and the owner
// token must not travel in a URL. The page trades its token for a ticket that opens the stream
// for a minute (reconnects within that minute reuse it; after it, the page asks for a new one).

const TICKET_MS = 60_000;
const MAX_TICKETS = 1000;

export class StreamTickets {
  private tickets = new Map<string, number>();

  make(): { ticket: string; expiresAt: string } {
    const now = Date.now();
    for (const [t, until] of this.tickets) if (until <= now) this.tickets.delete(t);
    if (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!);
    const ticket = newToken();
    // Real time on purpose: the ticket is about the browser's reconnects, not relay rules.
    this.tickets.set(ticket, now + TICKET_MS);
    return { ticket, expiresAt: new Date(now + TICKET_MS).toISOString() };
  }

  valid(ticket: string | undefined): boolean {
    if (!ticket) return false;
    const until = this.tickets.get(ticket);
    return until !== undefined && until > Date.now();
  }
}
