import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { providersInfo } from "../actions/relay-info.ts";
import { getProvider } from "../providers/catalog.ts";
import { adapterFor } from "../providers/adapters/index.ts";

// GET /api/providers → { providers }: each as relay_info lists it, plus when its availability
// was last checked and how to set it up; POST /api/providers/:id/check probes it again now.
export function providerRoutes(d: Pick<ApiDeps, "settings" | "probes">): Hono {
  const app = new Hono();
  const entry = (id: string) => {
    const info = providersInfo(d.settings.get() as unknown as Record<string, unknown>).find((p) => p.id === id)!;
    const probe = d.probes.entry(id);
    const p = getProvider(id)!;
    const adapter = adapterFor(id);
    const setUp = [
      ...(p.install ? [`Install: ${p.install}`] : []),
      ...(adapter?.signIn ? [`Sign in: ${adapter.signIn}`] : []),
      ...(p.setting && !adapter?.signIn?.includes("Settings") ? [`Settings → Providers: ${p.secret}`] : []),
    ];
    return { ...info, checkedAt: probe.checkedAt, checking: probe.checking, setUp };
  };
  app.get("/", (c) =>
    c.json({
      providers: providersInfo(d.settings.get() as unknown as Record<string, unknown>).map((p) => entry(p.id)),
    }),
  );
  app.post("/:id/check", async (c) => {
    const id = c.req.param("id");
    if (!getProvider(id))
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No provider '${id.slice(0, 80)}' on this relay. Nothing was checked.`,
      );
    await d.probes.check(id, true);
    return c.json(entry(id));
  });
  return app;
}
