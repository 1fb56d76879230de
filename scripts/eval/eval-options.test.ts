import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EvalOptions, evalHelp, parseEvalArguments } from "./eval-options.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

describe("npm run eval -- --help", () => {
  it("asks for the help with --help or -h, whatever else the command line holds", () => {
    expect(parseEvalArguments(["--help"])).toEqual({ ok: true, help: true });
    expect(parseEvalArguments(["-h"])).toEqual({ ok: true, help: true });
    expect(parseEvalArguments(["--model", "m", "--help"])).toEqual({ ok: true, help: true });
  });

  it("names every option with its meaning", () => {
    const help = evalHelp();
    expect(help).toMatch(/^usage: npm run eval -- --base-url URL --model NAME/);
    for (const name of Object.keys(EvalOptions.shape)) expect(help).toContain(`--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} `);
    expect(help).toMatch(/--repeat\s+runs of every journey/);
    expect(help).toContain("docs/eval.md");
  });

  it("prints the usage on stdout and exits 0, starting nothing", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/eval/main.ts", "--help"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("usage: npm run eval -- --base-url URL --model NAME");
    expect(run.stdout).toContain("--judge-api-key-env");
    expect(run.stderr).toBe("");
  });
});
