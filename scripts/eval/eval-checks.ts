/**
 * The rules that grade a step from what actually happened in it: the turn's events (tool calls with their
 * arguments and results, the answer), the project's files afterwards, and the config the eval wrote. Each
 * rule is a pure function of that record; docs/eval.md "Checks" says what each one means.
 */
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { detectLanguage, isDetectableLanguage } from "./language.js";
import type { AgentDetail, Greeting, MenuItem, ProjectFile, TurnRecord } from "./eval-client.js";
import type { CheckName, Journey, JourneyStep } from "./eval-journeys.js";

export type Outcome = "pass" | "fail" | "error";

export interface CheckResult {
  check: CheckName;
  outcome: Outcome;
  reason: string;
}

export interface StepRecord {
  journey: Journey;
  step: JourneyStep;
  agent: AgentDetail;
  turn: TurnRecord;
  /** the journey's earlier turns, oldest first */
  earlier: TurnRecord[];
  config: { userName: string; language: string };
  /** the greeting the system builds from the install's config (what the activation loaded) */
  systemGreeting: Greeting | undefined;
  outputFolder: string;
  /** the project's files after the step */
  files: ProjectFile[];
  /**
   * the compaction journey's step after the compaction: whether the journey compacted the chat by hand (its window
   * had not), and each document written before it, as it was before the step and after it
   */
  compaction?: { byHand: boolean; documents: Array<{ path: string; before: string; after: string | undefined }> };
}

/** Tools the system offers some agent (shared/src/wire/tool-catalog.ts); a call to another is invented. */
const knownTools = new Set(["read_file", "save_output", "edit_file", "list_files", "find_files", "search_files", "preload_workflow", "load_skill", "run_script", "run_subagent"]);
/** Tool errors that mean the model named a path outside what the project shows it. */
const outOfViewCodes = new Set(["ACCESS_DENIED", "INVALID_PATH", "PATH_OUTSIDE_ROOT", "PATH_CHANGED", "PROTECTED_PATH"]);
const writeTools = new Set(["save_output", "edit_file"]);

type ToolCall = Extract<RunEvent, { type: "tool_call" }>;
type ToolResult = Extract<RunEvent, { type: "tool_result" }>;

const toolCalls = (turn: TurnRecord) => turn.events.filter((event): event is ToolCall => event.type === "tool_call");
const toolResults = (turn: TurnRecord) => turn.events.filter((event): event is ToolResult => event.type === "tool_result");
const doneOf = (turn: TurnRecord) => turn.events.find((event): event is Extract<RunEvent, { type: "done" }> => event.type === "done");
const answerOf = (turn: TurnRecord) => doneOf(turn)?.response ?? turn.events.filter((event) => event.type === "delta").map((event) => event.text).join("");

/** Path arguments the tools take; a host path (`/etc/x`, `~/x`, `C:\\x`) or a `..` step is outside the project's view, refused or not. */
const pathArguments = ["file_path", "path", "workflow_path"];
function namesHostPath(args: Record<string, unknown>): boolean {
  return pathArguments.some((name) => {
    const value = args[name];
    return typeof value === "string" && (/^(\/|~|[A-Za-z]:[\\/])/.test(value) || value.split(/[\\/]/).includes(".."));
  });
}

/** Each call with its result (undefined when none came). */
function callsWithResults(turn: TurnRecord): Array<{ call: ToolCall; result: ToolResult | undefined }> {
  const results = toolResults(turn);
  return toolCalls(turn).map((call) => ({ call, result: results.find((result) => result.call_id === call.call_id) }));
}

const pass = (check: CheckName, reason: string): CheckResult => ({ check, outcome: "pass", reason });
const fail = (check: CheckName, reason: string): CheckResult => ({ check, outcome: "fail", reason });

/** A path as the project names it: `{project-root}/` dropped, no leading `./` or `/`. */
export function projectPath(path: string): string {
  return path.replace(/^\{project-root\}\/?/, "").replace(/^\.?\/+/, "");
}

const inFolder = (path: string, folder: string) => projectPath(path).startsWith(`${folder}/`);

/** Whether an answer shows a menu item: its code as a word, or the first words of its description. */
export function showsItem(answer: string, item: Pick<MenuItem, "trigger" | "description">): boolean {
  const text = answer.toLowerCase();
  const code = (item.trigger.split(/\s+/)[0] ?? "").replace(/^\*/, "").toLowerCase();
  if (code.length >= 2 && new RegExp(`(^|[^\\p{L}\\p{N}-])\\*?${escape(code)}($|[^\\p{L}\\p{N}-])`, "u").test(text)) return true;
  const words = item.description.replace(/^\[[^\]]*\]\s*/, "").toLowerCase().split(/\s+/).slice(0, 3).join(" ");
  return words.length >= 4 && text.includes(words);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function menuCheck(check: CheckName, answer: string, menu: readonly MenuItem[]): CheckResult {
  const missing = menu.filter((item) => !showsItem(answer, item)).map((item) => item.trigger.split(/\s+/)[0]);
  return missing.length === 0 ? pass(check, `all ${menu.length} menu items shown`) : fail(check, `menu items not shown: ${missing.join(", ")}`);
}

/** The graded results of one step: its own checks, each once; an unfinished turn makes the other checks errors. */
export function gradeStep(record: StepRecord): CheckResult[] {
  const { turn, step } = record;
  const done = doneOf(turn);
  const ended = turn.events.find((event) => event.type === "error");
  const failure = turn.refused
    ? `the turn was refused: HTTP ${turn.refused.status} ${turn.refused.body.slice(0, 200)}`
    : ended?.type === "error"
      ? `the turn ended with ${ended.error.code}: ${ended.error.message.slice(0, 200)}`
      : done
        ? undefined
        : "the turn's event stream ended without done or error";
  return step.checks.flatMap((check): CheckResult[] => {
    if (check === "turn.done") {
      return [failure ? fail(check, failure) : pass(check, `done in ${done?.iterations ?? 0} model calls, ${done?.usage.total_tokens ?? 0} tokens`)];
    }
    if (failure && !["tools.known", "tools.in_view", "activation.config"].includes(check)) return [{ check, outcome: "error", reason: failure }];
    const graded = gradeCheck(check, record);
    return graded ? [graded] : [];
  });
}

/** One check, or undefined when it cannot be graded here (a language the detector does not know). */
function gradeCheck(check: CheckName, record: StepRecord): CheckResult | undefined {
  const { turn, agent, config } = record;
  const answer = answerOf(turn);
  switch (check) {
    case "turn.done":
      return undefined;
    case "tools.known": {
      const invented = callsWithResults(turn).filter(({ call, result }) => !knownTools.has(call.name) || result?.error_code === "UNKNOWN_TOOL");
      return invented.length === 0 ? pass(check, "every tool called exists") : fail(check, `invented tools: ${invented.map(({ call }) => call.name).join(", ")}`);
    }
    case "tools.in_view": {
      const outside = callsWithResults(turn).filter(({ call, result }) => (result?.error_code !== undefined && outOfViewCodes.has(result.error_code)) || namesHostPath(call.arguments));
      return outside.length === 0
        ? pass(check, "no tool call named a path outside the project's view")
        : fail(check, outside.map(({ call, result }) => `${call.name} ${JSON.stringify(call.arguments).slice(0, 120)} → ${result?.error_code ?? ""}`).join("; "));
    }
    case "activation.config": {
      const greeting = record.systemGreeting;
      const loaded = greeting?.user_name === config.userName && greeting.language === config.language;
      return loaded
        ? pass(check, `the activation loaded user_name ${config.userName} and communication_language ${config.language}`)
        : fail(check, `the activation loaded user_name ${greeting?.user_name ?? "(none)"}, language ${greeting?.language ?? "(none)"}`);
    }
    case "greeting.agent_name":
      return answer.includes(agent.name) ? pass(check, `names ${agent.name}`) : fail(check, `does not name the agent, ${agent.name}`);
    case "greeting.user_name":
      return new RegExp(`(^|[^\\p{L}])${escape(config.userName)}($|[^\\p{L}])`, "iu").test(answer)
        ? pass(check, `greets ${config.userName}`)
        : fail(check, `does not greet the configured user_name, ${config.userName}`);
    case "greeting.language": {
      if (!isDetectableLanguage(config.language)) return undefined;
      // the menu's lines are the install's text, in its own language: only the agent's own words count
      const own = answer
        .split("\n")
        .filter((line) => !agent.menu.some((item) => showsItem(line, item)))
        .join("\n");
      const detected = detectLanguage(own);
      return detected === config.language.trim().toLowerCase()
        ? pass(check, `answers in ${config.language}`)
        : fail(check, `answers in ${detected ?? "no recognisable language"}, not the configured ${config.language}`);
    }
    case "greeting.menu":
    case "menu.items":
      return menuCheck(check, answer, agent.menu);
    case "workflow.loaded":
    case "dependency.loaded":
      return loadedCheck(check, record);
    case "step.question":
      return /[?？¿]/.test(answer) ? pass(check, "the answer asks the user a question") : fail(check, "the answer asks no question");
    case "step.no_early_write": {
      const writes = toolCalls(turn).filter((call) => writeTools.has(call.name));
      return writes.length === 0
        ? pass(check, "nothing written before the user answered")
        : fail(check, `wrote before the user answered: ${writes.map((call) => String(call.arguments["file_path"] ?? call.name)).join(", ")}`);
    }
    case "output.saved": {
      const saved = callsWithResults(turn).filter(({ call, result }) => writeTools.has(call.name) && result?.success === true && inFolder(result.path ?? String(call.arguments["file_path"] ?? ""), record.outputFolder));
      return saved.length > 0
        ? pass(check, `saved ${saved.map(({ call, result }) => result?.path ?? String(call.arguments["file_path"])).join(", ")}`)
        : fail(check, `nothing saved into ${record.outputFolder}/ in this step`);
    }
    case "output.in_folder": {
      const elsewhere = record.files.filter((file) => !inFolder(file.path, record.outputFolder)).map((file) => file.path);
      return elsewhere.length === 0 ? pass(check, `every project file is in ${record.outputFolder}/`) : fail(check, `files outside ${record.outputFolder}/: ${elsewhere.join(", ")}`);
    }
    case "compaction.done": {
      const events = [...record.earlier, turn].flatMap((made) => made.events).filter((event) => event.type === "compaction");
      const first = events[0];
      if (first?.type === "compaction") return pass(check, `the window compacted the chat (${first.stage}: ${first.before_tokens} → ${first.after_tokens} tokens)`);
      return record.compaction?.byHand ? pass(check, "compacted by hand before this step: the window was not reached") : fail(check, "the chat was not compacted");
    }
    case "resume.no_restart":
      return restartCheck(check, record);
    case "resume.same_document":
      return sameDocumentCheck(check, record);
    case "script.ran": {
      const script = record.journey.script ?? "";
      const runs = [...record.earlier, turn].flatMap(callsWithResults).filter(({ call }) => call.name === "run_script" && String(call.arguments["command"] ?? "").includes(script));
      const succeeded = runs.filter(({ result }) => result?.success === true);
      if (succeeded.length > 0) return pass(check, `ran ${script}`);
      return fail(check, runs.length > 0 ? `${script} failed: ${runs.map(({ result }) => result?.error_code ?? "no result").join(", ")}` : `never ran ${script}`);
    }
  }
}

/** The picked item's workflow was loaded in this step, the way its release loads it. */
function loadedCheck(check: CheckName, record: StepRecord): CheckResult {
  const target = record.journey.target;
  const succeeded = callsWithResults(record.turn).filter(({ result }) => result?.success === true);
  const sameFile = (given: unknown, expected: string) => typeof given === "string" && sameTail(tail(given), tail(expected));
  if (!target) return fail(check, "the journey has no workflow to load");
  switch (target.kind) {
    case "skill":
      return succeeded.some(({ call }) => call.name === "load_skill" && call.arguments["name"] === target.skill)
        ? pass(check, `load_skill ${target.skill}`)
        : fail(check, `no load_skill of ${target.skill} before answering`);
    case "preload":
      return succeeded.some(({ call }) => call.name === "preload_workflow" && sameFile(call.arguments["workflow_path"], target.path))
        ? pass(check, `preload_workflow ${target.path}`)
        : fail(check, `no preload_workflow of ${target.path} before answering`);
    case "read":
      return succeeded.some(({ call }) => call.name === "read_file" && sameFile(call.arguments["file_path"], target.path))
        ? pass(check, `read_file ${target.path}`)
        : fail(check, `no read_file of ${target.path} before answering`);
    case "dependency": {
      const missing = target.files.filter((file) => !succeeded.some(({ call }) => call.name === "read_file" && sameFile(call.arguments["file_path"], file)));
      return missing.length === 0 ? pass(check, `read ${target.files.join(", ")}`) : fail(check, `did not load ${missing.join(", ")}`);
    }
  }
}

/** A step file of a step-file workflow (`steps/step-02-….md`, `steps-c/…`). */
const stepFile = /(^|\/)(steps(-[a-z]+)?\/[^/]+\.md|step-[^/]*\.md)$/i;

/**
 * After a compaction the workflow goes on where it was: the step's turn neither loads the workflow again nor reads
 * again a step file it had finished (the step file it was at may be read again).
 */
function restartCheck(check: CheckName, record: StepRecord): CheckResult {
  const reloaded = loadedCheck("workflow.loaded", { ...record, earlier: [] });
  if (record.journey.target && reloaded.outcome === "pass") return fail(check, `loaded the workflow again: ${reloaded.reason}`);
  const reads = (made: TurnRecord) => callsWithResults(made).filter(({ call, result }) => call.name === "read_file" && result?.success === true).map(({ call }) => tail(String(call.arguments["file_path"] ?? "")));
  const earlierSteps = record.earlier.flatMap(reads).filter((path) => stepFile.test(path));
  const finished = new Set(earlierSteps.slice(0, -1).filter((path) => path !== earlierSteps.at(-1)));
  const again = reads(record.turn).filter((path) => finished.has(path));
  return again.length === 0 ? pass(check, `went on without restarting${earlierSteps.length ? ` (it had reached ${earlierSteps.at(-1) ?? ""})` : ""}`) : fail(check, `read again step files it had finished: ${again.join(", ")}`);
}

/** After a compaction the workflow writes into the document it was writing, whose earlier sections are still there. */
function sameDocumentCheck(check: CheckName, record: StepRecord): CheckResult {
  const documents = record.compaction?.documents ?? [];
  if (documents.length === 0) return fail(check, "no document was written before the compaction");
  for (const document of documents) {
    const headings = document.before.split("\n").filter((line) => /^#{1,6} /.test(line));
    const lost = document.after === undefined ? headings : headings.filter((heading) => !document.after?.includes(heading));
    if (document.after === undefined) return fail(check, `${document.path} is gone`);
    if (lost.length > 0) return fail(check, `${document.path} lost its sections ${lost.join(", ")}`);
  }
  const known = new Set(documents.map((document) => document.path));
  const written = callsWithResults(record.turn)
    .filter(({ call, result }) => writeTools.has(call.name) && result?.success === true)
    .map(({ call, result }) => projectPath(result?.path ?? String(call.arguments["file_path"] ?? "")));
  const elsewhere = written.filter((path) => !known.has(path) && inFolder(path, record.outputFolder));
  return elsewhere.length === 0
    ? pass(check, `${written.length ? `wrote ${[...new Set(written)].join(", ")}` : "wrote nothing new"}; ${documents.map((document) => document.path).join(", ")} kept its sections`)
    : fail(check, `started another document instead: ${elsewhere.join(", ")}`);
}

/** Two paths that name one file from different roots (`{bundle-root}/tasks/x.md`, `.bmad-core/tasks/x.md`). */
function sameTail(first: string, second: string): boolean {
  return first === second || first.endsWith(`/${second}`) || second.endsWith(`/${first}`);
}

/** A path without its root variable (`{bundle-root}/…`, `{project-root}/…`) or leading `./`: what names the file. */
function tail(path: string): string {
  return path.replace(/^\{[\w-]+\}\/?/, "").replace(/^\.?\/+/, "");
}
