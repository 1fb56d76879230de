import { describe, expect, it } from "vitest";
import { detectLanguage, isDetectableLanguage } from "./language.js";

describe("detectLanguage", () => {
  it("tells the languages of a greeting apart", () => {
    expect(detectLanguage("Bonjour Ada ! Je suis Mary. Voici ce que je peux faire pour vous. Que voulez-vous faire ?")).toBe("french");
    expect(detectLanguage("Hello Ada! I am Mary. Here is what I can do for you. What would you like to do?")).toBe("english");
    expect(detectLanguage("Hallo Ada! Ich bin Mary, und das ist, was ich heute für Sie tun kann.")).toBe("german");
    expect(detectLanguage("¡Hola Ada! Soy Mary. Aquí está lo que puedo hacer para usted hoy.")).toBe("spanish");
  });

  it("names no language for a text too short to tell", () => {
    expect(detectLanguage("📊 Ada")).toBeUndefined();
  });

  it("knows the languages by BMAD's config names, in any case", () => {
    expect(isDetectableLanguage("French")).toBe(true);
    expect(isDetectableLanguage("Klingon")).toBe(false);
    expect(isDetectableLanguage("constructor")).toBe(false);
  });
});
