import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startRelay } from "./app/server.ts";
import { VERSION } from "./app/identity.ts";
import { RotatingLog } from "./ops/log-file.ts";

const USAGE = `Usage:
  oar start [--port 7420] [--host 127.0.0.1] [--data DIR] [--name NAME] [--tls-cert FILE --tls-key FILE] [--test-clock] [--emulate-version X.Y.Z] [--log-file]
  oar tls init [--data DIR]         makes a self-signed certificate DIR/tls/cert.pem and key.pem (kept if there)
  oar url [--data DIR]              prints the web UI link (with the owner token) of the relay running on DIR
  oar service install|uninstall|status [--port P] [--host H] [--data DIR] [--name NAME]
  oar doctor [--port 7420] [--host 127.0.0.1] [--data DIR]
  oar backup FILE [--data DIR]      a consistent copy of the store, also while the relay runs
  oar restore FILE [--data DIR]     puts a backup back (the relay must be stopped)
  oar help | --help | --version
DIR defaults to ~/.oar.`;

const defaultData = () => join(homedir(), ".oar");
const HELP = new Set(["help", "--help", "-h"]);

function portOf(value: string | undefined, fallback = 7420): number {
  const port = Number(value ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number, got ${value}`);
  return port;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "version") {
    console.log(VERSION);
    return;
  }
  // Asked for (also after a command): the usage on stdout, and success.
  if (command === undefined || HELP.has(command) || rest.some((a) => a === "--help" || a === "-h")) {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case "start":
      return start(rest);
    case "url":
      return urlCmd(rest);
    case "service":
      return service(rest);
    case "doctor":
      return doctorCmd(rest);
    case "backup":
    case "restore":
      return backupCmd(command, rest);
    case "tls":
      return tlsCmd(rest);
    default:
      console.error(`oar: unknown command "${command}"\n${USAGE}`);
      process.exitCode = 2;
  }
}

async function start(rest: string[]): Promise<void> {
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: "string", default: "7420" },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
      name: { type: "string" },
      "test-clock": { type: "boolean", default: false },
      "emulate-version": { type: "string" },
      "log-file": { type: "boolean", default: false },
      "tls-cert": { type: "string" },
      "tls-key": { type: "string" },
    },
    strict: true,
  });
  const port = portOf(values.port);
  if (!values["tls-cert"] !== !values["tls-key"])
    throw new Error(
      "--tls-cert and --tls-key go together: the certificate and its key (PEM files; `oar tls init` makes both)",
    );
  const tls =
    values["tls-cert"] && values["tls-key"]
      ? { cert: readFileSync(values["tls-cert"], "utf8"), key: readFileSync(values["tls-key"], "utf8") }
      : undefined;
  // The agents the relay starts reach its /mcp over https: Node-based CLIs then trust its
  // certificate (a self-signed one included) beside the extra CAs already named.
  if (tls)
    process.env.NODE_EXTRA_CA_CERTS = (await import("./ops/tls.ts")).agentTrust(
      resolve(values.data ?? defaultData()),
      tls.cert,
    );
  const ev = values["emulate-version"];
  if (ev !== undefined && !/^\d+\.\d+\.\d+$/.test(ev)) throw new Error(`--emulate-version takes X.Y.Z, got ${ev}`);
  const running = await startRelay({
    port,
    host: values.host,
    dataDir: values.data,
    name: values.name,
    testClock: values["test-clock"],
    emulateVersion: ev,
    tls,
  });
  const { identity, ownerToken, address } = running.relay.services;
  if (values["log-file"]) new RotatingLog(identity.dataDir).capture(() => ownerToken);
  console.log(`OAR ${identity.version} relay "${identity.name}" listening on ${running.url}`);
  console.log(`Web UI: ${address.baseUrl}/#token=${ownerToken}`);
  if (values["test-clock"]) console.log("Manual test clock: move it with POST /api/test/clock");
  // Run from dist/: its loader saves V8's code cache of this build now (scripts/build.mjs).
  (globalThis as { __oarServing?: () => void }).__oarServing?.();
  const shutdown = () => {
    // An upgrade or service restart: the agents run on with the keeper and the next start
    // takes them back (they end after OAR_KEEPER_ORPHAN_MS if no relay returns).
    running.close({ keepWorkers: true }).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

async function service(rest: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { port: { type: "string" }, host: { type: "string" }, data: { type: "string" }, name: { type: "string" } },
    strict: true,
  });
  const svc = await import("./ops/service.ts");
  const sub = positionals[0];
  const opts = {
    oarBin: fileURLToPath(new URL("../bin/oar", import.meta.url)),
    nodeBin: process.execPath,
    dataDir: values.data ? resolve(values.data) : undefined,
    port: values.port !== undefined ? portOf(values.port) : undefined,
    host: values.host,
    name: values.name,
  };
  if (sub === "install") console.log(svc.install(opts));
  else if (sub === "uninstall") console.log(svc.uninstall({}));
  else if (sub === "status") console.log(svc.status({}));
  else {
    console.error("Usage: oar service install|uninstall|status [--port P] [--host H] [--data DIR] [--name NAME]");
    process.exitCode = 2;
  }
}

async function doctorCmd(rest: string[]): Promise<void> {
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: "string", default: "7420" },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
    },
    strict: true,
  });
  const { doctor, formatChecks } = await import("./ops/doctor.ts");
  const checks = await doctor({
    dataDir: resolve(values.data ?? defaultData()),
    port: portOf(values.port),
    host: values.host ?? "127.0.0.1",
  });
  console.log(formatChecks(checks));
  if (checks.some((c) => c.status === "fail")) process.exitCode = 1;
}

/** `oar url`: the link `oar start` printed, again: the running relay's address (relay.pid)
 * with the owner token (DIR/owner-token) in its fragment. */
async function urlCmd(rest: string[]): Promise<void> {
  const { values } = parseArgs({ args: rest, options: { data: { type: "string" } }, strict: true });
  const dataDir = resolve(values.data ?? defaultData());
  const { runningRelay, describeHolder } = await import("./ops/pid-file.ts");
  const holder = await runningRelay(dataDir);
  if (!holder)
    throw new Error(
      `No relay runs on the data folder ${dataDir}. Start one: oar start${values.data ? ` --data ${dataDir}` : ""}`,
    );
  if (!holder.url)
    throw new Error(
      `${describeHolder(holder)} holds the data folder ${dataDir}, but no relay serves it yet; try again in a moment.`,
    );
  let token = "";
  try {
    token = readFileSync(join(dataDir, "owner-token"), "utf8").trim();
  } catch (e) {
    throw new Error(
      `The owner token ${join(dataDir, "owner-token")} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): run oar url as the user the relay runs as.`,
    );
  }
  console.log(`${holder.url}/#token=${token}`);
}

async function backupCmd(command: "backup" | "restore", rest: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { data: { type: "string" } },
    strict: true,
  });
  const file = positionals[0];
  if (!file) throw new Error(`oar ${command} needs a FILE: oar ${command} FILE [--data DIR]`);
  const dataDir = resolve(values.data ?? defaultData());
  const ops = await import("./ops/backup.ts");
  if (command === "backup") {
    const r = await ops.backup(dataDir, file);
    console.log(`Backed up ${dataDir}/oar.db to ${r.file} (${r.bytes} bytes, mode 0600).`);
  } else {
    const r = await ops.restore(dataDir, file);
    console.log(
      `Restored ${resolve(file)} into ${dataDir}/oar.db.${r.kept ? ` The store it replaced is kept as ${r.kept}.` : ""} Start the relay to use it.`,
    );
  }
}

/** `oar tls init [--data DIR]`: a self-signed certificate for `oar start --tls-cert/--tls-key`. */
async function tlsCmd(rest: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { data: { type: "string" } },
    strict: true,
  });
  if (positionals[0] !== "init" || positionals.length > 1) throw new Error("Usage: oar tls init [--data DIR]");
  const dataDir = resolve(values.data ?? defaultData());
  const { tlsInit } = await import("./ops/tls.ts");
  const r = await tlsInit(dataDir);
  console.log(`${r.created ? "Made" : "Kept (already there)"} a self-signed certificate:`);
  console.log(`  certificate: ${r.certFile}`);
  console.log(`  key:         ${r.keyFile} (mode 0600)`);
  console.log(`  SHA-256 fingerprint: ${r.fingerprint}`);
  console.log(
    `Serve https with: oar start --tls-cert ${r.certFile} --tls-key ${r.keyFile}${values.data ? ` --data ${dataDir}` : ""}`,
  );
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`oar: ${err?.message ?? err}`);
  process.exit(1);
});
