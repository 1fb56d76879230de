import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { h } from "../lib/dom.js";

/** An agent's face: its icon (an emoji in BMAD agents), or its initial when it has none. */
export const agentAvatar = (agent: Pick<AgentSummary, "icon" | "name"> | undefined): HTMLElement =>
  h("span", { class: "avatar", "aria-hidden": "true" }, agent?.icon || agent?.name.slice(0, 1).toUpperCase() || "?");
