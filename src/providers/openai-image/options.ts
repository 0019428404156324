// What an OpenAI Image turn asks for: model, size, quality and how many images. The session's
// ACP config options (session/set_config_option: model, size, quality) hold the defaults; the
// session's effort stands in for a quality left on "auto"; a prompt may name its own size
// ("1536x1024"), quality ("high quality") and count ("3 images").
import type * as acp from "@agentclientprotocol/sdk";
import { CATALOG } from "../catalog.ts";

export const SIZES = ["auto", "1024x1024", "1536x1024", "1024x1536"] as const;
export const QUALITIES = ["auto", "low", "medium", "high"] as const;
export const MAX_IMAGES = 4;

export interface ImageOptions {
  model: string;
  size: string;
  quality: string;
}

export interface TurnOptions extends ImageOptions {
  n: number;
}

export const DEFAULT_OPTIONS: ImageOptions = {
  model: CATALOG["openai-image"].defaultModel,
  size: "auto",
  quality: "auto",
};

const select = (values: readonly string[]) => values.map((v) => ({ value: v, name: v }));

/** The session's options as ACP advertises them at session/new and after each change. */
export function configOptions(o: ImageOptions): acp.SessionConfigOption[] {
  const models = [...new Set([o.model, ...(CATALOG["openai-image"].models ?? [])])];
  return [
    { id: "model", name: "Model", category: "model", type: "select", currentValue: o.model, options: select(models) },
    {
      id: "size",
      name: "Size",
      description: "Image size in pixels; auto lets the model choose.",
      type: "select",
      currentValue: o.size,
      options: select(SIZES),
    },
    {
      id: "quality",
      name: "Quality",
      description: "Rendering quality; auto follows the session's effort.",
      type: "select",
      currentValue: o.quality,
      options: select(QUALITIES),
    },
  ];
}

/** Applies session/set_config_option; returns an error text for an unknown option or value. */
export function setOption(o: ImageOptions, configId: string, value: unknown): string | null {
  if (typeof value !== "string" || value === "") return `${configId} takes a text value`;
  if (configId === "model") o.model = value;
  else if (configId === "size") {
    if (!SIZES.includes(value as never) && !/^\d{3,4}x\d{3,4}$/.test(value))
      return `size "${value}" is not a size: ${SIZES.join(", ")} (or WIDTHxHEIGHT)`;
    o.size = value;
  } else if (configId === "quality") {
    if (!QUALITIES.includes(value as never)) return `quality "${value}" is not one of ${QUALITIES.join(", ")}`;
    o.quality = value;
  } else return `there is no option "${configId}" (options: model, size, quality)`;
  return null;
}

const WORD_COUNTS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4 };

/** The options of one turn: the prompt's own words win over the session's options. */
export function turnOptions(session: ImageOptions, effort: string | undefined, prompt: string): TurnOptions {
  const size = /\b(\d{3,4})\s*[x×]\s*(\d{3,4})\b/.exec(prompt);
  const quality = /\b(low|medium|high)[\s-]+quality\b|\bquality[\s:=]+(low|medium|high)\b/i.exec(prompt);
  const count = /\b([1-9]|one|two|three|four)\s+(?:images|pictures|variations|versions)\b/i.exec(prompt);
  const fromEffort = effort === "low" || effort === "medium" || effort === "high" ? effort : "auto";
  const n = count ? (WORD_COUNTS[count[1].toLowerCase()] ?? Number(count[1])) : 1;
  return {
    model: session.model,
    size: size ? `${size[1]}x${size[2]}` : session.size,
    quality: quality
      ? (quality[1] ?? quality[2]).toLowerCase()
      : session.quality !== "auto"
        ? session.quality
        : fromEffort,
    n: Math.min(Math.max(n, 1), MAX_IMAGES),
  };
}
