/**
 * Which language a text is in, for the greeting's `communication_language` check: the share of each known
 * language's commonest words among the text's words. No dependency: a handful of European languages is what
 * BMAD's installer offers by name, and a check that must be explained in docs/eval.md should be this simple.
 */
const commonWords: Readonly<Record<string, readonly string[]>> = {
  english: ["the", "and", "you", "your", "is", "are", "to", "of", "for", "what", "with", "here", "can", "i", "i'm", "my", "this", "would", "like", "do", "today", "help", "let's", "me", "it", "in", "a"],
  french: ["le", "la", "les", "de", "des", "du", "je", "vous", "votre", "vos", "est", "et", "pour", "que", "qui", "une", "un", "avec", "voici", "suis", "sur", "ce", "dans", "pas", "aujourd'hui", "bonjour", "quoi", "faire"],
  german: ["der", "die", "das", "und", "ich", "sie", "ihr", "ihre", "ist", "sind", "zu", "mit", "für", "was", "hier", "ein", "eine", "bin", "kann", "wie", "heute", "nicht", "den", "dem", "hallo"],
  spanish: ["el", "la", "los", "las", "de", "y", "yo", "usted", "tu", "su", "es", "son", "para", "que", "con", "aquí", "una", "un", "soy", "puedo", "qué", "hoy", "del", "hola", "cómo"],
  italian: ["il", "lo", "la", "gli", "le", "di", "e", "io", "tu", "lei", "sono", "è", "per", "che", "con", "ecco", "una", "un", "posso", "cosa", "oggi", "del", "della", "ciao", "come"],
  portuguese: ["o", "a", "os", "as", "de", "e", "eu", "você", "seu", "sua", "é", "são", "para", "que", "com", "aqui", "uma", "um", "sou", "posso", "hoje", "do", "da", "olá", "como"],
};

/** The languages the detector knows, by the names BMAD's config uses (`French`, `german`, …). */
export function isDetectableLanguage(language: string): boolean {
  return Object.hasOwn(commonWords, language.trim().toLowerCase());
}

/** The known language whose common words are most frequent in `text`, or undefined when no language shows. */
export function detectLanguage(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  let best: { language: string; hits: number } | undefined;
  for (const [language, list] of Object.entries(commonWords)) {
    const known = new Set(list);
    const hits = words.filter((word) => known.has(word)).length;
    if (hits > 0 && (best === undefined || hits > best.hits)) best = { language, hits };
  }
  return best && best.hits >= 3 ? best.language : undefined;
}
