import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { describe, expect, it } from "vitest";
import { discoveryLimits, registryEnvSchema } from "./config.js";

describe("registry configuration", () => {
  it("has defaults for everything", () => {
    const result = parseEnv(registryEnvSchema, {});
    expect(result).toMatchObject({
      ok: true,
      value: { BMAD_ROOT: ".", REGISTRY_WATCH: true, REGISTRY_FORCE_POLL: false, REGISTRY_POLL_MS: 1000, REGISTRY_MAX_FILE_BYTES: 1048576, REGISTRY_MAX_BUNDLES: 5000 },
    });
    if (result.ok) expect(discoveryLimits(result.value)).toEqual({ maxFileBytes: 1048576, maxSources: 5000, maxAgentsPerSource: 200 });
  });

  it("reads booleans the way people write them", () => {
    expect(parseEnv(registryEnvSchema, { REGISTRY_WATCH: "false", REGISTRY_FORCE_POLL: "yes" })).toMatchObject({ ok: true, value: { REGISTRY_WATCH: false, REGISTRY_FORCE_POLL: true } });
    expect(parseEnv(registryEnvSchema, { REGISTRY_WATCH: "0" })).toMatchObject({ ok: true, value: { REGISTRY_WATCH: false } });
  });

  it("names the variable and the value when one is wrong", () => {
    const result = parseEnv(registryEnvSchema, { REGISTRY_POLL_MS: "fast" });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/^Invalid configuration: REGISTRY_POLL_MS \("fast"\)/);
    expect(parseEnv(registryEnvSchema, { REGISTRY_WATCH: "perhaps" }).ok).toBe(false);
  });
});
