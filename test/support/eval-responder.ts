/**
 * A scripted model that follows BMAD the way the eval's checks expect (scripts/eval/, docs/eval.md), reading
 * everything it needs from the request as a real model would: the agent's name, the config and the menu from
 * the system prompt, the phase from the user's last message and the tool calls made since. With a misbehaviour
 * it breaks one rule, so a test can show that the eval fails exactly the checks that rule is graded by.
 */
import type { ChatRequestBody, Responder, ScriptedToolCall, ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

export const misbehaviours = ["skip-config", "skip-workflow", "wrong-folder", "invent-tool", "skip-question", "read-outside", "no-tools", "restart-after-compaction"] as const;
export type Misbehaviour = (typeof misbehaviours)[number];

interface PromptMenuItem {
  code: string;
  line: string;
  skill?: string;
  workflow?: string;
  /** a 4.x `use task create-doc with <template>` item's template */
  template?: string;
}

interface PromptFacts {
  agentName: string;
  userName: string;
  french: boolean;
  outputFolder: string;
  menu: PromptMenuItem[];
}

/**
 * The chat's own answers, when the prompt ends with them (docs/settings.md): the config above then says
 * `- user_name: {user_name}` and the value is in this last JSON line.
 */
function chatSettings(system: string): Record<string, unknown> {
  const start = system.lastIndexOf("THIS CHAT'S SETTINGS");
  const line = start < 0 ? undefined : system.slice(start).split("\n").find((candidate) => candidate.startsWith("{"));
  return line ? (JSON.parse(line) as Record<string, unknown>) : {};
}

/** What the system prompt says: `You are Mary, …`, `- user_name: Ada`, and the `MENU …` section's lines. */
function promptFacts(system: string): PromptFacts {
  const settings = chatSettings(system);
  const variable = (name: string) => {
    const said = new RegExp(`^- ${name}: (.+)$`, "m").exec(system)?.[1]?.trim();
    const answer = settings[name];
    return typeof answer === "string" && (said === undefined || said === `{${name}}`) ? answer : said;
  };
  const menuStart = system.search(/^MENU \(/m);
  const menuLines = menuStart < 0 ? [] : (system.slice(menuStart).split("\n\n")[0] ?? "").split("\n").slice(1);
  const listed = menuLines.flatMap((line): PromptMenuItem[] => {
    const match = /^\d+\. (\S+)(?:.*?) — (.*)$/.exec(line);
    if (!match) return [];
    const code = (match[1] ?? "").replace(/^\*/, "");
    const skill = /skill: ([\w-]+)/.exec(line)?.[1] ?? /`(bmad-[\w-]+)`\s+skill/.exec(line)?.[1];
    const workflow = /workflow: (\S+?)[;)]/.exec(line)?.[1];
    const template = /use task create-doc with (\S+\.yaml)/.exec(line)?.[1];
    return [{ code, line: line.replace(/^\d+\. /, ""), ...(skill ? { skill } : {}), ...(workflow ? { workflow } : {}), ...(template ? { template } : {}) }];
  });
  // a skill's menu may be left to its SKILL.md, rendered there as `- code: BP; description: …; skill: x`
  const rendered = [...system.matchAll(/^- code: ([^;]+); description: (.*)$/gm)].map((match): PromptMenuItem => {
    const skill = /; skill: ([\w-]+)/.exec(match[2] ?? "")?.[1] ?? /`(bmad-[\w-]+)`\s+skill/.exec(match[2] ?? "")?.[1];
    return { code: (match[1] ?? "").trim(), line: `${(match[1] ?? "").trim()} — ${(match[2] ?? "").split("; ")[0] ?? ""}`, ...(skill ? { skill } : {}) };
  });
  const menu = listed.length > 0 ? listed : rendered;
  return {
    agentName: /^You are ([^,.\n]+)/.exec(system)?.[1]?.trim() ?? "your agent",
    userName: variable("user_name") ?? "User",
    french: (variable("communication_language") ?? "").toLowerCase() === "french",
    outputFolder: variable("output_folder") ?? "{project-root}/_bmad-output",
    menu,
  };
}

const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content ?? ""));

/** The responder; `misbehaviour` names the one rule it breaks, none for a model that keeps every rule. */
export function bmadResponder(misbehaviour?: Misbehaviour): Responder {
  return (request: ChatRequestBody): ScriptedTurn => {
    const facts = promptFacts(text(request.messages[0]?.content));
    const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
    // the system ends the conversation's first user message with a note of its own (`[From the system: today's date is …]`)
    const said = withoutSystemNote(text(request.messages[lastUser]?.content)).trim();
    const since = request.messages.slice(lastUser + 1);
    const called = since.flatMap((message) => ((message.tool_calls as Array<{ function: { name: string } }> | undefined) ?? []).map((call) => call.function.name));
    const say = (french: string, english: string): ScriptedTurn => ({ text: facts.french ? french : english });
    const menuText = facts.menu.map((item, index) => `${index + 1}. ${item.line}`).join("\n");

    if (said === "Hello") {
      if (misbehaviour === "skip-config") return { text: `Hello! I am ${facts.agentName}. Here is what I can do for you:\n${menuText}\nWhat would you like to do?` };
      return say(
        `Bonjour ${facts.userName} ! Je suis ${facts.agentName}. Voici ce que je peux faire pour vous :\n${menuText}\nQue voulez-vous faire ?`,
        `Hello ${facts.userName}! I am ${facts.agentName}. Here is what I can do for you:\n${menuText}\nWhat would you like to do?`,
      );
    }
    const code = (said.split(/\s+/)[0] ?? "").replace(/^\*/, "").toLowerCase();
    const item = facts.menu.find((candidate) => candidate.code.toLowerCase() === code);
    if (/menu/i.test(said) || code === "help" || code === "mh") return say(`Voici le menu :\n${menuText}\nQue voulez-vous faire ?`, `Here is the menu:\n${menuText}\nWhat would you like to do?`);
    if (item) return pickTurn(item, called, facts, misbehaviour, say);
    if (said.startsWith("Yes, that is right. Go on")) return resumeTurn(request, called, facts, misbehaviour, say);
    if (said.startsWith("My idea:")) {
      if (misbehaviour === "no-tools") return say("C'est noté dans le document. Qui a ce problème le plus souvent ?", "That is in the document now. Who has this problem most often?");
      const loadedScript = request.messages.some((message) => message.role === "tool" && text(message.content).includes("memlog.py"));
      if (loadedScript && !called.includes("run_script")) {
        return { toolCalls: [{ name: "run_script", arguments: { command: 'uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/eval-run --field topic="Garden tools"' } }] };
      }
      // a 4.x template names its document's file itself (`output: filename: docs/brief.md`)
      const templateFile = request.messages.map((message) => (message.role === "tool" ? /^\s*filename: (\S+)/m.exec(toolContent(message.content))?.[1] : undefined)).find(Boolean);
      if (!called.includes("save_output")) return { toolCalls: [saveCall(facts, misbehaviour, templateFile)] };
      return say("C'est noté dans le document. Qui a ce problème le plus souvent ?", "That is in the document now. Who has this problem most often?");
    }
    return say("Pouvez-vous préciser ce que vous voulez faire ?", "Could you say what you would like to do?");
  };
}

/**
 * "Go on" after the chat was compacted: the document to go on writing is the one the hand-off names last
 * (docs/models.md "Compaction"); one more section goes into it. `restart-after-compaction` loads the workflow
 * again and starts a new document instead.
 */
function resumeTurn(
  request: ChatRequestBody,
  called: readonly string[],
  facts: PromptFacts,
  misbehaviour: Misbehaviour | undefined,
  say: (french: string, english: string) => ScriptedTurn,
): ScriptedTurn {
  const handoff = request.messages.map((message) => text(message.content)).find((content) => content.startsWith("[From the system: this conversation was compacted")) ?? "";
  if (misbehaviour === "restart-after-compaction") {
    const item = facts.menu.find((candidate) => candidate.skill !== undefined && handoff.includes(candidate.skill)) ?? facts.menu.find((candidate) => loadCalls(candidate).length > 0);
    const loads = item ? loadCalls(item) : [];
    if (loads.length > 0 && !loads.every((call) => called.includes(call.name))) return { toolCalls: loads };
    if (!called.includes("save_output")) return { toolCalls: [{ name: "save_output", arguments: { file_path: `${facts.outputFolder}/idea-brief-new.md`, content: "# Idea brief\n" } }] };
    return say("Recommençons. Quelle est votre idée ?", "Let us start again. What is your idea?");
  }
  const document = /## Files this chat changed, the latest last\n\n((?:- .+\n?)+)/.exec(handoff)?.[1]?.trim().split("\n").at(-1)?.slice(2);
  if (document && !called.includes("save_output")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: document, mode: "append", content: "\n## Who has the problem\n\nNeighbours with small gardens.\n" } }] };
  }
  return say("C'est ajouté au document. Quel est le plus grand risque ?", "That is in the document now. What is the biggest risk?");
}

/** The `content` of a tool result (read_file's file text), or nothing. */
function toolContent(content: unknown): string {
  try {
    const result = JSON.parse(text(content)) as { content?: unknown };
    return typeof result.content === "string" ? result.content : "";
  } catch {
    return "";
  }
}

function saveCall(facts: PromptFacts, misbehaviour: Misbehaviour | undefined, templateFile?: string): ScriptedToolCall {
  const folder = misbehaviour === "wrong-folder" ? "{project-root}" : facts.outputFolder;
  const file = templateFile && misbehaviour !== "wrong-folder" ? `{project-root}/${templateFile}` : `${folder}/idea-brief.md`;
  return { name: "save_output", arguments: { file_path: file, content: "# Idea brief\n\n## Idea\n\nNeighbours lend each other garden tools.\n" } };
}

/** A menu item picked: load its workflow the way its release does, then ask the first step's question. */
function pickTurn(
  item: PromptMenuItem,
  called: readonly string[],
  facts: PromptFacts,
  misbehaviour: Misbehaviour | undefined,
  say: (french: string, english: string) => ScriptedTurn,
): ScriptedTurn {
  if (misbehaviour === "invent-tool" && !called.includes("execute_workflow")) return { toolCalls: [{ name: "execute_workflow", arguments: { name: item.code } }] };
  if (misbehaviour === "read-outside" && !called.includes("read_file")) return { toolCalls: [{ name: "read_file", arguments: { file_path: "{project-root}/../../etc/passwd" } }] };
  const loads = loadCalls(item);
  if (misbehaviour !== "skip-workflow" && misbehaviour !== "no-tools" && loads.length > 0 && !loads.every((call) => called.includes(call.name))) return { toolCalls: loads };
  if (misbehaviour === "skip-question") {
    if (!called.includes("save_output")) return { toolCalls: [saveCall(facts, misbehaviour)] };
    return say("J'ai écrit le document.", "I have written the document.");
  }
  return say("Quelle est votre idée, en une ou deux phrases ?", "What is your idea, in one or two sentences?");
}

function loadCalls(item: PromptMenuItem): ScriptedToolCall[] {
  if (item.template) {
    return [
      { name: "read_file", arguments: { file_path: "{bundle-root}/tasks/create-doc.md" } },
      { name: "read_file", arguments: { file_path: `{bundle-root}/templates/${item.template}` } },
    ];
  }
  if (item.workflow?.endsWith(".yaml")) return [{ name: "preload_workflow", arguments: { workflow_path: item.workflow } }];
  if (item.workflow) return [{ name: "read_file", arguments: { file_path: item.workflow } }];
  if (item.skill) return [{ name: "load_skill", arguments: { name: item.skill } }];
  return [];
}
