import { describe, expect, it } from "vitest";
import { findProtectedSegment, isProtectedSegment } from "./protected-names.js";

describe("protected names", () => {
  it("protects version control, secrets and dot-config folders", () => {
    for (const name of [".git", ".env", ".env.local", ".envrc", ".npmrc", ".ssh", ".aws", ".netrc"]) {
      expect(isProtectedSegment(name)).toBe(true);
    }
  });

  it("compares case-insensitively (docs/security.md case 28)", () => {
    expect(isProtectedSegment(".GIT")).toBe(true);
    expect(isProtectedSegment(".Git")).toBe(true);
    expect(isProtectedSegment(".ENV")).toBe(true);
  });

  it("protects private keys and certificate stores, in any case", () => {
    for (const name of ["id_rsa", "id_rsa.pub", "ID_ED25519", "id_ecdsa_sk", "server.pem", "tls.KEY", "store.p12", "cert.pfx", "release.keystore", "app.jks"]) {
      expect(isProtectedSegment(name)).toBe(true);
    }
  });

  it("leaves ordinary names alone", () => {
    for (const name of ["git", "env.md", "config.yaml", ".github-notes.md", "my.env", "keys.md", "key-points.md", "id_card.md", "pemmican.md", "monkey.yaml"]) {
      expect(isProtectedSegment(name)).toBe(false);
    }
  });

  it("finds a protected segment anywhere in a relative path", () => {
    expect(findProtectedSegment("a/.git/hooks/pre-commit")).toBe(".git");
    expect(findProtectedSegment("a/b/c.md")).toBeUndefined();
  });
});
