import type { Cancel, Clock } from "./clock.ts";

// One clock timer for the earliest due time of work a domain keeps in the store (contract
// §7, STYLE 5): the domain computes the earliest from its rows after every change and arms;
// the timer is re-set only when that time changes, and `fire` runs once it is reached.
export class DueTimer {
  private cancel: Cancel | null = null;
  private armedFor = Infinity;

  constructor(
    private clock: Pick<Clock, "at">,
    private fire: () => void,
  ) {}

  /** Wakes at `at` (Infinity: nothing is due). */
  arm(at: number): void {
    if (at === this.armedFor && this.cancel) return;
    this.stop();
    this.armedFor = at;
    if (at === Infinity) return;
    this.cancel = this.clock.at(at, () => {
      this.cancel = null;
      this.armedFor = Infinity;
      this.fire();
    });
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
    this.armedFor = Infinity;
  }
}
