// One at a time per key (a repository): two sessions made at once must not race for one
// branch, and a worktree is not taken apart while a merge reads it. Other keys run freely.
// `shared` runs alongside other shared holders (readers: overlap checks) but never alongside
// `run` (a merge landing in a folder); holders are served in the order they came.

export class KeyedLock {
  private tails = new Map<string, Promise<void>>();
  /** key → the group of shared holders now: how many, when it may start, and its end. */
  private readers = new Map<string, { count: number; ready: Promise<void>; release: () => void }>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Runs `fn` with other shared holders of `key`, not while `run` holds it. */
  async shared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let group = this.readers.get(key);
    if (!group) {
      // A new group queues as one holder: it starts when the holder before it is done.
      let release!: () => void;
      const done = new Promise<void>((r) => (release = r));
      const before = this.tails.get(key) ?? Promise.resolve();
      const g = { count: 0, ready: before, release };
      const tail = before.then(() => done);
      this.tails.set(key, tail);
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
      this.readers.set(key, g);
      group = g;
    }
    const g = group;
    g.count++;
    await g.ready;
    try {
      return await fn();
    } finally {
      if (--g.count === 0) {
        if (this.readers.get(key) === g) this.readers.delete(key);
        g.release();
      }
    }
  }
}
