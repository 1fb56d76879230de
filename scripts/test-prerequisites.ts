/**
 * Run by `npm test` first: makes sure the programs the suite drives exist outside npm. run_script's tests run
 * BMAD's Python scripts in Debian's bubblewrap with the system python3 and util-linux's prlimit, at the paths
 * the tool-runner uses (its `sandboxPrograms`). On a Debian machine where the test runs as root (CI), a missing
 * package is installed with apt-get; anywhere else the run stops with the command to run. (The browser comes
 * from npm, see test/support/chromium-path.ts; NATS from the nats-server binary, NATS_URL or Docker, see
 * test/support/nats-harness.ts.) Then it fetches the BMAD releases the corpus tests read from npm into the
 * install cache (test/support/corpus.ts), once, so that no test file waits for them or races another to get them.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { sandboxPrograms } from "@agent-orchestrator/tool-runner";
import { corpusInstall, corpusPackage, corpusV4Package } from "@agent-orchestrator/testing/corpus";

const needed: ReadonlyArray<{ path: string; debianPackage: string }> = [
  { path: sandboxPrograms.bwrap, debianPackage: "bubblewrap" },
  { path: sandboxPrograms.python, debianPackage: "python3" },
  { path: sandboxPrograms.prlimit, debianPackage: "util-linux" },
];

const missing = needed.filter((program) => !existsSync(program.path));
if (missing.length > 0) {
  const packages = missing.map((program) => program.debianPackage);
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) {
    console.error(`npm test needs ${missing.map((program) => program.path).join(", ")}: install them with \`sudo apt-get install ${packages.join(" ")}\`.`);
    process.exit(1);
  }
  console.log(`test prerequisites: installing ${packages.join(" ")} with apt-get`);
  const install = () => spawnSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit" }).status === 0;
  if (!install() && !(spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" }).status === 0 && install())) {
    console.error(`apt-get could not install ${packages.join(" ")}`);
    process.exit(1);
  }
}

await Promise.all([corpusInstall(), corpusPackage(), corpusV4Package()]).catch((error: unknown) => {
  console.error(`npm test could not fetch the BMAD corpus from npm: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
