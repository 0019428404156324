import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { agentPromptText, checkWorkingLimit, fromInfo, promptKind, targetSession } from "./target.ts";
import { effortArg, modeArg, modelArg, textArg, waitSecondsArg } from "./args.ts";
import { statusSummary, waitForTurn } from "./waiting.ts";
import { checkModel, modelNotes } from "../providers/model-check.ts";
import { Billing, checkCap, planBillingSwitch } from "../billing/switch.ts";
import { getProvider } from "../providers/catalog.ts";

export const send = defineAction({
  name: "send",
  since: "0.9.4",
  write: true,
  level: "prompt",
  nothing: "Nothing was sent.",
  args: {
    session: z.string().min(1).describe("Session id to prompt."),
    text: textArg,
    wait_seconds: waitSecondsArg,
    mode: modeArg,
    model: modelArg,
    effort: effortArg,
    provider: Billing.describe(
      'Claude sessions only: switch billing to "claude" (subscription) or "claude-api" (API key) and send in one call.',
    ),
  },
  required: { text: "the prompt to queue" },
  async handler(ctx, args) {
    const { identity, sessions, turns, workers, watching, caller, approve, transaction } = ctx;
    const s = targetSession(ctx, "send", args.session, { notSelf: true, notArchived: true });
    // Everything is checked before any card and before anything is written.
    // A billing switch (`provider`) is checked with the rest: a refused switch sends nothing.
    const billing = args.provider ? planBillingSwitch(ctx, s, args.provider, args.model) : null;
    const provider = billing?.to ?? s.provider;
    const model = args.model ? checkModel(provider, args.model, { relayName: identity.name, action: "send" }) : null;
    if (!billing) checkCap(ctx, s);
    const offered = getProvider(provider);
    if (args.effort && !offered?.efforts.includes(args.effort)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `effort "${args.effort}" is not offered by ${offered?.name}: ${offered?.efforts.join(", ")}. Nothing was sent.`,
      );
    }
    checkWorkingLimit(ctx, "send", s);
    const mode = args.mode ?? caller.mode;
    const text = agentPromptText(ctx, args.text);
    await approve({
      prompts: 1,
      target: { id: s.id, title: s.title },
      detail: text,
      details: [
        `Mode: ${mode}`,
        ...(model ? [`Model: ${model.model}`] : []),
        ...(args.effort ? [`Effort: ${args.effort}`] : []),
      ],
      ...(billing ? { billing: billing.card } : {}),
    });
    // The idle CLI still bills the old way: the message starts a fresh one.
    if (billing) workers.stop(s.id);
    // The session's settings and the prompt in one write; settings only when they change.
    const { turn } = transaction(() => {
      const patch = {
        mode,
        ...(model ? { model: model.model } : {}),
        ...(args.effort ? { effort: args.effort } : {}),
        ...(billing ? { provider: billing.to } : {}),
      };
      const now = sessions.get(s.id);
      if (!now || Object.entries(patch).some(([k, v]) => now[k as keyof typeof patch] !== v))
        sessions.update(s.id, patch);
      return turns.enqueue({
        sessionId: s.id,
        ...promptKind(ctx),
        text,
        from: fromInfo(ctx),
        fromSession: caller.id,
        mode,
        model: model?.model ?? s.model,
      });
    });
    watching.noEcho.promptSent(caller.id, turn.id);
    const r = await waitForTurn(ctx, turn, args.wait_seconds);
    watching.noEcho.replyReceived(caller.id, turn.id, r.status);
    return {
      summary: statusSummary("send", identity.name, s.id, r),
      ...r,
      ...modelNotes(model, r),
    };
  },
});
