import type { Logger } from "@agent-orchestrator/shared";
import type { ToolRunnerConfig } from "../config.js";
import type { Sandbox } from "../sandbox/index.js";
import { checkScriptSandbox, type ScriptSandboxCheck } from "./script-sandbox-check.js";
import { ScriptRunner } from "./script-runner.js";

/** The SCRIPT_* settings a runner is made from. */
export type ScriptSettings = Pick<ToolRunnerConfig, "SCRIPTS" | "SCRIPT_TIMEOUT_MS" | "SCRIPT_MEMORY_MB" | "SCRIPT_OUTPUT_MAX_BYTES" | "SCRIPT_CONCURRENCY">;

/**
 * The script runner of a tool-runner, or undefined when scripts are off. `SCRIPTS=auto` checks the sandbox
 * once and turns scripts off with one WARN line when it does not work; `on` throws instead (the process does
 * not start); `off` never checks.
 */
export async function startScriptRunner(options: {
  settings: ScriptSettings;
  sandbox: Sandbox;
  logger: Logger;
  spawnAs?: { uid: number; gid: number } | undefined;
  /** the sandbox check; tests replace it to see a failing one */
  check?: typeof checkScriptSandbox;
}): Promise<ScriptRunner | undefined> {
  const { settings, logger } = options;
  if (settings.SCRIPTS === "off") {
    logger.info("run_script is off (SCRIPTS=off)");
    return undefined;
  }
  const check: ScriptSandboxCheck = await (options.check ?? checkScriptSandbox)({ spawnAs: options.spawnAs });
  if (!check.ok) {
    if (settings.SCRIPTS === "on") throw new Error(`SCRIPTS=on but the script sandbox does not work: ${check.reason}`);
    logger.warn({ reason: check.reason }, `run_script is off: the script sandbox does not work here (${check.reason}); set SCRIPTS=off to silence this`);
    return undefined;
  }
  if (process.getuid?.() === 0 && options.spawnAs === undefined) {
    logger.warn("the tool-runner runs as root: the kernel does not apply the scripts' process-count limit to root; run it as an unprivileged user (the image does)");
  }
  return new ScriptRunner({
    sandbox: options.sandbox,
    timeoutMs: settings.SCRIPT_TIMEOUT_MS,
    memoryMb: settings.SCRIPT_MEMORY_MB,
    outputMaxBytes: settings.SCRIPT_OUTPUT_MAX_BYTES,
    concurrency: settings.SCRIPT_CONCURRENCY,
    spawnAs: options.spawnAs,
  });
}
