/**
 * Secrets by their well-known shapes (docs/security.md case 271): API keys of OpenAI, Anthropic, GitHub, GitLab,
 * Slack, AWS and Google, this system's personal tokens (`aop_`), bearer tokens, JWTs and private key blocks.
 */
const secretShapes: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(sk|rk|pk)-(ant-|proj-|live_|test_)?[A-Za-z0-9_-]{20,}/g,
  /\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,})/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\baop_[A-Za-z0-9_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
];

/**
 * `text` with every secret of a well-known shape replaced by `[secret removed]`. A compaction's hand-off travels
 * further than the chat did: to the compaction route's server, and into every later prompt; what no one should
 * reread is left out of it. It is a net for the shapes that leak most, not a guarantee.
 */
export function withoutSecrets(text: string): string {
  return secretShapes.reduce((result, shape) => result.replace(shape, "[secret removed]"), text);
}
