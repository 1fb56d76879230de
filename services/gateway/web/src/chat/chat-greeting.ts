import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { toApiError } from "../api/api-error.js";
import { chatApi } from "./chat-api.js";
import type { ChatView } from "./chat-view.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { greetingMessage, greetingPlaceholder } from "./greeting-view.js";

export interface GreetingStart {
  agent: AgentSummary;
  projectId: string;
  /** the caller is a viewer of the project: they read the greeting, and no chat is started */
  readOnly: boolean;
  chat: ChatView;
  useCommand(trigger: string): void;
}

/**
 * Choosing an agent starts its chat at once (`POST /api/sessions`): the agent's greeting, built without a model
 * call, shows as the chat's first answer, and the user's first message continues that session. A viewer, who
 * may not start a chat, sees the same greeting as a preview. Answers the new session's id; undefined for a
 * preview or when the greeting failed, which the chat then shows (a first message still starts a chat).
 */
export async function greetNewChat(start: GreetingStart): Promise<string | undefined> {
  const { agent, chat } = start;
  const pending = greetingPlaceholder(agent);
  chat.append(pending);
  const show = (greeting: Parameters<typeof greetingMessage>[1]): void => pending.replaceWith(greetingMessage(agent, greeting, chat.openFile, start.useCommand));
  try {
    if (start.readOnly) {
      show(await chatApi.previewGreeting(agent.id, start.projectId));
      return undefined;
    }
    const started = await chatApi.startChat(agent.id, start.projectId);
    show(started.greeting);
    return started.sessionId;
  } catch (error) {
    const failure = toApiError(error);
    const next = start.readOnly ? null : h("p", { class: "callout-hint" }, `You can still write to ${agent.name}: your first message starts the chat.`);
    pending.replaceWith(h("div", { class: "greeting-failed" }, h("p", { class: "note" }, `${agent.name}'s greeting could not be loaded.`), errorCallout(failure, next)));
    return undefined;
  }
}
