import { describe, expect, it } from "vitest";
import type { PersonalTokenRecord } from "@agent-orchestrator/shared/wire";
import { stillAdmitted } from "../auth/admission.js";
import { admissionRules as rules } from "../testing/admission-rules.js";
import { tokenSignIn } from "./token-sign-in-migration.js";

/** A token of `user` as a gateway stored it before the way its user signed in was kept: no `sign_in`. */
const storedBefore = (user: string): PersonalTokenRecord => ({ id: "6f1c1c1e-0000-4000-8000-000000000001", name: "old", user, hash: "0".repeat(64), created_at: "2026-01-01T00:00:00.000Z", expires_at: null });

describe("tokenSignIn", () => {
  it("case 262: checks a token stored before the way its user signed in was kept against AUTH_TOKENS only", () => {
    expect(stillAdmitted("bob", tokenSignIn(storedBefore("bob")), rules)).toBe(true);
    expect(stillAdmitted("bob", tokenSignIn(storedBefore("bob")), { ...rules, AUTH_TOKENS: new Map([["alice-token-1111", "alice"]]) })).toBe(false);
    expect(stillAdmitted("erin", tokenSignIn(storedBefore("erin")), rules)).toBe(false);
  });
});
