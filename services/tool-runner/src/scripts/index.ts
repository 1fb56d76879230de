/**
 * `run_script` (docs/scripts.md): BMAD's Python scripts, parsed without a shell and run in a bubblewrap sandbox. Open
 * one `ScriptRunner` per process with `startScriptRunner` (undefined when scripts are off).
 */
export { ScriptRunner, type ScriptCaller, type ScriptRun, type ScriptRunnerOptions } from "./script-runner.js";
export { startScriptRunner, type ScriptSettings } from "./start-script-runner.js";
export { checkScriptSandbox, type ScriptSandboxCheck } from "./script-sandbox-check.js";
