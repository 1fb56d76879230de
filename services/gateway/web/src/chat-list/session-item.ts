import type { AgentSummary, SessionSummary } from "@agent-orchestrator/shared/wire";
import { agentAvatar } from "../agents/agent-avatar.js";
import { h, type Child } from "../lib/dom.js";
import { formatRelativeTime } from "../lib/format.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { sessionStatusLabel } from "../chat/session-status.js";

/** A chat's name in lists and dialogs: the title it has, else a stand-in naming its agent. */
export const chatTitle = (session: Pick<SessionSummary, "title">, agentName: string): string => session.title || `New chat with ${agentName}`;

/** "1,234 tokens", "12.3k tokens": a chat's token use, short enough for the sidebar. */
export function formatTokens(total: number): string {
  if (total < 10_000) return `${total.toLocaleString()} ${total === 1 ? "token" : "tokens"}`;
  return `${(total / 1000).toFixed(total < 100_000 ? 1 : 0)}k tokens`;
}

/**
 * One chat as a link to `#/session/<id>`: its agent's face, its title, agent, last activity and token use,
 * and its status; `extra` goes under the title (a search's match). Screen readers hear one sentence.
 */
export function sessionLink(session: SessionSummary, agent: AgentSummary | undefined, current: boolean, extra?: Child): HTMLAnchorElement {
  const agentName = agent?.name ?? session.agent_id;
  const status = sessionStatusLabel(session.status);
  const title = chatTitle(session, agentName);
  const tokens = formatTokens(session.usage.total_tokens);
  return h(
    "a",
    {
      class: "session-item",
      href: formatHashRoute({ view: "session", sessionId: session.id }),
      "aria-current": current ? "page" : undefined,
      "aria-label": `${title}, with ${agentName}, ${status}, ${formatRelativeTime(session.updated_at)}, ${tokens}`,
    },
    agentAvatar(agent ?? { icon: "", name: session.agent_id }),
    h(
      "span",
      { class: "session-text" },
      h("span", { class: "session-title" }, title),
      extra,
      h(
        "span",
        { class: "session-meta" },
        h("span", {}, agentName),
        h("span", { "aria-hidden": "true" }, " · "),
        h("time", { datetime: session.updated_at }, formatRelativeTime(session.updated_at)),
        h("span", { "aria-hidden": "true" }, " · "),
        h("span", { class: "session-tokens" }, tokens),
      ),
    ),
    h("span", { class: `status status-${session.status}` }, status),
  );
}
