// Where a paired relay's clock stands against this one's, learnt from the event link itself
// (the two relays share no clock, and the peer API carries no time of its own). An event that
// reaches a poll held on a healthy link arrives moments after it was captured there, so the
// least (received here − captured there) over recent such events is the clocks' offset plus
// the shortest delay. It serves one purpose: when a lost link comes back, to tell what the
// other relay kept from before (replayed) from what happened after its return (live).

const KEEP = 64;

export class PeerClock {
  private seen = new Map<string, number[]>();

  /** Events a held poll of a healthy link brought, received at `receivedAt` (this clock). */
  observe(relay: string, receivedAt: number, capturedAt: number[]): void {
    if (!capturedAt.length) return;
    const key = relay.toLowerCase();
    const list = this.seen.get(key) ?? [];
    for (const at of capturedAt) list.push(receivedAt - at);
    this.seen.set(key, list.slice(-KEEP));
  }

  /** That relay's instant `at` on this relay's clock (a little late, never early), or null
   * while nothing was observed since this relay started. */
  toLocal(relay: string, at: number): number | null {
    const list = this.seen.get(relay.toLowerCase());
    return list?.length ? at + Math.min(...list) : null;
  }
}
