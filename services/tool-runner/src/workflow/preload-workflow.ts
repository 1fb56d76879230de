import { parseYamlMapping, withSettingsAnswers } from "@agent-orchestrator/shared/bmad";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { type SettingsLayers } from "@agent-orchestrator/shared/wire";
import { canonicalVirtualPath, type Sandbox, type SandboxContext } from "../sandbox/index.js";
import { findWorkflowReferences } from "./workflow-references.js";
import { createVariableResolver, resolveDeep } from "./workflow-variables.js";

/** A file preloaded for the model. */
export interface PreloadedFile {
  path: string;
  content: string;
  truncated: boolean;
}

/** Everything a workflow needs to start, in one answer (docs/design.md "Tools"). */
export interface PreloadedWorkflow {
  /** the workflow.yaml, virtual */
  path: string;
  workflow: { name: string; description: string; variables: Record<string, unknown> };
  files: PreloadedFile[];
  /** files the workflow names that could not be loaded, virtual; not fatal */
  missing: string[];
}

// workflow.yaml keys that name its component files
const componentKey = /^(instructions|template|validation|checklist)$|_template$/;
const hiddenKeys = new Set(["name", "description", "web_bundle"]);
const leadingRoot = /^\{(project-root|bundle-root|core-root|session-folder)\}/;

/**
 * Loads a workflow the way BMAD's engine would start it: the workflow.yaml with its variables resolved
 * (shown as virtual paths), then in parallel its instructions, templates and checklist, then, also in
 * parallel, what the instructions ask for: the engine (`workflow.xml` or `workflow.md`), the elicitation
 * task for `<elicit-required>`, `<invoke-workflow>` targets' workflow.yaml and `<invoke-task>` files. The config
 * `config_source` names takes the chat's settings over its own answers. Every
 * read goes through the sandbox. Only the workflow.yaml itself must load; anything else is listed missing.
 */
export async function preloadWorkflow(
  sandbox: Sandbox,
  context: SandboxContext,
  workflowPath: string,
  options: { today: Date; logger: Logger; settings?: SettingsLayers | undefined },
): Promise<PreloadedWorkflow> {
  const target = /\.ya?ml$/i.test(workflowPath) ? workflowPath : `${workflowPath.replace(/\/+$/, "")}/workflow.yaml`;
  const source = await sandbox.read(context, target);
  const raw = parseMapping(source.content, source.path);
  const { lexical } = await sandbox.roots(context);
  const loader = new FileLoader(sandbox, context, options.logger, [source.path]);

  // the config first: values refer to it through `{config_source}:name`
  let config: Record<string, unknown> | undefined;
  if (typeof raw["config_source"] === "string") {
    const configPath = canonicalVirtualPath(createVariableResolver({ workflow: raw, config: undefined, today: options.today })(raw["config_source"]), lexical);
    const file = (await loader.load([configPath]))[0];
    config = file === undefined ? undefined : parseMapping(file.content, file.path, options.logger);
    // the chat's project's and member's answers over the install's, as the engine would read them (docs/settings.md)
    if (config !== undefined && options.settings !== undefined) config = { ...config, ...withSettingsAnswers({}, options.settings) };
  }
  const resolveText = createVariableResolver({ workflow: raw, config, today: options.today });
  const resolvePath = (text: string) => canonicalVirtualPath(resolveText(text), lexical);
  // in workflow.yaml values the engine also fills `{{name}}` when it knows the value (`…-{{date}}.md`)
  const resolveValue = (text: string) =>
    resolvePath(text.replace(/\{\{([A-Za-z0-9_-]+)\}\}/g, (whole, name: string) => known(resolveText(`{${name}}`), name) ?? whole));
  const variables = Object.fromEntries(
    Object.entries(raw)
      .filter(([key]) => !hiddenKeys.has(key))
      .map(([key, value]) => [key, value === "system-generated" ? (known(resolveText(`{${key}}`), key) ?? value) : resolveDeep(value, resolveValue)]),
  );

  const components = Object.entries(variables)
    .filter((entry): entry is [string, string] => componentKey.test(entry[0]) && typeof entry[1] === "string" && isFilePath(entry[1]))
    .map(([, value]) => value);
  const files = await loader.load(components, { reportUnresolved: true });

  const instructions = typeof variables["instructions"] === "string" ? loader.loaded.get(variables["instructions"])?.content ?? "" : "";
  const references = findWorkflowReferences(instructions, source.content);
  const conditional = [
    ...(references.elicit ? ["{core-root}/tasks/adv-elicit.xml"] : []),
    ...references.workflows.map((reference) => {
      const resolved = resolvePath(reference);
      return /\.ya?ml$/i.test(resolved) ? resolved : `${resolved.replace(/\/+$/, "")}/workflow.yaml`;
    }),
    ...references.tasks.map(resolvePath),
  ];
  const [engine, extra] = await Promise.all([loader.loadEngine(references.engine), loader.load(conditional)]);
  return {
    path: source.path,
    workflow: { name: String(raw["name"] ?? ""), description: String(raw["description"] ?? ""), variables },
    files: [...files, ...engine, ...extra],
    missing: loader.missing,
  };
}

/** Reads files through the sandbox, each at most once; what fails is remembered as missing. */
class FileLoader {
  readonly missing: string[] = [];
  /** loaded files by the path they were asked for */
  readonly loaded = new Map<string, PreloadedFile>();
  private readonly seen: Set<string>;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly context: SandboxContext,
    private readonly logger: Logger,
    alreadyLoaded: string[],
  ) {
    this.seen = new Set(alreadyLoaded);
  }

  /**
   * Loads the paths in parallel, in order. A path with a variable still unresolved is a runtime value
   * (`{story_id}`): skipped, or reported missing when `reportUnresolved` (a component the workflow needs).
   */
  async load(paths: readonly string[], options: { reportUnresolved?: boolean } = {}): Promise<PreloadedFile[]> {
    const fresh = [...new Set(paths)].filter((candidate) => {
      if (this.seen.has(candidate)) return false;
      this.seen.add(candidate);
      if (!candidate.replace(leadingRoot, "").includes("{")) return true;
      if (options.reportUnresolved) this.missing.push(candidate);
      return false;
    });
    const loaded = await Promise.all(fresh.map((candidate) => this.read(candidate)));
    return loaded.filter((file): file is PreloadedFile => file !== undefined);
  }

  /** The engine the instructions name; when they name none, workflow.xml, else workflow.md. */
  async loadEngine(named: string | undefined): Promise<PreloadedFile[]> {
    if (named !== undefined) return this.load([`{core-root}/tasks/${named}`]);
    const candidates = ["{core-root}/tasks/workflow.xml", "{core-root}/tasks/workflow.md"];
    for (const candidate of candidates) {
      if (this.seen.has(candidate)) return [];
    }
    candidates.forEach((candidate) => this.seen.add(candidate));
    for (const candidate of candidates) {
      const file = await this.read(candidate, { quiet: true });
      if (file) return [file];
    }
    this.missing.push(candidates[0] ?? "");
    return [];
  }

  private async read(candidate: string, options: { quiet?: boolean } = {}): Promise<PreloadedFile | undefined> {
    try {
      const { path, content, truncated } = await this.sandbox.read(this.context, candidate);
      const file = { path, content, truncated };
      this.loaded.set(candidate, file);
      return file;
    } catch (error) {
      if (!AppError.is(error)) throw error;
      this.logger.info({ session_id: this.context.session_id, path: candidate, code: error.code, detail: error.detail }, "preload: file not loaded");
      if (!options.quiet) this.missing.push(candidate);
      return undefined;
    }
  }
}

/** The value resolved for `{name}`, or undefined when it stayed unresolved. */
function known(resolved: string, name: string): string | undefined {
  return resolved === `{${name}}` ? undefined : resolved;
}

function isFilePath(value: string): boolean {
  return !value.includes("\n") && (value.includes("/") || /\.[A-Za-z0-9]+$/.test(value));
}

/** Parses YAML that must be a mapping; with a logger a bad file is logged and skipped instead of failing. */
function parseMapping(text: string, virtualPath: string): Record<string, unknown>;
function parseMapping(text: string, virtualPath: string, logger: Logger): Record<string, unknown> | undefined;
function parseMapping(text: string, virtualPath: string, logger?: Logger): Record<string, unknown> | undefined {
  const parsed = parseYamlMapping(text);
  if (parsed.ok) return parsed.value;
  const problem = parsed.reason;
  if (logger) {
    logger.warn({ path: virtualPath, problem }, "preload: config file unusable");
    return undefined;
  }
  throw new AppError("VALIDATION_ERROR", `Not a workflow file: ${virtualPath}: ${problem}`);
}
