import { rename, symlink } from "node:fs/promises";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";

let fixture: SandboxFixture;

beforeEach(async () => {
  fixture = await createSandboxFixture();
});
afterEach(() => fixture.cleanup());

describe("bundle realpaths kept between calls", () => {
  it("still refuses the outside when a bundle read a moment ago is swapped for a symlink out of the project", async () => {
    await expect(fixture.sandbox.read(fixture.context, "{bundle-root}/config.yaml")).resolves.toMatchObject({ content: "user_name: Ada\n" });
    await rename(fixture.bundle, `${fixture.bundle}-moved`);
    await symlink(fixture.outside, fixture.bundle);
    const error = await fixture.sandbox.read(fixture.context, "{bundle-root}/secret").catch((failure: unknown) => failure);
    expect(AppError.is(error) && error.code).toBe("SYMLINK_ESCAPE");
  });
});
