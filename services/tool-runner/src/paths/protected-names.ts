import path from "node:path";

/**
 * The folder of a session where the tool-runner keeps its completion records of tool calls (call-records.ts):
 * the system's own, so protected like the names below.
 */
export const callRecordFolderName = ".tool-calls";

/**
 * Names denied for reading and writing wherever they appear below a root: version control, secrets and
 * tool configuration (docs/security.md "What the model may touch"). Compared case-insensitively, because `.GIT` is `.git`
 * on a case-insensitive filesystem (docs/security.md case 28).
 */
const protectedNames = new Set([
  ".git",
  ".gitconfig",
  ".git-credentials",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  ".pgpass",
  ".htpasswd",
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config",
  ".bash_history",
  ".zsh_history",
  callRecordFolderName,
]);

/**
 * Private keys and certificate stores, wherever they sit: `id_rsa`, `id_ed25519.pub`, `server.pem`, `tls.key`,
 * `store.p12`, `release.keystore` (a BMAD tree or skill folder now being readable must not expose one).
 */
const privateKeyName = /^id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/;

/**
 * True for a protected segment: the names above, every `.env*` (`.env`, `.env.local`, `.envrc`), and
 * private-key-like names.
 */
export function isProtectedSegment(segment: string): boolean {
  const lower = segment.toLowerCase();
  return protectedNames.has(lower) || lower.startsWith(".env") || privateKeyName.test(lower);
}

/** The first protected segment of a root-relative path, if any. */
export function findProtectedSegment(relativePath: string): string | undefined {
  return relativePath.split(path.sep).find(isProtectedSegment);
}
