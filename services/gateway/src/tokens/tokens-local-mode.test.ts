import { describe, expect, it } from "vitest";
import { gatewayFixture } from "../testing/gateway-fixture.js";

// neither AUTH_TOKENS nor OIDC_ISSUER: the local single-user mode, where every caller is `local`
const fixture = gatewayFixture({ AUTH_TOKENS: "" });

describe("personal tokens without sign-in", () => {
  it("makes and lists none: every caller is `local` already, so a token would protect nothing", async () => {
    const made = await fetch(`${fixture.url()}/api/tokens`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "x" }) });
    expect(made.status).toBe(403);
    expect(((await made.json()) as { error: { message: string } }).error.message).toMatch(/need sign-in/);
    expect((await fetch(`${fixture.url()}/api/tokens`)).status).toBe(403);
  });
});
