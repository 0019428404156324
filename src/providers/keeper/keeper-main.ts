// The keeper: one small process per data folder that holds the agent processes, so they
// outlive a relay restart (KEEPER design: ARCHITECTURE.md "The keeper"). The relay starts
// it on the first worker it needs: `keeper-main <dataDir> [--orphan-ms N]`, in `/`, its
// output to <dataDir>/keeper.log. The relay knows it is ready when its socket answers. It
// ends with its agents after the orphan bound or on SIGTERM. Node built-ins only: it starts
// fast and small.
//
// The orphan bound is armed first, before the rest of the keeper is loaded: a keeper whose
// relay died while it started (and so never says hello) still ends.
export {};

const started = Date.now();
const DEFAULT_ORPHAN_MS = 10 * 60_000;

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write("usage: keeper-main <dataDir> [--orphan-ms N]\n");
  process.exit(2);
}
const i = process.argv.indexOf("--orphan-ms");
const asked = i > 0 ? Number(process.argv[i + 1]) : NaN;
const orphanMs = Number.isFinite(asked) && asked > 0 ? asked : DEFAULT_ORPHAN_MS;
const early = setTimeout(() => {
  process.stderr.write(
    `${new Date().toISOString()} keeper[${process.pid}] not listening after ${orphanMs} ms: ending\n`,
  );
  process.exit(0);
}, orphanMs);

const { connect } = await import("node:net");
const { chmodSync, existsSync, readFileSync, unlinkSync, writeFileSync } = await import("node:fs");
const { KeeperServer, log } = await import("./keeper-server.ts");
const { pidFile, socketPath } = await import("./protocol.ts");

const sock = socketPath(dataDir);
const pids = pidFile(dataDir);

/** Does a keeper answer on the socket? (A file nobody listens on is left by a crash.) */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

function cleanUp(): void {
  try {
    if (readFileSync(pids, "utf8").trim() === String(process.pid)) unlinkSync(pids);
  } catch {}
  try {
    unlinkSync(sock);
  } catch {}
}

if (existsSync(sock)) {
  if (await answers(sock)) {
    log(`another keeper answers on ${sock}: this one ends`);
    process.exit(3);
  }
  unlinkSync(sock);
}

// From here the server holds the bound, counted from the keeper's start.
clearTimeout(early);
const keeper = new KeeperServer(
  orphanMs,
  cleanUp,
  () => {
    log("ended");
    process.exit(0);
  },
  Math.max(0, orphanMs - (Date.now() - started)),
);
process.on("SIGTERM", () => void keeper.shutdown());
process.on("SIGINT", () => void keeper.shutdown());
process.on("SIGHUP", () => {});
// A bug in one message must not take every agent down with the keeper.
process.on("uncaughtException", (e) => log(`uncaught: ${e.stack ?? e.message}`));

// The socket is created 0600 (umask for this call only: the agents inherit the keeper's).
const umask = process.umask(0o077);
keeper.server.once("error", (e) => {
  log(`cannot listen on ${sock}: ${e.message}`);
  process.exit(4);
});
keeper.server.listen(sock, () => {
  process.umask(umask);
  chmodSync(sock, 0o600);
  writeFileSync(pids, `${process.pid}\n`, { mode: 0o600 });
  log(`listening on ${sock} (orphan bound ${orphanMs} ms)`);
});
