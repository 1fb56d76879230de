import { describe, expect, it } from "vitest";
import { serviceEnvironment } from "./service-env.js";

const shell = {
  PATH: "/usr/bin",
  OPENAI_API_KEY: "sk-model",
  AUTH_TOKENS: "alice:s3cret-token",
  GITHUB_TOKEN: "ghp_x",
  AWS_SECRET_ACCESS_KEY: "aws",
  NATS_GATEWAY_PASSWORD: "n1",
  CONTEXT_BUDGET_TOKENS: "100000",
  LLM_MODEL: "gpt-4o-mini",
};

describe("each service started with only the environment it needs", () => {
  it("gives the tool-runner and the registry no model key, no auth tokens and no other credential", () => {
    for (const service of ["tool-runner", "registry"]) {
      expect(Object.keys(serviceEnvironment(service, shell)).sort()).toEqual(["CONTEXT_BUDGET_TOKENS", "LLM_MODEL", "PATH"]);
    }
  });

  it("gives the gateway its tokens but not the model key", () => {
    const environment = serviceEnvironment("gateway", shell);
    expect(environment["AUTH_TOKENS"]).toBe("alice:s3cret-token");
    expect(environment).not.toHaveProperty("OPENAI_API_KEY");
  });

  it("gives the orchestrator the model key but not the gateway's tokens", () => {
    const environment = serviceEnvironment("orchestrator", shell);
    expect(environment["OPENAI_API_KEY"]).toBe("sk-model");
    expect(environment).not.toHaveProperty("AUTH_TOKENS");
    expect(environment).not.toHaveProperty("GITHUB_TOKEN");
  });
});
