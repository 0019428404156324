import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

// `oar service install|uninstall|status`: a systemd user unit that starts the relay at login
// (and, with lingering, at boot) and restarts it when it dies. Its output goes to the journal
// (`journalctl --user -u oar`). Where systemd is absent, it says how to run the relay instead.

export interface ServiceOptions {
  /** The oar executable (bin/oar of this checkout or the installed package). */
  oarBin: string;
  nodeBin: string;
  dataDir?: string;
  port?: number;
  host?: string;
  name?: string;
  home?: string;
}

export const unitPath = (home = homedir()) => join(home, ".config", "systemd", "user", "oar.service");

const quote = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, "\\$1")}"`);

export function unitText(o: ServiceOptions): string {
  const args = ["start"];
  if (o.port !== undefined) args.push("--port", String(o.port));
  if (o.host) args.push("--host", o.host);
  if (o.dataDir) args.push("--data", o.dataDir);
  if (o.name) args.push("--name", o.name);
  return [
    "# Written by `oar service install`; `oar service uninstall` removes it.",
    "[Unit]",
    "Description=OAR agent relay",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[o.nodeBin, o.oarBin, ...args].map(quote).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=2",
    // Only the relay gets the stop signal: the keeper and its agents (providers/keeper) live
    // on, so `systemctl restart` or an upgrade picks running turns up again; after a stop
    // with no start they end by themselves after the keeper's orphan bound.
    "KillMode=process",
    "TimeoutStopSec=10",
    "UMask=0077",
    "StandardOutput=journal",
    "StandardError=journal",
    `Environment=PATH=${process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

/** Why systemd's user manager cannot be used here, or null when it can. */
export function systemdMissing(): string | null {
  if (process.platform !== "linux") return `systemd services are a Linux thing; this is ${process.platform}.`;
  if (!existsSync("/run/systemd/system"))
    return "systemd is not running on this machine (no /run/systemd/system; e.g. a container or WSL without systemd).";
  try {
    execFileSync("systemctl", ["--user", "--version"], { stdio: "ignore" });
  } catch {
    return "systemctl --user is not available to this user (no user manager or no D-Bus session).";
  }
  return null;
}

export function withoutSystemd(why: string, o: ServiceOptions): string {
  const cmd = [
    o.oarBin,
    "start",
    ...(o.dataDir ? ["--data", o.dataDir] : []),
    ...(o.port !== undefined ? ["--port", String(o.port)] : []),
  ]
    .map(quote)
    .join(" ");
  return [
    `No service installed: ${why}`,
    "Run the relay another way:",
    `  - in a terminal multiplexer (tmux, screen): ${cmd}`,
    `  - in the background with its log in the data folder: nohup ${cmd} --log-file >/dev/null 2>&1 &`,
    `  - from cron at boot: @reboot ${cmd} --log-file`,
    "The relay keeps its state in the data folder; a restart picks everything up again.",
  ].join("\n");
}

const systemctl = (...args: string[]) =>
  execFileSync("systemctl", ["--user", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export function install(o: ServiceOptions): string {
  const why = systemdMissing();
  if (why) return withoutSystemd(why, o);
  const path = unitPath(o.home);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, unitText(o));
  systemctl("daemon-reload");
  systemctl("enable", "--now", "oar.service");
  return [
    `Installed ${path} and started it.`,
    "Logs: journalctl --user -u oar -f",
    `To keep it running when you are logged out: loginctl enable-linger ${process.env.USER ?? "$USER"}`,
  ].join("\n");
}

export function uninstall(o: Pick<ServiceOptions, "home">): string {
  const path = unitPath(o.home);
  const why = systemdMissing();
  if (why) {
    if (existsSync(path)) rmSync(path);
    return existsSync(path) ? `Removed ${path}.` : `No service to remove: ${why}`;
  }
  try {
    systemctl("disable", "--now", "oar.service");
  } catch {}
  const had = existsSync(path);
  rmSync(path, { force: true });
  systemctl("daemon-reload");
  return had ? `Stopped and removed ${path}.` : `There was no ${path}; nothing to remove.`;
}

export function status(o: Pick<ServiceOptions, "home">): string {
  const path = unitPath(o.home);
  const why = systemdMissing();
  if (why) return `${existsSync(path) ? `${path} exists, but ` : "No service installed: "}${why}`;
  if (!existsSync(path)) return `No service installed (${path} is missing). Install it with: oar service install`;
  try {
    return systemctl("status", "--no-pager", "oar.service");
  } catch (e) {
    // systemctl status exits non-zero for a stopped unit; its text is still the answer.
    return String((e as { stdout?: string }).stdout ?? (e as Error).message);
  }
}
