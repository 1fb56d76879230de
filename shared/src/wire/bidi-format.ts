import { z } from "zod";

// U+202A–U+202E (embeddings, overrides), U+2066–U+2069 (isolates), U+200E, U+200F (marks), U+061C (Arabic letter mark)
const bidiFormatCharacter = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const everyBidiFormatCharacter = new RegExp(bidiFormatCharacter.source, "gu");

/**
 * The bidi format characters: invisible, they reorder the text around them, so `report\u202Eexe.md` shows as
 * `reportdm.exe` and a name reads as another (docs/security.md "Projects"). Names people give are refused with
 * them; names made from other text (a chat's first message) have them taken out where they become file names.
 */
export const hasBidiFormat = (text: string): boolean => bidiFormatCharacter.test(text);

/** `text` without its bidi format characters. */
export const withoutBidiFormat = (text: string): string => text.replace(everyBidiFormatCharacter, "");

/** A name a person gives (a project's, a chat's title): trimmed, 1 to `max` characters, no bidi format character. */
export const givenName = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((name) => !hasBidiFormat(name), {
      message: "may not hold bidi format characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C): they make a name read as another",
    });
