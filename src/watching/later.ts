// Work the watching domain runs after the current call (a microtask, or a real-time batch
// timer): a failure there is logged, never thrown into the event loop where it would end
// the relay. What it did not write, start-up or the next event makes good.
export function safely(what: string, fn: () => void): () => void {
  return () => {
    try {
      fn();
    } catch (err) {
      console.error(`[watching] ${what} failed:`, err);
    }
  };
}
