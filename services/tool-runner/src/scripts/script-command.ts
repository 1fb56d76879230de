import { rejected, splitCommandLine } from "./command-line.js";

/** A command line reduced to what is run: the script as the model named it, and its arguments. */
export interface ScriptCommand {
  /** the script's path as written, e.g. `{project-root}/_bmad/scripts/memlog.py` */
  script: string;
  args: string[];
}

/**
 * `uv run` flags that change nothing once the script runs under the sandbox's own python3 (BMAD's scripts use
 * only the standard library, docs/bmad-releases.md). Flags that take a value (`--with`, `--python`, `--env-file`)
 * would install packages or read files, and are refused.
 */
const uvRunFlags = new Set(["--script", "-q", "--quiet", "--no-cache", "--no-project", "--offline", "--isolated"]);
/** python flags that change nothing of what runs: unbuffered output and no bytecode files. */
const pythonFlags = new Set(["-u", "-B"]);

const pythonNames = new Set(["python3", "python"]);

/**
 * Accepts only `uv run [flags] <script.py> args…`, `python3 [-u|-B] <script.py> args…` and the same with
 * `python`. Everything else is SCRIPT_REJECTED with a reason: another program, `-c` (inline code), `-m` (a
 * module), `-` (code from stdin), a file that is not `.py`, an environment assignment in front.
 */
export function parseScriptCommand(command: string): ScriptCommand {
  const words = splitCommandLine(command);
  const program = words[0] ?? "";
  let index: number;
  let flags: ReadonlySet<string>;
  if (program === "uv") {
    if (words[1] !== "run") throw rejected("only `uv run <script.py> …` is supported of uv");
    index = 2;
    flags = uvRunFlags;
  } else if (pythonNames.has(program)) {
    index = 1;
    flags = pythonFlags;
  } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) {
    throw rejected("environment assignments are not supported; run `uv run <script.py> …` or `python3 <script.py> …`");
  } else {
    throw rejected(`\`${program}\` is not run; only BMAD's Python scripts run, as \`uv run <script.py> …\` or \`python3 <script.py> …\``);
  }
  while (index < words.length && (words[index] ?? "").startsWith("-")) {
    const flag = words[index] ?? "";
    if (!flags.has(flag)) throw rejected(flagReason(program, flag));
    index++;
  }
  const script = words[index];
  if (script === undefined) throw rejected("no script is named");
  if (!script.endsWith(".py")) throw rejected(`\`${script}\` is not a Python script (.py)`);
  return { script, args: words.slice(index + 1) };
}

function flagReason(program: string, flag: string): string {
  if (program !== "uv") {
    if (flag === "-c" || flag.startsWith("-c")) return "`-c` runs inline code; only script files of the BMAD install run";
    if (flag === "-m" || flag.startsWith("-m")) return "`-m` runs a module; only script files of the BMAD install run";
    if (flag === "-") return "`-` reads code from stdin; only script files of the BMAD install run";
  }
  return `the option \`${flag}\` is not supported; leave it out`;
}
