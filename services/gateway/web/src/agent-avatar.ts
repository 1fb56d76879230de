import { h } from "./dom.js";
import type { AgentSummary } from "./wire-types.js";

/** An agent's face: its icon (an emoji in BMAD agents), or its initial when it has none. */
export const agentAvatar = (agent: Pick<AgentSummary, "icon" | "name"> | undefined): HTMLElement =>
  h("span", { class: "avatar", "aria-hidden": "true" }, agent?.icon || agent?.name.slice(0, 1).toUpperCase() || "?");
