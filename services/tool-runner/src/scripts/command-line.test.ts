import { describe, expect, it } from "vitest";
import { splitCommandLine } from "./command-line.js";

describe("splitCommandLine", () => {
  it("splits words as sh quotes them, without expanding anything", () => {
    expect(splitCommandLine(`uv run "{project-root}/a b.py" --text "it's \\"done\\"" --field topic='$X' --windows '<map>'`)).toEqual([
      "uv",
      "run",
      "{project-root}/a b.py",
      "--text",
      'it\'s "done"',
      "--field",
      "topic=$X",
      "--windows",
      "<map>",
    ]);
  });

  it("reads a backslash-newline as a line continuation, as BMAD's multi-line script lines use it", () => {
    expect(splitCommandLine("python3 x.py generate \\\n  --out a")).toEqual(["python3", "x.py", "generate", "--out", "a"]);
  });

  it("keeps quoted newlines, backticks in single quotes and quoted operators as text", () => {
    expect(splitCommandLine("p x.py --text 'a `b` c' \"x;y|z\" \"l1\nl2\"")).toEqual(["p", "x.py", "--text", "a `b` c", "x;y|z", "l1\nl2"]);
  });

  it.each([
    ["a; b", "`;`"],
    ["a && b", "`&&`"],
    ["a & b", "`&`"],
    ["a | b", "`|`"],
    ["a > f", "`>`"],
    ["a 2>&1", "`>&`"],
    ["a < f", "`<`"],
    ["a <(b)", "`<(`"],
    ["(a)", "`(`"],
    ["a $(id)", "$(…)"],
    ["a ${HOME}", "$HOME"],
    ['a "$HOME"', "$HOME"],
    ["a `id`", "backticks"],
    ['a "`id`"', "backticks"],
    ["a\nb", "line break"],
    ["a *.py", "file pattern"],
    ["a # note", "comment"],
    ["a 'open", "single quote is not closed"],
    ['a "open', "double quote is not closed"],
    ["a \u0007", "control characters"],
    ["", "empty"],
  ])("refuses %j", (command, reason) => {
    expect(() => splitCommandLine(command)).toThrow(expect.objectContaining({ code: "SCRIPT_REJECTED", message: expect.stringContaining(reason) }));
  });

  it("refuses an over-long command and too many words", () => {
    expect(() => splitCommandLine(`a ${"x".repeat(20_000)}`)).toThrow(/longer than/);
    expect(() => splitCommandLine("a ".repeat(300))).toThrow(/more than 256 words/);
  });
});
