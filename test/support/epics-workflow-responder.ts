/**
 * A scripted PM that runs BMAD 6.12's `bmad-create-epics-and-stories` (a step-file workflow) for twelve user
 * messages, knowing nothing but the prompt it is sent: it finds the step it is at and the document it writes from
 * its own tool calls, or, once the chat was compacted, from the hand-off (docs/models.md "Compaction"). Lost, it
 * says so ("LOST: …") instead of guessing, so a test sees a compaction that dropped BMAD's place. It presents each
 * draft at length in the chat, as BMAD's agents do, and reports the usage a provider would (its prompt counted as
 * the scripted model counts it against its window). It also writes the hand-off summaries it is asked for.
 */
import { countPromptTokens, type ChatRequestBody, type ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

export const epicsSkill = "bmad-create-epics-and-stories";
export const epicsDocument = "{planning_artifacts}/lighthouse-epics.md";
/** The workflow's step files in 6.12, in order. */
export const epicsStepFiles = ["step-01-validate-prerequisites.md", "step-02-design-epics.md", "step-03-create-stories.md", "step-04-final-validation.md"];

/** What the user says, turn by turn, and the step each turn ends at. */
export const epicsWorkflowTurns: ReadonlyArray<{ message: string; step: number }> = [
  { message: `Let's create the epics and stories for Lighthouse, in ${epicsDocument}.`, step: 1 },
  { message: "C", step: 2 },
  { message: "Epic 1: Sign-in. Keepers sign in with a link sent by email.", step: 2 },
  { message: "Epic 2: Ship tracking. Ships show on a live map of the coast.", step: 2 },
  { message: "Epic 3: Storm alerts. Keepers get an alert when a storm comes near.", step: 2 },
  { message: "Epic 4: Monthly reports. The harbour office gets a report each month.", step: 2 },
  { message: "That is the whole list. C", step: 3 },
  { message: "Story 1.1: As a keeper I sign in with a link from my email.", step: 3 },
  { message: "Story 2.1: As a keeper I see every ship within 20 miles on the map.", step: 3 },
  { message: "Story 3.1: As a keeper I get an alert when the wind passes 50 knots.", step: 3 },
  { message: "Story 4.1: As the harbour office I receive a report on the first of the month.", step: 3 },
  { message: "C", step: 4 },
];

const handoffStart = "[From the system: this conversation was compacted";
const summaryRequest = "You write the hand-off note";

interface Place {
  skillFolder?: string;
  step?: number;
  document?: string;
}

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Answers one request of the workflow's chat, or of its hand-off summary. */
export function epicsWorkflowResponder(request: ChatRequestBody): ScriptedTurn {
  const reply = (turn: Omit<ScriptedTurn, "usage">): ScriptedTurn => ({ ...turn, usage: { prompt_tokens: countPromptTokens(request), completion_tokens: Math.ceil(JSON.stringify(turn).length / 4) } });
  if (textOf(request.messages[0]?.content).startsWith(summaryRequest)) return reply({ text: summaryOf(textOf(request.messages[1]?.content)) });
  const place = placeOf(request);
  const last = request.messages.at(-1);
  if (last?.role === "tool") return reply(afterTool(request, place, last.tool_call_id ?? ""));
  return reply(afterUser(latestUserWords(request), place));
}

function afterUser(words: string, place: Place): Omit<ScriptedTurn, "usage"> {
  if (words.startsWith("Let's create the epics")) return call("load_skill", { name: epicsSkill });
  if (/\bC$/.test(words)) {
    if (place.step === undefined || place.skillFolder === undefined) return { text: "LOST: I do not know which step this workflow is at." };
    if (place.step === 1) return call("read_file", { file_path: stepPath(place.skillFolder, 2) });
    if (place.document === undefined) return { text: "LOST: I do not know which document this workflow writes." };
    const done = (count: number) => `stepsCompleted: [${Array.from({ length: count }, (_unused, index) => index + 1).join(", ")}]`;
    return call("edit_file", { file_path: place.document, old_string: done(place.step - 1), new_string: done(place.step) });
  }
  if (/^(Epic|Story) \d/.test(words)) {
    if (place.document === undefined) return { text: "LOST: I do not know which document this workflow writes." };
    const [title = words, ...rest] = words.split(". ");
    return call("save_output", { file_path: place.document, mode: "append", content: `\n## ${title}\n\n${rest.join(". ")}\n` });
  }
  return { text: presented(`You said: ${words}`) };
}

function afterTool(request: ChatRequestBody, place: Place, callId: string): Omit<ScriptedTurn, "usage"> {
  const made = callsOf(request).find((candidate) => candidate.id === callId);
  const result = textOf(request.messages.at(-1)?.content);
  if (!made) return { text: "LOST: I do not know what I asked for." };
  if (made.name === "load_skill") {
    const folder = /"path":"([^"]+)"/.exec(result)?.[1];
    return folder ? call("read_file", { file_path: stepPath(folder, 1) }) : { text: `LOST: the skill did not load: ${result.slice(0, 200)}` };
  }
  const step = stepOf(String(made.args["file_path"] ?? ""));
  if (made.name === "read_file" && step === 1) {
    const document = /in (\{planning_artifacts\}\/\S+\.md)/.exec(firstUserWords(request))?.[1];
    if (!document) return { text: "LOST: I do not know where to write." };
    const content = "---\nstepsCompleted: [1]\n---\n# Lighthouse: Epics and Stories\n\n## Requirements Inventory\n\nFR1 sign-in, FR2 ship map, FR3 storm alerts, FR4 reports.\n";
    return call("save_output", { file_path: document, content });
  }
  if (made.name === "read_file" && step !== undefined) return { text: presented(`Step ${step} is open: ${step === 2 ? "name the epics one by one" : step === 3 ? "give a first story for each epic" : "let us check the document"}.`) };
  if (made.name === "edit_file" && String(made.args["old_string"]).startsWith("stepsCompleted")) {
    if (!result.startsWith('{"success":true')) return { text: `LOST: the document's progress could not be updated: ${result.slice(0, 200)}` };
    if (place.skillFolder === undefined || place.step === undefined) return { text: "LOST: I do not know which step comes next." };
    return call("read_file", { file_path: stepPath(place.skillFolder, place.step + 1) });
  }
  if (made.name === "save_output" && !result.startsWith('{"success":true')) return { text: `LOST: the document could not be written: ${result.slice(0, 200)}` };
  return { text: presented(`Written to ${String(made.args["file_path"])}. What comes next?`) };
}

/** Where the workflow stands, from the prompt alone: the hand-off first, then the tool calls after it. */
function placeOf(request: ChatRequestBody): Place {
  const place: Place = {};
  for (const message of request.messages) {
    const content = textOf(message.content);
    if (message.role === "user" && content.startsWith(handoffStart)) {
      const step = /## The current step file: (\S+)/.exec(content)?.[1];
      if (step) setStep(place, step);
      const workflow = /## The workflow being run[^\n]*: (\S+)\/SKILL\.md/.exec(content)?.[1];
      if (workflow) place.skillFolder ??= workflow;
      const changed = /## Files this chat changed, the latest last\n\n((?:- .+\n?)+)/.exec(content)?.[1];
      const latest = changed?.trim().split("\n").at(-1)?.slice(2);
      if (latest) place.document = latest;
    }
  }
  for (const made of callsOf(request)) {
    const path = String(made.args["file_path"] ?? "");
    if (made.name === "read_file" && stepOf(path) !== undefined) setStep(place, path);
    if (made.name === "save_output" || made.name === "edit_file") place.document = path;
  }
  return place;
}

function setStep(place: Place, path: string): void {
  place.step = stepOf(path);
  place.skillFolder = path.slice(0, path.indexOf("/steps/"));
}

const stepOf = (path: string): number | undefined => {
  const found = /\/steps\/step-0(\d)/.exec(path)?.[1];
  return found === undefined ? undefined : Number(found);
};
const stepPath = (folder: string, step: number): string => `${folder}/steps/${epicsStepFiles[step - 1] ?? "missing"}`;

function callsOf(request: ChatRequestBody): Call[] {
  return request.messages.flatMap((message) =>
    ((message.tool_calls ?? []) as Array<{ id: string; function: { name: string; arguments: string } }>).map((made) => ({
      id: made.id,
      name: made.function.name,
      args: JSON.parse(made.function.arguments || "{}") as Record<string, unknown>,
    })),
  );
}

/** The user's latest words: the last user message, or, when the hand-off carries it, the last message it quotes. */
function latestUserWords(request: ChatRequestBody): string {
  const content = withoutSystemNote(textOf(request.messages.filter((message) => message.role === "user").at(-1)?.content));
  if (!content.startsWith(handoffStart)) return content;
  const quoted = /## The user's latest messages, oldest first\n\n([\s\S]*?)(\n\n## |$)/.exec(content)?.[1] ?? "";
  return (quoted.split("\n\n").at(-1) ?? "").replace(/^> /gm, "");
}

const firstUserWords = (request: ChatRequestBody): string => {
  const users = request.messages.filter((message) => message.role === "user").map((message) => textOf(message.content));
  return users.find((content) => content.includes("Let's create the epics")) ?? "";
};

const call = (name: string, args: Record<string, unknown>): Omit<ScriptedTurn, "usage"> => ({ toolCalls: [{ name, arguments: args }] });

/** A draft presented in the chat, at the length BMAD's agents present one (about 3,000 characters). */
function presented(lead: string): string {
  const lines = [lead];
  for (let index = 1; lines.join("\n").length < 3_000; index++) {
    lines.push(`${index}. The keepers of the Lighthouse coast review this part of the plan, its users, its risks and its acceptance criteria, and say whether it reads right.`);
  }
  return `${lines.join("\n")}\n\n[C] Continue, or tell me what to change.`;
}

/** A hand-off summary from the transcript: the workflow, and every answer the user gave. */
function summaryOf(transcript: string): string {
  const answers = [...transcript.matchAll(/^USER: (.*)$/gm)].map((match) => match[1]).filter((answer) => !answer?.startsWith(handoffStart));
  return `Goal: the epics and stories of Lighthouse with ${epicsSkill}. The user's answers so far: ${answers.join(" | ")}.`;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("") : "";
}
