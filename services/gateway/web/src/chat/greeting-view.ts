import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { agentAvatar } from "../agents/agent-avatar.js";
import { AssistantMessage } from "./assistant-message.js";
import type { Greeting } from "./chat-api.js";
import { h } from "../lib/dom.js";

/**
 * The agent's greeting as the chat's first answer: its text rendered as Markdown like any answer (the
 * numbered menu is part of it), then the menu again as buttons that put an entry's code in the message box.
 */
export function greetingMessage(agent: AgentSummary, greeting: Greeting, openFile: (relativePath: string) => void, useCommand: (trigger: string) => void): HTMLElement {
  const message = AssistantMessage.completed(agent, greeting.text, openFile).element;
  message.classList.add("greeting");
  if (greeting.menu.length > 0) {
    const menu = h(
      "ul",
      { class: "greeting-menu", "aria-label": `${agent.name}'s menu` },
      ...greeting.menu.map((item) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "command-chip", "aria-label": `${item.number}. ${item.trigger}: ${item.description} (put ${item.trigger} in the message box)`, onclick: () => useCommand(item.trigger) },
            h("span", { class: "greeting-number", "aria-hidden": "true" }, String(item.number)),
            h("code", {}, item.trigger),
          ),
        ),
      ),
    );
    message.querySelector(".message-content")?.insertBefore(menu, message.querySelector(".message-footer"));
  }
  return message;
}

/**
 * What stands in the greeting's place while it loads: the agent's face and the typing dots, in a block as tall
 * as a short greeting, so the greeting replaces it without pushing the page about.
 */
export function greetingPlaceholder(agent: AgentSummary): HTMLElement {
  return h(
    "article",
    { class: "message assistant greeting-pending", "aria-busy": "true", "aria-label": `${agent.name} is saying hello` },
    agentAvatar(agent),
    h("div", { class: "message-content" }, h("div", { class: "message-parts" }, h("span", { class: "typing" }, h("span", { class: "visually-hidden" }, `${agent.name} is saying hello`), h("span"), h("span"), h("span")))),
  );
}
