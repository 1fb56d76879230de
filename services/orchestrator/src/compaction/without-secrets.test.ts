import { describe, expect, it } from "vitest";
import { withoutSecrets } from "./without-secrets.js";

describe("withoutSecrets (docs/security.md case 271)", () => {
  it("removes keys, tokens and private keys of well-known shapes and leaves the words around them", () => {
    const text = [
      "my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123 ok",
      "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "aws AKIAABCDEFGHIJKLMNOP",
      "ours aop_abcdefghijklmnopqrstuvwxyz012345",
      "Authorization: Bearer abcdefghijklmnop.qrstuv",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    ].join("\n");
    const cleaned = withoutSecrets(text);
    for (const secret of ["sk-proj-", "ghp_", "AKIA", "aop_", "abcdefghijklmnop.qrstuv", "MIIE"]) expect(cleaned).not.toContain(secret);
    expect(cleaned).toContain("my key is [secret removed] ok");
    expect(cleaned.match(/\[secret removed\]/g)).toHaveLength(6);
  });

  it("leaves ordinary text alone", () => {
    const text = "The PRD has 12 functional requirements; skill bmad-create-epics-and-stories, step-02.";
    expect(withoutSecrets(text)).toBe(text);
  });
});
