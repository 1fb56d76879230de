/**
 * `run_command` (docs/commands.md): the model's shell commands, each in a bubblewrap sandbox over a working tree. Open
 * one `CommandRunner` per process with `startCommandRunner` (undefined when commands are off).
 */
export { CommandRunner, type CommandRequest, type CommandRun, type CommandRunnerOptions } from "./command-runner.js";
export { commandLimitMessage, type CommandLimitName } from "./command-limits.js";
export type { CommandPlace } from "./command-place.js";
export { startCommandRunner, type CommandSettings } from "./start-command-runner.js";
