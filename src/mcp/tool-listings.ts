// Whether a conversation's agent holds relay_tool, as only the relay can tell: it listed the
// tool (`tools/list` on /mcp with the session's token) on an MCP session it has not ended
// (DELETE) since. No agent reports this over ACP. A worker whose agent may give up on the
// relay's MCP server at start (adapter `mcpRetry`) looks here before its first prompt.

interface Held {
  /** MCP session id → when relay_tool was first listed on it (performance.now()). */
  open: Map<string, number>;
  /** MCP sessions the agent ended: a late request on one (revived by the endpoint) is not holding. */
  ended: Set<string>;
  listings: number;
  ends: number;
  waiters: Set<() => void>;
}

export class ToolListings {
  private byConversation = new Map<string, Held>();

  private of(sessionId: string): Held {
    let h = this.byConversation.get(sessionId);
    if (!h)
      this.byConversation.set(
        sessionId,
        (h = { open: new Map(), ended: new Set(), listings: 0, ends: 0, waiters: new Set() }),
      );
    return h;
  }

  /** relay_tool was listed to `sessionId`'s agent on its MCP session `mcpSession`. */
  listed(sessionId: string, mcpSession: string | undefined): void {
    const h = this.of(sessionId);
    h.listings++;
    if (mcpSession && !h.ended.has(mcpSession) && !h.open.has(mcpSession)) h.open.set(mcpSession, performance.now());
    this.changed(h);
  }

  /** The agent ended its MCP session `mcpSession` (DELETE). */
  ended(sessionId: string, mcpSession: string): void {
    const h = this.byConversation.get(sessionId);
    if (!h) return;
    h.open.delete(mcpSession);
    h.ended.add(mcpSession);
    h.ends++;
    this.changed(h);
  }

  /** How long (ms) the agent has held relay_tool on an MCP session still open, or -1. */
  heldFor(sessionId: string): number {
    const open = [...(this.byConversation.get(sessionId)?.open.values() ?? [])];
    return open.length ? performance.now() - Math.min(...open) : -1;
  }

  /** Listings and MCP session ends so far (a change says something happened). */
  counts(sessionId: string): { listings: number; ends: number } {
    const h = this.byConversation.get(sessionId);
    return { listings: h?.listings ?? 0, ends: h?.ends ?? 0 };
  }

  /** Resolves after the next listing or end of `sessionId`'s agent, or after `ms` (real time:
   * it waits on a process). */
  next(sessionId: string, ms: number): Promise<void> {
    const h = this.of(sessionId);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        h.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      h.waiters.add(done);
    });
  }

  private changed(h: Held): void {
    for (const w of [...h.waiters]) w();
  }
}
