// update_plan: the model keeps a short to-do list; each call is sent as an ACP `plan` update so
// the page shows the steps and their status.

import type { Tool } from "./types.ts";

export interface PlanEntry {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
}

export function planEntries(a: Record<string, unknown>): PlanEntry[] {
  const list = Array.isArray(a.entries) ? a.entries : [];
  return list.flatMap((e) => {
    if (!e || typeof e !== "object") return [];
    const x = e as Record<string, unknown>;
    const status = x.status === "in_progress" || x.status === "completed" ? x.status : "pending";
    const priority = x.priority === "high" || x.priority === "low" ? x.priority : "medium";
    return typeof x.content === "string" ? [{ content: x.content, status, priority }] : [];
  });
}

export const updatePlan: Tool = {
  name: "update_plan",
  description: "Keep a short plan for multi-step work: send the whole list each time with each step's status.",
  parameters: {
    type: "object",
    properties: {
      entries: {
        type: "array",
        items: {
          type: "object",
          properties: {
            content: { type: "string" },
            status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          },
          required: ["content", "status"],
        },
      },
    },
    required: ["entries"],
  },
  kind: "think",
  writes: false,
  title: () => "Plan",
  async run(a) {
    return { text: `Plan updated (${planEntries(a).length} steps).` };
  },
};
