import { agentAvatar } from "./agent-avatar.js";
import { h } from "./dom.js";
import type { AgentDefinition } from "./wire-types.js";

/** What an empty chat shows: who the agent is, and its menu as buttons that put a command in the message box. */
export function agentIntro(agent: AgentDefinition, useCommand: (trigger: string) => void): HTMLElement {
  const commands = agent.menu.filter((item) => !item.todo);
  return h(
    "section",
    { class: "agent-intro", "aria-label": `About ${agent.name}` },
    agentAvatar(agent),
    h("h2", {}, `${agent.name} — ${agent.title}`),
    agent.persona.role ? h("p", { class: "intro-role" }, agent.persona.role) : null,
    agent.persona.communication_style ? h("p", { class: "intro-style" }, agent.persona.communication_style) : null,
    commands.length > 0
      ? h(
          "div",
          { class: "intro-commands" },
          h("p", { class: "intro-label" }, "Commands"),
          h(
            "ul",
            {},
            ...commands.map((item) =>
              h(
                "li",
                {},
                h(
                  "button",
                  { type: "button", class: "command-chip", onclick: () => useCommand(item.trigger), title: `Put ${item.trigger} in the message box` },
                  h("code", {}, item.trigger),
                  h("span", {}, item.description),
                  item.skill ? h("span", { class: "command-skill", title: `Runs the ${item.skill} skill` }, item.skill) : null,
                ),
              ),
            ),
          ),
        )
      : null,
  );
}
