import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { configSections, configurationDocPath, configurationDocument, describeVariable, sectionVariables } from "./generate-configuration-docs.js";

describe("docs/configuration.md", () => {
  const written = readFileSync(configurationDocPath, "utf8");

  it("is what `npm run docs:config` generates from the schemas today", () => {
    // stale: run `npm run docs:config` and commit docs/configuration.md
    expect(written).toBe(configurationDocument());
  });

  it("lists every variable of every service's schema, each with a description", () => {
    for (const section of configSections) {
      for (const name of Object.keys(section.schema.shape)) {
        expect(written, `${name} of "${section.heading}"`).toContain(`| \`${name}\` |`);
      }
      for (const name of sectionVariables(section)) {
        const doc = describeVariable(name, section.schema.shape[name] as z.ZodType);
        expect(doc.description, `${name} has no .describe() text`).not.toBe("");
      }
    }
  });
});
