import { parseArgs } from "node:util";
import { startRelay } from "./server.ts";
import { VERSION } from "./relay.ts";

const USAGE = `Usage: oar start [--port 7420] [--host 127.0.0.1] [--data DIR] [--name NAME] [--test-clock] [--emulate-version X.Y.Z]`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "version") {
    console.log(VERSION);
    return;
  }
  if (command !== "start") {
    console.error(USAGE);
    process.exitCode = command ? 2 : 0;
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: "string", default: "7420" },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
      name: { type: "string" },
      "test-clock": { type: "boolean", default: false },
      "emulate-version": { type: "string" },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${values.port}`);
  const ev = values["emulate-version"];
  if (ev !== undefined && !/^\d+\.\d+\.\d+$/.test(ev)) throw new Error(`--emulate-version takes X.Y.Z, got ${ev}`);
  const running = await startRelay({
    port,
    host: values.host,
    dataDir: values.data,
    name: values.name,
    testClock: values["test-clock"],
    emulateVersion: ev,
  });
  const { relay } = running;
  console.log(`OAR ${relay.version} relay "${relay.name}" listening on ${running.url}`);
  console.log(`Web UI: ${relay.baseUrl}/#token=${relay.ownerToken}`);
  if (values["test-clock"]) console.log("Manual test clock: move it with POST /api/test/clock");
  const shutdown = () => {
    running.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`oar: ${err?.message ?? err}`);
  process.exit(1);
});
