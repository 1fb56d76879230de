import { describe, expect, it } from "vitest";
import { matchesCommandPattern } from "./command-pattern.js";

describe("matchesCommandPattern", () => {
  it("matches the whole command, * standing for any text", () => {
    expect(matchesCommandPattern("git status*", "git status")).toBe(true);
    expect(matchesCommandPattern("git status*", "git status --short")).toBe(true);
    expect(matchesCommandPattern("npm test", "npm test")).toBe(true);
    expect(matchesCommandPattern("npm test", "npm test --watch")).toBe(false);
    expect(matchesCommandPattern("npm test", "xnpm test")).toBe(false);
    expect(matchesCommandPattern("git * --dry-run", "git push origin main --dry-run")).toBe(true);
    expect(matchesCommandPattern("git * --dry-run", "git push origin main")).toBe(false);
    expect(matchesCommandPattern("*", "anything at all")).toBe(true);
  });

  it("takes every other character as itself (no regular expression, no ? or [])", () => {
    expect(matchesCommandPattern("ls a.b", "ls axb")).toBe(false);
    expect(matchesCommandPattern("ls ?", "ls x")).toBe(false);
    expect(matchesCommandPattern("ls [ab]", "ls a")).toBe(false);
    expect(matchesCommandPattern("ls [ab]", "ls [ab]")).toBe(true);
  });

  it("counts runs of whitespace as one space, and is case-sensitive", () => {
    expect(matchesCommandPattern("git  status*", "git status")).toBe(true);
    expect(matchesCommandPattern("git status*", "  git\tstatus  -s")).toBe(true);
    expect(matchesCommandPattern("git status*", "GIT status")).toBe(false);
  });

  it("does not start a match inside a word: git status* does not match gitx status", () => {
    expect(matchesCommandPattern("git status*", "gitx status")).toBe(false);
    expect(matchesCommandPattern("git status*", "sudo git status")).toBe(false);
  });

  it("answers for a pattern of many stars against a long command it does not match (one step back per star, no backtracking blow-up)", () => {
    const pattern = `${"*a".repeat(40)}*b`;
    expect(matchesCommandPattern(pattern, "a".repeat(8_000))).toBe(false);
  });
});
