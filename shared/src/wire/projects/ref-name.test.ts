import { describe, expect, it } from "vitest";
import { ChatBranchName, chatBranch, isAcceptedRefName } from "./ref-name.js";

describe("ref names", () => {
  it("takes the ref names a person types and refuses the ones that hide or escape (case 93)", () => {
    for (const name of ["refs/heads/main", "refs/heads/chat/s-1", "refs/tags/v1.0.0", "refs/heads/feature/JIRA-12_fix"]) expect(isAcceptedRefName(name)).toBe(true);
    for (const name of [
      "refs/heads/../../config",
      "refs/heads/a..b",
      "refs/heads/x~1",
      "refs/heads/x^",
      "refs/heads/a:b",
      "refs/heads/.hidden",
      "refs/heads/a.lock",
      "refs/heads/a\u0007",
      "refs/heads/fix\u202egnp",
      "refs/heads/a b",
      "refs/heads/a@{1}",
      "refs/heads/",
      "refs/remotes/origin/main",
      "HEAD",
      `refs/heads/${"a".repeat(300)}`,
    ]) {
      expect(isAcceptedRefName(name), name).toBe(false);
    }
  });

  it("starts a chat on a branch a person names, never on another chat's or on a name git or a reader would misread (case 309)", () => {
    for (const name of ["story/1-2-login", "main", "feature/JIRA-12_fix"]) expect(ChatBranchName.safeParse(name).success, name).toBe(true);
    for (const name of ["", "../main", "a..b", "feature/.x", "x.lock", "fix\u202egnp", "a\nb", "a b", "HEAD@{1}", "chat/other-chat", chatBranch("s-1"), "a".repeat(250)]) {
      expect(ChatBranchName.safeParse(name).success, JSON.stringify(name)).toBe(false);
    }
  });
});
