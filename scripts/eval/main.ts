/**
 * `npm run eval -- --base-url URL --model NAME …`: a BMAD adherence evaluation of an OpenAI-compatible endpoint
 * through the real system (docs/eval.md). Progress goes to stderr, the table to stdout; the exit code is 0 when
 * the eval ran (failed checks are results, not errors) or `--help` printed the usage, 1 when it could not run, 2
 * for a bad command line.
 */
import { evalHelp, evalUsage, parseEvalArguments } from "./eval-options.js";
import { runEval } from "./run-eval.js";

const parsed = parseEvalArguments(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.error}\n${evalUsage}\n`);
  process.exit(2);
}
if (parsed.help) {
  process.stdout.write(`${evalHelp()}\n`);
  process.exit(0);
}
try {
  await runEval(parsed.options, { progress: (line) => process.stderr.write(`${line}\n`), table: (text) => process.stdout.write(`${text}\n`) });
} catch (error) {
  process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
