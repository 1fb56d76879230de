import { describe, expect, it } from "vitest";
import { parseScriptCommand } from "./script-command.js";

describe("parseScriptCommand", () => {
  it.each([
    ["uv run {project-root}/_bmad/scripts/memlog.py init --workspace w", ["init", "--workspace", "w"]],
    ["uv run --no-cache -q {project-root}/_bmad/scripts/memlog.py", []],
    ["python3 {project-root}/_bmad/scripts/memlog.py -x", ["-x"]],
    ["python -u -B {project-root}/_bmad/scripts/memlog.py", []],
  ])("accepts %j", (command, args) => {
    expect(parseScriptCommand(command)).toEqual({ script: "{project-root}/_bmad/scripts/memlog.py", args });
  });

  it.each([
    ["python3 -c 'print(1)'", "`-c` runs inline code"],
    ["python3 -cimport", "`-c` runs inline code"],
    ["python3 -m http.server", "`-m` runs a module"],
    ["python3 - x.py", "reads code from stdin"],
    ["python3 -I x.py", "`-I` is not supported"],
    ["uv run --with requests x.py", "`--with` is not supported"],
    ["uv pip install x", "only `uv run"],
    ["bash x.sh", "`bash` is not run"],
    ["sh -c 'x'", "`sh` is not run"],
    ["node x.js", "`node` is not run"],
    ["A=b python3 x.py", "environment assignments"],
    ["python3 x.sh", "not a Python script"],
    ["python3", "no script is named"],
    ["uv run", "no script is named"],
  ])("refuses %j", (command, reason) => {
    expect(() => parseScriptCommand(command)).toThrow(expect.objectContaining({ code: "SCRIPT_REJECTED", message: expect.stringContaining(reason) }));
  });
});
